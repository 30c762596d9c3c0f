package prosperotest

import (
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func TestPipe(t *testing.T) {
	srv := New(Catalog(Hosts{FTP: "127.0.0.21", Gopher: "127.0.0.71"}, "127.0.0.1(1525)"), nil)
	p := srv.Pipe(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4000}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1525})
	defer p.Close()
	req := append([]byte{9, 0, 5, 0, 1, 0, 1, 0, 0}, "VERSION 5\nGET-OBJECT-INFO #ALL ASCII /ftp/README.txt 0\n"...)
	if _, err := p.Write(req); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2048)
	n, err := p.Read(buf)
	if err != nil || n < 13 || buf[0] != 13 || !strings.Contains(string(buf[13:n]), "AFTP INTERNET-D 127.0.0.21") {
		t.Fatalf("% x, %v", buf[:n], err)
	}
	p.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := p.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read with nothing queued: %v, want a deadline error", err)
	}
	done := make(chan error, 1)
	p.SetReadDeadline(time.Time{})
	go func() {
		_, err := p.Read(buf)
		done <- err
	}()
	p.Close()
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Errorf("read across Close: %v", err)
	}
}
