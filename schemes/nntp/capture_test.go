package nntp

import (
	"bytes"
	"strings"
	"testing"
)

// TestUnstuffer turns a multi-line block into the article it carries,
// whatever the pieces it arrives in.
func TestUnstuffer(t *testing.T) {
	want := "Subject: x\r\n\r\n.leading dot\r\n.\r\nnot the end\r\nlast\r\n"
	// ".\r\n" in the middle is stuffed on the wire as "..\r\n".
	wire := "Subject: x\r\n\r\n..leading dot\r\n..\r\nnot the end\r\nlast\r\n.\r\n"
	for size := 1; size <= len(wire); size++ {
		var out bytes.Buffer
		u := &unstuffer{w: &out, lineStart: true}
		for i := 0; i < len(wire); i += size {
			u.Write([]byte(wire[i:min(i+size, len(wire))]))
		}
		if out.String() != want {
			t.Fatalf("pieces of %d: got %q, want %q", size, out.String(), want)
		}
	}
}

// FuzzUnstuffer: an article dot-stuffed and terminated as RFC 3977 §3.1.1
// has it, fed in pieces of any size, comes back as it was.
func FuzzUnstuffer(f *testing.F) {
	f.Add("Subject: x\r\n\r\n.\r\n..\r\n.x\r\nlast\r\n", 3)
	f.Add("", 1)
	f.Fuzz(func(t *testing.T, article string, size int) {
		if size <= 0 || size > 1<<10 {
			size = 1
		}
		// Only whole CR LF lines with no other CR or LF make an article.
		lines := strings.Split(article, "\r\n")
		if len(lines) == 0 || lines[len(lines)-1] != "" {
			return
		}
		var wire strings.Builder
		for _, l := range lines[:len(lines)-1] {
			if strings.ContainsAny(l, "\r\n") {
				return
			}
			if strings.HasPrefix(l, ".") {
				wire.WriteByte('.')
			}
			wire.WriteString(l + "\r\n")
		}
		wire.WriteString(".\r\n")
		w := wire.String()
		var out bytes.Buffer
		u := &unstuffer{w: &out, lineStart: true}
		for i := 0; i < len(w); i += size {
			u.Write([]byte(w[i:min(i+size, len(w))]))
		}
		if out.String() != article {
			t.Fatalf("got %q, want %q", out.String(), article)
		}
	})
}
