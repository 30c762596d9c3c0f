package replay

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

const (
	// A chunked response: its bytes must go out as they were recorded.
	chunked = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"6\r\nhello \r\n6\r\nworld\n\r\n0\r\n\r\n"
	page1 = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"one\"\r\n\r\npage\n"
	// Captured again with the same body: recorded as a revisit that keeps
	// its own header block.
	page2    = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nETag: \"two\"\r\n\r\npage\n"
	notFound = "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\ngone"
)

// writeSite captures a few HTTP exchanges of two servers.
func writeSite(t *testing.T, dir string) string {
	t.Helper()
	prefix := filepath.Join(dir, "site")
	w, err := warc.CreateSegments(prefix, 0, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	resp := func(uri, body string) {
		record(t, w, schemes.CaptureRecord{Type: "response", URI: uri, ContentType: warc.TypeHTTPResponse}, body)
	}
	resp("http://127.0.0.80/text/chunked.txt?x=1", chunked)
	resp("http://127.0.0.80/page", page1)
	resp("http://127.0.0.80/page", page2)
	resp("http://127.0.0.80/gone", notFound)
	resp("http://other.example:8000/", page1)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/x", ContentType: "text/plain"}, "x\r\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return prefix
}

// serveHTTP replays a's HTTP captures on a loopback port.
func serveHTTP(t *testing.T, a *Archive, host string) string {
	t.Helper()
	s, err := NewHTTPServer(a, host, func(msg string) { t.Error("warning: " + msg) })
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

// exchange sends a raw request and returns the whole response.
func exchange(t *testing.T, addr, request string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHTTPReplay(t *testing.T) {
	a := open(t, Options{}, writeSite(t, t.TempDir()))
	if got, want := strings.Join(a.HTTPHosts(), " "), "127.0.0.80:80 other.example:8000"; got != want {
		t.Errorf("HTTPHosts: %q, want %q", got, want)
	}
	if cs := a.byURI["http://127.0.0.80/page"]; len(cs) != 2 || cs[1].entry.Type != "revisit" {
		t.Fatalf("the second capture of /page is not a revisit: %+v", cs)
	}
	addr := serveHTTP(t, a, "")
	get := func(target string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n"
	}
	for _, tc := range []struct{ request, want string }{
		{get("/text/chunked.txt?x=1"), chunked},
		{get("/page"), page2[:len(page2)-len("page\n")] + "page\n"},
		{get("/gone"), notFound},
		{"HEAD /text/chunked.txt?x=1 HTTP/1.1\r\nHost: x\r\n\r\n", chunked[:strings.Index(chunked, "\r\n\r\n")+4]},
		// A proxy's request names the URL, of any captured server.
		{get("http://127.0.0.80/text/chunked.txt?x=1"), chunked},
		{get("http://other.example:8000/"), page1},
		{get("http://127.0.0.80:80/page"), page2},
		{"GET /page HTTP/1.0\r\n\r\n", page2},
	} {
		if got := exchange(t, addr, tc.request); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.request, got, tc.want)
		}
	}
	for _, req := range []string{
		get("/nothing"), get("/text/chunked.txt"), get("http://127.0.0.80/other"), get("http://127.0.0.81/page"),
		get("gopher://127.0.0.71/0/x"),
	} {
		got := exchange(t, addr, req)
		if !strings.HasPrefix(got, "HTTP/1.1 404 Not Found\r\n") || !strings.Contains(got, "was not captured") {
			t.Errorf("%q: %q, want a 404 saying it was not captured", req, got)
		}
	}
	if got := exchange(t, addr, "POST /page HTTP/1.1\r\nContent-Length: 0\r\n\r\n"); !strings.HasPrefix(got, "HTTP/1.1 405 ") {
		t.Errorf("POST: %q, want 405", got)
	}
	if got := exchange(t, addr, "nonsense\r\n\r\n"); !strings.HasPrefix(got, "HTTP/1.1 400 ") {
		t.Errorf("a bad request: %q, want 400", got)
	}

	// Go's client, through the replay as its proxy, reads the chunked
	// body whole.
	proxy, _ := url.Parse("http://" + addr)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}
	resp, err := client.Get("http://127.0.0.80/text/chunked.txt?x=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello world\n" {
		t.Errorf("through the proxy: %q", body)
	}

	// --host picks the other server for path requests.
	addr2 := serveHTTP(t, a, "other.example:8000")
	if got := exchange(t, addr2, get("/")); got != page1 {
		t.Errorf("other.example:8000 /: %q", got)
	}
	if _, err := NewHTTPServer(a, "127.0.0.99", nil); err == nil {
		t.Error("NewHTTPServer of an uncaptured host: no error")
	}
}

// TestHTTPResponseFraming checks that what the replay sends parses as the
// response recorded, its body ending where the recording's does.
func TestHTTPResponseFraming(t *testing.T) {
	addr := serveHTTP(t, open(t, Options{}, writeSite(t, t.TempDir())), "127.0.0.80")
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(exchange(t, addr, "GET /page HTTP/1.1\r\n\r\n"))), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Header.Get("ETag") != `"two"` {
		t.Errorf("the revisit's headers: ETag %q, want \"two\"", resp.Header.Get("ETag"))
	}
}
