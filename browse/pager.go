package browse

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// fillPager draws a text page: its text, or its raw bytes as a hex dump,
// wrapped or not, with the current search match highlighted.
func (b *Browser) fillPager(p *page) {
	b.pager.SetWrap(p.wrap)
	b.pager.SetText(pagerText(p))
	if p.match >= 0 {
		b.pager.Highlight("m")
		b.pager.ScrollToHighlight()
		return
	}
	b.pager.Highlight()
	b.pager.ScrollTo(p.line, 0)
}

// displayed is what the pager shows of p, before markup.
func displayed(p *page) string {
	if p.raw {
		return hex.Dump(p.text)
	}
	return clean(strings.ReplaceAll(string(p.text), "\r\n", "\n"))
}

// pagerText is displayed(p) with tview's markup escaped and the current
// match in region "m".
func pagerText(p *page) string {
	s := displayed(p)
	i, n := matchAt(s, p.search, p.match)
	if i < 0 {
		return tview.Escape(s)
	}
	return tview.Escape(s[:i]) + `["m"]` + tview.Escape(s[i:i+n]) + `[""]` + tview.Escape(s[i+n:])
}

// matchAt finds the k-th (0-based) occurrence of q in s, without regard
// to case; it returns -1 when there is none.
func matchAt(s, q string, k int) (int, int) {
	if q == "" || k < 0 {
		return -1, 0
	}
	ls, lq := strings.ToLower(s), strings.ToLower(q)
	if len(ls) != len(s) || len(lq) != len(q) {
		// Lower-casing changed lengths: match case as it is.
		ls, lq = s, q
	}
	off := 0
	for j := 0; ; j++ {
		i := strings.Index(ls[off:], lq)
		if i < 0 {
			return -1, 0
		}
		if j == k {
			return off + i, len(q)
		}
		off += i + len(lq)
	}
}

// pagerKey handles the pager's keys.
func (b *Browser) pagerKey(ev *tcell.EventKey) *tcell.EventKey {
	p := b.cur
	switch ev.Rune() {
	case '/':
		b.prompt("Search for:", "", false, func(q string, ok bool) {
			if !ok || q == "" {
				return
			}
			p.search, p.match = q, -1
			b.nextMatch(p)
		})
	case 'n':
		b.nextMatch(p)
	case 'N':
		if p.match > 0 {
			p.match--
			b.fillPager(p)
			b.setStatus(fmt.Sprintf("match %d of %q", p.match+1, p.search))
		}
	case 'w':
		p.wrap = !p.wrap
		p.line, _ = b.pager.GetScrollOffset()
		b.fillPager(p)
		b.setStatus(map[bool]string{true: "wrap on", false: "wrap off"}[p.wrap])
	case 'r':
		p.raw = !p.raw
		p.match, p.line = -1, 0
		b.fillPager(p)
		if p.raw {
			b.setStatus(fmt.Sprintf("raw bytes (%d), hex; r for the text", len(p.text)))
		} else {
			b.setStatus("text; r for the raw bytes")
		}
	case '<':
		// Left is back: sideways scrolling (wrap off) has keys of its own.
		return tcell.NewEventKey(tcell.KeyLeft, 0, tcell.ModNone)
	case '>':
		return tcell.NewEventKey(tcell.KeyRight, 0, tcell.ModNone)
	case ' ':
		return tcell.NewEventKey(tcell.KeyPgDn, 0, tcell.ModNone)
	case 'b':
		return tcell.NewEventKey(tcell.KeyPgUp, 0, tcell.ModNone)
	default:
		return ev
	}
	return nil
}

// nextMatch highlights the next occurrence of the page's search.
func (b *Browser) nextMatch(p *page) {
	if p.search == "" {
		b.setStatus("no search yet: / searches")
		return
	}
	s := displayed(p)
	if i, _ := matchAt(s, p.search, p.match+1); i < 0 {
		if p.match < 0 {
			b.setStatus(fmt.Sprintf("%q not found", p.search))
		} else {
			b.setStatus(fmt.Sprintf("no more matches of %q", p.search))
		}
		return
	}
	p.match++
	b.fillPager(p)
	line := strings.Count(s[:mustMatch(s, p.search, p.match)], "\n") + 1
	b.setStatus(fmt.Sprintf("match %d of %q, line %d  (n next)", p.match+1, p.search, line))
}

func mustMatch(s, q string, k int) int {
	i, _ := matchAt(s, q, k)
	return max(i, 0)
}
