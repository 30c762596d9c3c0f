package lineproto

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

func TestReaderBoundsLines(t *testing.T) {
	in := "ok\r\n" + strings.Repeat("x", 10) + "\r\n" + strings.Repeat("y", 11) + "\nafter\n"
	r := NewReader(bufio.NewReaderSize(strings.NewReader(in), 16), 10)
	for _, want := range []string{"ok", strings.Repeat("x", 10)} {
		if line, err := r.ReadLine(); line != want || err != nil {
			t.Fatalf("ReadLine = %q, %v; want %q", line, err, want)
		}
	}
	for i := 0; i < 2; i++ {
		// Over the limit, and every read after it fails the same.
		if line, err := r.ReadLine(); line != "" || !errors.Is(err, schemes.ErrTooLarge) {
			t.Fatalf("read %d past the long line: %q, %v; want ErrTooLarge", i, line, err)
		}
	}
}

func TestReaderStopsEarlyOnAnEndlessLine(t *testing.T) {
	// A line that never ends is refused once the limit is passed, without
	// reading the rest of it.
	src := &countingReader{r: io.MultiReader(strings.NewReader(strings.Repeat("z", 1<<20)), endless{})}
	r := NewReader(bufio.NewReaderSize(src, 4096), 1000)
	if _, err := r.ReadLine(); !errors.Is(err, schemes.ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	if src.n > 3*4096 {
		t.Fatalf("read %d bytes of an endless line with a limit of 1000", src.n)
	}
}

func TestReaderLastLineWithoutLineEnd(t *testing.T) {
	r := NewReader(bufio.NewReader(strings.NewReader("a\nb")), 100)
	if line, err := r.ReadLine(); line != "a" || err != nil {
		t.Fatalf("%q, %v", line, err)
	}
	if line, err := r.ReadLine(); line != "b" || err != io.EOF {
		t.Fatalf("cut last line: %q, %v; want \"b\", io.EOF", line, err)
	}
	if line, err := r.ReadLine(); line != "" || err != io.EOF {
		t.Fatalf("after the end: %q, %v; want io.EOF", line, err)
	}
}

func TestWriteTextChecksEveryLine(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, "gopher request", "sel\t+\r\n+-1\r\nanswer\r\n.\r\n"); err != nil || b.Len() == 0 {
		t.Fatalf("good text: %v, wrote %q", err, b.String())
	}
	for _, text := range []string{
		"sel\nDELE\r\n",          // bare LF
		"sel\rDELE\r\n",          // bare CR
		"sel\x00\r\n",            // NUL
		"ok\r\nsecond\nline\r\n", // a bad second line refuses the whole text
	} {
		b.Reset()
		err := WriteText(&b, "gopher request", text)
		if !errors.Is(err, security.ErrInjection) || b.Len() != 0 {
			t.Errorf("%q: %v, wrote %q; want ErrInjection and nothing written", text, err, b.String())
		}
	}
	if err := WriteText(&b, "x", "no line end"); err == nil || b.Len() != 0 {
		t.Errorf("text without CR LF: %v, wrote %q", err, b.String())
	}
}

func TestWriterHoldsLinesUntilChecked(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, "ftp command")
	for _, p := range []string{"CWD a", "b\r", "\nTYPE I\r\nRE", "TR f\r\n"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if got := b.String(); got != "CWD ab\r\nTYPE I\r\nRETR f\r\n" {
		t.Fatalf("passed on %q", got)
	}
	b.Reset()
	w.Write([]byte("CWD a\nDELE "))
	if b.Len() != 0 {
		t.Fatalf("a line not yet ended was passed on: %q", b.String())
	}
	if _, err := w.Write([]byte("x\r\n")); !errors.Is(err, security.ErrInjection) || b.Len() != 0 {
		t.Fatalf("line with a bare LF: %v, passed on %q", err, b.String())
	}
	// The refused line is gone; the next one goes through alone.
	if _, err := w.Write([]byte("NOOP\r\n")); err != nil || b.String() != "NOOP\r\n" {
		t.Fatalf("after a refusal: %v, passed on %q", err, b.String())
	}
}

// listen returns a listener whose accepted connections are handed to serve.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		serve(c)
		c.Close()
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String()
}

func TestDialWithoutDialerConnectsDirectly(t *testing.T) {
	addr := listen(t, func(c net.Conn) { io.WriteString(c, "hello\r\n") })
	c, err := Dial(context.Background(), &schemes.Request{}, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	line, err := NewReader(bufio.NewReader(c), 100).ReadLine()
	if line != "hello" || err != nil {
		t.Fatalf("%q, %v", line, err)
	}
}

func TestDialFailureIsConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := Dial(context.Background(), &schemes.Request{}, "tcp", addr); !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("err %v, want ErrConnect", err)
	}
}

