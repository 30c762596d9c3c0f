package gopher

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/goferurl/gofer/schemes"
)

// Plain text is un-stuffed only when the server frames it as RFC 1436
// says, with a final "." line; a server that does neither keeps its "..".
func TestPlainTextDotStuffing(t *testing.T) {
	tests := []struct{ name, reply, want string }{
		{"stuffed with terminator", "a\r\n..two dots\r\n...\r\n.\r\n", "a\r\n.two dots\r\n..\r\n"},
		{"stuffed with terminator, LF", "a\n..two dots\n.\n", "a\n.two dots\n"},
		{"stuffed, terminator at close", "a\n..two dots\n.", "a\n.two dots\n"},
		{"unstuffed without terminator", "a\r\n..two dots\r\nb\r\n", "a\r\n..two dots\r\nb\r\n"},
		{"unstuffed without terminator, LF", "a\n..two dots\n...\nb", "a\n..two dots\n...\nb"},
		{"unstuffed, ends in a .. line", "a\n..", "a\n.."},
		{"dot line without stuffing", "a\r\n.x\r\nb\r\n.\r\n", "a\r\n.x\r\nb\r\n"},
		{"dot line without stuffing, LF", "a\n.x\n.\n", "a\n.x\n"},
		{"no dots at all", "a\nb\n", "a\nb\n"},
		{"dot line with text behind it", ".\n..\n.x\n...\n. \nlast\n", ".\n..\n.x\n...\n. \nlast\n"},
		{"dot line after a held .. line", "a\r\n..b\r\n.\r\nmore\r\n..c\r\n", "a\r\n..b\r\n.\r\nmore\r\n..c\r\n"},
		{"mixed line ends", "..a\r\n..b\nc\r\n.\n", ".a\r\n.b\nc\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(t, func(int, string) string { return tt.reply })
			_, body, err := fetchBody(t, newRequest(s.url(schemes.Gopher{Type: '0', Selector: "t"})))
			if err != nil || body != tt.want {
				t.Fatalf("body %q, %v; want %q", body, err, tt.want)
			}
		})
	}
}

// A menu ends at its "." line whatever follows it.
func TestMenuEndsAtDotLine(t *testing.T) {
	s := newScripted(t, func(int, string) string { return "0a\t/a\th\t70\r\n.\r\n0junk\t/j\th\t70\r\n" })
	resp, err := New().Fetch(context.Background(), newRequest(s.url(schemes.Gopher{Type: '1'})))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	var names []string
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name)
	}
	if len(names) != 1 || names[0] != "a" {
		t.Fatalf("entries %q, want [a]", names)
	}
}

// The same decisions however the input is split and with a small hold.
func TestDotReaderHoldChunking(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\n..b\n" + strings.Repeat("y", 40) + "\n.\n", "a\n.b\n" + strings.Repeat("y", 40) + "\n"},
		{"a\n..b\n" + strings.Repeat("y", 40) + "\n", "a\n..b\n" + strings.Repeat("y", 40) + "\n"},
		{"..b\r\n..c\r\n.\r\n", ".b\r\n.c\r\n"},
	}
	for _, tt := range tests {
		for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in)), iotest.HalfReader(strings.NewReader(tt.in))} {
			got, err := io.ReadAll(iotest.OneByteReader(newDotReader(bufio.NewReaderSize(r, 16), true)))
			if err != nil || string(got) != tt.want {
				t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
			}
		}
	}
}

// A stuffed text that goes on past the hold limit after its first ".."
// line is kept verbatim from there on (the documented rule), and the "."
// line still ends it.
func TestDotReaderHoldLimit(t *testing.T) {
	in := "a\n..b\n" + strings.Repeat("x", 30) + "\n..c\n.\nafter"
	d := newDotReader(bufio.NewReaderSize(strings.NewReader(in), 16), true)
	d.holdLimit = 20
	got, err := io.ReadAll(d)
	want := "a\n..b\n" + strings.Repeat("x", 30) + "\n..c\n"
	if err != nil || string(got) != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
}

// lines generates a text of n lines, the first "..stuffed", without
// keeping it in memory; read counts the bytes handed out.
type lines struct {
	n, i int
	cur  []byte
	read int64
}

func (l *lines) Read(p []byte) (int, error) {
	if len(l.cur) == 0 {
		if l.i == l.n {
			return 0, io.EOF
		}
		l.cur = []byte(strings.Repeat("x", 60) + "\n")
		if l.i == 0 {
			l.cur = []byte("..stuffed\n")
		}
		l.i++
	}
	n := copy(p, l.cur)
	l.cur = l.cur[n:]
	l.read += int64(n)
	return n, nil
}

// A huge unframed text streams: what the reader has taken from the
// connection and not yet handed on never exceeds the hold limit and one
// buffer, and the text comes back verbatim.
func TestDotReaderHugeItemBounded(t *testing.T) {
	const n = 200000 // about 12 MiB
	src := &lines{n: n}
	br := bufio.NewReaderSize(src, 4096)
	d := newDotReader(br, true)
	var out int64
	var first []byte
	buf := make([]byte, 32<<10)
	for {
		k, err := d.Read(buf)
		if len(first) < 20 {
			first = append(first, buf[:k]...)
		}
		out += int64(k)
		inside := src.read - out
		if inside > maxHold+2*4096 {
			t.Fatalf("held %d bytes after handing on %d", inside, out)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := int64(len("..stuffed\n") + (n-1)*61); out != want || src.read != want {
		t.Fatalf("handed on %d of %d bytes read, want %d", out, src.read, want)
	}
	if !bytes.HasPrefix(first, []byte("..stuffed\nxxx")) {
		t.Fatalf("starts %q, want the .. line verbatim", first)
	}
	if d.maxHeld > maxHold+4096 {
		t.Fatalf("held up to %d bytes", d.maxHeld)
	}
}

// The same through a scripted server: a large unframed item with ".."
// lines past the hold limit comes back byte for byte.
func TestPlainTextHugeUnframed(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 3*maxHold; i++ {
		b.WriteString("..line\n" + strings.Repeat("z", 100) + "\n")
	}
	text := b.String()
	s := newScripted(t, func(int, string) string { return text })
	resp, err := New().Fetch(context.Background(), newRequest(s.url(schemes.Gopher{Type: '0', Selector: "big"})))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || string(got) != text {
		t.Fatalf("read %d bytes, %v; want the %d sent", len(got), err, len(text))
	}
}
