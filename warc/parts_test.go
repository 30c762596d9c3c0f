package warc

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// waczOf is a ZIP archive holding files by name, each stored, or
// deflated when its name is in deflated.
func waczOf(t *testing.T, files [][2]string, deflated ...string) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		method := zip.Store
		for _, d := range deflated {
			if d == f[0] {
				method = zip.Deflate
			}
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f[0], Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWACZRead reads a WACZ's WARC files (one gzipped per record, one
// uncompressed, a Common Crawl WET, which is named .warc.wet; not a text
// file beside them) where the ZIP stores them, as list, cat, check and merge
// read it: every record of each, each record's offset its offset in the
// WACZ, where it is read again; the index lines name the WACZ. A WARC
// file the ZIP compressed, a WACZ without WARC files, and a WACZ given to
// pack are errors that say so.
func TestWACZRead(t *testing.T) {
	one := gz(three[0]) + gz(three[1]) + gz(three[2])
	two := rawRecord("WARC/1.1", "resource", "gopher://example.org/0/three", "three")
	path := writeFile(t, "x.wacz", waczOf(t, [][2]string{
		{"indexes/index.cdx", "not read\n"},
		{"archive/one.warc.gz", one},
		{"archive/two.warc", two},
		{"archive/notes.txt", "not a WARC file, not read"},
		{"archive/four.warc.wet", rawRecord("WARC/1.0", "conversion", "gopher://example.org/0/four", "four")},
		{"datapackage.json", "{}"},
	}, "indexes/index.cdx"))
	entries, payloads, probs, err := walkAll(t, path)
	if err != nil || len(probs) > 0 {
		t.Fatalf("walk: %v %v", err, probs)
	}
	wantURIs := []string{"", "gopher://example.org/0/one", "gopher://example.org/0/two", "gopher://example.org/0/three", "gopher://example.org/0/four"}
	if len(entries) != len(wantURIs) || strings.Join(payloads[1:], " ") != "one two three four" {
		t.Fatalf("entries %+v, payloads %q", entries, payloads)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	for i, e := range entries {
		if e.URI != wantURIs[i] {
			t.Errorf("record %d: URI %q, want %q", i, e.URI, wantURIs[i])
		}
		rec, _, err := OpenRecord(f, e.Offset, fi.Size()-e.Offset, e.Inner)
		if err != nil || rec.TargetURI() != e.URI {
			t.Errorf("record %d at offset %d: %v, %+v", i, e.Offset, err, rec)
		}
	}
	var lines []IndexEntry
	if err := ScanFile(path, func(_ string, e IndexEntry) { lines = append(lines, e) }, func(e error) { t.Error(e) }); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 {
		t.Fatalf("index lines %+v", lines)
	}
	for i, l := range lines {
		if l.Filename != "x.wacz" || l.URL != wantURIs[i+1] || l.Offset != entries[i+1].Offset {
			t.Errorf("index line %d: %+v, want %s at %d", i, l, wantURIs[i+1], entries[i+1].Offset)
		}
	}
	for _, u := range wantURIs[1:4] { // the conversion record is no capture
		var b bytes.Buffer
		if err := Cat(path, u, &b); err != nil || b.String() != strings.TrimPrefix(u, "gopher://example.org/0/") {
			t.Errorf("cat %s: %q, %v", u, b.String(), err)
		}
	}
	// check reads every record where it lies: those the test's records
	// get wrong, and nothing else.
	p := problems(t, path)
	if len(p) != 2 || !strings.Contains(p[0], fmt.Sprintf("record 1 (offset %d): warcinfo Content-Type", entries[0].Offset)) ||
		!strings.Contains(p[1], fmt.Sprintf("record 2 (offset %d, gopher://example.org/0/one): WARC-Payload-Digest sha1:ONE does not match", entries[1].Offset)) {
		t.Errorf("check: %q", p)
	}

	// A zstd WARC with its dictionary in its first frame, stored second:
	// cat reads the dictionary there, not at the start of the WACZ.
	var samples [][]byte
	for i := range 64 {
		samples = append(samples, []byte(strings.Repeat(three[i%3], 1+i%4)))
	}
	dict, err := zstd.BuildDict(zstd.BuildDictOptions{ID: 7, Contents: samples, History: []byte(three[1] + three[2])})
	if err != nil {
		t.Fatal(err)
	}
	zpath := writeFile(t, "z.wacz", waczOf(t, [][2]string{{"archive/two.warc", two}, {"archive/z.warc.zst", zstdFile(t, dict, false, three...)}}))
	for _, u := range wantURIs[1:4] {
		var b bytes.Buffer
		if err := Cat(zpath, u, &b); err != nil || b.String() != strings.TrimPrefix(u, "gopher://example.org/0/") {
			t.Errorf("cat %s from a zstd WARC in a WACZ: %q, %v", u, b.String(), err)
		}
	}

	deflated := writeFile(t, "deflated.wacz", waczOf(t, [][2]string{{"archive/one.warc.gz", one}, {"archive/two.warc", two}}, "archive/two.warc"))
	none := writeFile(t, "none.wacz", waczOf(t, [][2]string{{"datapackage.json", "{}"}}))
	for _, c := range []struct{ path, want string }{
		{deflated, "archive/two.warc is compressed in the ZIP, not stored"},
		{none, "no WARC file in its archive/ directory"},
		{writeFile(t, "zip.wacz", one), "not a WACZ (ZIP) file"},
	} {
		err := Entries(c.path, WalkOptions{}, func(Entry) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("list %s: %v, want %q", c.path, err, c.want)
		}
		err = Check([]string{c.path}, func(Problem) {})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("check %s: %v, want %q", c.path, err, c.want)
		}
	}
	if err := Pack(&bytes.Buffer{}, []string{path}, PackOptions{}); err == nil || !strings.Contains(err.Error(), "is a WACZ file") {
		t.Errorf("pack of a WACZ: %v", err)
	}
}
