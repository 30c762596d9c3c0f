package lineproto

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
)

// TestLinesAcrossChunks feeds a conversation cut at every byte: the lines
// come out whole, CR LF and bare LF ends removed, whatever the cuts.
func TestLinesAcrossChunks(t *testing.T) {
	wire := "220 hello\r\nUSER a\r\n\r\nbare\nlast"
	for cut := 1; cut <= len(wire); cut++ {
		var l Lines
		var got []string
		for rest := wire; rest != ""; {
			n := min(cut, len(rest))
			if err := l.Feed([]byte(rest[:n]), func(b []byte) error {
				got = append(got, string(b))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		if want := "220 hello|USER a||bare"; strings.Join(got, "|") != want {
			t.Fatalf("chunks of %d: lines %q, want %q", cut, strings.Join(got, "|"), want)
		}
	}
}

// TestLinesLimit refuses a line past the limit, complete or not, and goes
// on with the next one; an error of the line function ends Feed.
func TestLinesLimit(t *testing.T) {
	l := Lines{Limit: 8}
	var got []string
	keep := func(b []byte) error { got = append(got, string(b)); return nil }
	if err := l.Feed([]byte("12345"), keep); err != nil {
		t.Fatal(err)
	}
	if err := l.Feed([]byte("6789"), keep); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("partial line of 9 bytes: %v, want ErrLineTooLong", err)
	}
	if err := l.Feed([]byte("123456789\r\n"), keep); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("whole line of 9 bytes: %v, want ErrLineTooLong", err)
	}
	if err := l.Feed([]byte("ok\r\n"), keep); err != nil || strings.Join(got, "|") != "ok" {
		t.Fatalf("after a refusal: %v, lines %q", err, got)
	}
	stop := errors.New("stop")
	n := 0
	if err := l.Feed([]byte("a\nb\nc\n"), func([]byte) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("line function's error: %v after %d lines, want stop after 1", err, n)
	}
}

// TestReplayFirst reads the pending bytes before the connection's own.
func TestReplayFirst(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go func() {
		b.Write([]byte("from the wire"))
		b.Close()
	}()
	got, err := io.ReadAll(&Replay{Conn: a, Pending: []byte("220 replayed\r\n")})
	if err != nil || string(got) != "220 replayed\r\nfrom the wire" {
		t.Fatalf("read %q, %v", got, err)
	}
}
