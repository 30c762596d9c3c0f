package integration_test

// Provable copies: against vsftpd a mirror kept as a BagIt bag validates
// and survives an incremental rerun with --delete, and mirror --check
// finds a flipped byte, a removed and an added file without the network;
// ProFTPD with mod_digest proves each file by its own checksum, vsftpd by
// none.

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
)

func TestFixityBagitOverFTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	name := "fixity-bagit"
	src := scratchTree(t, name)
	url := "ftp://" + itest.FTPHost + "/scratch/" + name + "/"
	dir := filepath.Join(t.TempDir(), "bag")

	r := itest.Run(t, nil, nil, "mirror", "-q", "--bagit", url, dir)
	if r.Code != 0 {
		t.Fatalf("mirror --bagit: exit %d: %s", r.Code, r.Stderr)
	}
	r = itest.Run(t, nil, nil, "bag", "validate", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "valid bag: 6 files") {
		t.Fatalf("bag validate: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	// The manifest holds the sha256 of the server's bytes, under data/.
	m, err := os.ReadFile(filepath.Join(dir, "manifest-sha256.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := itest.FileSHA256(filepath.Join(src, "sub1", "file3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m), want+"  data/sub1/file3.txt\n") {
		t.Errorf("manifest lacks data/sub1/file3.txt with %s:\n%s", want, m)
	}
	info, _ := os.ReadFile(filepath.Join(dir, "bag-info.txt"))
	if !strings.Contains(string(info), "External-Identifier: "+url+"\n") || !strings.Contains(string(info), "Bag-Software-Agent: gofer ") {
		t.Errorf("bag-info.txt:\n%s", info)
	}

	// An incremental rerun: one file changed, one added, one removed.
	os.WriteFile(filepath.Join(src, "sub0", "file0.txt"), []byte("changed, and longer than before\n"), 0o644)
	os.WriteFile(filepath.Join(src, "sub0", "added.txt"), []byte("added\n"), 0o644)
	os.Remove(filepath.Join(src, "sub1", "file5.txt"))
	r = itest.Run(t, nil, nil, "mirror", "--json", "--bagit", "--delete", url, dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"new":1,"updated":1,"unchanged":4`) || !strings.Contains(r.Stdout, `"deleted":1`) {
		t.Fatalf("rerun: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = itest.Run(t, nil, nil, "bag", "validate", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "valid bag: 6 files") {
		t.Fatalf("bag validate after the rerun: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	m, _ = os.ReadFile(filepath.Join(dir, "manifest-sha256.txt"))
	if strings.Contains(string(m), "file5.txt") || !strings.Contains(string(m), "  data/sub0/added.txt\n") {
		t.Errorf("manifest after the rerun:\n%s", m)
	}

	// --check: clean, then a flipped byte, a removed and an added file.
	r = itest.Run(t, nil, nil, "mirror", "--check", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "6 files") {
		t.Fatalf("check: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	flip := filepath.Join(dir, "data", "sub1", "file3.txt")
	b, _ := os.ReadFile(flip)
	b[len(b)/2] ^= 1
	os.WriteFile(flip, b, 0o644)
	os.Remove(filepath.Join(dir, "data", "sub0", "file2.txt"))
	os.WriteFile(filepath.Join(dir, "data", "stray"), []byte("x"), 0o644)
	r = itest.Run(t, nil, nil, "mirror", "--check", dir)
	for _, want := range []string{"changed data/sub1/file3.txt (sha256 ", "missing data/sub0/file2.txt\n", "added data/stray\n", "1 changed, 1 missing, 1 added"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, r.Stdout)
		}
	}
	if r.Code != 1 {
		t.Errorf("check of a changed bag: exit %d, want 1", r.Code)
	}
	r = itest.Run(t, nil, nil, "bag", "validate", dir)
	for _, want := range []string{dir + ": data/sub1/file3.txt: sha256 is ", dir + ": data/sub0/file2.txt: listed in manifest-sha256.txt, missing", dir + ": data/stray: in the payload, not in manifest-sha256.txt"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("bag validate lacks %q:\n%s", want, r.Stderr)
		}
	}
	if r.Code != 1 {
		t.Errorf("bag validate of a changed bag: exit %d, want 1", r.Code)
	}
}

// mirrorJSON runs gofer mirror --json with args and decodes its summary.
func mirrorJSON(t *testing.T, args ...string) (itest.Result, map[string]any) {
	t.Helper()
	r := itest.Run(t, nil, nil, append([]string{"mirror", "--json"}, args...)...)
	var sum map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatalf("mirror %q: exit %d, no summary (%v): %s%s", args, r.Code, err, r.Stdout, r.Stderr)
	}
	return r, sum
}

// TestFixityProFTPDDigest: ProFTPD's mod_digest proves every file of a
// mirror, by the strongest hash it offers (SHA-512, through HASH), asked
// with the file; the state keeps it and the rerun fetches nothing.
func TestFixityProFTPDDigest(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.ProFTPDHost+":2123")
	src := filepath.Join(itest.FTPMoreDir(), "archive", "names")
	files := 0
	filepath.WalkDir(src, func(_ string, de fs.DirEntry, err error) error {
		if err == nil && de.Type().IsRegular() {
			files++
		}
		return nil
	})
	if files == 0 {
		t.Fatal("no files to mirror")
	}
	dir := t.TempDir()
	url := "ftp://" + itest.ProFTPDHost + ":2123/archive/names/"
	prefix := filepath.Join(t.TempDir(), "crawl")
	r, sum := mirrorJSON(t, "--verify", "always", "--warc", prefix, url, dir)
	if r.Code != 0 || sum["verified"] != float64(files) || sum["unverified"] != float64(0) {
		t.Fatalf("exit %d, verified %v unverified %v of %d files: %s", r.Code, sum["verified"], sum["unverified"], files, r.Stderr)
	}
	if algs, _ := sum["verify_algorithms"].(map[string]any); len(algs) != 1 || algs["SHA-512"] != float64(files) {
		t.Errorf("verify_algorithms %v", sum["verify_algorithms"])
	}
	// The HASH commands went out, and no file was read back.
	log, _ := os.ReadFile(filepath.Join(itest.LogDir(), "proftpd-digest.log"))
	if n := strings.Count(string(log), "[HASH "); n < files {
		t.Errorf("%d HASH commands in the server's log, want %d", n, files)
	}
	if r := itest.Run(t, nil, nil, "mirror", "--check", dir); r.Code != 0 {
		t.Errorf("check: exit %d %s", r.Code, r.Stdout)
	}
	// Each file's WARC record carries the server's claim in a field of its own.
	segs, _ := filepath.Glob(prefix + "-*.warc.gz")
	claims := 0
	for _, seg := range segs {
		f, err := os.Open(seg)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(zr)
		f.Close()
		claims += strings.Count(string(b), "\r\nGofer-Server-Digest: sha-512:")
	}
	if claims != files {
		t.Errorf("%d records with Gofer-Server-Digest in %q, want %d", claims, segs, files)
	}
	if r := itest.Run(t, nil, nil, "warc", "check", prefix); r.Code != 0 {
		t.Errorf("warc check: exit %d %s", r.Code, r.Stderr)
	}
	// A bag of it names the algorithm that proved its files.
	bag := t.TempDir()
	if r := itest.Run(t, nil, nil, "mirror", "-q", "--bagit", url, bag); r.Code != 0 {
		t.Fatalf("mirror --bagit: exit %d %s", r.Code, r.Stderr)
	}
	info, _ := os.ReadFile(filepath.Join(bag, "bag-info.txt"))
	if !strings.Contains(string(info), "\nGofer-Server-Hash-Algorithm: SHA-512\n") {
		t.Errorf("bag-info.txt:\n%s", info)
	}
	if r := itest.Run(t, nil, nil, "bag", "validate", bag); r.Code != 0 {
		t.Errorf("bag validate: exit %d %s", r.Code, r.Stderr)
	}
}

// TestFixityVsftpdNoHashes: vsftpd offers no hash: auto proves nothing and
// says so; always fails each file, exit 5, none kept.
func TestFixityVsftpdNoHashes(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	name := "fixity-nohash"
	scratchTree(t, name)
	url := "ftp://" + itest.FTPHost + "/scratch/" + name + "/"
	r := itest.Run(t, nil, nil, "mirror", url, t.TempDir())
	if r.Code != 0 || !strings.Contains(r.Stdout, "proven by the server's checksum: none (the server gave none); unverified: 6") {
		t.Errorf("auto: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	dir := t.TempDir()
	r, sum := mirrorJSON(t, "--verify", "always", url, dir)
	if r.Code != 5 || sum["failed"] != float64(6) || sum["verified"] != float64(0) || !strings.Contains(r.Stdout, "the server gave no checksum of it") {
		t.Errorf("always: exit %d, %v failed: %s", r.Code, sum["failed"], r.Stdout)
	}
	if n, _ := filepath.Glob(filepath.Join(dir, "sub*", "*")); len(n) != 0 {
		t.Errorf("unproven files kept: %q", n)
	}
}

// TestFixityCorruptedInFlight: a relay in front of ProFTPD with
// mod_digest flips a bit of the first data connection: the server's
// SHA-512 catches it, the file is fetched again and proven; flipped on
// every transfer, it fails (exit 5) and is never kept.
func TestFixityCorruptedInFlight(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.ProFTPDHost+":2123")
	want, err := os.ReadFile(filepath.Join(itest.FTPMoreDir(), "archive", "text", "plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flip     int64
		code     int
		verified float64
	}{{1, 0, 1}, {100, 5, 0}} {
		r, err := relay.Listen("127.0.0.1:0", itest.ProFTPDHost+":2123", true, relay.Config{Faults: relay.Faults{Flip: tc.flip}})
		if err != nil {
			t.Fatal(err)
		}
		port := r.Addr()[strings.LastIndexByte(r.Addr(), ':')+1:]
		dir := t.TempDir()
		res, sum := mirrorJSON(t, "--verify", "always", "--retries", "2", "--allow-port", port,
			"ftp://"+r.Addr()+"/archive/text/plain.txt", dir)
		counts := r.Counts()
		r.Close()
		retries, _ := sum["retries_by_kind"].(map[string]any)
		if res.Code != tc.code || sum["verified"] != tc.verified || counts.Flips == 0 || retries["verify"] != float64(min(tc.flip, 2)) {
			t.Errorf("flip %d: exit %d, verified %v, retries %v, relay %+v: %s", tc.flip, res.Code, sum["verified"], sum["retries_by_kind"], counts, res.Stdout)
		}
		got, err := os.ReadFile(filepath.Join(dir, "plain.txt"))
		switch {
		case tc.code == 0 && string(got) != string(want):
			t.Errorf("flip %d: plain.txt %q, want %q (%v)", tc.flip, got, want, err)
		case tc.code != 0 && err == nil:
			t.Errorf("flip %d: corrupted plain.txt kept: %q", tc.flip, got)
		}
	}
}

// treeState is every path under dir with its size, time and sha256: what
// a read-only command must leave as it found.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		fi, err := de.Info()
		if err != nil {
			t.Fatal(err)
		}
		sum := ""
		if de.Type().IsRegular() {
			if sum, err = itest.FileSHA256(p); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&b, "%s %d %s %s\n", p, fi.Size(), fi.ModTime().UTC().Format(time.RFC3339Nano), sum)
		return nil
	})
	return b.String()
}

// TestFixityCheckRemote: mirror --check --remote against ProFTPD with
// mod_digest compares each file by the server's SHA-512, asked for in
// pipelined batches with each directory's listing: an untouched mirror
// differs in nothing (exit 0); a file rewritten with bytes of the same
// size and the same time (which only a checksum tells), a file added, a
// file and a directory removed are each named (exit 1), and nothing on
// disk changes. Against vsftpd, which offers no checksum, it compares
// sizes and times and says so. A server gone is exit 4.
func TestFixityCheckRemote(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.ProFTPDHost+":2123")
	itest.Require(t, itest.FTPHost+":21")
	src := itest.FTPMoreScratch(t)
	old := time.Date(2011, 2, 3, 4, 5, 6, 0, time.UTC)
	for p, body := range map[string]string{"a.txt": "alpha\n", "c.txt": "gamma\n", "sub/b.txt": "beta\n", "gone/d.txt": "delta\n", "gone/e.txt": "epsilon\n"} {
		p = filepath.Join(src, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	url := "ftp://" + itest.ProFTPDHost + ":2123/scratch/" + t.Name() + "/"
	dir := t.TempDir()
	if r := itest.Run(t, nil, nil, "mirror", "-q", url, dir); r.Code != 0 {
		t.Fatalf("mirror: exit %d: %s", r.Code, r.Stderr)
	}
	r := itest.Run(t, nil, nil, "mirror", "--check", "--remote", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "checked on the server: 3 directories, 5 files: by the server's checksum: 5 (SHA-512 5); 0 changed there, 0 gone, 0 new\n") {
		t.Fatalf("check --remote of an untouched mirror: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}

	os.WriteFile(filepath.Join(src, "a.txt"), []byte("ALPHA\n"), 0o644) // same size
	os.Chtimes(filepath.Join(src, "a.txt"), old, old)                   // same time
	os.WriteFile(filepath.Join(src, "sub", "new.txt"), []byte("new\n"), 0o644)
	os.Remove(filepath.Join(src, "c.txt"))
	os.RemoveAll(filepath.Join(src, "gone"))
	before := treeState(t, dir)
	r = itest.Run(t, nil, nil, "mirror", "--check", "--remote", dir)
	for _, want := range []string{
		"remote-changed a.txt (the server's SHA-512 ", "gone c.txt\n", "gone gone/d.txt\n", "gone gone/e.txt\n", "new sub/new.txt\n",
		"by the server's checksum: 2 (SHA-512 2); 1 changed there, 3 gone, 1 new\n",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("check --remote lacks %q:\n%s%s", want, r.Stdout, r.Stderr)
		}
	}
	if r.Code != 1 {
		t.Errorf("check --remote of a changed server: exit %d, want 1", r.Code)
	}
	if after := treeState(t, dir); after != before {
		t.Errorf("check --remote changed DIR:\nbefore %s\nafter %s", before, after)
	}
	// The hashes went out with the listings, several in one pipelined
	// batch: the server logged no RETR since the mirror.
	log, _ := os.ReadFile(filepath.Join(itest.LogDir(), "proftpd-digest.log"))
	if n := strings.Count(string(log), "[HASH a.txt]"); n < 3 {
		t.Errorf("%d HASH a.txt in the server's log, want one by the mirror and one by each check", n)
	}

	// vsftpd: no checksum, sizes and times, said so.
	name := "fixity-remote"
	vsrc := scratchTree(t, name)
	vdir := t.TempDir()
	vurl := "ftp://" + itest.FTPHost + "/scratch/" + name + "/"
	if r := itest.Run(t, nil, nil, "mirror", "-q", vurl, vdir); r.Code != 0 {
		t.Fatalf("mirror from vsftpd: exit %d: %s", r.Code, r.Stderr)
	}
	r = itest.Run(t, nil, nil, "mirror", "--check", "--remote", vdir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "6 files: by the server's checksum: none, by size and time: 6 (the server offers no checksum); 0 changed there") {
		t.Errorf("vsftpd, untouched: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	os.WriteFile(filepath.Join(vsrc, "sub0", "file0.txt"), []byte("longer than it was before\n"), 0o644)
	r = itest.Run(t, nil, nil, "mirror", "--check", "--remote", vdir)
	if r.Code != 1 || !strings.Contains(r.Stdout, "remote-changed sub0/file0.txt (26 bytes, the mirror's listing 70 (by size and time: the server gave no checksum of it))\n") {
		t.Errorf("vsftpd, a file changed: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}

	// A mirror whose server is gone: a connection error, exit 4.
	rl, err := relay.Listen("127.0.0.1:0", itest.FTPHost+":21", true, relay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	port := rl.Addr()[strings.LastIndexByte(rl.Addr(), ':')+1:]
	gdir := t.TempDir()
	if r := itest.Run(t, nil, nil, "mirror", "-q", "--allow-port", port, "ftp://"+rl.Addr()+"/scratch/"+name+"/", gdir); r.Code != 0 {
		t.Fatalf("mirror through the relay: exit %d: %s", r.Code, r.Stderr)
	}
	rl.Close()
	r = itest.Run(t, nil, nil, "mirror", "--check", "--remote", "--allow-port", port, gdir)
	if r.Code != 4 {
		t.Errorf("check --remote of a server gone: exit %d, want 4: %s%s", r.Code, r.Stdout, r.Stderr)
	}
}
