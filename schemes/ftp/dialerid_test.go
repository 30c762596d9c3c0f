package ftp

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// wrapDialer wraps another dialer for one fetch, as a capture does, and
// says which through Unwrap.
type wrapDialer struct{ d schemes.Dialer }

func (w *wrapDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return w.d.DialContext(ctx, network, addr)
}

func (w *wrapDialer) Unwrap() schemes.Dialer { return w.d }

// funcDialer is a dialer that cannot be compared.
type funcDialer func(ctx context.Context, network, addr string) (net.Conn, error)

func (f funcDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

func fetchBody(t *testing.T, f *Fetcher, req *schemes.Request) {
	t.Helper()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Close()
}

// A dialer that wraps another for each fetch and says so (Unwrap) shares
// the connections of the dialer it wraps; a *dial.Dialer shares those of
// any other with the same settings, and only those; a dialer that cannot
// be compared gets a connection of its own each time, never kept, and no
// panic.
func TestDialerIdentity(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/f", "x")
	f := newFetcher()
	for range 3 {
		req := newReq(ftpURL(fake.port(), 0, "f"))
		req.Dialer = &wrapDialer{testDialer}
		fetchBody(t, f, req)
	}
	fetchBody(t, f, newReq(ftpURL(fake.port(), 0, "f")))
	req := newReq(ftpURL(fake.port(), 0, "f"))
	req.Dialer = &dial.Dialer{}
	fetchBody(t, f, req)
	req = newReq(ftpURL(fake.port(), 0, "f"))
	req.Dialer = &dial.Dialer{ConnectTimeout: 7 * time.Second}
	fetchBody(t, f, req)
	for range 2 {
		req := newReq(ftpURL(fake.port(), 0, "f"))
		req.Dialer = funcDialer(testDialer.DialContext)
		fetchBody(t, f, req)
	}
	if n := fake.endWith(f); n != 4 {
		t.Errorf("%d logins, want 4: one for the wrapped dialer, the one it wraps and another with its settings, one for a dialer with other settings, one for each fetch through a dialer that cannot be compared", n)
	}
}
