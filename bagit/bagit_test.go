package bagit

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// payload is the test bag's payload: names that need percent-encoding
// (%, LF, CR), a space, a subdirectory and an empty file.
var payload = map[string]string{
	"data/hello.txt":       "hello, bag\n",
	"data/sub/dir/a b.bin": "\x00\x01\x02",
	"data/100%.txt":        "percent",
	"data/line\nbreak.txt": "lf",
	"data/carriage\rret":   "cr",
	"data/empty":           "",
	"data/sub/%0A-literal": "a name that looks encoded",
}

func sumHex(alg, s string) string {
	switch alg {
	case "md5":
		b := md5.Sum([]byte(s))
		return hex.EncodeToString(b[:])
	}
	b := sha256.Sum256([]byte(s))
	return hex.EncodeToString(b[:])
}

// makeBag writes a valid bag with sha256 and md5 manifests, bag-info.txt
// with its Payload-Oxum and a sha256 tag manifest.
func makeBag(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	octets := 0
	for p, body := range payload {
		fp := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(fp), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fp, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		octets += len(body)
	}
	if err := WriteDeclaration(dir); err != nil {
		t.Fatal(err)
	}
	paths := slices.Sorted(maps.Keys(payload))
	for _, alg := range []string{"sha256", "md5"} {
		err := WriteManifest(dir, alg, func(yield func(string, string) bool) {
			for _, p := range paths {
				if !yield(p, sumHex(alg, payload[p])) {
					return
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err := WriteBagInfo(dir, []Field{{"Source-Organization", "gofer tests"},
		{"Payload-Oxum", oxumOf(octets, len(payload))}})
	if err != nil {
		t.Fatal(err)
	}
	retag(t, dir)
	return dir
}

func oxumOf(octets, files int) string {
	return strconv.Itoa(octets) + "." + strconv.Itoa(files)
}

func retag(t *testing.T, dir string) {
	t.Helper()
	err := WriteTagManifest(dir, "sha256", []string{DeclarationFile, BagInfoFile, ManifestName("sha256"), ManifestName("md5")})
	if err != nil {
		t.Fatal(err)
	}
}

func problems(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	st, err := Validate(dir, func(p Problem) { got = append(got, p.String()) })
	if err != nil {
		t.Fatal(err)
	}
	if st.Problems != len(got) {
		t.Errorf("Stats.Problems %d, %d reported", st.Problems, len(got))
	}
	return got
}

// wantProblem asserts that the bag has problems and that one of them
// holds every one of the words.
func wantProblem(t *testing.T, dir string, words ...string) {
	t.Helper()
	got := problems(t, dir)
	for _, p := range got {
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(p, w)
		}
		if ok {
			return
		}
	}
	t.Errorf("no problem with %q among %q", words, got)
}

func TestValidBag(t *testing.T) {
	dir := makeBag(t)
	var got []string
	st, err := Validate(dir, func(p Problem) { got = append(got, p.String()) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("valid bag: problems %q", got)
	}
	if st.Files != int64(len(payload)) || !slices.Equal(st.Algorithms, []string{"sha256", "md5"}) {
		t.Errorf("stats %+v", st)
	}
	// The manifest holds the encoded names, one line each.
	m, _ := os.ReadFile(filepath.Join(dir, ManifestName("sha256")))
	for _, want := range []string{"data/100%25.txt", "data/line%0Abreak.txt", "data/carriage%0Dret", "data/sub/%250A-literal"} {
		if !strings.Contains(string(m), "  "+want+"\n") {
			t.Errorf("manifest lacks %q:\n%s", want, m)
		}
	}
	if n := strings.Count(string(m), "\n"); n != len(payload) {
		t.Errorf("manifest has %d lines, want %d", n, len(payload))
	}
}

// A bag written by another tool, by hand here: CR LF line endings, tabs
// between checksum and path, upper-case hex and no tag manifest.
func TestValidForeignBag(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "x.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "bagit.txt"), []byte("BagIt-Version: 0.97\r\nTag-File-Character-Encoding: UTF-8\r\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "manifest-sha256.txt"), []byte(strings.ToUpper(sumHex("sha256", "x"))+"\t data/x.txt\r\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bag-info.txt"), []byte("Contact-Name: A\r\n  Continued\r\nPayload-Oxum: 1.1\r\n"), 0o644)
	if got := problems(t, dir); len(got) != 0 {
		t.Fatalf("problems %q", got)
	}
}

func edit(t *testing.T, dir, name string, fn func(string) string) {
	t.Helper()
	fp := filepath.Join(dir, name)
	b, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fp, []byte(fn(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBrokenBags(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T, dir string)
		words  []string
	}{
		{"wrong manifest line", func(t *testing.T, dir string) {
			edit(t, dir, ManifestName("sha256"), func(s string) string {
				return strings.Replace(s, sumHex("sha256", "hello, bag\n"), sumHex("sha256", "other"), 1)
			})
		}, []string{"data/hello.txt", "sha256 is", "manifest-sha256.txt says " + sumHex("sha256", "other")}},
		{"flipped payload byte", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "data", "hello.txt"), []byte("hello, bah\n"), 0o644)
		}, []string{"data/hello.txt", "md5 is"}},
		{"payload file missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "data", "empty"))
		}, []string{"data/empty", "missing from the payload"}},
		{"payload file added", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "data", "new"), nil, 0o644)
		}, []string{"data/new", "not in manifest-md5.txt"}},
		{"file in one manifest only", func(t *testing.T, dir string) {
			edit(t, dir, ManifestName("md5"), func(s string) string {
				lines := strings.SplitAfter(s, "\n")
				return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.HasSuffix(l, " data/hello.txt\n") }), "")
			})
		}, []string{"data/hello.txt", "not in manifest-md5.txt"}},
		{"encoded name decoded", func(t *testing.T, dir string) {
			// Written raw, the LF splits the line: neither half names the file.
			edit(t, dir, ManifestName("sha256"), func(s string) string { return strings.ReplaceAll(s, "%0A", "\n") })
		}, []string{"manifest-sha256.txt", "line"}},
		{"no declaration", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, DeclarationFile))
		}, []string{"bagit.txt: missing"}},
		{"bad version", func(t *testing.T, dir string) {
			edit(t, dir, DeclarationFile, func(s string) string { return strings.Replace(s, "1.0", "one", 1) })
		}, []string{"bagit.txt", `BagIt-Version "one"`}},
		{"other encoding", func(t *testing.T, dir string) {
			edit(t, dir, DeclarationFile, func(s string) string { return strings.Replace(s, "UTF-8", "ISO-8859-1", 1) })
		}, []string{"bagit.txt", "ISO-8859-1", "only UTF-8"}},
		{"declaration out of order", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, DeclarationFile), []byte("Tag-File-Character-Encoding: UTF-8\nBagIt-Version: 1.0\n"), 0o644)
		}, []string{"bagit.txt", "exactly BagIt-Version then"}},
		{"byte-order mark", func(t *testing.T, dir string) {
			edit(t, dir, DeclarationFile, func(s string) string { return "\ufeff" + s })
		}, []string{"bagit.txt", "byte-order mark"}},
		{"no payload manifest", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, ManifestName("sha256")))
			os.Remove(filepath.Join(dir, ManifestName("md5")))
		}, []string{"no payload manifest"}},
		{"no payload directory", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "data"))
		}, []string{"data/: the payload directory is missing"}},
		{"path outside payload", func(t *testing.T, dir string) {
			edit(t, dir, ManifestName("sha256"), func(s string) string { return s + sumHex("sha256", "") + "  ../etc/passwd\n" })
		}, []string{"manifest-sha256.txt", "../etc/passwd", "leads out of the bag"}},
		{"tag file as payload", func(t *testing.T, dir string) {
			edit(t, dir, ManifestName("sha256"), func(s string) string { return s + sumHex("sha256", "") + "  bag-info.txt\n" })
		}, []string{"manifest-sha256.txt", "not in the payload"}},
		{"listed twice", func(t *testing.T, dir string) {
			edit(t, dir, ManifestName("sha256"), func(s string) string { return s + sumHex("sha256", "") + "  data/empty\n" })
		}, []string{"manifest-sha256.txt", `"data/empty" is listed twice`}},
		{"short checksum", func(t *testing.T, dir string) {
			edit(t, dir, ManifestName("md5"), func(s string) string { return s + "abcd  data/empty\n" })
		}, []string{"manifest-md5.txt", "4 digits"}},
		{"not hex", func(t *testing.T, dir string) {
			edit(t, dir, ManifestName("md5"), func(s string) string { return s + "xyz  data/empty\n" })
		}, []string{"manifest-md5.txt", "not hexadecimal"}},
		{"no path", func(t *testing.T, dir string) {
			edit(t, dir, ManifestName("md5"), func(s string) string { return s + sumHex("md5", "") + "\n" })
		}, []string{"manifest-md5.txt", "is not \"CHECKSUM PATH\""}},
		{"unknown algorithm", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "manifest-crc32.txt"), nil, 0o644)
		}, []string{"manifest-crc32.txt", `"crc32"`}},
		{"wrong oxum", func(t *testing.T, dir string) {
			edit(t, dir, BagInfoFile, func(s string) string {
				i := strings.Index(s, "Payload-Oxum: ")
				return s[:i] + "Payload-Oxum: 1.1\n"
			})
		}, []string{"bag-info.txt", "Payload-Oxum 1.1, the payload holds"}},
		{"bad oxum", func(t *testing.T, dir string) {
			edit(t, dir, BagInfoFile, func(s string) string { return s + "Payload-Oxum: lots\n" })
		}, []string{"bag-info.txt", "not OCTETS.FILES"}},
		{"tag file changed", func(t *testing.T, dir string) {
			edit(t, dir, BagInfoFile, func(s string) string { return s + "Contact-Name: later\n" })
		}, []string{"bag-info.txt: sha256 is", "tagmanifest-sha256.txt says"}},
		{"tag manifest misses a payload manifest", func(t *testing.T, dir string) {
			WriteTagManifest(dir, "sha256", []string{DeclarationFile})
		}, []string{"tagmanifest-sha256.txt", "does not list the payload manifest manifest-md5.txt"}},
		{"tag manifest lists payload", func(t *testing.T, dir string) {
			edit(t, dir, TagManifestName("sha256"), func(s string) string { return s + sumHex("sha256", "") + "  data/empty\n" })
		}, []string{"tagmanifest-sha256.txt", "is a payload file"}},
		{"tag manifest lists a tag manifest", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, TagManifestName("md5")), nil, 0o644)
			edit(t, dir, TagManifestName("sha256"), func(s string) string { return s + sumHex("sha256", "") + "  tagmanifest-md5.txt\n" })
		}, []string{"tagmanifest-sha256.txt", "lists the tag manifest"}},
		{"tag file missing", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, BagInfoFile))
		}, []string{"bag-info.txt: listed in tagmanifest-sha256.txt, missing"}},
		{"fetch file not fetched", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, FetchFile), []byte("https://example.org/hello.txt 11 data/hello.txt\n"), 0o644)
			os.Remove(filepath.Join(dir, "data", "hello.txt"))
		}, []string{"data/hello.txt", "listed in fetch.txt, not fetched"}},
		{"fetch file in no manifest", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, FetchFile), []byte("https://example.org/x - data/x\n"), 0o644)
		}, []string{"fetch.txt", `"data/x" is in no payload manifest`}},
		{"fetch line malformed", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, FetchFile), []byte("https://example.org/x many data/empty\n"), 0o644)
		}, []string{"fetch.txt", "neither a number nor -"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeBag(t)
			tc.break_(t, dir)
			wantProblem(t, dir, tc.words...)
		})
	}
}

