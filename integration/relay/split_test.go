package relay

import (
	"io"
	"net"
	"testing"
	"time"
)

// With SplitLines, three commands the client writes at once reach the
// server in three writes: each of the server's reads, made as soon as
// bytes come, brings one line, never two.
func TestSplitLines(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reads := make(chan []string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			reads <- nil
			return
		}
		defer c.Close()
		var got []string
		buf := make([]byte, 4096)
		for n := 0; n < len("A\r\nBB\r\nCCC\r\n"); {
			m, err := c.Read(buf)
			if m > 0 {
				got = append(got, string(buf[:m]))
				n += m
			}
			if err != nil {
				break
			}
		}
		reads <- got
	}()
	r := start(t, ln.Addr().String(), false, Config{SplitLines: true, LineGap: 20 * time.Millisecond})
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "A\r\nBB\r\nCCC\r\n")
	got := <-reads
	want := []string{"A\r\n", "BB\r\n", "CCC\r\n"}
	if len(got) != len(want) {
		t.Fatalf("the server read %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("the server read %q, want %q", got, want)
		}
	}
}
