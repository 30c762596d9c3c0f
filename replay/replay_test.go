package replay

import (
	"context"
	"crypto/sha1"
	"encoding/base32"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// record records one item as the Gopher fetcher does.
func record(t *testing.T, w *warc.Writer, rec schemes.CaptureRecord, body string) {
	t.Helper()
	c := w.Capture(rec.URI)
	b := c.Record(rec)
	if _, err := io.Copy(io.Discard, schemes.CaptureTee(strings.NewReader(body), b)); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

func digest(body string) string {
	s := sha1.Sum([]byte(body))
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// dated writes a record with a WARC-Date of its own; fields are added to
// its header. It returns the record's ID.
func dated(t *testing.T, w *warc.Writer, typ gowarc.RecordType, uri string, date time.Time, body string, fields ...string) string {
	t.Helper()
	b := gowarc.NewRecordBuilder(typ, gowarc.WithVersion(gowarc.V1_1))
	id := warc.NewID()
	b.AddWarcHeader(gowarc.WarcRecordID, id)
	b.AddWarcHeader(gowarc.WarcTargetURI, uri)
	b.AddWarcHeaderTime(gowarc.WarcDate, date)
	b.AddWarcHeader(gowarc.ContentType, "text/plain")
	d := digest(body)
	b.AddWarcHeader(gowarc.WarcBlockDigest, d)
	for i := 0; i+1 < len(fields); i += 2 {
		b.AddWarcHeader(fields[i], fields[i+1])
	}
	if typ == gowarc.Revisit {
		// A revisit's digest is the payload it stands for.
		for i := 0; i+1 < len(fields); i += 2 {
			if fields[i] == gowarc.WarcPayloadDigest {
				d = ""
			}
		}
	} else {
		b.AddWarcHeader(gowarc.WarcPayloadDigest, d)
	}
	b.WriteString(body)
	rec, _, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	return id
}

// serve replays a on a loopback port and returns its address.
func serve(t *testing.T, a *Archive, host string) string {
	t.Helper()
	s, err := NewGopherServer(a, host, func(msg string) { t.Log("warning: " + msg) })
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// ask sends one request line and returns the whole reply.
func ask(t *testing.T, addr, line string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, line+"\r\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func open(t *testing.T, opt Options, archives ...string) *Archive {
	t.Helper()
	a, err := Open(archives, opt)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

const (
	menu = "iWelcome\tfake\t(NULL)\t0\r\n" +
		"0About\t/dir/about.txt\t127.0.0.71\t70\r\n" +
		"1Elsewhere\t/x\tother.example\t70\r\n" +
		"1Same host, other port\t/y\t127.0.0.71\t7070\r\n" +
		"7Find\t/find\t127.0.0.71\t70\r\n" +
		".\r\n"
	binary = "\x00\x01not a menu\t/s\t127.0.0.71\t70\r\nmore\xff"
	about  = "About this hole.\r\n.\r\n"
	attrs  = "+INFO: 0About\t/dir/about.txt\t127.0.0.71\t70\t+\r\n+ADMIN:\r\n Admin: someone\r\n" +
		"+INFO: 1Sub\t/dir/sub\t127.0.0.71\t70\t+\r\n+ADMIN:\r\n Admin: else\r\n"
)

// writeHole captures a small Gopher hole into segments under dir.
func writeHole(t *testing.T, dir string) string {
	t.Helper()
	prefix := filepath.Join(dir, "hole")
	w, err := warc.CreateSegments(prefix, 0, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/1/dir", ContentType: "text/x-gopher-menu"}, menu)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/9/dir", ContentType: "application/octet-stream"}, menu)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/dir/about.txt%09%09+", ContentType: "text/plain"}, about)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/9/dir/b.bin", ContentType: "application/octet-stream"}, binary)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/dir/plain.txt", ContentType: "text/plain"}, "plain\r\n.\r\n")
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/7/find%09gopher", ContentType: "text/x-gopher-menu"}, menu)
	record(t, w, schemes.CaptureRecord{Type: "metadata", URI: "gopher://127.0.0.71/1/dir%09%09$", ContentType: warc.TypeGopherPlusAttrs}, attrs)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/a/../secret", ContentType: "text/plain"}, "secret\r\n")
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.72/0/other", ContentType: "text/plain"}, "other host\r\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return prefix
}

func TestGopherReplay(t *testing.T) {
	var warnings []string
	a := open(t, Options{Warn: func(s string) { warnings = append(warnings, s) }}, writeHole(t, t.TempDir()))
	if len(warnings) > 0 {
		t.Errorf("warnings on a whole, indexed archive: %q", warnings)
	}
	if got := a.GopherHosts(); strings.Join(got, " ") != "127.0.0.71:70 127.0.0.72:70" {
		t.Errorf("GopherHosts = %q", got)
	}
	addr := serve(t, a, "")
	host, port, _ := net.SplitHostPort(addr)
	here := host + "\t" + port

	rewritten := strings.ReplaceAll(menu, "\t127.0.0.71\t70\r\n", "\t"+here+"\r\n")
	for _, tc := range []struct{ name, request, want string }{
		{"menu rewritten, type 1 preferred", "/dir", rewritten},
		{"text, exact bytes", "/dir/about.txt", about},
		{"binary, never rewritten", "/dir/b.bin", binary},
		{"captured search", "/find\tgopher", rewritten},
		{"uncaptured search", "/find\tother", "3the search 'other' of '/find' was not captured\tfake\t(NULL)\t0\r\n.\r\n"},
		{"uncaptured selector", "/nosuch", "3'/nosuch' was not captured\tfake\t(NULL)\t0\r\n.\r\n"},
		{"climbing selector", "/a/../secret", "3'/a/../secret' was not captured\tfake\t(NULL)\t0\r\n.\r\n"},
		{"other host's selector", "/other", "3'/other' was not captured\tfake\t(NULL)\t0\r\n.\r\n"},
		{"Gopher+ item", "/dir/about.txt\t+", "+21\r\n" + about},
		{"Gopher+ text, captured plain", "/dir/plain.txt\t+", "+-1\r\nplain\r\n.\r\n"},
		{"Gopher+ binary, captured plain", "/dir/b.bin\t+", fmt.Sprintf("+%d\r\n", len(binary)) + binary},
		{"Gopher+ menu, captured plain", "/dir\t+", "+-1\r\n" + rewritten},
		{"Gopher+ $", "/dir\t$", "+-2\r\n" + strings.ReplaceAll(attrs, "\t127.0.0.71\t70\t", "\t"+here+"\t")},
		{"Gopher+ ! from a $ block", "/dir/sub\t!", "+-2\r\n+INFO: 1Sub\t/dir/sub\t" + here + "\t+\r\n+ADMIN:\r\n Admin: else\r\n"},
		{"Gopher+ uncaptured", "/nosuch\t\t+", "--2\r\n1 gofer replay\r\n'/nosuch' was not captured\r\n"},
	} {
		if got := ask(t, addr, tc.request); got != tc.want {
			t.Errorf("%s: %q\n got %q\nwant %q", tc.name, tc.request, got, tc.want)
		}
	}

	other := serve(t, a, "127.0.0.72")
	if got := ask(t, other, "/other"); got != "other host\r\n" {
		t.Errorf("--host 127.0.0.72: %q", got)
	}
	if _, err := NewGopherServer(a, "127.0.0.99", nil); err == nil {
		t.Error("a server of a host never captured")
	}
}

// TestAtAndRevisit picks among captures by time and follows revisits to
// the record they stand for.
func TestAtAndRevisit(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "dated")
	w, err := warc.CreateSegments(prefix, 0, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	uri := "gopher://127.0.0.71/0/news.txt"
	t1 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.AddDate(1, 0, 0)
	t3 := t2.AddDate(1, 0, 0)
	first := dated(t, w, gowarc.Resource, uri, t1, "first\r\n")
	dated(t, w, gowarc.Resource, uri, t2, "second\r\n")
	// The latest capture is a revisit of the first payload.
	dated(t, w, gowarc.Revisit, uri, t3, "", gowarc.WarcPayloadDigest, digest("first\r\n"),
		gowarc.WarcProfile, gowarc.ProfileIdenticalPayloadDigestV1_1, gowarc.WarcRefersTo, first)
	// A revisit under another URI names its record by ID only.
	dated(t, w, gowarc.Revisit, "gopher://127.0.0.71/0/copy.txt", t3, "", gowarc.WarcPayloadDigest, digest("first\r\n"),
		gowarc.WarcProfile, gowarc.ProfileIdenticalPayloadDigestV1_1, gowarc.WarcRefersTo, first,
		gowarc.WarcRefersToTargetURI, uri, gowarc.WarcRefersToDate, t1.Format(time.RFC3339))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at, selector, want string
	}{
		{"", "/news.txt", "first\r\n"}, // the revisit, resolved
		{"2020-03-01T00:00:00Z", "/news.txt", "first\r\n"},
		{"20201201000000", "/news.txt", "second\r\n"},
		{"2021-02-01T00:00:00Z", "/news.txt", "second\r\n"},
		{"", "/copy.txt", "first\r\n"},
	} {
		var at time.Time
		if tc.at != "" {
			if at, err = ParseTime(tc.at); err != nil {
				t.Fatal(err)
			}
		}
		addr := serve(t, open(t, Options{At: at}, prefix), "")
		if got := ask(t, addr, tc.selector); got != tc.want {
			t.Errorf("--at %q %s: %q, want %q", tc.at, tc.selector, got, tc.want)
		}
	}
}

// TestTruncated serves what a WARC cut short holds whole and reports the
// rest.
func TestTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.warc.gz")
	w, err := warc.Create(path, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/kept.txt", ContentType: "text/plain"}, "kept\r\n")
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/lost.txt", ContentType: "text/plain"}, strings.Repeat("lost ", 1000))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()-20); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	a := open(t, Options{Warn: func(s string) { warnings = append(warnings, s) }}, path)
	if len(warnings) != 2 || !strings.Contains(warnings[0], "no index") || !strings.Contains(warnings[1], "not a whole record") {
		t.Errorf("warnings: %q", warnings)
	}
	addr := serve(t, a, "")
	if got := ask(t, addr, "/kept.txt"); got != "kept\r\n" {
		t.Errorf("whole record: %q", got)
	}
	if got := ask(t, addr, "/lost.txt"); !strings.HasPrefix(got, "3'/lost.txt' was not captured") {
		t.Errorf("record cut short: %q", got)
	}
}

// TestIndexPastEnd leaves out what an index names beyond the end of its
// segment (a segment cut short after it was indexed).
func TestIndexPastEnd(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "seg")
	w, err := warc.CreateSegments(prefix, 0, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/kept.txt", ContentType: "text/plain"}, "kept\r\n")
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/lost.txt", ContentType: "text/plain"}, "lost\r\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seg := warc.SegmentName(prefix, 0)
	fi, err := os.Stat(seg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(seg, fi.Size()-5); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	a := open(t, Options{Warn: func(s string) { warnings = append(warnings, s) }}, prefix)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "record of gopher://127.0.0.71/0/lost.txt at offset") {
		t.Errorf("warnings: %q", warnings)
	}
	addr := serve(t, a, "")
	if got := ask(t, addr, "/kept.txt"); got != "kept\r\n" {
		t.Errorf("whole record: %q", got)
	}
	if got := ask(t, addr, "/lost.txt"); !strings.HasPrefix(got, "3'/lost.txt' was not captured") {
		t.Errorf("record past the end: %q", got)
	}
}

// TestDamaged serves the records of a WARC on both sides of a damaged
// gzip member and reports that member.
func TestDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "damaged.warc.gz")
	w, err := warc.Create(path, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"one", "two", "three"} {
		record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/" + name, ContentType: "text/plain"},
			strings.Repeat(name+" ", 200))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var offsets []int64
	if err := warc.Walk(path, false, func(e warc.Entry, _ gowarc.WarcRecord) error {
		offsets = append(offsets, e.Offset)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(offsets) != 4 {
		t.Fatalf("%d records, want a warcinfo and three", len(offsets))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mid := (offsets[2] + offsets[3]) / 2 // within the member of "two"
	b[mid] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	a := open(t, Options{Warn: func(s string) { warnings = append(warnings, s) }}, path)
	want := fmt.Sprintf("%s: %d bytes at offset %d are not a whole record (", path, offsets[3]-offsets[2], offsets[2])
	if len(warnings) != 2 || !strings.HasPrefix(warnings[1], want) || !strings.HasSuffix(warnings[1], "; left out") {
		t.Errorf("warnings: %q\nwant the second %q", warnings, want)
	}
	addr := serve(t, a, "")
	for name, whole := range map[string]bool{"one": true, "two": false, "three": true} {
		got := ask(t, addr, "/"+name)
		if whole && got != strings.Repeat(name+" ", 200) || !whole && !strings.HasPrefix(got, "3'/two' was not captured") {
			t.Errorf("/%s: %.40q", name, got)
		}
	}
}

func TestParseRequest(t *testing.T) {
	for line, want := range map[string]request{
		"/a":            {selector: "/a"},
		"/a\tword":      {selector: "/a", search: "word", hasSearch: true},
		"/a\t+":         {selector: "/a", plus: "+", hasPlus: true},
		"/a\t!":         {selector: "/a", plus: "!", hasPlus: true},
		"/a\t\t$":       {selector: "/a", plus: "$", hasPlus: true},
		"/a\tword\t+":   {selector: "/a", search: "word", hasSearch: true, plus: "+", hasPlus: true},
		"/a\t\t+text/x": {selector: "/a", plus: "+text/x", hasPlus: true},
	} {
		if got := parseRequest(line); got != want {
			t.Errorf("parseRequest(%q) = %+v, want %+v", line, got, want)
		}
	}
}

// TestMergedIndex replays through one CDXJ index over segments, as gofer
// warc merge prints it for a cluster job's workers: records are read from
// the segments its lines name, beside it; a line naming a segment that is
// not there is left out with a warning.
func TestMergedIndex(t *testing.T) {
	dir := t.TempDir()
	prefix := writeHole(t, dir)
	segs, err := warc.Segments(prefix)
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments: %v %v", segs, err)
	}
	var merged strings.Builder
	for _, seg := range segs {
		if err := warc.Index(seg, func(line string, _ warc.IndexEntry) { merged.WriteString(line + "\n") }); err != nil {
			t.Fatal(err)
		}
	}
	// A worker's segment that was never copied beside the index.
	merged.WriteString(`(gopher,127.0.0.71)/0/gone 20261127000000 {"url":"gopher://127.0.0.71/0/gone","type":"resource","offset":0,"length":10,"filename":"other-00000.warc.gz","record_id":"<urn:uuid:x>","date":"2026-11-27T00:00:00Z"}` + "\n")
	index := filepath.Join(dir, "job.cdxj")
	if err := os.WriteFile(index, []byte(merged.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	a := open(t, Options{Warn: func(s string) { warnings = append(warnings, s) }}, index)
	addr := serve(t, a, "127.0.0.71")
	if got := ask(t, addr, "/dir/about.txt"); got != about {
		t.Errorf("through the merged index: %q, want %q", got, about)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "other-00000.warc.gz") {
		t.Errorf("warnings %q, want one naming the missing segment", warnings)
	}
}

// A WACZ (gofer warc pack's) is an archive as its WARC files are: its
// records are read where the ZIP stores them.
func TestWACZ(t *testing.T) {
	dir := t.TempDir()
	prefix := writeHole(t, dir)
	segs, err := warc.Segments(prefix)
	if err != nil || len(segs) == 0 {
		t.Fatalf("segments: %v %v", segs, err)
	}
	wacz := filepath.Join(dir, "hole.wacz")
	if err := warc.PackFile(wacz, segs, warc.PackOptions{}); err != nil {
		t.Fatal(err)
	}
	a := open(t, Options{}, wacz)
	addr := serve(t, a, "127.0.0.71")
	if got := ask(t, addr, "/dir/about.txt"); got != about {
		t.Errorf("from the WACZ: %q, want %q", got, about)
	}
	notZip := filepath.Join(dir, "not.wacz")
	os.WriteFile(notZip, []byte("plain text"), 0o644)
	if _, err := Open([]string{notZip}, Options{}); err == nil || !strings.Contains(err.Error(), "not a WACZ") {
		t.Errorf("a file that is no ZIP: %v", err)
	}
}
