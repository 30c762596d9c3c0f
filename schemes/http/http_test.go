package http

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	nethttp "net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// countingDialer proves every connection goes through Request.Dialer.
type countingDialer struct {
	n atomic.Int32
	d dial.Dialer
}

func (c *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c.n.Add(1)
	return c.d.DialContext(ctx, network, addr)
}

func urlFor(t *testing.T, srv *httptest.Server, path, search string, hasSearch bool) *schemes.URL {
	t.Helper()
	host, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	scheme := "http"
	if srv.TLS != nil {
		scheme = "https"
	}
	return &schemes.URL{Scheme: scheme, Host: host, Port: p,
		HTTP: &schemes.HTTP{Path: path, Search: search, HasSearch: hasSearch}}
}

func fetch(t *testing.T, f *Fetcher, req *schemes.Request) (*schemes.Response, []byte, error) {
	t.Helper()
	if req.Dialer == nil {
		req.Dialer = &dial.Dialer{}
	}
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Close()
	var b []byte
	if resp.Body != nil {
		b, err = io.ReadAll(resp.Body)
	}
	return resp, b, err
}

var content = []byte("The quick brown fox jumps over the lazy dog.\n")
var modTime = time.Date(1995, 3, 1, 12, 0, 0, 0, time.UTC)

func serveContent(seen *[]string, mu *sync.Mutex) nethttp.HandlerFunc {
	return func(w nethttp.ResponseWriter, r *nethttp.Request) {
		mu.Lock()
		*seen = append(*seen, r.Header.Get("Range")+"|"+r.Header.Get("If-Modified-Since"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		nethttp.ServeContent(w, r, "fox.txt", modTime, bytes.NewReader(content))
	}
}

func TestFullAndResumedFetch(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	srv := httptest.NewServer(serveContent(&seen, &mu))
	defer srv.Close()
	d := &countingDialer{}
	f := New()
	defer f.Close()

	resp, body, err := fetch(t, f, &schemes.Request{URL: urlFor(t, srv, "/pub/fox.txt", "", false), Settings: &schemes.Settings{Dialer: d}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, content) || resp.Offset != 0 || resp.Size != int64(len(content)) {
		t.Errorf("full: body %q offset %d size %d", body, resp.Offset, resp.Size)
	}
	if resp.Name != "fox.txt" || resp.MediaType != "text/plain" || resp.Type != schemes.TypeText || !resp.Modified.Equal(modTime) {
		t.Errorf("meta: name %q media %q type %q modified %v", resp.Name, resp.MediaType, resp.Type, resp.Modified)
	}

	resp, body, err = fetch(t, f, &schemes.Request{URL: urlFor(t, srv, "/pub/fox.txt", "", false), Call: schemes.Call{Offset: 10}, Settings: &schemes.Settings{Dialer: d}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, content[10:]) || resp.Offset != 10 || resp.Size != int64(len(content)) {
		t.Errorf("resumed: body %q offset %d size %d", body, resp.Offset, resp.Size)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "|" || seen[1] != "bytes=10-|" {
		t.Errorf("server saw Range headers %q", seen)
	}
	if d.n.Load() == 0 {
		t.Error("Request.Dialer was never used")
	}
}

func TestResumeIgnoredMeansFullBody(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Write(content) // no Range support: 200 with everything
	}))
	defer srv.Close()
	resp, body, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/f", "", false), Call: schemes.Call{Offset: 10}, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Offset != 0 || !bytes.Equal(body, content) {
		t.Errorf("offset %d body %q; a 200 is the whole resource from 0", resp.Offset, body)
	}
}

func TestResumeOfCompleteFile(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	srv := httptest.NewServer(serveContent(&seen, &mu))
	defer srv.Close()
	resp, body, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/f", "", false), Call: schemes.Call{Offset: int64(len(content))}, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(body) != 0 || resp.Offset != int64(len(content)) || resp.Size != int64(len(content)) {
		t.Errorf("complete file: body %q offset %d size %d", body, resp.Offset, resp.Size)
	}
}

