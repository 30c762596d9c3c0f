package http

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	nethttp "net/http"
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
	req     schemes.CaptureBlock
	resp    schemes.CaptureBlock
	reqDone bool
}

func newWireCapture(req *schemes.Request) *wireCapture {
	uri := req.URL.Redacted()
	return &wireCapture{
		req:  req.Capture.Record(schemes.CaptureRecord{Type: "request", URI: uri, ContentType: captureRequestType}),
		resp: req.Capture.Record(schemes.CaptureRecord{Type: "response", URI: uri, ContentType: captureResponseType}),
	}
}

// commitResponse keeps the response record; the body has been read to its end.
func (w *wireCapture) commitResponse() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.reqDone {
		w.reqDone = true
		w.req.Commit()
	}
	w.resp.Commit()
}

type teeConn struct {
	net.Conn
	w *wireCapture
}

// Write records p before it goes out: the server may answer, and the
// reading side commit the request, before a Write that sent it returns.
func (c *teeConn) Write(p []byte) (int, error) {
	c.w.mu.Lock()
	if !c.w.reqDone {
		c.w.req.Write(p)
	}
	c.w.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *teeConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.w.mu.Lock()
		if !c.w.reqDone {
			c.w.reqDone = true
			c.w.req.Commit()
		}
		c.w.resp.Write(p[:n])
		c.w.mu.Unlock()
	}
	return n, err
}

// captureClient returns a client for one fetch whose exchange w records:
// a transport of its own that keeps no connection, so that its one
// connection carries this exchange and nothing else.
func captureClient(req *schemes.Request, w *wireCapture) *nethttp.Client {
	d := dial.Default(req.Dialer)
	idle := req.Idle()
	t := newTransport(d, req.TLSConfig, idle)
	t.DisableKeepAlives = true
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &teeConn{Conn: dial.IdleConn(c, idle), w: w}, nil
	}
	t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := &tls.Config{}
		if req.TLSConfig != nil {
			cfg = req.TLSConfig.Clone()
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
		return &teeConn{Conn: tc, w: w}, nil
	}
	return &nethttp.Client{
		Transport:     t,
		CheckRedirect: func(*nethttp.Request, []*nethttp.Request) error { return nethttp.ErrUseLastResponse },
	}
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
