package http

import (
	"bufio"
	"net"
	nethttp "net/http"
	"testing"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// TestThroughConnectProxy: with a proxy in the dialer, the request reaches
// the proxy once, as a CONNECT to the URL's host and port, and the request
// inside the tunnel is in origin form, as to the server itself. (net/http's
// own proxy support would send an absolute-form request to the proxy
// instead, or, for loopback targets, bypass it.)
func TestThroughConnectProxy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type seen struct{ connect, inner string }
	got := make(chan seen, 1)
	go func() {
		var s seen
		defer func() { got <- s }()
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := nethttp.ReadRequest(br)
		if err != nil {
			return
		}
		s.connect = req.Method + " " + req.RequestURI
		c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
		// This end of the tunnel plays the origin server.
		req, err = nethttp.ReadRequest(br)
		if err != nil {
			return
		}
		s.inner = req.Method + " " + req.RequestURI
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
	}()
	u := &schemes.URL{Scheme: "http", Host: "127.0.0.80", Port: 80,
		HTTP: &schemes.HTTP{Path: "/dir/file.txt", Search: "q=1", HasSearch: true}}
	d := &dial.Dialer{Proxy: "http://" + l.Addr().String()}
	_, body, err := fetch(t, New(), &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: d}})
	if err != nil || string(body) != "ok" {
		t.Fatalf("fetch through the proxy: %q, %v", body, err)
	}
	s := <-got
	if s.connect != "CONNECT 127.0.0.80:80" || s.inner != "GET /dir/file.txt?q=1" {
		t.Errorf("proxy saw %q, then %q in the tunnel; want CONNECT 127.0.0.80:80, then GET /dir/file.txt?q=1", s.connect, s.inner)
	}
}