func TestCancelClosesAndIsInterrupted(t *testing.T) {
	release := make(chan struct{})
	addr := listen(t, func(net.Conn) { <-release })
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	c, err := Dial(ctx, &schemes.Request{}, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	read := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		read <- err
	}()
	cancel()
	err = c.Classify(<-read, "read reply")
	if !errors.Is(err, schemes.ErrInterrupted) || !c.Cancelled() {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
}

func TestIdleServerIsTimeout(t *testing.T) {
	release := make(chan struct{})
	addr := listen(t, func(net.Conn) { <-release })
	defer close(release)
	c, err := Dial(context.Background(), &schemes.Request{Settings: &schemes.Settings{IdleTimeout: 50 * time.Millisecond}}, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Read(make([]byte, 1))
	if err = c.Classify(err, "read reply"); !errors.Is(err, schemes.ErrTimeout) {
		t.Fatalf("err %v, want ErrTimeout", err)
	}
}

func TestEndMidTransferIsInterrupted(t *testing.T) {
	addr := listen(t, func(c net.Conn) { io.WriteString(c, "partial") })
	c, err := Dial(context.Background(), &schemes.Request{}, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	line, err := NewReader(bufio.NewReader(c), 100).ReadLine()
	if line != "partial" || err != io.EOF {
		t.Fatalf("%q, %v; want the cut line and io.EOF", line, err)
	}
	if err = c.Classify(err, "read reply"); !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
}

func TestCloseReleasesTheWatch(t *testing.T) {
	addr := listen(t, func(net.Conn) {})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := Dial(ctx, &schemes.Request{}, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	stop := c.Watch(ctx)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if stop() {
		t.Fatal("the watch on the context outlived Close")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	cancel()
	if c.Cancelled() {
		t.Fatal("a context ended after Close still reached the connection")
	}
}

func TestClassifyKeepsTheGuardsRefusal(t *testing.T) {
	c := NewConn(nopConn{}, 0)
	refusal := security.CheckLine("nntp group", "a\nb")
	if err := c.Classify(refusal, "send GROUP"); err != refusal {
		t.Fatalf("Classify changed the guard's refusal into %v", err)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'z'
	}
	return len(p), nil
}

type nopConn struct{ net.Conn }

func (nopConn) Close() error { return nil }

func TestServerText(t *testing.T) {
	for in, want := range map[string]string{
		"550 No such\r\n  file.":  "550 No such file.",
		"bad \x1b[2Jterminal\x07": "bad ?[2Jterminal?",
		"tab\tand\x7f":            "tab and?",
		"c1 \u009b2J and \u0080":  "c1 ?2J and ?",
	} {
		if got := ServerText(in); got != want {
			t.Errorf("ServerText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHandshakeFailures(t *testing.T) {
	t.Run("not TLS", func(t *testing.T) {
		addr := listen(t, func(c net.Conn) { io.WriteString(c, "220 plain text here\r\n") })
		c, err := Dial(context.Background(), &schemes.Request{}, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := Handshake(context.Background(), c, &tls.Config{ServerName: "localhost"}, "TLS"); !errors.Is(err, schemes.ErrConnect) {
			t.Fatalf("err %v, want ErrConnect", err)
		}
	})
	t.Run("idle server", func(t *testing.T) {
		release := make(chan struct{})
		addr := listen(t, func(net.Conn) { <-release })
		defer close(release)
		c, err := Dial(context.Background(), &schemes.Request{Settings: &schemes.Settings{IdleTimeout: 50 * time.Millisecond}}, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := Handshake(context.Background(), c, &tls.Config{ServerName: "localhost"}, "TLS"); !errors.Is(err, schemes.ErrTimeout) {
			t.Fatalf("err %v, want ErrTimeout", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		release := make(chan struct{})
		addr := listen(t, func(net.Conn) { <-release })
		defer close(release)
		ctx, cancel := context.WithCancel(context.Background())
		c, err := Dial(ctx, &schemes.Request{}, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cancel()
		if _, err := Handshake(ctx, c, &tls.Config{ServerName: "localhost"}, "TLS"); !errors.Is(err, schemes.ErrInterrupted) {
			t.Fatalf("err %v, want ErrInterrupted", err)
		}
	})
}
