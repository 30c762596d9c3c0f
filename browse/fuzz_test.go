package browse

import (
	"strings"
	"testing"

	"github.com/rivo/tview"
)

// FuzzPager: whatever bytes a server sends and whatever is searched for,
// the pager's text is the cleaned text with only the match region added,
// and a match lies inside the text.
func FuzzPager(f *testing.F) {
	f.Add([]byte("first line\nthe needle\n"), "NEEDLE", 0)
	f.Add([]byte("[red]markup[-] and [\"region\"] tags\r\n"), "[", 1)
	f.Add([]byte("\x1b[2J\x00\xff\xfe caf\xc3\xa9 \xe2\x80\xae"), "\u0130", 0)
	f.Fuzz(func(t *testing.T, text []byte, q string, k int) {
		p := &page{text: text, search: q, match: k % 4}
		s := displayed(p)
		if strings.ContainsAny(s, "\x1b\x00\r") {
			t.Fatalf("control bytes reach the screen: %q", s)
		}
		i, n := matchAt(s, q, p.match)
		if i >= 0 && (i+n > len(s) || !strings.EqualFold(s[i:i+n], q) && s[i:i+n] != q) {
			t.Fatalf("match at %d+%d of %q in %q", i, n, q, s)
		}
		out := pagerText(p)
		if i < 0 && out != tview.Escape(s) {
			t.Fatalf("no match, but the text changed")
		}
	})
}
