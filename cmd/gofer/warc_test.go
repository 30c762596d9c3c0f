package main

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// TestWarcCommand lists and prints records of an archive, and refuses
// bad invocations with the usage code.
func TestWarcCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.warc.gz")
	w, err := warc.Create(path, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	c := w.Capture("gopher://127.0.0.1/0/hello.txt")
	b := c.Record(schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"})
	io.WriteString(b, "hello\r\n")
	b.Commit()
	c.Close()
	w.Close()

	code, out, errs := gofer(t, "", "warc", "list", path)
	if code != 0 || !strings.Contains(out, "warcinfo") ||
		!strings.Contains(out, "resource") || !strings.Contains(out, "gopher://127.0.0.1/0/hello.txt") {
		t.Errorf("warc list: %d %q %q", code, out, errs)
	}
	code, out, _ = gofer(t, "", "warc", "cat", path, "gopher://127.0.0.1/0/hello.txt")
	if code != 0 || out != "hello\r\n" {
		t.Errorf("warc cat: %d %q", code, out)
	}
	if code, _, errs := gofer(t, "", "warc", "cat", path, "gopher://127.0.0.1/0/none"); code == 0 || !strings.Contains(errs, "no record") {
		t.Errorf("warc cat of a missing URI: %d %q", code, errs)
	}
	for _, args := range [][]string{{"warc"}, {"warc", "list"}, {"warc", "cat", path}} {
		if code, _, _ := gofer(t, "", args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// TestWarcFlagsRefused: archive flags that cannot work are usage errors,
// and nothing is sent or written.
func TestWarcFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"mirror", "--warc-only", "ftp://127.0.0.1/", dir},
		{"mirror", "--warc", filepath.Join(dir, "p"), "--warc-max-size", "0", "ftp://127.0.0.1/", dir},
		{"get", "--warc", filepath.Join(dir, "no", "such", "dir.warc.gz"), "ftp://127.0.0.1/"},
		{"mirror", "--warc", filepath.Join(dir, "no", "such", "prefix"), "ftp://127.0.0.1/", filepath.Join(dir, "t")},
	} {
		if code, _, errs := gofer(t, "", args...); code != 2 {
			t.Errorf("%q: exit %d (%s), want 2", args, code, errs)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		// Nothing written, the mirror's DIR included.
		t.Errorf("refused commands left %v", ents)
	}
}

// TestWarcCheckCommand: a clean archive exits 0 and prints nothing; one
// that breaks the conventions exits 1 with one line per problem; no
// archive is a usage error. cat reads several archives and takes --at.
func TestWarcCheckCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, proto []string, body string) string {
		path := filepath.Join(dir, name)
		w, err := warc.Create(path, warc.Info{Software: "gofer test"})
		if err != nil {
			t.Fatal(err)
		}
		c := w.Capture("gopher://127.0.0.1/0/hello.txt")
		b := c.Record(schemes.CaptureRecord{Type: "resource", ContentType: "text/plain", Protocol: proto})
		io.WriteString(b, body)
		b.Commit()
		c.Close()
		w.Close()
		return path
	}
	good := write("good.warc.gz", []string{"gopher"}, "hello\r\n")
	bad := write("bad.warc.gz", nil, "again\r\n")
	if code, out, errs := gofer(t, "", "warc", "check", good); code != 0 || out != "" || errs != "" {
		t.Errorf("warc check of a clean archive: %d %q %q", code, out, errs)
	}
	code, _, errs := gofer(t, "", "warc", "check", good, bad)
	if want := bad + ": record 2 (offset "; code != 1 || !strings.Contains(errs, want) ||
		!strings.Contains(errs, "gopher://127.0.0.1/0/hello.txt): no WARC-Protocol\n") {
		t.Errorf("warc check of a record without WARC-Protocol: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := gofer(t, "", "warc", "check"); code != 2 {
		t.Errorf("warc check without an archive: exit %d, want 2", code)
	}
	if code, out, _ := gofer(t, "", "warc", "cat", bad, good, "gopher://127.0.0.1/0/hello.txt"); code != 0 || out != "again\r\n" {
		t.Errorf("warc cat of two archives: %d %q, want the first's", code, out)
	}
	if code, _, errs := gofer(t, "", "warc", "cat", "--at", "yesterday", good, "gopher://127.0.0.1/0/hello.txt"); code != 2 {
		t.Errorf("warc cat --at yesterday: exit %d (%s), want 2", code, errs)
	}
}

// TestWarcOthers reads a WARC as other tools write it: uncompressed,
// WARC/1.0, target URIs in angle brackets, a record without digests, a
// revisit; and a file without records.
func TestWarcOthers(t *testing.T) {
	dir := t.TempDir()
	rec := func(typ, id, uri, body string, fields ...string) string {
		h := "WARC/1.0\r\nWARC-Type: " + typ + "\r\nWARC-Record-ID: <urn:x:" + id + ">\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n" +
			"WARC-Target-URI: <" + uri + ">\r\n"
		for _, f := range fields {
			h += f + "\r\n"
		}
		if body != "" {
			h += "Content-Type: text/plain\r\n"
		}
		return h + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body + "\r\n\r\n"
	}
	path := filepath.Join(dir, "other.warc")
	os.WriteFile(path, []byte(rec("resource", "1", "gopher://example.org/0/a", "first")+
		rec("revisit", "2", "gopher://example.org/0/b", "", "WARC-Refers-To: <urn:x:1>")), 0o644)
	code, out, errs := gofer(t, "", "warc", "list", path)
	if code != 0 || !strings.Contains(out, " gopher://example.org/0/a\n") || strings.Contains(out, "sha1:") {
		t.Errorf("warc list: %d %q %q", code, out, errs)
	}
	if code, out, errs := gofer(t, "", "warc", "cat", path, "gopher://example.org/0/b"); code != 0 || out != "first" {
		t.Errorf("warc cat of a revisit: %d %q %q", code, out, errs)
	}
	if code, out, errs := gofer(t, "", "warc", "merge", path); code != 0 || strings.Count(out, "\n") != 2 || strings.Contains(out, "<gopher") {
		t.Errorf("warc merge: %d %q %q", code, out, errs)
	}
	// No warcinfo first, a WARC-Concurrent-To into another file: warnings,
	// failures only with --strict.
	if code, _, errs := gofer(t, "", "warc", "check", path); code != 0 || strings.Count(errs, "warning: ") != 1 {
		t.Errorf("warc check: %d %q", code, errs)
	}
	if code, _, errs := gofer(t, "", "warc", "check", "--strict", path); code != 1 || !strings.Contains(errs, "warc check: 1 problem\n") {
		t.Errorf("warc check --strict: %d %q", code, errs)
	}
	// A header past --max-header is an error of its record.
	for _, cmd := range []string{"list", "check"} {
		if code, _, errs := gofer(t, "", "warc", cmd, "--max-header", "100", path); code != 1 || !strings.Contains(errs, "record header longer than 100 bytes") {
			t.Errorf("warc %s --max-header 100: %d %q", cmd, code, errs)
		}
	}
	text := filepath.Join(dir, "text.warc")
	os.WriteFile(text, []byte("not a WARC file\n"), 0o644)
	for _, cmd := range []string{"list", "merge"} {
		if code, _, errs := gofer(t, "", "warc", cmd, text); code != 1 || !strings.Contains(errs, "no WARC record") {
			t.Errorf("warc %s of a text file: %d %q", cmd, code, errs)
		}
	}
}
