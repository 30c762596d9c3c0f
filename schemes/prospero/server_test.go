package prospero

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/prospero/prosperotest"
)

// testHosts are the targets the in-process catalogue names; nothing is
// dialled there by these tests, which stop at the resolution.
var testHosts = prosperotest.Hosts{FTP: "127.0.0.21", Gopher: "127.0.0.71"}

// startServer serves the catalogue on a fresh loopback UDP port.
func startServer(t *testing.T) (*prosperotest.Server, string) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().(*net.UDPAddr)
	srv := prosperotest.New(prosperotest.Catalog(testHosts, addr.IP.String()+"("+strconv.Itoa(addr.Port)+")"), nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(pc)
	}()
	t.Cleanup(func() {
		pc.Close()
		<-done
	})
	return srv, addr.String()
}

type netDialer struct{}

func (netDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// lockedBuffer is a transcript safe to read after the fetch.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func request(t *testing.T, raw string, idle time.Duration) (*schemes.Request, *lockedBuffer) {
	t.Helper()
	u, err := schemes.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	tr := &lockedBuffer{}
	return &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: netDialer{}, IdleTimeout: idle, Transcript: tr}}, tr
}

// fetch resolves raw against the in-process server.
func fetch(t *testing.T, raw string, idle time.Duration) (*schemes.Response, *lockedBuffer, error) {
	t.Helper()
	req, tr := request(t, raw, idle)
	resp, err := (&Fetcher{User: "tester"}).Fetch(context.Background(), req)
	if (resp == nil) == (err == nil) {
		t.Fatalf("response %v with error %v", resp, err)
	}
	return resp, tr, err
}
