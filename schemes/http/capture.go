package http

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	nethttp "net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// Content types of the request and response records of an archive.
const (
	captureRequestType  = "application/http;msgtype=request"
	captureResponseType = "application/http;msgtype=response"
)

// wireCapture records one exchange as it crosses the connection: the bytes
// written are the request record, the bytes read the response record. It
// sits above TLS, so an https exchange is recorded in the clear.
type wireCapture struct {
	mu      sync.Mutex
	capture schemes.Capture
	uri     string
	// req and resp are started when the exchange gets its connection
	// (open), whose protocols they name; nil before.
	req     schemes.CaptureBlock
	resp    schemes.CaptureBlock
	reqDone bool
}

func newWireCapture(req *schemes.Request) *wireCapture {
	return &wireCapture{capture: req.Capture, uri: req.URL.Redacted()}
}

// open starts the exchange's records, once, naming the protocols of the
// connection that carries it.
func (w *wireCapture) open(proto []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.req != nil {
		return
	}
	w.req = w.capture.Record(schemes.CaptureRecord{Type: "request", URI: w.uri, ContentType: captureRequestType, Protocol: proto})
	w.resp = w.capture.Record(schemes.CaptureRecord{Type: "response", URI: w.uri, ContentType: captureResponseType, Protocol: proto})
}

// commitResponse keeps the response record; the body has been read to its end.
func (w *wireCapture) commitResponse() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.req == nil {
		return
	}
	if !w.reqDone {
		w.reqDone = true
		w.req.Commit()
	}
	w.resp.Commit()
}

// teeConn is a connection of the capture transport: it records what
// crosses it into the exchange it carries now, set when a request gets
// the connection (tapped). HTTP/1.1 sends one request at a time on a
// connection and the server answers only after it, so every byte read or
// written after a request got the connection belongs to that request's
// exchange, and a kept-alive connection serves one capture after another.
type teeConn struct {
	net.Conn
	// proto names the protocols the connection carries: "http/1.1" (the
	// only one the capture transport speaks), then TLS's version.
	proto []string
	mu    sync.Mutex
	w     *wireCapture
}

// carry makes w the exchange the connection records.
func (c *teeConn) carry(w *wireCapture) {
	w.open(c.proto)
	c.mu.Lock()
	c.w = w
	c.mu.Unlock()
}

func (c *teeConn) current() *wireCapture {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w
}

// Write records p before it goes out: the server may answer, and the
// reading side commit the request, before a Write that sent it returns.
func (c *teeConn) Write(p []byte) (int, error) {
	if w := c.current(); w != nil {
		w.mu.Lock()
		if !w.reqDone {
			w.req.Write(p)
		}
		w.mu.Unlock()
	}
	return c.Conn.Write(p)
}

func (c *teeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if w := c.current(); n > 0 && w != nil {
		w.mu.Lock()
		if !w.reqDone {
			w.reqDone = true
			w.req.Commit()
		}
		w.resp.Write(p[:n])
		w.mu.Unlock()
	}
	return n, err
}

// tapped returns hreq with a trace that hands the connection it gets the
// exchange w to record.
func tapped(hreq *nethttp.Request, w *wireCapture) *nethttp.Request {
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if c, ok := info.Conn.(*teeConn); ok {
			c.carry(w)
		}
	}}
	return hreq.WithContext(httptrace.WithClientTrace(hreq.Context(), trace))
}

// newCaptureTransport returns a transport whose connections are teeConns,
// so that what crosses them can be recorded (above TLS: https in the
// clear). It keeps connections alive like any other.
func newCaptureTransport(d schemes.Dialer, tlsConfig *tls.Config, idle time.Duration) *nethttp.Transport {
	t := newTransport(d, tlsConfig, idle)
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &teeConn{Conn: dial.IdleConn(c, idle), proto: []string{"http/1.1"}}, nil
	}
	t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := &tls.Config{}
		if tlsConfig != nil {
			cfg = tlsConfig.Clone()
		}
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			cfg.ServerName = host
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(dial.IdleConn(c, idle), cfg)
		hctx, cancel := context.WithTimeout(ctx, max(idle, time.Second))
		defer cancel()
		if err := tc.HandshakeContext(hctx); err != nil {
			c.Close()
			return nil, err
		}
		return &teeConn{Conn: tc, proto: schemes.Protocols("http/1.1", tc)}, nil
	}
	return t
}

// captureBody commits the response record when the body reaches its end.
type captureBody struct {
	io.ReadCloser
	w *wireCapture
}

func (b *captureBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.w.commitResponse()
	}
	return n, err
}
