package fetch

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// fakeCapture records what the front door and a fetcher hand it.
type fakeCapture struct {
	mu     sync.Mutex
	url    string
	dialed int
	blocks []string
	conv   bytes.Buffer
	closed int
}

type fakeBlock struct {
	c   *fakeCapture
	buf bytes.Buffer
}

func (b *fakeBlock) Write(p []byte) (int, error) { return b.buf.Write(p) }
func (b *fakeBlock) Commit() error {
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	b.c.blocks = append(b.c.blocks, b.buf.String())
	return nil
}

func (c *fakeCapture) Record(schemes.CaptureRecord) schemes.CaptureBlock { return &fakeBlock{c: c} }
func (c *fakeCapture) Dialed(net.Conn)                                   { c.mu.Lock(); c.dialed++; c.mu.Unlock() }
func (c *fakeCapture) Conversation() io.Writer                           { return &c.conv }
func (c *fakeCapture) Close() error                                      { c.closed++; return nil }

// captureFetcher dials (so the capture learns of the connection), writes
// a transcript line and streams a body through the capture.
type captureFetcher struct{}

type pipeDialer struct{}

func (pipeDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	a, b := net.Pipe()
	b.Close()
	return a, nil
}

func (f captureFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	if _, err := req.Dialer.DialContext(ctx, "tcp", "127.0.0.1:21"); err != nil {
		return nil, err
	}
	if req.Transcript != nil {
		io.WriteString(req.Transcript, "> RETR x\r\n")
	}
	blk := schemes.StartCapture(req.Capture, schemes.CaptureRecord{Type: "resource"})
	body := schemes.CaptureTee(strings.NewReader("exact bytes"), blk)
	return &schemes.Response{Kind: schemes.KindFile, Body: io.NopCloser(body), Size: -1}, nil
}

// TestOptionsCapture: with Options.Capture, Do starts a capture per fetch,
// wires it to the fetcher (Capture, dialer, transcript) and closes it when
// the response is closed, after the body has been recorded.
func TestOptionsCapture(t *testing.T) {
	var caps []*fakeCapture
	c := newClient(Options{Dialer: pipeDialer{}, Capture: func(u string) CaptureCloser {
		fc := &fakeCapture{url: u}
		caps = append(caps, fc)
		return fc
	}})
	c.Register("ftp", captureFetcher{})
	resp, err := c.Get(context.Background(), "ftp://user:secret@127.0.0.1/x")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(resp.Body); err != nil || string(got) != "exact bytes" {
		t.Fatalf("body %q, %v", got, err)
	}
	if len(caps) != 1 || caps[0].closed != 0 {
		t.Fatalf("captures %d, closed before the response: %+v", len(caps), caps)
	}
	resp.Close()
	fc := caps[0]
	if fc.closed != 1 || fc.dialed != 1 || len(fc.blocks) != 1 || fc.blocks[0] != "exact bytes" ||
		fc.conv.String() != "> RETR x\r\n" {
		t.Errorf("capture: closed %d, dialed %d, blocks %q, conversation %q", fc.closed, fc.dialed, fc.blocks, fc.conv.String())
	}
	if strings.Contains(fc.url, "secret") {
		t.Errorf("capture URL %q holds the password", fc.url)
	}
	// A fetch that fails ends its capture at once.
	if _, err := c.Get(context.Background(), "ftp://127.0.0.1:119/x"); err == nil {
		t.Fatal("port 119 was not refused")
	}
	if len(caps) != 2 || caps[1].closed != 1 || caps[1].dialed != 0 {
		t.Errorf("failed fetch: captures %d, closed %d, dialed %d", len(caps), caps[1].closed, caps[1].dialed)
	}
}
