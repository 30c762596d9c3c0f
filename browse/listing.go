package browse

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/goferurl/gofer/schemes"
)

// fillTable draws a listing: one row an entry, with its type, name, size
// and date where the listing gives them. Info lines are text across the
// row and cannot be selected.
func (b *Browser) fillTable(p *page) {
	t := b.table
	t.Clear()
	first := -1
	for i, e := range p.entries {
		name := displayName(e)
		if e.Gemini != nil {
			name = gemtextRow(e)
		}
		if e.Type == schemes.TypeInfo {
			cell := tview.NewTableCell(clean(name)).SetSelectable(false).SetExpansion(1)
			if e.Gemini != nil && e.Gemini.Kind == schemes.GeminiHeading {
				cell.SetAttributes(tcell.AttrBold)
			}
			t.SetCell(i, 0, tview.NewTableCell("").SetSelectable(false))
			t.SetCell(i, 1, cell)
			t.SetCell(i, 2, tview.NewTableCell("").SetSelectable(false))
			t.SetCell(i, 3, tview.NewTableCell("").SetSelectable(false))
			continue
		}
		typ := e.Type
		if isForm(e) {
			typ = "form"
		}
		color := tcell.ColorDefault
		if e.Type == schemes.TypeDir {
			color = tcell.ColorAqua
		}
		if e.Type == schemes.TypeError {
			color = tcell.ColorRed
		}
		selectable := e.URL != ""
		if selectable && first < 0 {
			first = i
		}
		t.SetCell(i, 0, tview.NewTableCell(typ).SetTextColor(tcell.ColorYellow).SetSelectable(selectable))
		t.SetCell(i, 1, tview.NewTableCell(clean(name)).SetTextColor(color).SetExpansion(1).SetSelectable(selectable))
		t.SetCell(i, 2, tview.NewTableCell(sizeText(e.Size)).SetAlign(tview.AlignRight).SetSelectable(selectable))
		t.SetCell(i, 3, tview.NewTableCell(dateText(e)).SetSelectable(selectable))
	}
	row := p.row
	if row <= 0 || row >= len(p.entries) || p.entries[row].URL == "" {
		row = first
	}
	if row < 0 {
		row = 0
	}
	t.Select(row, 0)
	if row < 10 || p.row <= 0 {
		// A page seen afresh shows from its top, as far as its first
		// item allows (a gemini page's first link may come late).
		t.ScrollToBeginning()
	}
}

// sizeText is a size for a person: bytes, KiB, MiB or GiB.
func sizeText(n int64) string {
	switch {
	case n < 0:
		return ""
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// dateText is an entry's time as far as the listing knows it: an
// article's or a WAIS hit's date as the server wrote it when there is no
// other.
func dateText(e schemes.Entry) string {
	if e.Modified.IsZero() {
		switch {
		case e.News != nil:
			return e.News.Date
		case e.WAIS != nil:
			return e.WAIS.Date
		}
		return ""
	}
	t := e.Modified.UTC()
	if e.Precision == schemes.PrecisionDay {
		return t.Format(time.DateOnly)
	}
	return t.Format("2006-01-02 15:04")
}

// listingKey handles the listing's own keys: / finds an item by name, n
// finds the next one.
func (b *Browser) listingKey(ev *tcell.EventKey) *tcell.EventKey {
	p := b.cur
	if p == nil || p.kind != kindListing {
		return ev
	}
	switch ev.Rune() {
	case '/':
		b.prompt("Find item:", "", false, func(q string, ok bool) {
			if ok && q != "" {
				p.search = q
				b.findRow(p, b.selectedRow())
			}
		})
	case 'n':
		if p.search == "" {
			b.setStatus("no search yet: / finds an item")
			return nil
		}
		b.findRow(p, b.selectedRow()+1)
	default:
		return ev
	}
	return nil
}

// findRow selects the first item from row on (then from the top) whose
// name holds the page's search, without regard to case.
func (b *Browser) findRow(p *page, from int) {
	q := strings.ToLower(p.search)
	n := len(p.entries)
	for i := 0; i < n; i++ {
		r := (from + i) % n
		if e := p.entries[r]; e.URL != "" && strings.Contains(strings.ToLower(displayName(e)), q) {
			b.table.Select(r, 0)
			b.setStatus(fmt.Sprintf("found %q (n next)", p.search))
			return
		}
	}
	b.setStatus(fmt.Sprintf("no item holds %q", p.search))
}

// displayName is how a listing shows an entry: an article by its subject
// and author, a group with its description.
func displayName(e schemes.Entry) string {
	n := e.News
	switch {
	case n == nil:
	case n.Subject != "":
		name := n.Subject
		if n.From != "" {
			name += "  " + n.From
		}
		return name
	case n.Description != "":
		return e.Name + "  " + n.Description
	}
	return e.Name
}

// isForm reports whether an entry is a Gopher+ item that asks for input
// before it is fetched.
func isForm(e schemes.Entry) bool {
	return e.Gopher != nil && e.Gopher.Plus == "?"
}
