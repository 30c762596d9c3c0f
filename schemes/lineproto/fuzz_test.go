package lineproto

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// FuzzWriter: however text is split into writes, what the guard passes on
// is whole lines, each ending in CR LF with no CR, LF or NUL inside, and a
// text of such lines passes whole.
func FuzzWriter(f *testing.F) {
	f.Add("CWD a\r\nRETR b\r\n", 3)
	f.Add("CWD a\nDELE b\r\n", 6)
	f.Add("USER x\r\rPASS y\r\n", 7)
	f.Add("NLST \x00\r\n", 0)
	f.Fuzz(func(t *testing.T, text string, cut int) {
		if cut < 0 || cut > len(text) {
			cut = len(text) / 2
		}
		var out bytes.Buffer
		w := NewWriter(&out, "fuzz")
		_, err1 := w.Write([]byte(text[:cut]))
		_, err2 := w.Write([]byte(text[cut:]))
		for _, err := range []error{err1, err2} {
			if err != nil && !errors.Is(err, security.ErrInjection) {
				t.Fatalf("error of another kind: %v", err)
			}
		}
		passed := out.String()
		if passed != "" && !strings.HasSuffix(passed, "\r\n") {
			t.Fatalf("passed on a line without its CR LF: %q", passed)
		}
		for _, line := range strings.SplitAfter(passed, "\r\n") {
			if err := security.CheckLine("fuzz", strings.TrimSuffix(line, "\r\n")); err != nil {
				t.Fatalf("passed on %q: %v", line, err)
			}
		}
		if err1 == nil && err2 == nil && !strings.HasPrefix(text, passed) {
			t.Fatalf("passed on %q, which text %q does not start with", passed, text)
		}
	})
}

// FuzzReader: no line comes back longer than the limit, and after a line
// over it every read fails.
func FuzzReader(f *testing.F) {
	f.Add("a\r\nbb\nccc", 2)
	f.Add(strings.Repeat("x", 100)+"\n", 10)
	f.Fuzz(func(t *testing.T, in string, limit int) {
		if limit < 1 || limit > 1<<16 {
			limit = 8
		}
		r := NewReader(bufio.NewReaderSize(strings.NewReader(in), 16), limit)
		for i := 0; i <= len(in)+1; i++ {
			line, err := r.ReadLine()
			if len(line) > limit {
				t.Fatalf("line of %d bytes with a limit of %d", len(line), limit)
			}
			if errors.Is(err, schemes.ErrTooLarge) {
				if _, again := r.ReadLine(); !errors.Is(again, schemes.ErrTooLarge) {
					t.Fatalf("after a long line: %v", again)
				}
				return
			}
			if err != nil {
				return
			}
		}
		t.Fatalf("more lines than bytes in %q", in)
	})
}
