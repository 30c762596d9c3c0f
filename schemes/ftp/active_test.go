package ftp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

func TestParseActive(t *testing.T) {
	for _, tc := range []struct {
		spec      string
		host      string
		iface     string
		low, high int
	}{
		{"-", "", "", 0, 0},
		{"127.0.0.1", "127.0.0.1", "", 0, 0},
		{"127.0.0.1:40000-40010", "127.0.0.1", "", 40000, 40010},
		{"-:5000", "", "", 5000, 5000},
		{"::1", "::1", "", 0, 0},
		{"[::1]:40000-40010", "::1", "", 40000, 40010},
		{"[::1]", "::1", "", 0, 0},
		{"lo", "", "lo", 0, 0},
		{"eth0:1024-2048", "", "eth0", 1024, 2048},
	} {
		a, err := parseActive(tc.spec)
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if a.host != tc.host || a.iface != tc.iface || a.low != tc.low || a.high != tc.high {
			t.Errorf("%q: %+v, want host %q iface %q ports %d-%d", tc.spec, *a, tc.host, tc.iface, tc.low, tc.high)
		}
	}
	for _, spec := range []string{"127.0.0.1:0-10", "127.0.0.1:9-1", "127.0.0.1:x", "[::1", "[127.0.0.1]:1-2", "[::1]x", "a b", "127.0.0.1:1-70000"} {
		if _, err := parseActive(spec); !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), spec) {
			t.Errorf("%q: %v, want a usage error naming it", spec, err)
		}
	}
}

// fetchText fetches req with f and returns the body, or the listing's
// names one a line.
func fetchText(t *testing.T, f *Fetcher, req *schemes.Request) string {
	t.Helper()
	_, data, _ := fetchOneWith(t, f, req)
	return string(data)
}

// In active mode every data connection is the server's, to the address
// EPRT named: listings, files, a resumed file, on one kept connection,
// with EPRT pipelined with the RETR once it has worked, and no passive
// command ever sent.
func TestActiveMode(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/d/f", "hello, active")
	fake.addFile("/d/g", "0123456789")
	fake.listings["LIST /d"] = "-rw-r--r-- 1 0 0 13 Dec 20 1994 f\r\n-rw-r--r-- 1 0 0 10 Dec 20 1994 g\r\n"
	f := &Fetcher{Email: testEmail, ActivePort: "127.0.0.1:40000-40999"}
	defer f.Close()
	if got := fetchText(t, f, newReq(ftpURL(fake.port(), 0, "d", ""))); got != "f file \ng file \n" {
		t.Fatalf("listing %q", got)
	}
	for range 2 {
		if got := fetchText(t, f, newReq(ftpURL(fake.port(), 0, "d", "f"))); got != "hello, active" {
			t.Fatalf("f: %q", got)
		}
	}
	req := newReq(ftpURL(fake.port(), 0, "d", "g"))
	req.Offset = 4
	if got := fetchText(t, f, req); got != "456789" {
		t.Fatalf("g from 4: %q", got)
	}
	sent := strings.Join(fake.sent(), "")
	if strings.Contains(sent, "EPSV") || strings.Contains(sent, "PASV") {
		t.Errorf("a passive command went out in active mode:\n%s", sent)
	}
	eprts := strings.Count(sent, "EPRT |1|127.0.0.1|")
	if eprts < 4 {
		t.Errorf("%d EPRTs for four transfers:\n%s", eprts, sent)
	}
	for _, l := range fake.sent() {
		if port, ok := strings.CutPrefix(l, "EPRT |1|127.0.0.1|"); ok {
			if p := strings.TrimSuffix(strings.TrimSpace(port), "|"); p < "40000" || p > "40999" || len(p) != 5 {
				t.Errorf("EPRT named port %s, outside 40000-40999", p)
			}
		}
	}
	if !strings.Contains(sent, "REST 4\r\nRETR g\r\n") {
		t.Errorf("no resumed RETR:\n%s", sent)
	}
}

