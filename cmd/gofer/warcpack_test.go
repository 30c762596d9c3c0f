package main

import (
	"archive/zip"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// TestWarcPack packs the segments of a prefix and refuses bad
// invocations with the usage code.
func TestWarcPack(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "crawl")
	w, err := warc.CreateSegments(prefix, 1, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"gopher://127.0.0.1/1/", "gopher://127.0.0.1/0/a"} {
		c := w.Capture(u)
		b := c.Record(schemes.CaptureRecord{Type: "resource", ContentType: "application/gopher-menu"})
		io.WriteString(b, "iHello\t\terror.host\t1\r\n.\r\n")
		b.Commit()
		c.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "x.wacz")
	if code, _, errs := gofer(t, "", "warc", "pack", prefix, "-o", out); code != 0 {
		t.Fatalf("warc pack: %d %s", code, errs)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	for _, want := range []string{"archive/crawl-00000.warc.gz", "archive/crawl-00001.warc.gz", "indexes/index.cdx",
		"pages/pages.jsonl", "datapackage.json", "datapackage-digest.json"} {
		if !slices.Contains(names, want) {
			t.Errorf("members %q: no %s", names, want)
		}
	}
	for _, args := range [][]string{
		{"warc", "pack", prefix},
		{"warc", "pack", "-o", out},
		{"warc", "pack", prefix, "-o", filepath.Join(dir, "x.zip")},
		{"warc", "pack", filepath.Join(dir, "none"), "-o", out},
	} {
		if code, _, errs := gofer(t, "", args...); code != 2 || errs == "" {
			t.Errorf("%s: exit %d %q, want the usage code", strings.Join(args, " "), code, errs)
		}
	}
}
