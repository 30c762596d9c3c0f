package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// HTTPHosts returns the HTTP servers the archive holds responses of,
// "host:port" (the port 80 or 443 when the URL names none), in the order
// first captured.
func (a *Archive) HTTPHosts() []string {
	var hosts []string
	for _, uri := range a.uris {
		if h := parseHTTP(uri); h != nil && !slices.Contains(hosts, h.host) {
			hosts = append(hosts, h.host)
		}
	}
	return hosts
}

// httpURI is a captured http or https URI taken apart.
type httpURI struct {
	uri        string
	host       string // hostKey
	requestURI string // path and query, as a request line sends them
}

func parseHTTP(uri string) *httpURI {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil
	}
	port := 0
	switch strings.ToLower(u.Scheme) {
	case "http":
		port = 80
	case "https":
		port = 443
	default:
		return nil
	}
	if p := u.Port(); p != "" {
		if _, err := fmt.Sscan(p, &port); err != nil {
			return nil
		}
	}
	u.Fragment, u.RawFragment = "", ""
	return &httpURI{uri: uri, host: hostKey(u.Hostname(), port), requestURI: u.RequestURI()}
}

// HTTPServer answers HTTP/1.x requests with the captured responses, as
// they were recorded (status line, header block and body, transfer coding
// included), one request per connection. A request whose target is a
// path ("GET /a?b") is answered from the captures of one server, the
// replayed one; a request whose target is an absolute URL, as clients
// send to a proxy ("GET http://host/a?b"), from the capture of exactly
// that URL, of any server.
type HTTPServer struct {
	a     *Archive
	host  string
	warn  func(string)
	paths map[string][]string // the replayed server's URIs by request URI
	urls  map[string][]string // every server's URIs by host key and request URI
	run   running
}

// NewHTTPServer returns the server of the captures of host ("host:port"
// as HTTPHosts names it; "" for the first captured). warn receives one
// line per record that cannot be read while serving; nil discards them.
func NewHTTPServer(a *Archive, host string, warn func(string)) (*HTTPServer, error) {
	host, err := pickHost("http", a.HTTPHosts(), host, 80)
	if err != nil {
		return nil, err
	}
	if warn == nil {
		warn = func(string) {}
	}
	s := &HTTPServer{a: a, host: host, warn: warn, paths: map[string][]string{}, urls: map[string][]string{}}
	for _, uri := range a.uris {
		h := parseHTTP(uri)
		if h == nil {
			continue
		}
		if h.host == host {
			s.paths[h.requestURI] = append(s.paths[h.requestURI], uri)
		}
		s.urls[h.host+h.requestURI] = append(s.urls[h.host+h.requestURI], uri)
	}
	return s, nil
}

// Host returns the "host:port" the server replays.
func (s *HTTPServer) Host() string { return s.host }

// URLs returns how many URLs of the replayed server it answers.
func (s *HTTPServer) URLs() int { return len(s.paths) }

// Serve answers the connections ln accepts until ctx ends, Close is
// called or ln fails; see Server.
func (s *HTTPServer) Serve(ctx context.Context, ln net.Listener) error {
	return s.run.serve(ctx, ln, "http", s.serveConn)
}

// ListenAndServe listens on the TCP address addr (DefaultAddr("http")
// when "") and calls Serve.
func (s *HTTPServer) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := listen("http", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Close stops every Serve of s and returns once each has returned.
func (s *HTTPServer) Close() error { return s.run.close() }

// String says what s replays, as "127.0.0.80:80 9 urls".
func (s *HTTPServer) String() string { return fmt.Sprintf("%s %d urls", s.host, s.URLs()) }

func (s *HTTPServer) serveConn(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(requestTimeout))
	br := bufio.NewReaderSize(io.LimitReader(c, MaxRequestLine+64<<10), 4096)
	req, err := http.ReadRequest(br)
	if err != nil {
		reply(c, 400, "Bad Request", "gofer replay: the request could not be read.\n", false)
		return
	}
	c.SetReadDeadline(time.Time{})
	w := bufio.NewWriterSize(&deadlineWriter{c: c}, 32<<10)
	s.answer(w, req)
	w.Flush()
	if tc, ok := c.(*net.TCPConn); ok {
		// The response ends where the connection does: a recorded one
		// framed by neither length nor chunks is whole too.
		tc.CloseWrite()
		// Read on until the client closes, so that what it sent after
		// the request does not turn the close into a reset that could
		// cut the response short on its side.
		c.SetReadDeadline(time.Now().Add(lingerTimeout))
		io.Copy(io.Discard, c)
	}
}

// lingerTimeout bounds the wait for the client's close after a response.
const lingerTimeout = 5 * time.Second

// answer writes the response to req.
func (s *HTTPServer) answer(w *bufio.Writer, req *http.Request) {
	head := req.Method == http.MethodHead
	if req.Method != http.MethodGet && !head {
		reply(w, 405, "Method Not Allowed", "gofer replay: only GET and HEAD are answered.\n", head)
		return
	}
	var cands []string
	if req.URL.IsAbs() {
		// The URL as sent first, then as captured URLs spell it (the
		// host's case, a default port written out or left out).
		cands = []string{req.RequestURI}
		if h := parseHTTP(req.RequestURI); h != nil {
			cands = append(cands, s.urls[h.host+h.requestURI]...)
		}
	} else {
		cands = s.paths[req.RequestURI]
	}
	for _, uri := range cands {
		p, block, err := s.a.lookupResponse(uri)
		if err != nil {
			if !errors.Is(err, ErrNotCaptured) {
				s.warn(err.Error())
			}
			continue
		}
		if head {
			_, err = w.Write(block)
		} else {
			_, err = io.Copy(w, p)
		}
		p.Close()
		if err != nil {
			s.warn(fmt.Sprintf("%s: %v", uri, err))
		}
		return
	}
	what := req.RequestURI
	if !req.URL.IsAbs() {
		what = fmt.Sprintf("%s (on %s)", req.RequestURI, s.host)
	}
	reply(w, 404, "Not Found", fmt.Sprintf("gofer replay: %s was not captured.\n", what), head)
}

// reply writes a response of the replay's own, a short text.
func reply(w io.Writer, code int, status, body string, head bool) {
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		code, status, len(body))
	if !head {
		io.WriteString(w, body)
	}
}
