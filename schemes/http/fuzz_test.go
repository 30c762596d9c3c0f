package http

import (
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// FuzzEscapeWire: the request target holds only characters allowed raw on
// the wire and well-formed escapes, and means the same octets as the URL.
func FuzzEscapeWire(f *testing.F) {
	for _, s := range []string{"/a b", "/c%2Fd", "/100%", "/%zz", "/caf\xe9", "/x\r\ny", "/q?r#s"} {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, query bool) {
		w := escapeWire(s, query)
		for i := 0; i < len(w); i++ {
			c := w[i]
			switch {
			case c == '%':
				if i+2 >= len(w) || !isHex(w[i+1]) || !isHex(w[i+2]) {
					t.Fatalf("%q → %q: bad escape at %d", s, w, i)
				}
			case wireSafe(c), query && c == '?':
			default:
				t.Fatalf("%q → %q: raw byte %#x", s, w, c)
			}
		}
		if schemes.Decode(w) != schemes.Decode(s) {
			t.Fatalf("%q → %q changes the octets: %q vs %q", s, w, schemes.Decode(w), schemes.Decode(s))
		}
	})
}