// A payload file listed in fetch.txt and present is part of a valid bag.
func TestFetchedFileValid(t *testing.T) {
	dir := makeBag(t)
	os.WriteFile(filepath.Join(dir, FetchFile), []byte("https://example.org/hello.txt 11 data/hello.txt\n"), 0o644)
	if got := problems(t, dir); len(got) != 0 {
		t.Fatalf("problems %q", got)
	}
}

func TestPathEncoding(t *testing.T) {
	for raw, enc := range map[string]string{
		"plain": "plain",
		"a%b":   "a%25b",
		"l\nf":  "l%0Af",
		"c\rr":  "c%0Dr",
		"%0A":   "%250A",
		"x%":    "x%25",
	} {
		if got := EncodePath(raw); got != enc {
			t.Errorf("EncodePath(%q) = %q, want %q", raw, got, enc)
		}
		if got := DecodePath(enc); got != raw {
			t.Errorf("DecodePath(%q) = %q, want %q", enc, got, raw)
		}
	}
	// Lower-case hex and a '%' that encodes nothing this RFC names.
	if got := DecodePath("a%0ab%20c%"); got != "a\nb%20c%" {
		t.Errorf("DecodePath = %q", got)
	}
}

func TestNotABagDir(t *testing.T) {
	if _, err := Validate(filepath.Join(t.TempDir(), "none"), func(Problem) {}); err == nil {
		t.Fatal("a directory that does not exist validated")
	}
}
