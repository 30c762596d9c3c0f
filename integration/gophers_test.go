package integration_test

// Gopher over TLS (gophers:, as curl speaks it: TLS from the first byte on
// port 70) against the harness's stunnel4 front (127.0.0.72) to
// gophernicus, through the gofer command.

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

const gophersAddr = itest.GophersHost + ":70"

// gophersCA is the TLS front's self-signed certificate, its own CA.
func gophersCA() string { return filepath.Join(itest.StateDir(), "tls", "gophers-cert.pem") }

func TestGophersGet(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gophersAddr)
	for _, rel := range []string{"binary/all-bytes.bin", "binary/image.gif", "README.txt"} {
		typ := "9"
		if strings.HasSuffix(rel, ".txt") {
			typ = "0"
		}
		r := itest.Run(t, nil, nil, "get", "--cacert", gophersCA(), "gophers://"+itest.GophersHost+"/"+typ+"/archive/"+rel)
		if r.Code != 0 || sha([]byte(r.Stdout)) != itest.Manifest(t)[rel] {
			t.Errorf("%s: exit %d, %d bytes, sha256 %s, want %s (%s)", rel, r.Code, len(r.Stdout), sha([]byte(r.Stdout)), itest.Manifest(t)[rel], r.Reason())
		}
	}
	// The menu: items on the TLS front stay on TLS.
	r := itest.Run(t, nil, nil, "get", "--cacert", gophersCA(), "gophers://"+itest.GophersHost+"/")
	if r.Code != 0 || !strings.Contains(r.Stdout, "gophers://127.0.0.72/0/about.txt") || strings.Contains(r.Stdout, "gopher://127.0.0.72") {
		t.Errorf("menu: exit %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// An unknown CA is a failed connection (exit 4), unless --cacert trusts
// it or -k turns verification off.
func TestGophersUnknownCA(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gophersAddr)
	url := "gophers://" + itest.GophersHost + "/0/about.txt"
	r := itest.Run(t, nil, nil, "get", url)
	if r.Code != 4 || r.Stdout != "" || !strings.Contains(r.Reason(), "certificate") {
		t.Errorf("unknown CA: exit %d stdout %q: %s", r.Code, r.Stdout, r.Reason())
	}
	want := archiveFileGopherText(t)
	for _, flag := range [][]string{{"-k"}, {"--cacert", gophersCA()}} {
		r = itest.Run(t, nil, nil, append(append([]string{"get"}, flag...), url)...)
		if r.Code != 0 || r.Stdout != want {
			t.Errorf("%v: exit %d stdout %q: %s", flag, r.Code, r.Stdout, r.Reason())
		}
	}
	// mirror takes the same flags and fails the same way.
	dir := t.TempDir()
	r = itest.Run(t, nil, nil, "mirror", "gophers://"+itest.GophersHost+"/1/menus", dir)
	if r.Code != 4 {
		t.Errorf("mirror with an unknown CA: exit %d: %s", r.Code, r.Reason())
	}
}

func archiveFileGopherText(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(itest.StateDir(), "srv", "gopher", "about.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A plain-text Gopher server where gophers: expects TLS (gophernicus on
// 127.0.0.71:70, gophers' default port) is an error, exit 4, never a
// request sent in the clear.
func TestGophersPlainServerIsNoFallBack(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gophersAddr)
	itest.Require(t, gopherAddr)
	log := itest.LogSince(t, "gophernicus-access.log")
	// A selector only this test sends: the log is shared.
	sel := fmt.Sprintf("no-fall-back-%d.txt", os.Getpid())
	r := itest.Run(t, nil, nil, "get", "-k", "gophers://"+itest.GopherHost+"/0/"+sel)
	if r.Code != 4 || r.Stdout != "" || !strings.Contains(r.Reason(), "TLS") {
		t.Errorf("plain server: exit %d stdout %q: %s", r.Code, r.Stdout, r.Reason())
	}
	if strings.Contains(log(), sel) {
		t.Errorf("the selector reached the plain server:\n%s", log())
	}
	dir := t.TempDir()
	r = itest.Run(t, nil, nil, "mirror", "-k", "gophers://"+itest.GopherHost+"/1/menus", dir)
	if r.Code != 4 {
		t.Errorf("mirror from a plain server: exit %d: %s", r.Code, r.Reason())
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 1 {
		t.Errorf("mirror from a plain server wrote %d entries", len(ents))
	}
}

// What of the archive gophernicus does not serve as it is on disk, over
// TLS or not: names/ (its selectors write unusual bytes in its own "#040"
// escapes, so local names differ) and one text (the hole's text filter
// ends a text without a final newline with CR LF). tree/ (3000 files)
// only makes the run longer.
var gophersSkip = []string{"tree/", "names/", "text/no-final-newline.txt"}

func gophersSkipped(rel string) bool {
	for _, p := range gophersSkip {
		if strings.HasPrefix(rel, p) {
			return true
		}
	}
	return false
}

// gofer mirror over gophers: the archive equals the manifest, but for
// what gophernicus itself changes (gophersSkip); and every file equals the
// same mirror over plain gopher.
func TestGophersMirror(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gophersAddr)
	itest.Require(t, gopherAddr)
	dir, plain := t.TempDir(), t.TempDir()
	r := itest.Run(t, nil, nil, "mirror", "--cacert", gophersCA(), "--no-parent", "-j", "4", "--exclude", "tree/*",
		"gophers://"+itest.GophersHost+"/1/archive", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, " 0 failed") {
		t.Fatalf("mirror: exit %d: %s\n%s", r.Code, r.Reason(), r.Stdout)
	}
	var diffs []string
	for _, d := range noMenuFiles(itest.DiffTree(t, filepath.Join(dir, "archive"))) {
		rel, _ := strconv.Unquote(d[strings.IndexByte(d, '"'):])
		if !gophersSkipped(rel) {
			diffs = append(diffs, d)
		}
	}
	if len(diffs) != 0 {
		t.Errorf("mirror differs from the manifest (%d): %q", len(diffs), diffs[:min(len(diffs), 10)])
	}
	r = itest.Run(t, nil, nil, "mirror", "--no-parent", "-j", "4", "--exclude", "tree/*",
		"gopher://"+itest.GopherHost+"/1/archive", plain)
	if r.Code != 0 {
		t.Fatalf("plain mirror: exit %d: %s", r.Code, r.Reason())
	}
	// Every file, menus aside (they name their own server), byte for byte.
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, "archive"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "gophermap") {
			return err
		}
		n++
		rel, _ := filepath.Rel(dir, p)
		a, errA := os.ReadFile(p)
		b, errB := os.ReadFile(filepath.Join(plain, rel))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("%s: over TLS and in plain text differ (%v, %v)", rel, errA, errB)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 40 {
		t.Errorf("only %d files outside tree/ compared", n)
	}
}
