package integration_test

// Gopher against the scripted small server (integration/cmd/smallgopherd,
// 127.0.0.74): the sample archive served with the habits of small servers,
// LF-only menus, no final "." line, no dot-stuffing, UTF-8 display
// strings. The bytes must come back as they are on disk.

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goferurl/gofer/integration/itest"
)

const smallGopherAddr = itest.SmallGopherHost + ":70"

// Text with "." and ".." lines of its own, unframed: byte for byte.
func TestSmallGopherText(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smallGopherAddr)
	for _, f := range []string{"text/dots.txt", "text/dotted-words.txt", "text/crlf.txt", "text/no-final-newline.txt", "text/empty.txt"} {
		r := itest.Run(t, nil, nil, "get", "gopher://"+itest.SmallGopherHost+"/0/"+f)
		if want := archiveFile(t, f); r.Code != 0 || r.Stdout != string(want) {
			t.Errorf("get %s: exit %d (%s)\n got %q\nwant %q", f, r.Code, r.Stderr, r.Stdout, want)
		}
	}
}

// The menu of a directory lists every entry, with the name as its UTF-8
// display string (names that are not UTF-8 shown as ISO 8859-1), and
// every entry's URL fetches the file.
func TestSmallGopherMenu(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smallGopherAddr)
	dir := filepath.Join(itest.ArchiveDir(), "names")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // display string: on-disk name
	for _, e := range ents {
		n := e.Name()
		if !utf8.ValidString(n) {
			var b strings.Builder
			for i := 0; i < len(n); i++ {
				b.WriteRune(rune(n[i]))
			}
			want[b.String()] = n
			continue
		}
		want[n] = n
	}
	es := gopherEntries(t, "gopher://"+itest.SmallGopherHost+"/1/names", nil)
	var got []string
	for _, e := range es {
		got = append(got, e.Name)
		n, ok := want[e.Name]
		if !ok {
			t.Errorf("entry %q is no name in names/", e.Name)
			continue
		}
		if e.Gopher.Selector != "/names/"+n || e.Gopher.Host != itest.SmallGopherHost {
			t.Errorf("%q: selector %q host %q", e.Name, e.Gopher.Selector, e.Gopher.Host)
		}
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			if b := gopherBody(t, e.URL, nil); !bytes.Equal(b, archiveFile(t, "names/"+n)) {
				t.Errorf("%s: %q", e.URL, b)
			}
		}
	}
	if len(es) != len(want) {
		t.Errorf("%d entries, want %d: %q", len(es), len(want), got)
	}
	for _, s := range []string{"café-utf8.txt", "日本語-utf8.txt", "café-latin1.txt", "über-latin1.txt", "utf8-é-dir"} {
		if !slices.Contains(got, s) {
			t.Errorf("menu lacks %q: %q", s, got)
		}
	}

	// The command shows the display strings too.
	r := itest.Run(t, nil, nil, "get", "gopher://"+itest.SmallGopherHost+"/")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Bienvenue au café — 日本語のゴーファー穴") || !strings.Contains(r.Stdout, "gopher://"+itest.SmallGopherHost+"/1/names") {
		t.Errorf("root menu: exit %d:\n%s", r.Code, r.Stdout)
	}
}

// A mirror of the whole hole but tree/ gives the archive's bytes: every
// file, and nothing but the files and the menus.
func TestSmallGopherMirror(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smallGopherAddr)
	dir := t.TempDir()
	r := itest.Run(t, nil, nil, "mirror", "--no-parent", "-j", "4", "--exclude", "tree/*",
		"gopher://"+itest.SmallGopherHost+"/1/", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, " 0 failed") {
		t.Fatalf("mirror: exit %d: %s\n%s", r.Code, r.Reason(), r.Stdout)
	}
	var diffs []string
	n := 0
	for _, d := range noMenuFiles(itest.DiffTree(t, dir, ".gofer")) {
		if strings.HasPrefix(d, `missing: "tree/`) {
			n++
			continue
		}
		diffs = append(diffs, d)
	}
	if len(diffs) != 0 {
		t.Errorf("mirror differs from the manifest (%d): %q", len(diffs), diffs[:min(len(diffs), 10)])
	}
	if total := len(itest.Manifest(t)); total-n < 40 {
		t.Errorf("only %d files outside tree/ compared", total-n)
	}
}
