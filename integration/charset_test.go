package integration_test

// Names in any charset against the harness's vsftpd and pygopherd
// (integration/LAYOUT.md: archive/names/ holds Latin-1 named files and a
// Latin-1 named directory beside UTF-8 ones). Without --remote-charset a
// name is its bytes: listed with its URL percent-encoded octet by octet
// (RFC 1738 §2.2), raw_name in --json, fetched by that URL with gofer and
// with curl, mirrored under the same bytes. With --remote-charset latin1
// the names read as UTF-8 text, the URLs keep the server's bytes, a URL
// typed in UTF-8 is sent in Latin-1, and a mirror writes UTF-8 names.

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
)

// latin1Names are the archive's names under names/ that are Latin-1, not
// UTF-8, with the kind of entry each is.
var latin1Names = map[string]string{
	"caf\xe9-latin1.txt":   "file",
	"\xfcber-latin1.txt":   "file",
	"mixed \xe9 and é.txt": "file",
	"latin1-\xe9-dir":      "dir",
}

// latin1 reads s as ISO-8859-1: every byte is the code point of its value.
func latin1(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

type charsetEntry struct {
	Name    string `json:"name"`
	RawName string `json:"raw_name"`
	Type    string `json:"type"`
	URL     string `json:"url"`
}

type charsetListing struct {
	Entries []charsetEntry `json:"entries"`
}

// serverBytes is an entry's name as the server's bytes: raw_name decoded
// when the listing gives one, else name.
func serverBytes(e charsetEntry) string {
	if e.RawName == "" {
		return e.Name
	}
	return schemes.Decode(e.RawName)
}

func listNames(t *testing.T, args ...string) charsetListing {
	t.Helper()
	code, out, errOut := runCLI(t, t.TempDir(), nil, append([]string{"get", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("get --json %q: exit %d: %s", args, code, errOut)
	}
	var l charsetListing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return l
}

// curlBytes fetches url with curl, which sends the URL's octets as they are.
func curlBytes(t *testing.T, url string) string {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	out, err := exec.Command("curl", "-sS", "--max-time", "30", url).Output()
	if err != nil {
		t.Fatalf("curl %s: %v", url, err)
	}
	return string(out)
}

// TestCharsetFTPNamesAsBytes: without --remote-charset each Latin-1 name
// is listed with its octets percent-encoded in its URL (never '?' or
// U+FFFD), with raw_name in --json, and that URL fetches the file's bytes
// with gofer and with curl alike.
func TestCharsetFTPNamesAsBytes(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	base := "ftp://" + itest.FTPHost + "/archive/names/"
	code, text, errOut := runCLI(t, t.TempDir(), nil, "get", base)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	l := listNames(t, base)
	found := 0
	for _, e := range l.Entries {
		raw := serverBytes(e)
		want, ok := latin1Names[raw]
		if !ok {
			continue
		}
		found++
		u := base + schemes.Escape(raw)
		if want == "dir" {
			u += "/"
		}
		if e.Type != want || e.URL != u || e.RawName != schemes.Escape(raw) {
			t.Errorf("entry %+v, want type %s, url %s", e, want, u)
		}
		if strings.ContainsAny(e.URL, "?\ufffd") || !strings.Contains(text, "  "+u+"\n") {
			t.Errorf("text listing has no line ending in %s:\n%s", u, text)
		}
		if want == "dir" {
			inner := listNames(t, u)
			if len(inner.Entries) != 1 || inner.Entries[0].URL != u+"file.txt" {
				t.Errorf("%s lists %+v", u, inner.Entries)
			}
			continue
		}
		body := string(archiveFile(t, "names/"+raw))
		if code, out, errOut := runCLI(t, t.TempDir(), nil, "get", u); code != 0 || out != body {
			t.Errorf("gofer get %s: exit %d, %q: %s", u, code, out, errOut)
		}
		if got := curlBytes(t, u); got != body {
			t.Errorf("curl %s: %q, want %q", u, got, body)
		}
	}
	if found != len(latin1Names) {
		t.Errorf("%d of %d Latin-1 names listed: %+v", found, len(latin1Names), l.Entries)
	}
}

// TestCharsetFTPLatin1Listing: with --remote-charset latin1 the names are
// UTF-8 text and the URLs still the server's octets, which fetch the same
// bytes with gofer (with or without the option) and with curl.
func TestCharsetFTPLatin1Listing(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	base := "ftp://" + itest.FTPHost + "/archive/names/"
	l := listNames(t, "--remote-charset", "latin1", base)
	found := 0
	for raw, typ := range latin1Names {
		u := base + schemes.Escape(raw)
		if typ == "dir" {
			u += "/"
		}
		for _, e := range l.Entries {
			if e.URL != u {
				continue
			}
			found++
			if e.Name != latin1(raw) || e.RawName != "" || !utf8.ValidString(e.Name) {
				t.Errorf("entry %+v: want name %q, no raw_name", e, latin1(raw))
			}
			if typ == "dir" {
				continue
			}
			body := string(archiveFile(t, "names/"+raw))
			for _, args := range [][]string{{"get", "--remote-charset", "latin1", u}, {"get", u}} {
				if code, out, errOut := runCLI(t, t.TempDir(), nil, args...); code != 0 || out != body {
					t.Errorf("gofer %q: exit %d, %q: %s", args, code, out, errOut)
				}
			}
			if got := curlBytes(t, u); got != body {
				t.Errorf("curl %s: %q", u, got)
			}
		}
	}
	if found != len(latin1Names) {
		t.Errorf("%d of %d Latin-1 names found by URL: %+v", found, len(latin1Names), l.Entries)
	}
}

// TestCharsetFTPTypedUTF8: a URL typed in UTF-8 (café as %C3%A9) fetches
// the Latin-1 named file with --remote-charset latin1, and -O names it in
// UTF-8; without the option the same URL names a file that is not there.
func TestCharsetFTPTypedUTF8(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	u := "ftp://" + itest.FTPHost + "/archive/names/café-latin1.txt"
	body := string(archiveFile(t, "names/caf\xe9-latin1.txt"))
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, nil, "get", "--remote-charset", "latin1", u)
	if code != 0 || out != body {
		t.Errorf("get --remote-charset latin1 %s: exit %d, %q: %s", u, code, out, errOut)
	}
	if code, _, errOut := runCLI(t, dir, nil, "get", "-q", "-O", "--remote-charset", "iso-8859-1", u); code != 0 {
		t.Errorf("-O: exit %d: %s", code, errOut)
	} else if got, err := os.ReadFile(filepath.Join(dir, "café-latin1.txt")); err != nil || string(got) != body {
		t.Errorf("-O wrote %q, %v", got, err)
	}
	if code, _, errOut := runCLI(t, dir, nil, "get", u); code != 5 {
		t.Errorf("without --remote-charset: exit %d, want 5: %s", code, errOut)
	}
	// Latin-1 has no 日: refused before anything is sent.
	code, _, errOut = runCLI(t, dir, nil, "get", "--remote-charset", "latin1", "ftp://"+itest.FTPHost+"/archive/names/日本語-utf8.txt")
	if code != 2 || !strings.Contains(errOut, "latin1") {
		t.Errorf("unrepresentable name: exit %d: %s", code, errOut)
	}
}

// mirroredNames checks that dir holds exactly the archive's names/ files,
// each under local(its path below names/), byte for byte.
func mirroredNames(t *testing.T, dir string, local func(string) string) {
	t.Helper()
	want := map[string]string{}
	for p, sum := range itest.Manifest(t) {
		if rel, ok := strings.CutPrefix(p, "names/"); ok {
			want[local(rel)] = sum
		}
	}
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir() && d.Name() == ".gofer":
			return filepath.SkipDir
		case d.IsDir(), d.Name() == "gophermap", d.Name() == "gophermap.html":
			return nil
		}
		got[filepath.ToSlash(rel)] = sha256File(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, sum := range want {
		if got[name] != sum {
			t.Errorf("%q: sha256 %q, want %s", name, got[name], sum)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("extra file %q", name)
		}
	}
	if len(want) < 20 {
		t.Errorf("only %d names in the manifest", len(want))
	}
}

func TestCharsetFTPMirror(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	charsetMirrors(t, "ftp://"+itest.FTPHost+"/archive/names/", "")
}

// charsetMirrors mirrors url without and with --remote-charset latin1 and
// checks the local names of the directory sub of DIR: the server's bytes,
// then those bytes read as Latin-1 (the UTF-8 names' too: é as Ã©).
func charsetMirrors(t *testing.T, url, sub string) {
	t.Helper()
	for _, c := range []struct {
		args  []string
		local func(string) string
	}{
		{nil, func(s string) string { return s }},
		{[]string{"--remote-charset", "latin1"}, latin1},
	} {
		dir := t.TempDir()
		args := append(append([]string{"mirror", "-q"}, c.args...), url, dir)
		if code, _, errOut := runCLI(t, dir, nil, args...); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		mirroredNames(t, filepath.Join(dir, sub), c.local)
	}
}

// TestCharsetGopherMirror: a Gopher mirror maps items by selector; with
// --remote-charset latin1 the selector's segments become UTF-8 local names.
func TestCharsetGopherMirror(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.GopherPlusHost+":70")
	charsetMirrors(t, "gopher://"+itest.GopherPlusHost+"/1/archive/names", filepath.Join("archive", "names"))
}

// TestCharsetUnknownExit2: an unknown charset is a usage error with one
// line naming it, and no connection is made.
func TestCharsetUnknownExit2(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	url := "ftp://127.0.0.1:" + strconv.Itoa(port) + "/archive/names/"
	dir := t.TempDir()
	for _, args := range [][]string{
		{"get", "--remote-charset", "klingon", url},
		{"mirror", "--remote-charset", "klingon", url, filepath.Join(dir, "m")},
		{"parse", "--remote-charset", "klingon", url},
	} {
		code, out, errOut := runCLI(t, dir, nil, args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, `"klingon"`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args[0], code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m")); !os.IsNotExist(err) {
		t.Errorf("mirror made its directory: %v", err)
	}
	// Every gofer has exited: a connection it made would be queued now.
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(200 * time.Millisecond))
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Error("a connection was made")
	}
}

