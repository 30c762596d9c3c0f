package gopher

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/goferurl/gofer/schemes"
)

// Gopher+ framing (Gopher+ §2.3) and plain RFC 1436 bodies.
func TestResponseFraming(t *testing.T) {
	binary := "\x00\x01.\r\n..\r\n.\r\n\xff" // dot lines inside binary data stay as they are
	tests := []struct {
		name     string
		g        schemes.Gopher
		reply    string
		want     string
		wantSize int64
		wantErr  error
		errText  string
	}{
		{name: "+N exact", g: plus('0', "+"), reply: "+5\r\nhello", want: "hello", wantSize: 5},
		{name: "+N ignores what follows", g: plus('0', "+"), reply: "+5\r\nhello, world", want: "hello", wantSize: 5},
		{name: "+N short", g: plus('0', "+"), reply: "+10\r\nhello", want: "hello", wantSize: 10, wantErr: schemes.ErrInterrupted},
		{name: "+N binary", g: plus('9', "+"), reply: "+13\r\n" + binary, want: binary, wantSize: 13},
		{name: "+-1 unstuffed", g: plus('0', "+"), reply: "+-1\r\nline\r\n..dot\r\n...\r\n.\r\nafter", want: "line\r\n.dot\r\n..\r\n", wantSize: -1},
		{name: "+-1 LF only", g: plus('0', "+"), reply: "+-1\nline\n..dot\n.\n", want: "line\n.dot\n", wantSize: -1},
		{name: "+-1 without its dot", g: plus('0', "+"), reply: "+-1\r\nline\r\n", want: "line\r\n", wantSize: -1, wantErr: schemes.ErrInterrupted},
		{name: "+-2 to close", g: plus('9', "+"), reply: "+-2\r\n" + binary, want: binary, wantSize: -1},
		{name: "--1 error", g: plus('0', "+"), reply: "--1\r\n1 Gopher Admin <admin@127.0.0.1>\r\nItem is not available.\r\n.\r\n",
			wantErr: schemes.ErrRefused, errText: "gopher+ error 1: Item is not available. (Gopher Admin <admin@127.0.0.1>)"},
		{name: "--2 error", g: plus('0', "+"), reply: "--2\r\n1 root@localhost\r\n'/nope' does not exist\r\n",
			wantErr: schemes.ErrRefused, errText: "gopher+ error 1: '/nope' does not exist (root@localhost)"},
		{name: "plain server ignores +", g: plus('0', "+"), reply: "text\r\n..x\r\n.\r\n", want: "text\r\n.x\r\n", wantSize: -1},
		{name: "plain server ignores +, bytes kept", g: plus('9', "+"), reply: "first\nsecond\r\n", want: "first\nsecond\r\n", wantSize: -1},
		{name: "plain server ignores +, long first line", g: plus('9', "+"), reply: "+" + strings.Repeat("x", 100000), want: "+" + strings.Repeat("x", 100000), wantSize: -1},
		{name: "plain server ignores +, empty item", g: plus('9', "+"), reply: "", want: "", wantSize: -1},
		{name: "plain text", g: schemes.Gopher{Type: '0', Selector: "t"}, reply: "a\r\n..b\r\n.\r\n", want: "a\r\n.b\r\n", wantSize: -1},
		{name: "plain text lone dot mid-line", g: schemes.Gopher{Type: '0', Selector: "t"}, reply: "a . b\r\nx.\r\n.\r\n", want: "a . b\r\nx.\r\n", wantSize: -1},
		{name: "plain text without final dot", g: schemes.Gopher{Type: '0', Selector: "t"}, reply: "a\r\nb", want: "a\r\nb", wantSize: -1},
		{name: "plain text dot at close", g: schemes.Gopher{Type: '0', Selector: "t"}, reply: "a\r\n.", want: "a\r\n", wantSize: -1},
		{name: "plain binary to close", g: schemes.Gopher{Type: '9', Selector: "b"}, reply: binary, want: binary, wantSize: -1},
		{name: "plain image to close", g: schemes.Gopher{Type: 'I', Selector: "b"}, reply: binary, want: binary, wantSize: -1},
		{name: "plain error line", g: schemes.Gopher{Type: '0', Selector: "nope"}, reply: "3'nope' does not exist\t\terror.host\t1\r\n.\r\n",
			wantErr: schemes.ErrRefused, errText: "server error: 'nope' does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(t, func(int, string) string { return tt.reply })
			resp, err := New().Fetch(context.Background(), newRequest(s.url(tt.g)))
			var body []byte
			if err == nil {
				if resp.Kind != schemes.KindFile {
					t.Fatalf("Kind = %v", resp.Kind)
				}
				if resp.Size != tt.wantSize {
					t.Errorf("Size = %d, want %d", resp.Size, tt.wantSize)
				}
				body, err = io.ReadAll(resp.Body)
				resp.Close()
			}
			if string(body) != tt.want {
				t.Errorf("body %q, want %q", body, tt.want)
			}
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.errText != "" && err.Error() != tt.errText {
				t.Errorf("error text %q, want %q", err, tt.errText)
			}
		})
	}
}

func plus(typ byte, ps string) schemes.Gopher {
	return schemes.Gopher{Type: typ, Selector: "sel", HasSearch: true, PlusString: ps, HasPlus: true}
}

// The dot reader gives the same bytes however the input is split.
func TestDotReaderChunking(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\r\n..b\r\n.\r\n", "a\r\n.b\r\n"},
		{"..\r\n.\r\n", ".\r\n"},
		{".x\r\n.\r\n", ".x\r\n"},
		{"a\n.\n", "a\n"},
		{"a\r\n.\r", "a\r\n"},
		{"", ""},
		{".", ""},
		{strings.Repeat("x", 10000) + "\r\n..y\r\n.\r\n", strings.Repeat("x", 10000) + "\r\n.y\r\n"},
	}
	for _, tt := range tests {
		for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in)), iotest.HalfReader(strings.NewReader(tt.in))} {
			got, err := io.ReadAll(iotest.OneByteReader(newDotReader(bufio.NewReaderSize(r, 16), true)))
			if err != nil || string(got) != tt.want {
				t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
			}
		}
	}
	if _, err := io.ReadAll(newDotReader(bufio.NewReader(strings.NewReader("a\r\n")), false)); !errors.Is(err, errNoTerminator) {
		t.Errorf("strict reader without terminator: err = %v", err)
	}
}

// A body that grows past --max-size is the caller's to stop (the fetch
// package's front door): the fetcher streams what the server sends.
func TestMaxBytesLeftToTheCaller(t *testing.T) {
	s := newScripted(t, func(int, string) string { return strings.Repeat("x", 1000) })
	req := newRequest(s.url(schemes.Gopher{Type: '9', Selector: "b"}))
	req.MaxBytes = 100
	_, body, err := fetchBody(t, req)
	if err != nil || len(body) != 1000 {
		t.Fatalf("read %d bytes, err %v; want all 1000", len(body), err)
	}
}

// A response says what it is.
func TestResponseMetadata(t *testing.T) {
	s := newScripted(t, func(int, string) string { return "+-2\r\nGIF89a" })
	resp, _, err := fetchBody(t, newRequest(s.url(schemes.Gopher{Type: 'g', Selector: "/pics/cat.gif", HasSearch: true, PlusString: "+image/gif", HasPlus: true})))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Name != "cat.gif" || resp.Type != schemes.TypeImage || resp.MediaType != "image/gif" {
		t.Fatalf("Name %q Type %q MediaType %q", resp.Name, resp.Type, resp.MediaType)
	}
}
