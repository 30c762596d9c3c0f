package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// allFour opens an archive of captures of the four protocols.
func allFour(t *testing.T) *Archive {
	t.Helper()
	dir := t.TempDir()
	return open(t, Options{Warn: func(msg string) { t.Log("warning: " + msg) }},
		writeHole(t, dir), writeFTP(t, dir), writeSite(t, dir), writeNews(t, dir))
}

func TestStartServesEveryProtocol(t *testing.T) {
	a := allFour(t)
	g, err := Start(context.Background(), a, []Listen{
		{Scheme: "gopher", Addr: "127.0.0.1:0"},
		{Scheme: "ftp", Addr: "127.0.0.1:0"},
		{Scheme: "http", Addr: "127.0.0.1:0"},
		{Scheme: "nntp", Addr: "127.0.0.1:0"},
		{Scheme: "gopher", Addr: "127.0.0.1:0", Hosts: []string{"nowhere.example", "127.0.0.72"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			g.Close()
		}
	}()
	rs := g.Running()
	var got []string
	addr := map[string]string{}
	for _, r := range rs {
		_, port, _ := net.SplitHostPort(r.Addr.String())
		if port == "0" {
			t.Errorf("%s: listening on port 0", r.Scheme)
		}
		got = append(got, fmt.Sprintf("%s %s %q %s", r.Scheme, r.Host, r.Chosen, r.Server))
		if addr[r.Scheme] == "" {
			addr[r.Scheme] = r.Addr.String()
		}
	}
	want := []string{
		`gopher 127.0.0.71:70 "" 127.0.0.71:70 7 selectors`,
		`ftp 127.0.0.21:21 "" 127.0.0.21:21 2 files`,
		`http 127.0.0.80:80 "" 127.0.0.80:80 3 urls`,
		`nntp  "" 2 groups 3 articles`,
		`gopher 127.0.0.72:70 "127.0.0.72" 127.0.0.72:70 1 selectors`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("running:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if got := ask(t, addr["gopher"], "/dir/plain.txt"); got != "plain\r\n.\r\n" {
		t.Errorf("gopher /dir/plain.txt: %q", got)
	}
	if got := ask(t, rs[4].Addr.String(), "/other"); got != "other host\r\n" {
		t.Errorf("gopher of 127.0.0.72 /other: %q", got)
	}

	fc, err := net.Dial("tcp", addr["ftp"])
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	fc.SetDeadline(time.Now().Add(20 * time.Second))
	f := &ftpClient{t: t, c: fc, br: bufio.NewReader(fc)}
	f.reply()
	f.cmd("USER anonymous")
	f.cmd("PASS x@y")
	if data, r := f.transfer("RETR /pub/sub/b.bin"); data != bBin || !strings.HasPrefix(r, "226 ") {
		t.Errorf("ftp RETR: %q, %q", data, r)
	}

	if got := exchange(t, addr["http"], "GET /gone HTTP/1.1\r\nHost: x\r\n\r\n"); got != notFound {
		t.Errorf("http /gone: %q", got)
	}

	nc, err := net.Dial("tcp", addr["nntp"])
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	n := &nntpClient{t: t, c: nc, br: bufio.NewReader(nc)}
	n.line()
	if _, body := n.cmd("BODY <a2@gofer.test>", true); body != "second\r\n.\r\n" {
		t.Errorf("nntp BODY: %q", body)
	}

	// Close stops every server: the open NNTP connection ends, and no
	// listener accepts.
	closed = true
	if err := g.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := n.br.ReadString('\n'); err == nil {
		t.Error("the NNTP connection is still open after Close")
	}
	for _, r := range rs {
		if c, err := net.Dial("tcp", r.Addr.String()); err == nil {
			c.Close()
			t.Errorf("%s: %s still accepts after Close", r.Scheme, r.Addr)
		}
	}
}

func TestStartStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	g, err := Start(ctx, allFour(t), []Listen{{Scheme: "http", Addr: "127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := g.Wait(); err != nil {
		t.Errorf("Wait: %v", err)
	}
	if c, err := net.Dial("tcp", g.Running()[0].Addr.String()); err == nil {
		c.Close()
		t.Error("still accepting once the context ended")
	}
}

func TestStartSkipsWhatWasNotCaptured(t *testing.T) {
	a := open(t, Options{}, writeNews(t, t.TempDir()))
	g, err := Start(context.Background(), a, []Listen{{Scheme: "gopher", Addr: "127.0.0.1:0"}, {Scheme: "nntp", Addr: "127.0.0.1:0"}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if rs := g.Running(); len(rs) != 1 || rs[0].Scheme != "nntp" {
		t.Errorf("running %+v; want the NNTP server alone", rs)
	}
}

func TestStartUnknownScheme(t *testing.T) {
	_, err := Start(context.Background(), allFour(t), []Listen{{Scheme: "gopher", Addr: "127.0.0.1:0"}, {Scheme: "wais", Addr: "127.0.0.1:0"}})
	if err == nil || !strings.Contains(err.Error(), `"wais"`) {
		t.Errorf("Start with scheme wais: %v; want an error naming it", err)
	}
}

func TestStartAddressInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// A free address for the listener bound before the busy one.
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	free.Close()

	g, err := Start(context.Background(), allFour(t), []Listen{
		{Scheme: "gopher", Addr: freeAddr},
		{Scheme: "ftp", Addr: busy.Addr().String()},
	})
	if err == nil {
		g.Close()
		t.Fatal("Start on an address in use: no error")
	}
	if !strings.Contains(err.Error(), busy.Addr().String()) {
		t.Errorf("error %q does not name %s", err, busy.Addr())
	}
	// The Gopher listener bound first is closed again.
	ln, err := net.Listen("tcp", freeAddr)
	if err != nil {
		t.Fatalf("%s is left listening: %v", freeAddr, err)
	}
	ln.Close()
}

func TestStartIPv6Address(t *testing.T) {
	g, err := Start(context.Background(), allFour(t), []Listen{{Scheme: "gopher", Addr: "[::1]:0"}})
	var ne *net.OpError
	if errors.As(err, &ne) {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if a := g.Running()[0].Addr.String(); !strings.HasPrefix(a, "[::1]:") {
		t.Errorf("address %q; want [::1]:PORT", a)
	}
}

func TestServerClose(t *testing.T) {
	s, err := NewGopherServer(allFour(t), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), ln) }()
	if got := ask(t, ln.Addr().String(), "/dir/plain.txt"); got != "plain\r\n.\r\n" {
		t.Errorf("before Close: %q", got)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve after Close: %v", err)
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("still accepting after Close")
	}
	// A Serve after Close returns at once, its listener closed.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(context.Background(), ln2); err != nil {
		t.Errorf("Serve after Close: %v", err)
	}
	if _, err := ln2.Accept(); err == nil {
		t.Error("the listener of a Serve after Close is open")
	}
}