// TestCharsetMirrorTypedStart: a starting URL typed in UTF-8 mirrors the
// Latin-1 named directory, and the local tree names it in UTF-8 only (a
// Gopher menu's path comes from its selector, read in the charset).
func TestCharsetMirrorTypedStart(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	itest.Require(t, itest.GopherPlusHost+":70")
	body := string(archiveFile(t, "names/latin1-\xe9-dir/file.txt"))
	for _, c := range []struct{ url, file, menu string }{
		{"ftp://" + itest.FTPHost + "/archive/names/latin1-é-dir/", "file.txt", ""},
		{"gopher://" + itest.GopherPlusHost + "/1/archive/names/latin1-é-dir", "archive/names/latin1-é-dir/file.txt",
			"archive/names/latin1-é-dir/gophermap"},
	} {
		dir := t.TempDir()
		if code, _, errOut := runCLI(t, dir, nil, "mirror", "-q", "--remote-charset", "latin1", c.url, dir); code != 0 {
			t.Fatalf("%s: exit %d: %s", c.url, code, errOut)
		}
		var files []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() && d.Name() == ".gofer" {
				return filepath.SkipDir
			}
			if rel, _ := filepath.Rel(dir, p); err == nil && !d.IsDir() && d.Name() != "gophermap.html" {
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		want := []string{c.file}
		if c.menu != "" {
			want = []string{c.file, c.menu} // WalkDir's lexical order
		}
		if strings.Join(files, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: files %q, want %q", c.url, files, want)
		}
		if got, err := os.ReadFile(filepath.Join(dir, c.file)); err != nil || string(got) != body {
			t.Errorf("%s: %s holds %q, %v", c.url, c.file, got, err)
		}
	}
}
