package replay

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// Server is one protocol's replay server, configured with an Archive:
// GopherServer, FTPServer, HTTPServer or NNTPServer.
type Server interface {
	// Serve answers the connections ln accepts, each in its own
	// goroutine, until ctx ends, Close is called or ln fails. It closes
	// ln and returns once every connection it accepted is closed: nil
	// when stopped, the error when ln failed.
	Serve(ctx context.Context, ln net.Listener) error
	// ListenAndServe listens on the TCP address addr ("host:port"; ""
	// for the protocol's DefaultAddr) and calls Serve.
	ListenAndServe(ctx context.Context, addr string) error
	// Close stops every Serve of the server, closing their listeners and
	// connections, and returns once each has returned. A Serve called
	// after Close closes its listener and returns nil at once.
	Close() error
	// String says what the server replays: the captured server
	// ("host:port", but for NNTP, which serves every captured article)
	// and how much of it, as "127.0.0.71:70 12 selectors".
	String() string
}

var (
	_ Server = (*GopherServer)(nil)
	_ Server = (*FTPServer)(nil)
	_ Server = (*HTTPServer)(nil)
	_ Server = (*NNTPServer)(nil)
)

// DefaultAddr returns the loopback address a replay of scheme ("gopher",
// "ftp", "http" or "nntp") listens on when none is given: the protocol's
// well-known port plus 7000 for Gopher (7070), 2100 for FTP (2121), 8000
// for HTTP (8080) and 1000 for NNTP (1119), so that no privilege is needed.
// It returns "" for any other scheme.
func DefaultAddr(scheme string) string {
	switch scheme {
	case "gopher":
		return "127.0.0.1:7070"
	case "ftp":
		return "127.0.0.1:2121"
	case "http":
		return "127.0.0.1:8080"
	case "nntp":
		return "127.0.0.1:1119"
	}
	return ""
}

// listen is ListenAndServe's listener: on addr, DefaultAddr(scheme)'s
// when addr is "".
func listen(scheme, addr string) (net.Listener, error) {
	if addr == "" {
		addr = DefaultAddr(scheme)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		// The error names the address (net.OpError).
		return nil, fmt.Errorf("replay: %w", err)
	}
	return ln, nil
}

// running is what a server's Close stops: the Serve calls in progress.
type running struct {
	mu      sync.Mutex
	closed  bool
	next    int
	cancels map[int]context.CancelFunc
	wg      sync.WaitGroup
}

// serve is a server's Serve: serveConns, stopped by close as by ctx.
func (r *running) serve(ctx context.Context, ln net.Listener, scheme string, handle func(net.Conn)) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		ln.Close()
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	if r.cancels == nil {
		r.cancels = map[int]context.CancelFunc{}
	}
	id := r.next
	r.next++
	r.cancels[id] = cancel
	r.wg.Add(1)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.cancels, id)
		r.mu.Unlock()
		cancel()
		r.wg.Done()
	}()
	err := serveConns(ctx, ln, scheme, handle)
	ln.Close()
	return err
}

// close is a server's Close.
func (r *running) close() error {
	r.mu.Lock()
	r.closed = true
	for _, cancel := range r.cancels {
		cancel()
	}
	r.mu.Unlock()
	r.wg.Wait()
	return nil
}
