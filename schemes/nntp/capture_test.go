package nntp

import (
	"bytes"
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