// A server without EPRT (RFC 959 only) is sent PORT, from the refusal on,
// on every connection to it.
func TestActivePORTFallback(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.noEPRT = true })
	fake.addFile("/f", "ported")
	f := &Fetcher{Email: testEmail, ActivePort: "-"}
	defer f.Close()
	for range 2 {
		if got := fetchText(t, f, newReq(ftpURL(fake.port(), 0, "f"))); got != "ported" {
			t.Fatalf("f: %q", got)
		}
		f.Close() // the next fetch opens another connection
		f.closed = false
	}
	sent := strings.Join(fake.sent(), "")
	if n := strings.Count(sent, "EPRT "); n != 1 {
		t.Errorf("EPRT sent %d times, want once (refused, then PORT):\n%s", n, sent)
	}
	if n := strings.Count(sent, "PORT 127,0,0,1,"); n != 2 {
		t.Errorf("PORT sent %d times, want twice:\n%s", n, sent)
	}
}

// A connection to the listener from anyone but the server is closed at
// once, said in a warning, and the transfer goes on with the server's.
func TestActiveRefusesOtherPeers(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.intruder, f.intruded = true, make(chan bool, 4) })
	fake.addFile("/f", "only the server's")
	f := &Fetcher{Email: testEmail, ActivePort: "127.0.0.1"}
	defer f.Close()
	req := newReq(ftpURL(fake.port(), 0, "f"))
	var mu sync.Mutex
	var warned []string
	req.Warn = func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() }
	if got := fetchText(t, f, req); got != "only the server's" {
		t.Fatalf("f: %q", got)
	}
	if closed := <-fake.intruded; !closed {
		t.Errorf("the connection from 127.0.0.2 was left open")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) == 0 || !strings.Contains(warned[0], "refused a data connection from 127.0.0.2:") {
		t.Errorf("warnings %q: the refused connection must be said", warned)
	}
}

// Active mode with TLS data connections (PROT P): gofer is the TLS
// client on the connection the server opened.
func TestActiveTLS(t *testing.T) {
	hs := httptest.NewTLSServer(http.NotFoundHandler())
	hs.Close()
	roots := x509.NewCertPool()
	roots.AddCert(hs.Certificate())
	fake := newFakeWith(t, func(f *fakeFTP) { f.tls = &tls.Config{Certificates: hs.TLS.Certificates} })
	fake.addFile("/f", "secret")
	f := &Fetcher{Email: testEmail, ActivePort: "-"}
	defer f.Close()
	u := ftpURL(fake.port(), 0, "f")
	u.Scheme = "ftps"
	req := newReq(u)
	req.TLSConfig = &tls.Config{RootCAs: roots}
	if got := fetchText(t, f, req); got != "secret" {
		t.Fatalf("f: %q", got)
	}
	if sent := strings.Join(fake.sent(), ""); !strings.Contains(sent, "PROT P\r\n") || !strings.Contains(sent, "EPRT ") {
		t.Errorf("want PROT P and EPRT:\n%s", sent)
	}
}

// Through a proxy, active mode is refused before anything is dialled:
// the server would connect back around the proxy.
func TestActiveThroughProxyRefused(t *testing.T) {
	fake := newFake(t)
	f := &Fetcher{Email: testEmail, ActivePort: "-"}
	defer f.Close()
	req := newReq(ftpURL(fake.port(), 0, "f"))
	req.Dialer = &dial.Dialer{Proxy: "socks5://127.0.0.1:1"}
	_, err := f.Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), "socks5://127.0.0.1:1") {
		t.Fatalf("err %v: want a usage error naming the proxy", err)
	}
	bad := &Fetcher{Email: testEmail, ActivePort: "127.0.0.1:9-1"}
	if _, err := bad.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "f"))); !errors.Is(err, schemes.ErrUsage) {
		t.Fatalf("bad range: %v", err)
	}
	if n := len(fake.sent()); n != 0 {
		t.Errorf("%d lines reached the server", n)
	}
}

// A server that never connects to the active listener ends the transfer
// at the idle timeout, said as a timeout, never a hang.
func TestActiveServerNeverConnects(t *testing.T) {
	release := make(chan struct{})
	fake := newFakeWith(t, func(f *fakeFTP) { f.activeSilent, f.release = true, release })
	defer close(release)
	fake.addFile("/f", "never sent")
	f := &Fetcher{Email: testEmail, ActivePort: "-"}
	defer f.Close()
	req := newReq(ftpURL(fake.port(), 0, "f"))
	req.IdleTimeout = 300 * time.Millisecond
	resp, err := f.Fetch(context.Background(), req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Close()
	}
	if !errors.Is(err, schemes.ErrTimeout) || !strings.Contains(err.Error(), "did not connect") {
		t.Fatalf("err %v: want a timeout saying the server did not connect", err)
	}
}
