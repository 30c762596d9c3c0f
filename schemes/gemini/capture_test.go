package gemini

import (
	"bytes"
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// captured is one record a fake capture received.
type captured struct {
	rec       schemes.CaptureRecord
	block     bytes.Buffer
	committed bool
}

func (c *captured) Write(p []byte) (int, error) { return c.block.Write(p) }
func (c *captured) Commit() error {
	c.committed = true
	return nil
}

// fakeCapture keeps every record it is given.
type fakeCapture struct {
	mu      sync.Mutex
	records []*captured
}

func (f *fakeCapture) Record(rec schemes.CaptureRecord) schemes.CaptureBlock {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := &captured{rec: rec}
	f.records = append(f.records, c)
	return c
}

func (f *fakeCapture) Dialed(net.Conn) {}

// check compares the records with want: type, block, committed.
func (f *fakeCapture) check(t *testing.T, uri string, want ...string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.records) != len(want)/2 {
		t.Fatalf("%d records, want %d", len(f.records), len(want)/2)
	}
	for i, r := range f.records {
		typ, block := want[2*i], want[2*i+1]
		ct := map[string]string{"request": RequestType, "response": ResponseType}[typ]
		if r.rec.Type != typ || r.rec.ContentType != ct || r.rec.URI != uri {
			t.Errorf("record %d: %+v; want a %s of %s as %s", i, r.rec, typ, uri, ct)
		}
		if p := fmt.Sprint(r.rec.Protocol); p != "[gemini tls/1.3]" && p != "[gemini tls/1.2]" {
			t.Errorf("record %d: protocol %s", i, p)
		}
		if !r.committed || r.block.String() != block {
			t.Errorf("record %d: committed %v, block %q; want %q", i, r.committed, r.block.String(), block)
		}
	}
}

// TestCapture: the request line and the whole response (status line and
// body) are recorded exactly.
func TestCapture(t *testing.T) {
	body := "# A page\r\n=> /next\r\n\x00\xff binary too"
	s := newServer(t, newCert(t, "gemini", inAnHour), reply("20 text/gemini\r\n"+body))
	// The fragment is never sent, and the records name what was.
	req := request(t, s.URL("/page.gmi?q#part"), nil)
	fc := &fakeCapture{}
	req.Capture = fc
	if _, got, err := get(t, New(), req); err != nil || string(got) != body {
		t.Fatalf("%q, %v", got, err)
	}
	fc.check(t, s.URL("/page.gmi?q"),
		"request", s.URL("/page.gmi?q\r\n"),
		"response", "20 text/gemini\r\n"+body)
}

// TestCaptureFailure: a failure's response record holds the status line
// alone.
func TestCaptureFailure(t *testing.T) {
	s := newServer(t, newCert(t, "gemini", inAnHour), reply("51 Not found\r\n"))
	req := request(t, s.URL("/gone"), nil)
	fc := &fakeCapture{}
	req.Capture = fc
	if _, _, err := get(t, New(), req); err == nil {
		t.Fatal("a 51 fetched")
	}
	fc.check(t, s.URL("/gone"), "request", s.URL("/gone\r\n"), "response", "51 Not found\r\n")
}

// TestCaptureRedirect: a redirect's response record is its status line.
func TestCaptureRedirect(t *testing.T) {
	s := newServer(t, newCert(t, "gemini", inAnHour), reply("31 /there\r\n"))
	req := request(t, s.URL("/here"), nil)
	fc := &fakeCapture{}
	req.Capture = fc
	if _, _, err := get(t, New(), req); err != nil {
		t.Fatal(err)
	}
	fc.check(t, s.URL("/here"), "request", s.URL("/here\r\n"), "response", "31 /there\r\n")
}

// TestCaptureInput: both requests of an input exchange are recorded, each
// with the response it got.
func TestCaptureInput(t *testing.T) {
	s := inputServer(t, "10 Query")
	req := request(t, s.URL("/s"), nil)
	req.Query, req.HasQuery = "a b", true
	fc := &fakeCapture{}
	req.Capture = fc
	if _, _, err := get(t, New(), req); err != nil {
		t.Fatal(err)
	}
	fc.mu.Lock()
	n := len(fc.records)
	fc.mu.Unlock()
	if n != 4 {
		t.Fatalf("%d records, want 4", n)
	}
	first := &fakeCapture{records: fc.records[:2]}
	first.check(t, s.URL("/s"), "request", s.URL("/s\r\n"), "response", "10 Query\r\n")
	second := &fakeCapture{records: fc.records[2:]}
	second.check(t, s.URL("/s?a%20b"), "request", s.URL("/s?a%20b\r\n"), "response", "20 text/plain\r\na%20b")
}
