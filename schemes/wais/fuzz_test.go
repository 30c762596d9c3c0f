package wais

import (
	"io"
	"testing"

	"github.com/goferurl/gofer/schemes/wais/waistest"
)

func searchSeeds(f *testing.F) {
	f.Add(waistest.SearchAnswer([]waistest.Hit{{DocID: waistest.DocID("h:210", "/d", "0 1 /d/a"), Score: 1000, Length: 1, Lines: 1, Type: "TEXT", Headline: "a"}}, []byte("3")))
	f.Add(waistest.DiagnosticAnswer("S1", "The following database is not available: x", nil))
	f.Add(waistest.TextAnswer([]byte{1, 1, 'x'}, []byte("some text"), []byte("3")))
	f.Add([]byte("0000000002z2wais        0\x00\x00"))
}

// FuzzParseSearchResponse: any answer decodes or fails, never panics.
func FuzzParseSearchResponse(f *testing.F) {
	searchSeeds(f)
	f.Fuzz(func(t *testing.T, msg []byte) {
		if len(msg) < HeaderSize {
			return
		}
		r, err := ParseSearchResponse(msg[HeaderSize:])
		if err != nil {
			return
		}
		for _, d := range r.Documents {
			d.ID.WPath()
		}
	})
}

// FuzzParseHeader: any 25 bytes decode or fail.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte("0000000037z2wais        0"))
	f.Add([]byte("00000000x7z2wais        0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := ParseHeader(b); err == nil && h.Length < 0 {
			t.Fatalf("negative length %d", h.Length)
		}
	})
}

// FuzzStreamedText: the streaming decoder of retrieval answers reads any
// answer to an end or an error, never more than the message.
func FuzzStreamedText(f *testing.F) {
	searchSeeds(f)
	f.Fuzz(func(t *testing.T, msg []byte) {
		tr, _, err := scanMessage(msg)
		if err != nil || tr == nil {
			return
		}
		n, err := io.Copy(io.Discard, tr)
		if err == nil {
			tr.finish()
		}
		if n > int64(len(msg)) {
			t.Fatalf("read %d bytes from a message of %d", n, len(msg))
		}
	})
}

// FuzzParseWPath: any wpath parses or fails; what parses comes back as the
// same id through its URL form.
func FuzzParseWPath(f *testing.F) {
	f.Add("1=h%3A210;2=%2Fdb;3=0%2012%20a;7=%00;")
	f.Add("3=x")
	f.Add("=;")
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := ParseWPath(raw)
		if err != nil {
			return
		}
		w, err := id.WPath()
		if err != nil {
			t.Fatalf("%q parsed to an id whose fields do not split: %v", raw, err)
		}
		again, err := ParseWPath(w)
		if err != nil || string(again) != string(id) {
			t.Fatalf("%q -> %q -> %q, %v", raw, w, again, err)
		}
	})
}
