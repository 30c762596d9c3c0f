package ftp

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
)

// targetDialer dials as a proxy that resolves names itself does: each
// connection's peer is the target as named (not an address), and the
// targets are recorded.
type targetDialer struct {
	mu      sync.Mutex
	targets []string
}

type namedAddr string

func (a namedAddr) Network() string { return "tcp" }
func (a namedAddr) String() string  { return string(a) }

type namedConn struct {
	net.Conn
	target namedAddr
}

func (c namedConn) RemoteAddr() net.Addr { return c.target }

func (d *targetDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.targets = append(d.targets, addr)
	d.mu.Unlock()
	var nd net.Dialer
	c, err := nd.DialContext(ctx, "tcp4", addr)
	if err != nil {
		return nil, err
	}
	return namedConn{c, namedAddr(addr)}, nil
}

// Through a proxy that resolves the name (socks5h), the server's address
// is unknown: an EPSV's port and a PASV's port (whatever address the
// PASV names) are dialled at the URL's host, through the dialer.
func TestDataThroughNameResolvingProxy(t *testing.T) {
	for _, pasv := range []bool{false, true} {
		fake := newFakeWith(t, func(f *fakeFTP) {
			f.noEPSV = pasv
			f.pasvHost = "10,9,8,7" // never dialled: only the port counts
		})
		fake.addFile("/f", "through the proxy")
		d := &targetDialer{}
		u := ftpURL(fake.port(), 0, "f")
		u.Host = "localhost"
		req := newReq(u)
		req.Dialer = d
		f := newFetcher()
		if got := fetchText(t, f, req); got != "through the proxy" {
			t.Fatalf("pasv %v: %q", pasv, got)
		}
		f.Close()
		d.mu.Lock()
		targets := d.targets
		d.mu.Unlock()
		if len(targets) != 2 {
			t.Fatalf("pasv %v: dialled %q, want the control and one data connection", pasv, targets)
		}
		for _, tg := range targets {
			if !strings.HasPrefix(tg, "localhost:") {
				t.Errorf("pasv %v: dialled %q, want only localhost", pasv, tg)
			}
		}
	}
}
