package warc

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/schemes"
)

// record writes one streamed block through a capture.
func record(t *testing.T, c *Capture, rec schemes.CaptureRecord, r io.Reader) {
	t.Helper()
	b := c.Record(rec)
	if _, err := io.Copy(io.Discard, schemes.CaptureTee(r, b)); err != nil {
		t.Fatal(err)
	}
}

func sha1b32(p []byte) string {
	s := sha1.Sum(p)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// TestWriteReadStrict writes each kind of record gofer makes and reads the
// file back with gowarc's strict reader, which checks the standard's
// fields and both digests of every record.
func TestWriteReadStrict(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "one.warc.gz")
	w, err := Create(path, Info{Software: "gofer test", Command: "gofer get --warc x ftp://u:****@h/f"})
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 3<<20+17) // past the 1 MiB memory spool
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(rnd.UintN(256))
	}
	c := w.Capture("ftp://127.0.0.21/pub/big.bin")
	conv := c.Conversation()
	io.WriteString(conv, "> USER anonymous\r\n< 331 ok\r\n> PASS ****\r\n< 230 in\r\n")
	record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "application/octet-stream"}, bytes.NewReader(big))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	h := w.Capture("http://127.0.0.1/a.txt")
	reqb := h.Record(schemes.CaptureRecord{Type: "request", ContentType: TypeHTTPRequest})
	io.WriteString(reqb, "GET /a.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	reqb.Commit()
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
	record(t, h, schemes.CaptureRecord{Type: "response", ContentType: TypeHTTPResponse}, strings.NewReader(resp))
	// A block never committed (a transfer cut short) leaves no record.
	cut := h.Record(schemes.CaptureRecord{Type: "resource"})
	cut.Write([]byte("partial"))
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	var got []Entry
	var bigPayload []byte
	var ids = map[string]string{}
	var concurrent = map[string]string{}
	err = Walk(path, true, func(e Entry, rec gowarc.WarcRecord) error {
		got = append(got, e)
		ids[e.Type] = e.ID
		concurrent[e.Type] = rec.WarcHeader().Get(gowarc.WarcConcurrentTo)
		if e.Type == "resource" {
			r, err := Payload(rec)
			if err != nil {
				return err
			}
			bigPayload, err = io.ReadAll(r)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range got {
		types = append(types, e.Type)
	}
	if want := "warcinfo resource metadata request response"; strings.Join(types, " ") != want {
		t.Fatalf("records %q, want %q", strings.Join(types, " "), want)
	}
	if !bytes.Equal(bigPayload, big) {
		t.Fatalf("resource payload differs (%d bytes, want %d)", len(bigPayload), len(big))
	}
	if got[1].Digest != sha1b32(big) || got[1].Length != int64(len(big)) {
		t.Errorf("resource digest %s length %d, want %s %d", got[1].Digest, got[1].Length, sha1b32(big), len(big))
	}
	if concurrent["metadata"] != ids["resource"] || concurrent["response"] != ids["request"] {
		t.Errorf("WARC-Concurrent-To: metadata %q (resource %q), response %q (request %q)",
			concurrent["metadata"], ids["resource"], concurrent["response"], ids["request"])
	}
	if got[4].Digest != sha1b32([]byte("5\r\nhello\r\n0\r\n\r\n")) {
		t.Errorf("response payload digest %s, want the digest of the body as sent", got[4].Digest)
	}
	var out bytes.Buffer
	if err := Cat(path, "http://127.0.0.1/a.txt", &out); err != nil || out.String() != "5\r\nhello\r\n0\r\n\r\n" {
		t.Errorf("Cat = %q, %v", out.String(), err)
	}
	if err := Cat(path, "http://127.0.0.1/none", io.Discard); err == nil {
		t.Error("Cat of a URI with no record succeeded")
	}
}

// TestSegments rotates past the size limit: each segment begins with its
// own warcinfo and every record lands in exactly one segment.
func TestSegments(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "crawl")
	w, err := CreateSegments(prefix, 10<<10, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte("gopher "), 2000) // 14000 bytes, compresses well
	rnd := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 6; i++ {
		p := append([]byte{}, payload...)
		for j := 0; j < 3000; j++ {
			p[rnd.IntN(len(p))] = byte(rnd.UintN(256))
		}
		c := w.Capture("gopher://127.0.0.1/9/f" + string(rune('a'+i)))
		record(t, c, schemes.CaptureRecord{Type: "resource"}, bytes.NewReader(p))
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	segs, err := Segments(prefix)
	if err != nil || len(segs) < 2 {
		t.Fatalf("segments %v, %v: want rotation past 10 KiB", segs, err)
	}
	seen := map[string]int{}
	for _, s := range segs {
		first := true
		err := Walk(s, true, func(e Entry, _ gowarc.WarcRecord) error {
			if first && e.Type != "warcinfo" {
				t.Errorf("%s starts with %s", s, e.Type)
			}
			first = false
			if e.Type == "resource" {
				seen[e.URI]++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 6 {
		t.Errorf("resources seen %v, want 6 each once", seen)
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("%s recorded %d times", u, n)
		}
	}
	// A second writer on the same prefix goes on after the last segment.
	w2, err := CreateSegments(prefix, 10<<10, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	c := w2.Capture("gopher://127.0.0.1/0/x")
	record(t, c, schemes.CaptureRecord{Type: "resource"}, strings.NewReader("x"))
	c.Close()
	w2.Close()
	if _, err := os.Stat(SegmentName(prefix, len(segs))); err != nil {
		t.Errorf("rerun did not start segment %d: %v", len(segs), err)
	}
}

// TestStrictCatchesBadDigest: the strict reader the tests rely on refuses a
// record whose block does not match its digest.
func TestStrictCatchesBadDigest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.warc")
	rec := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: " + NewID() + "\r\n" +
		"WARC-Date: 2026-01-01T00:00:00Z\r\nWARC-Target-URI: gopher://127.0.0.1/0/x\r\n" +
		"Content-Type: text/plain\r\nWARC-Block-Digest: " + sha1b32([]byte("hellO")) + "\r\n" +
		"Content-Length: 5\r\n\r\nhello\r\n\r\n"
	if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Walk(path, true, func(Entry, gowarc.WarcRecord) error { return nil }); err == nil {
		t.Fatal("strict walk accepted a record with a wrong block digest")
	}
	good := strings.Replace(rec, sha1b32([]byte("hellO")), sha1b32([]byte("hello")), 1)
	os.WriteFile(path, []byte(good), 0o644)
	if err := Walk(path, true, func(Entry, gowarc.WarcRecord) error { return nil }); err != nil {
		t.Fatalf("strict walk refused a good record: %v", err)
	}
}

// TestRecoverAndDedup: a segment cut in the middle of a record (a killed
// run) is cut back to its last whole record and indexed by the next
// writer, which then records a payload it has already as a revisit.
func TestRecoverAndDedup(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "crawl")
	w, err := CreateSegments(prefix, 0, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"gopher://127.0.0.1/0/a", "gopher://127.0.0.1/0/b"} {
		c := w.Capture(u)
		record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}, strings.NewReader("payload of "+u))
		c.Close()
	}
	// Kill: no Close, so no index; then half of the last member is lost.
	seg := SegmentName(prefix, 0)
	fi, err := os.Stat(seg)
	if err != nil {
		t.Fatal(err)
	}
	var offsets []int64
	lines, _, err := Recover(seg)
	if err != nil || len(lines) != 2 {
		t.Fatalf("Recover of a whole segment: %d lines, %v", len(lines), err)
	}
	for _, l := range lines {
		var e IndexEntry
		readJSON(t, l, &e)
		offsets = append(offsets, e.Offset)
	}
	cutAt := offsets[1] + (fi.Size()-offsets[1])/2
	if err := os.Truncate(seg, cutAt); err != nil {
		t.Fatal(err)
	}
	w.f.Close() // the killed process's descriptor

	w2, err := CreateSegments(prefix, 0, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w2.Recovered) != 1 {
		t.Errorf("Recovered = %v, want the cut segment", w2.Recovered)
	}
	if fi, _ := os.Stat(seg); fi.Size() != offsets[1] {
		t.Errorf("segment cut back to %d bytes, want %d (the end of its last whole record)", fi.Size(), offsets[1])
	}
	if err := Walk(seg, true, func(Entry, gowarc.WarcRecord) error { return nil }); err != nil {
		t.Fatalf("recovered segment does not read cleanly: %v", err)
	}
	// a is known: a revisit. b was lost: recorded again in full.
	for _, u := range []string{"gopher://127.0.0.1/0/a", "gopher://127.0.0.1/0/b"} {
		c := w2.Capture(u)
		record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}, strings.NewReader("payload of "+u))
		c.Close()
	}
	w2.Close()
	types := map[string]string{}
	var refersTo string
	err = Walk(SegmentName(prefix, 1), true, func(e Entry, rec gowarc.WarcRecord) error {
		types[e.URI] = e.Type
		if e.Type == "revisit" {
			refersTo = rec.WarcHeader().Get(gowarc.WarcRefersToTargetURI)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if types["gopher://127.0.0.1/0/a"] != "revisit" || types["gopher://127.0.0.1/0/b"] != "resource" || refersTo != "gopher://127.0.0.1/0/a" {
		t.Errorf("second run recorded %v (revisit refers to %q), want a revisit of a and b in full", types, refersTo)
	}
	if _, err := os.Stat(IndexName(SegmentName(prefix, 1))); err != nil {
		t.Errorf("closed segment has no index: %v", err)
	}
}

func readJSON(t *testing.T, line string, v any) {
	t.Helper()
	i := strings.IndexByte(line, '{')
	if err := json.Unmarshal([]byte(line[i:]), v); err != nil {
		t.Fatal(err)
	}
}

// TestSpoolFilesRemoved: a payload past the memory spool goes through a
// temporary file, removed once the record is written, and also when the
// block is never committed (a transfer cut short).
func TestSpoolFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	spool := filepath.Join(dir, ".x.warc.gz.spool")
	// What a run killed with a block half spooled leaves behind.
	if err := os.Mkdir(spool, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(spool, "stale"), []byte("left by a killed run"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Create(filepath.Join(dir, "x.warc.gz"), Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(spool); len(ents) != 0 {
		t.Fatalf("%d files in the spool of a new writer, want the stale one gone", len(ents))
	}
	c := w.Capture("ftp://127.0.0.1/big")
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB
	cut := c.Record(schemes.CaptureRecord{Type: "resource"})
	cut.Write(big)
	if ents, _ := os.ReadDir(spool); len(ents) != 1 {
		t.Fatalf("spool files while a 2 MiB block is open: %d, want 1", len(ents))
	}
	record(t, c, schemes.CaptureRecord{Type: "resource"}, bytes.NewReader(big))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(spool); len(ents) != 0 {
		t.Errorf("%d spool files left after the capture ended", len(ents))
	}
	w.Close()
	if _, err := os.Stat(spool); !os.IsNotExist(err) {
		t.Errorf("spool directory left after the writer closed: %v", err)
	}
}

// TestGeminiRecords: a Gemini response's payload is its body after the
// status line, however the writes split it, for the payload digest, for
// Payload and for Cat; the WARC-Protocol fields are written; a second
// identical response stays a response (no revisit could keep its status
// line).
func TestGeminiRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.warc.gz")
	w, err := Create(path, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	const uri = "gemini://127.0.0.1/a.gmi"
	body := "# Title\r\n=> /b\r\n"
	for range 2 {
		c := w.Capture(uri)
		proto := []string{"gemini", "tls/1.3"}
		rq := c.Record(schemes.CaptureRecord{Type: "request", ContentType: "application/gemini;msgtype=request", Protocol: proto})
		io.WriteString(rq, uri+"\r\n")
		rq.Commit()
		rs := c.Record(schemes.CaptureRecord{Type: "response", ContentType: "application/gemini;msgtype=response", Protocol: proto})
		// The status line ends inside the second write.
		io.WriteString(rs, "20 text/ge")
		io.WriteString(rs, "mini\r\n# Title\r\n")
		io.WriteString(rs, "=> /b\r\n")
		rs.Commit()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var responses int
	err = Walk(path, true, func(e Entry, rec gowarc.WarcRecord) error {
		if e.Type == "revisit" {
			t.Errorf("a Gemini response recorded as a revisit")
		}
		if e.Type != "response" {
			return nil
		}
		responses++
		h := rec.WarcHeader()
		if got := h.Get(gowarc.WarcPayloadDigest); got != sha1b32([]byte(body)) {
			t.Errorf("payload digest %s, want the body's %s", got, sha1b32([]byte(body)))
		}
		if got := strings.Join(h.GetAll("WARC-Protocol"), ","); got != "gemini,tls/1.3" {
			t.Errorf("WARC-Protocol %q", got)
		}
		r, err := Payload(rec)
		if err != nil {
			return err
		}
		if p, _ := io.ReadAll(r); string(p) != body {
			t.Errorf("Payload %q, want %q", p, body)
		}
		return nil
	})
	if err != nil || responses != 2 {
		t.Fatalf("strict read: %v, %d responses", err, responses)
	}
	var out bytes.Buffer
	if err := Cat(path, uri, &out); err != nil || out.String() != body {
		t.Errorf("Cat = %q, %v", out.String(), err)
	}
}

// A segment killed before its first record was whole holds no record
// once cut back: the next writer removes it rather than leave a WARC
// that every reader refuses, and says so.
func TestRecoverRemovesEmptySegment(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "crawl")
	w, err := CreateSegments(prefix, 0, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	c := w.Capture("gopher://127.0.0.1/0/a")
	record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}, strings.NewReader("payload"))
	c.Close()
	seg := SegmentName(prefix, 0)
	if err := os.Truncate(seg, 20); err != nil { // into the first member
		t.Fatal(err)
	}
	w.f.Close() // the killed process's descriptor

	w2, err := CreateSegments(prefix, 0, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w2.Recovered) != 1 || !strings.Contains(w2.Recovered[0], "removed") {
		t.Errorf("Recovered = %q, want the empty segment said removed", w2.Recovered)
	}
	if _, err := os.Stat(seg); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the segment with no record is still there: %v", err)
	}
	c = w2.Capture("gopher://127.0.0.1/0/a")
	record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}, strings.NewReader("payload"))
	c.Close()
	if err := w2.Close(); err != nil {
		t.Fatal(err)
	}
	segs, _ := Segments(prefix)
	for _, s := range segs {
		if err := Walk(s, true, func(Entry, gowarc.WarcRecord) error { return nil }); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if len(segs) != 1 {
		t.Errorf("segments %v, want the rerun's one", segs)
	}
}
