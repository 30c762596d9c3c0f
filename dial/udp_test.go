package dial

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestUDPDirect: a UDP dial with no proxy is a connected UDP socket.
func TestUDPDirect(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	d := &Dialer{}
	conn, err := d.DialContext(context.Background(), "udp", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	n, _, err := pc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("server read %q, %v", buf[:n], err)
	}
}

// TestUDPThroughProxyRefused: a proxy carries streams only; a UDP dial to
// a host the proxy covers is refused with a reason, and the proxy is never
// contacted.
func TestUDPThroughProxyRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	for _, proxy := range []string{"socks5://" + ln.Addr().String(), "http://" + ln.Addr().String()} {
		d := &Dialer{Proxy: proxy}
		_, err := d.DialContext(context.Background(), "udp", "127.0.0.15:1525")
		if !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), "cannot carry UDP to 127.0.0.15:1525") {
			t.Errorf("%s: %v, want ErrUsage saying the proxy cannot carry UDP", proxy, err)
		}
	}
	d := &Dialer{Proxy: "socks5://" + ln.Addr().String(), NoProxy: "127.0.0.15"}
	conn, err := d.DialContext(context.Background(), "udp", "127.0.0.15:1525")
	if err != nil {
		t.Errorf("NO_PROXY host: %v", err)
	} else {
		conn.Close()
	}
	select {
	case <-accepted:
		t.Error("the proxy was contacted")
	default:
	}
}