func TestWrongResumeOffsetRefused(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("Content-Range", "bytes 0-9/45")
		w.WriteHeader(nethttp.StatusPartialContent)
		w.Write(content[:10])
	}))
	defer srv.Close()
	_, _, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/f", "", false), Call: schemes.Call{Offset: 5}, Settings: &schemes.Settings{}})
	if !errors.Is(err, schemes.ErrRefused) {
		t.Errorf("206 from the wrong byte: %v, want ErrRefused", err)
	}
}

func TestNotModified(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	srv := httptest.NewServer(serveContent(&seen, &mu))
	defer srv.Close()
	resp, body, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/f", "", false), Call: schemes.Call{IfModifiedSince: modTime}, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.NotModified || len(body) != 0 {
		t.Errorf("NotModified %v body %q", resp.NotModified, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "|" + modTime.Format(nethttp.TimeFormat); len(seen) != 1 || seen[0] != want {
		t.Errorf("server saw %q, want %q", seen, want)
	}
}

func TestErrorStatusRefused(t *testing.T) {
	srv := httptest.NewServer(nethttp.NotFoundHandler())
	defer srv.Close()
	_, _, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/missing", "", false), Settings: &schemes.Settings{}})
	if !errors.Is(err, schemes.ErrRefused) {
		t.Fatalf("404: %v, want ErrRefused", err)
	}
	if !strings.Contains(err.Error(), "HTTP/1.1 404 Not Found") {
		t.Errorf("message %q lacks the status line", err)
	}
}

func TestRedirectReturnedNotFollowed(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		hits.Add(1)
		nethttp.Redirect(w, r, "/elsewhere", nethttp.StatusFound)
	}))
	defer srv.Close()
	resp, _, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/start", "", false), Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != schemes.KindRedirect || resp.Location != "/elsewhere" || resp.Status != "HTTP/1.1 302 Found" {
		t.Errorf("kind %v location %q status %q", resp.Kind, resp.Location, resp.Status)
	}
	if hits.Load() != 1 {
		t.Errorf("server got %d requests; the redirect must not be followed", hits.Load())
	}
}

func TestRequestLine(t *testing.T) {
	lines := make(chan string, 1)
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		lines <- r.Method + " " + r.RequestURI + " " + r.Proto
	}))
	defer srv.Close()
	cases := []struct {
		path, search string
		hasSearch    bool
		want         string
	}{
		{"/a b/c%2Fd", "q=x y", true, "GET /a%20b/c%2Fd?q=x%20y HTTP/1.1"},
		{"/ctl\x01<\"x\">", "", false, "GET /ctl%01%3C%22x%22%3E HTTP/1.1"},
		{"", "", false, "GET / HTTP/1.1"},
		{"/s", "", true, "GET /s? HTTP/1.1"},
		{"/caf\xe9", "a=1&b=%2F", true, "GET /caf%E9?a=1&b=%2F HTTP/1.1"},
	}
	for _, c := range cases {
		u := urlFor(t, srv, c.path, c.search, c.hasSearch)
		u.Fragment, u.HasFragment = "section-2", true
		if _, _, err := fetch(t, New(), &schemes.Request{URL: u, Settings: &schemes.Settings{}}); err != nil {
			t.Fatal(err)
		}
		got := <-lines
		if got != c.want {
			t.Errorf("path %q search %q: request line %q, want %q", c.path, c.search, got, c.want)
		}
		if strings.Contains(got, "#") || strings.Contains(got, "section-2") {
			t.Errorf("fragment sent: %q", got)
		}
		plan, err := New().Plan(&schemes.Request{URL: u, Settings: &schemes.Settings{}})
		if err != nil {
			t.Fatal(err)
		}
		if plan.Requests[0] != c.want {
			t.Errorf("plan %q, want %q", plan.Requests[0], c.want)
		}
	}
}

func TestInjectionRefusedBeforeConnecting(t *testing.T) {
	d := &countingDialer{}
	u := &schemes.URL{Scheme: "http", Host: "127.0.0.1", Port: 9, HTTP: &schemes.HTTP{Path: "/a%0D%0AX-Evil:%201"}}
	_, err := New().Fetch(context.Background(), &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: d}})
	if err == nil || !strings.Contains(err.Error(), "CR") {
		t.Fatalf("err = %v, want an injection refusal", err)
	}
	if d.n.Load() != 0 {
		t.Error("dialed despite the refusal")
	}
}

func TestHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Write(content)
	}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	_, body, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/f", "", false), Settings: &schemes.Settings{TLSConfig: &tls.Config{RootCAs: pool}}})
	if err != nil || !bytes.Equal(body, content) {
		t.Fatalf("with the CA: %v %q", err, body)
	}
	_, _, err = fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/f", "", false), Settings: &schemes.Settings{TLSConfig: &tls.Config{}}})
	if !errors.Is(err, schemes.ErrConnect) {
		t.Errorf("unknown CA: %v, want ErrConnect", err)
	}
}

func TestStalledBodyTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("partial"))
		w.(nethttp.Flusher).Flush()
		<-release
	}))
	defer srv.Close()
	defer close(release)
	_, body, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/f", "", false), Settings: &schemes.Settings{IdleTimeout: 200 * time.Millisecond}})
	if !errors.Is(err, schemes.ErrTimeout) {
		t.Errorf("stalled body: %v, want ErrTimeout", err)
	}
	if string(body) != "partial" {
		t.Errorf("got %q before the stall", body)
	}
}

func TestCutBodyInterrupted(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("partial"))
		w.(nethttp.Flusher).Flush()
		conn, _, err := w.(nethttp.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	defer srv.Close()
	_, _, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/f", "", false), Settings: &schemes.Settings{}})
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Errorf("cut body: %v, want ErrInterrupted", err)
	}
}

func TestMaxBytes(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		if r.URL.Path == "/chunked" {
			w.(nethttp.Flusher).Flush() // no Content-Length: chunked
		}
		w.Write(content)
	}))
	defer srv.Close()
	// A Content-Length past the limit is refused before the body; a
	// chunked body that grows past it is the caller's to stop.
	if _, _, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/sized", "", false), Settings: &schemes.Settings{MaxBytes: 10}}); !errors.Is(err, schemes.ErrTooLarge) {
		t.Errorf("/sized: %v, want ErrTooLarge", err)
	}
	if _, got, err := fetch(t, New(), &schemes.Request{URL: urlFor(t, srv, "/chunked", "", false), Settings: &schemes.Settings{MaxBytes: 10}}); err != nil || len(got) != len(content) {
		t.Errorf("/chunked: %d bytes, %v; want all %d", len(got), err, len(content))
	}
}

func TestConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	ln.Close()
	u := &schemes.URL{Scheme: "http", Host: "127.0.0.1", Port: addr.Port, HTTP: &schemes.HTTP{Path: "/"}}
	_, _, err = fetch(t, New(), &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	if !errors.Is(err, schemes.ErrConnect) {
		t.Errorf("closed port: %v, want ErrConnect", err)
	}
}

func TestContentRange(t *testing.T) {
	cases := []struct {
		in                 string
		first, last, total int64
		ok                 bool
	}{
		{"bytes 10-44/45", 10, 44, 45, true},
		{"bytes 0-0/*", 0, 0, -1, true},
		{"bytes */45", 0, 0, 45, true},
		{"bytes 5-4/45", 0, 0, 0, false},
		{"items 1-2/3", 0, 0, 0, false},
		{"bytes x-2/3", 0, 0, 0, false},
	}
	for _, c := range cases {
		f, l, tot, ok := contentRange(c.in)
		if f != c.first || l != c.last || tot != c.total || ok != c.ok {
			t.Errorf("%q: %d %d %d %v", c.in, f, l, tot, ok)
		}
	}
}

func TestPlanHostAndRange(t *testing.T) {
	u := &schemes.URL{Scheme: "http", Host: "127.0.0.80", Port: 8080, HTTP: &schemes.HTTP{Path: "/x"}}
	plan, err := New().Plan(&schemes.Request{URL: u, Call: schemes.Call{Offset: 7}, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Notes["host"] != "Host: 127.0.0.80:8080" || plan.Notes["range"] != "Range: bytes=7-" {
		t.Errorf("notes %v", plan.Notes)
	}
	u.Port = 80
	plan, _ = New().Plan(&schemes.Request{URL: u, Settings: &schemes.Settings{}})
	if plan.Notes["host"] != "Host: 127.0.0.80" {
		t.Errorf("default port shown: %v", plan.Notes)
	}
}
