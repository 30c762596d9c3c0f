package gopher

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/internal/testcert"
	"github.com/goferurl/gofer/schemes"
)

func testCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	return testcert.T(t, "gophers test")
}

// tlsServer answers one request per connection over TLS with reply.
func tlsServer(t *testing.T, cert tls.Certificate, reply func(addr, req string) string) string {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			req := readRequest(c)
			io.WriteString(c, reply(ln.Addr().String(), req))
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func TestGophersMenuKeepsTLSForItsServer(t *testing.T) {
	cert, pool := testCert(t)
	got := make(chan string, 1)
	addr := tlsServer(t, cert, func(addr, req string) string {
		got <- req
		host, port, _ := net.SplitHostPort(addr)
		return "0Here\t/a.txt\t" + host + "\t" + port + "\r\n" +
			"1Elsewhere\t/b\tother.example\t70\r\n" +
			"1Same host, other port\t/c\t" + host + "\t7070\r\n.\r\n"
	})
	u, err := schemes.Parse("gophers://" + addr + "/1/menu")
	if err != nil {
		t.Fatal(err)
	}
	req := newRequest(u)
	req.TLSConfig = &tls.Config{RootCAs: pool}
	resp, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	var urls []string
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, e.URL)
	}
	if r := <-got; r != "/menu\r\n" {
		t.Errorf("request %q, want %q", r, "/menu\r\n")
	}
	want := []string{
		"gophers://" + addr + "/0/a.txt",
		"gopher://other.example/1/b",
		"gopher://127.0.0.1:7070/1/c",
	}
	if strings.Join(urls, " ") != strings.Join(want, " ") {
		t.Errorf("item URLs\n got %q\nwant %q", urls, want)
	}
}

// A plain-text Gopher server where TLS was asked for is a failed
// connection, and the request never reaches it in the clear.
func TestGophersPlainServerIsNoFallBack(t *testing.T) {
	s := newScripted(t, func(int, string) string { return "3not TLS\t\terror.host\t1\r\n.\r\n" })
	u, err := schemes.Parse("gophers://127.0.0.1:" + strconv.Itoa(s.port()) + "/0/secret-selector")
	if err != nil {
		t.Fatal(err)
	}
	_, err = New().Fetch(context.Background(), newRequest(u))
	if !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("err = %v, want ErrConnect", err)
	}
	for _, r := range s.Requests() {
		if strings.Contains(r, "secret-selector") {
			t.Errorf("the selector went out in plain text: %q", r)
		}
		if r != "" && r[0] != 0x16 { // a TLS handshake record
			t.Errorf("the server got %q, not a TLS handshake", r[:min(len(r), 20)])
		}
	}
	if len(s.Requests()) != 1 {
		t.Errorf("%d connections, want 1 (no second, plain-text try)", len(s.Requests()))
	}
}

func TestGophersUnknownCA(t *testing.T) {
	cert, pool := testCert(t)
	addr := tlsServer(t, cert, func(string, string) string { return "hello\r\n.\r\n" })
	u, err := schemes.Parse("gophers://" + addr + "/0/a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New().Fetch(context.Background(), newRequest(u)); !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("unknown CA: err = %v, want ErrConnect", err)
	}
	req := newRequest(u)
	req.TLSConfig = &tls.Config{RootCAs: pool}
	_, body, err := fetchBody(t, req)
	if err != nil || body != "hello\n" && body != "hello\r\n" {
		t.Fatalf("trusted CA: body %q, err %v", body, err)
	}
}

// One request per connection: the second connection to a server resumes
// the first one's TLS session instead of a full handshake.
func TestGophersResumesSessions(t *testing.T) {
	cert, pool := testCert(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	resumed := make(chan bool, 2)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			readRequest(c)
			io.WriteString(c, "text\r\n.\r\n")
			resumed <- c.(*tls.Conn).ConnectionState().DidResume
			c.Close()
		}
	}()
	defer func() { ln.Close(); <-done }()
	u, err := schemes.Parse("gophers://" + ln.Addr().String() + "/0/a")
	if err != nil {
		t.Fatal(err)
	}
	f := New()
	for i := 0; i < 2; i++ {
		req := newRequest(u)
		req.TLSConfig = &tls.Config{RootCAs: pool}
		resp, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(resp.Body); err != nil {
			t.Fatal(err)
		}
		resp.Close()
	}
	if first, second := <-resumed, <-resumed; first || !second {
		t.Errorf("resumed: first %v, second %v; want false, true", first, second)
	}
}
