package ftp_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/ftp"
)

// countingDialer is a net.Dialer that counts the connections it makes to
// the control port and to any other (data connections).
type countingDialer struct {
	net.Dialer
	ctrlPort   string
	mu         sync.Mutex
	ctrl, data int
}

func (d *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	_, port, _ := net.SplitHostPort(addr)
	d.mu.Lock()
	if port == d.ctrlPort {
		d.ctrl++
	} else {
		d.data++
	}
	d.mu.Unlock()
	return d.Dialer.DialContext(ctx, network, addr)
}

func (d *countingDialer) counts() (ctrl, data int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ctrl, d.data
}

// sharingClients returns a client for each of opts, all with the one
// ftp.Fetcher shared.
func sharingClients(t *testing.T, opts ...fetch.Options) []*fetch.Client {
	shared := &ftp.Fetcher{Email: "gofer@example.org"}
	t.Cleanup(func() { shared.Close() })
	var cs []*fetch.Client
	for _, o := range opts {
		o.SetFetcher(shared, ftp.Schemes()...)
		cs = append(cs, fetch.NewClient(o))
	}
	return cs
}

// getAll fetches url with c and checks the body.
func getAll(t *testing.T, c *fetch.Client, url, want string) {
	t.Helper()
	resp, err := c.Get(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Close()
	if err != nil || string(body) != want {
		t.Fatalf("body %q, %v; want %q", body, err, want)
	}
}

// Two clients whose dialers differ share one ftp.Fetcher: each client's
// connections, control and data, are made by its own dialer, a connection
// made by one is never handed to the other, and each still reuses its own.
func TestPoolKeepsClientsDialersApart(t *testing.T) {
	srv := ftp.NewFakeServer(t, nil)
	srv.AddFile("/pub/f", "hello")
	port := strconv.Itoa(srv.Port())
	url := "ftp://127.0.0.1:" + port + "/pub/f"
	da, db := &countingDialer{ctrlPort: port}, &countingDialer{ctrlPort: port}
	cs := sharingClients(t, fetch.Options{Dialer: da}, fetch.Options{Dialer: db})

	for range 2 {
		for _, c := range cs {
			getAll(t, c, url, "hello")
		}
	}
	for name, d := range map[string]*countingDialer{"first": da, "second": db} {
		if ctrl, data := d.counts(); ctrl != 1 || data < 1 {
			t.Errorf("the %s client's dialer made %d control and %d data connections, want 1 control connection (kept and reused for its second fetch) and its own data connections", name, ctrl, data)
		}
	}
	if n := srv.Logins(); n != 2 {
		t.Errorf("%d logins for two clients fetching twice each, want 2: one connection each, reused by its own client only", n)
	}
}

// Two clients that differ only in their TLS configuration share one
// ftp.Fetcher and one dialer: each client's TLS connections, control and
// data, are made under its own configuration.
func TestPoolKeepsClientsTLSConfigsApart(t *testing.T) {
	hs := httptest.NewTLSServer(http.NotFoundHandler())
	hs.Close()
	roots := x509.NewCertPool()
	roots.AddCert(hs.Certificate())
	srv := ftp.NewFakeServer(t, &tls.Config{Certificates: hs.TLS.Certificates})
	srv.AddFile("/pub/f", "hello")
	port := strconv.Itoa(srv.Port())
	url := "ftps://127.0.0.1:" + port + "/pub/f"

	var verifiedA, verifiedB atomic.Int32
	cfg := func(n *atomic.Int32) *tls.Config {
		return &tls.Config{RootCAs: roots, VerifyConnection: func(tls.ConnectionState) error {
			n.Add(1)
			return nil
		}}
	}
	d := &countingDialer{ctrlPort: port}
	cs := sharingClients(t, fetch.Options{Dialer: d, TLSConfig: cfg(&verifiedA)},
		fetch.Options{Dialer: d, TLSConfig: cfg(&verifiedB)})

	for range 2 {
		for _, c := range cs {
			getAll(t, c, url, "hello")
		}
	}
	// Each client: one control connection and at least one data
	// connection, each verified under the client's own configuration.
	if a, b := verifiedA.Load(), verifiedB.Load(); a < 2 || b < 2 {
		t.Errorf("TLS connections verified under the first client's configuration: %d, the second's: %d; want each client's own connections (2 or more each) under its own", a, b)
	}
	if ctrl, _ := d.counts(); ctrl != 2 {
		t.Errorf("%d control connections for two clients fetching twice each, want 2", ctrl)
	}
	if n := srv.Logins(); n != 2 {
		t.Errorf("%d logins for two clients fetching twice each, want 2", n)
	}
}

var _ schemes.Dialer = (*countingDialer)(nil)

// discardCapture is a capture that keeps nothing.
type discardCapture struct{}

func (discardCapture) Record(schemes.CaptureRecord) schemes.CaptureBlock { return discardBlock{} }
func (discardCapture) Dialed(net.Conn)                                   {}
func (discardCapture) Close() error                                      { return nil }

type discardBlock struct{}

func (discardBlock) Write(p []byte) (int, error) { return len(p), nil }
func (discardBlock) Commit() error               { return nil }

// A client that captures every fetch (for WARC) wraps its dialer anew for
// each: the pool sees through the wrapping, and the fetches share one
// connection as uncaptured ones do.
func TestPoolKeepsConnectionsAcrossCaptures(t *testing.T) {
	srv := ftp.NewFakeServer(t, nil)
	srv.AddFile("/pub/f", "hello")
	port := strconv.Itoa(srv.Port())
	d := &countingDialer{ctrlPort: port}
	cs := sharingClients(t, fetch.Options{Dialer: d, Capture: func(string) fetch.CaptureCloser { return discardCapture{} }})
	for range 3 {
		getAll(t, cs[0], "ftp://127.0.0.1:"+port+"/pub/f", "hello")
	}
	if ctrl, _ := d.counts(); ctrl != 1 || srv.Logins() != 1 {
		t.Errorf("three captured fetches made %d control connections and %d logins, want one of each", ctrl, srv.Logins())
	}
}
