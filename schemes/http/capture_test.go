package http

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// memCapture keeps the committed records of one fetch in memory.
type memCapture struct {
	mu     sync.Mutex
	recs   map[string]*bytes.Buffer // by record type
	protos map[string][]string      // WARC-Protocol values, by record type
}

type memBlock struct {
	c   *memCapture
	typ string
	buf bytes.Buffer
}

func (c *memCapture) Record(rec schemes.CaptureRecord) schemes.CaptureBlock {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.protos == nil {
		c.protos = map[string][]string{}
	}
	c.protos[rec.Type] = rec.Protocol
	return &memBlock{c: c, typ: rec.Type}
}
func (c *memCapture) Dialed(net.Conn) {}

func (b *memBlock) Write(p []byte) (int, error) { return b.buf.Write(p) }
func (b *memBlock) Commit() error {
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	if b.c.recs == nil {
		b.c.recs = map[string]*bytes.Buffer{}
	}
	b.c.recs[b.typ] = &b.buf
	return nil
}

// TestCaptureKeepsConnections fetches three pages under capture with one
// Fetcher: they share one kept-alive connection, and each capture holds
// its own exchange, its request and the response to it, nothing of the
// others.
func TestCaptureKeepsConnections(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("page " + r.URL.Path + "\n"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s nethttp.ConnState) {
		if s == nethttp.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	f := New()
	defer f.Close()
	d := &dial.Dialer{}
	for _, page := range []string{"/a", "/b", "/c"} {
		c := &memCapture{}
		_, body, err := fetch(t, f, &schemes.Request{URL: urlFor(t, srv, page, "", false), Call: schemes.Call{Capture: c}, Settings: &schemes.Settings{Dialer: d}})
		if err != nil {
			t.Fatal(err)
		}
		if want := "page " + page + "\n"; string(body) != want {
			t.Fatalf("%s: body %q, want %q", page, body, want)
		}
		req, resp := c.recs["request"], c.recs["response"]
		if req == nil || resp == nil {
			t.Fatalf("%s: records %v, want a request and a response", page, c.recs)
		}
		for _, typ := range []string{"request", "response"} {
			if p := strings.Join(c.protos[typ], " "); p != "http/1.1" {
				t.Errorf("%s: %s record's protocols %q, want http/1.1", page, typ, p)
			}
		}
		if !strings.HasPrefix(req.String(), "GET "+page+" HTTP/1.1\r\n") || strings.Count(req.String(), "GET ") != 1 {
			t.Errorf("%s: request record %q", page, req)
		}
		if !strings.HasPrefix(resp.String(), "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(resp.String(), "\r\n\r\npage "+page+"\n") {
			t.Errorf("%s: response record %q", page, resp)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for three captured fetches, want 1 kept alive", n)
	}
}

// TestCaptureProtocolsHTTPS: the records of an https exchange name HTTP/1.1
// and the TLS version the connection negotiated.
func TestCaptureProtocolsHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Write([]byte("secret\n"))
	}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	c := &memCapture{}
	_, body, err := fetch(t, New(), &schemes.Request{
		URL:      urlFor(t, srv, "/s", "", false),
		Call:     schemes.Call{Capture: c},
		Settings: &schemes.Settings{TLSConfig: &tls.Config{RootCAs: pool}},
	})
	if err != nil || string(body) != "secret\n" {
		t.Fatalf("%q, %v", body, err)
	}
	for _, typ := range []string{"request", "response"} {
		if p := strings.Join(c.protos[typ], " "); p != "http/1.1 tls/1.3" {
			t.Errorf("%s record's protocols %q, want http/1.1 tls/1.3", typ, p)
		}
	}
	if c.recs["response"] == nil {
		t.Error("no response record")
	}
}
