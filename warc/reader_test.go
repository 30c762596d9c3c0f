package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc"
)

// rawRecord is a WARC record as a test writes it, fields as given.
func rawRecord(version, typ, uri, body string, fields ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n", version, typ, uri)
	if uri != "" {
		fmt.Fprintf(&b, "WARC-Target-URI: %s\r\n", uri)
	}
	for _, f := range fields {
		b.WriteString(f + "\r\n")
	}
	fmt.Fprintf(&b, "Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", len(body), body)
	return b.String()
}

func gz(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// walkAll lists a file's entries and payloads, and its problems.
func walkAll(t *testing.T, path string) (entries []Entry, payloads []string, problems []string, err error) {
	t.Helper()
	err = WalkWith(path, WalkOptions{Problem: func(e error) { problems = append(problems, e.Error()) }},
		func(e Entry, rec gowarc.WarcRecord) error {
			entries = append(entries, e)
			p, err := Payload(rec)
			if err != nil {
				return err
			}
			b, err := io.ReadAll(p)
			payloads = append(payloads, string(b))
			return err
		})
	return
}

var three = []string{
	rawRecord("WARC/1.1", "warcinfo", "", "software: test"),
	rawRecord("WARC/1.0", "resource", "<gopher://example.org/0/one>", "one", "WARC-Payload-Digest: sha1:ONE"),
	rawRecord("WARC/1.1", "resource", "gopher://example.org/0/two", "two"),
}

// TestReaderLayouts reads the same records gzipped per record, in one
// gzip member, in members of several records, and uncompressed: every
// record of every member, the URI without its brackets, the header's
// digest and length as written (none made up for the record without).
func TestReaderLayouts(t *testing.T) {
	layouts := map[string]string{
		"per-record.warc.gz": gz(three[0]) + gz(three[1]) + gz(three[2]),
		"whole.warc.gz":      gz(three[0] + three[1] + three[2]),
		"mixed.warc.gz":      gz(three[0]) + gz(three[1]+three[2]),
		"plain.warc":         three[0] + three[1] + three[2],
		"plain then gzip":    three[0] + gz(three[1]) + three[2],
	}
	for name, data := range layouts {
		path := writeFile(t, name, data)
		entries, payloads, problems, err := walkAll(t, path)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: %v %q", name, err, problems)
		}
		if len(entries) != 3 || payloads[1] != "one" || payloads[2] != "two" {
			t.Fatalf("%s: %d entries %q", name, len(entries), payloads)
		}
		if e := entries[1]; e.URI != "gopher://example.org/0/one" || e.Digest != "sha1:ONE" || e.Length != 3 || e.Type != "resource" {
			t.Errorf("%s: %+v", name, e)
		}
		if e := entries[2]; e.Digest != "" {
			t.Errorf("%s: a record without a digest listed with %q", name, e.Digest)
		}
		// The index of the file, and each record read back from where
		// it says, as replay and cat read them.
		var idx []IndexEntry
		if err := ScanFile(path, func(_ string, e IndexEntry) { idx = append(idx, e) }, func(e error) { t.Error(e) }); err != nil {
			t.Fatal(err)
		}
		if len(idx) != 2 {
			t.Fatalf("%s: index %+v", name, idx)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range idx {
			if e.URL != entries[i+1].URI || e.Offset+e.Length > int64(len(data)) || e.Length <= 0 {
				t.Errorf("%s: index entry %+v", name, e)
			}
			rec, _, err := OpenRecord(f, e.Offset, e.Length, e.Inner)
			if err != nil {
				t.Fatalf("%s: %+v: %v", name, e, err)
			}
			b, _ := io.ReadAll(rec.Block)
			if want := payloads[i+1]; string(b) != want {
				t.Errorf("%s: record at %d+%d: %q, want %q", name, e.Offset, e.Inner, b, want)
			}
		}
		f.Close()
	}
}

// TestReaderHostile reads past what is not a record: each stretch is one
// problem, and the records after it are read.
func TestReaderHostile(t *testing.T) {
	one, two := three[1], three[2]
	cases := map[string]struct {
		data, want string
	}{
		"garbage between members":   {gz(one) + "\x00garbage\n" + gz(two), "not a WARC record"},
		"garbage between records":   {one + "garbage\r\n" + two, "not a WARC record"},
		"garbage inside a member":   {gz(one + "garbage\r\n" + two), "not a WARC record"},
		"a member cut short":        {gz(one) + gz(two)[:40] + gz(two), "not a whole record"},
		"a line without a colon":    {gz(strings.Replace(three[0], "WARC-Type: warcinfo", "no colon", 1)) + gz(one) + gz(two), "without a colon"},
		"Content-Length not a size": {gz(strings.Replace(three[0], "Content-Length: 14", "Content-Length: many", 1)) + gz(one) + gz(two), "not a length"},
		"Content-Length past the end": {one + two + strings.Replace(two, "Content-Length: 3", "Content-Length: 3000000", 1),
			"Content-Length 3000000, but the block ends after"},
	}
	for name, c := range cases {
		path := writeFile(t, "hostile.warc", c.data)
		entries, payloads, problems, err := walkAll(t, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(problems) != 1 || !strings.Contains(problems[0], c.want) {
			t.Errorf("%s: problems %q, want one of %q", name, problems, c.want)
		}
		if len(entries) < 2 || payloads[0] != "one" || payloads[len(payloads)-1] != "two" && name != "Content-Length past the end" {
			t.Errorf("%s: %d records read %q", name, len(entries), payloads)
		}
	}
}

// TestReaderEndlessHeader reads a header line that never ends (64 MiB
// from a small gzip member, a bomb of bounded size) as one problem, in
// memory bounded by the header limit, and the record after it.
func TestReaderEndlessHeader(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, "WARC/1.1\r\nWARC-Type: resource\r\nX-Endless: ")
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range 64 {
		zw.Write(chunk)
	}
	zw.Close()
	data := gz(three[1]) + b.String() + gz(three[2])
	path := writeFile(t, "bomb.warc.gz", data)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	entries, payloads, problems, err := walkAll(t, path)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || payloads[1] != "two" {
		t.Errorf("records %q", payloads)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "longer than 1048576 bytes") {
		t.Errorf("problems %q", problems)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("reading a 64 MiB header line allocated %d bytes", alloc)
	}
}

// TestReaderARC reads an ARC file (version 1) as WARC records.
func TestReaderARC(t *testing.T) {
	desc := "1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n"
	http := "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hi</p>"
	data := fmt.Sprintf("filedesc://test.arc 0.0.0.0 20050614070159 text/plain %d\n%s\n", len(desc), desc) +
		fmt.Sprintf("http://example.org/ 192.0.2.1 20050614070144 text/html %d\n%s\n", len(http), http)
	for name, d := range map[string]string{"plain.arc": data, "gz.arc.gz": gz(data)} {
		path := writeFile(t, name, d)
		entries, payloads, problems, err := walkAll(t, path)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: %v %q", name, err, problems)
		}
		if len(entries) != 2 || entries[0].Type != "warcinfo" || entries[1].Type != "response" ||
			entries[1].URI != "http://example.org/" || payloads[1] != "<p>hi</p>" || entries[1].Date.Year() != 2005 {
			t.Errorf("%s: %+v %q", name, entries, payloads)
		}
	}
}

// TestReaderNoRecords: a file that holds no record is an error.
func TestReaderNoRecords(t *testing.T) {
	for name, data := range map[string]string{"empty.warc": "", "text.warc": "hello\nworld\n", "gz.warc.gz": gz("hello\n")} {
		_, _, _, err := walkAll(t, writeFile(t, name, data))
		if !errors.Is(err, ErrNoRecords) {
			t.Errorf("%s: %v", name, err)
		}
		if err := ScanFile(writeFile(t, name, data), func(string, IndexEntry) {}, nil); !errors.Is(err, ErrNoRecords) {
			t.Errorf("%s: ScanFile: %v", name, err)
		}
	}
}
