package browse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// What a page shows.
const (
	kindListing = iota // entries in the table
	kindText           // text in the pager
)

// page is one place in the history: what was fetched and what it gave.
type page struct {
	req     fetch.Request
	title   string
	kind    int
	entries []schemes.Entry
	text    []byte // the bytes as received (kindText)
	cut     bool   // text stopped at Config.MaxText
	row     int    // the table's selection
	line    int    // the pager's first line
	wrap    bool
	raw     bool
	search  string
	match   int // which match of search is highlighted, -1 none
}

// browsed reports whether the browser opens URLs of scheme itself; the
// others (http, mailto, ...) have their URL shown.
func browsed(scheme string) bool {
	switch scheme {
	case "gopher", "gophers", "gemini", "ftp", "ftps", "file", "news", "nntp", "nntps", "wais", "prospero":
		return true
	}
	return false
}

// sessionScheme reports whether URLs of scheme are interactive sessions.
func sessionScheme(scheme string) bool {
	return scheme == "telnet" || scheme == "tn3270" || scheme == "rlogin"
}

// openURL opens a URL typed or given on the command line, as an entry of
// the kind its URL names.
func (b *Browser) openURL(raw string) {
	e, err := entryFor(raw, "")
	if err != nil {
		b.showError(err)
		return
	}
	b.openEntry(e)
}

// entryFor makes an entry of a URL, for a URL typed or bookmarked: a
// gopher URL's item type and Gopher+ marker decide how it opens.
func entryFor(raw, name string) (schemes.Entry, error) {
	u, err := fetch.ParseURL(raw)
	if err != nil {
		return schemes.Entry{}, err
	}
	if name == "" {
		name = u.Redacted()
	}
	e := schemes.Entry{Name: name, URL: raw, Size: -1, Type: schemes.TypeOther}
	if g := u.Gopher; g != nil {
		e.Gopher = &schemes.GopherItem{Type: string(g.Type), Selector: g.Selector, Host: u.Host, Port: u.EffectivePort()}
		e.Type = schemes.GopherTypeWord(g.Type)
		if g.HasPlus && g.PlusString == "?" {
			e.Gopher.Plus, e.Type = "?", schemes.TypeAsk
		}
		if g.Type == '7' && g.HasSearch {
			e.Type = schemes.TypeDir // the search is in the URL already
		}
	}
	return e, nil
}

// selectedRow is the table's selected row.
func (b *Browser) selectedRow() int {
	row, _ := b.table.GetSelection()
	return row
}

// selectedEntry is the entry under the cursor of a listing, if any.
func (b *Browser) selectedEntry() (schemes.Entry, bool) {
	if b.cur == nil || b.cur.kind != kindListing {
		return schemes.Entry{}, false
	}
	row := b.selectedRow()
	if row < 0 || row >= len(b.cur.entries) {
		return schemes.Entry{}, false
	}
	return b.cur.entries[row], true
}

func (b *Browser) openRow(row int) {
	if b.cur == nil || b.cur.kind != kindListing || row < 0 || row >= len(b.cur.entries) {
		return
	}
	b.openEntry(b.cur.entries[row])
}

// linkEntry is the entry a gemtext link opens as: a link to another
// scheme (a gopher item, say) opens as that URL typed would, its kind read
// from the URL; a gemini link stays as it is, its server's media type
// deciding how it shows.
func linkEntry(e schemes.Entry) schemes.Entry {
	if e.Gemini == nil || e.Gemini.Kind != schemes.GeminiLink || e.URL == "" {
		return e
	}
	u, err := fetch.ParseURL(e.URL)
	if err != nil || u.Scheme == "gemini" {
		return e
	}
	if le, err := entryFor(e.URL, e.Name); err == nil {
		return le
	}
	return e
}

// openEntry opens what an entry names: a search asks for its words, a
// Gopher+ form opens as a form, downloads go to the download directory,
// sessions suspend the interface, other schemes show their URL.
func (b *Browser) openEntry(e schemes.Entry) {
	e = linkEntry(e)
	if e.URL == "" {
		if e.Type == schemes.TypeInfo || e.Type == schemes.TypeError {
			return
		}
		b.setStatus("this item names nothing to open")
		return
	}
	u, err := fetch.ParseURL(e.URL)
	if err != nil {
		b.showError(err)
		return
	}
	switch {
	case sessionScheme(u.Scheme):
		b.runSession(e)
	case !b.opens(u.Scheme):
		b.setStatus(fmt.Sprintf("%s (gofer browse does not open %s URLs)", u.Redacted(), u.Scheme))
	case e.Type == schemes.TypeSearch:
		b.prompt("Search for:", "", false, func(q string, ok bool) {
			if ok {
				b.fetchPage(fetch.Request{URL: e.URL, Call: schemes.Call{Query: q, HasQuery: true}}, e.Name+": "+q)
			}
		})
	case isForm(e):
		b.openForm(e)
	case u.Scheme == "gemini":
		// Only the response's media type says what a gemini URL is.
		b.fetchPage(fetch.Request{URL: e.URL}, displayName(e))
	case e.Type == schemes.TypeBinary || e.Type == schemes.TypeImage || e.Type == schemes.TypeAudio:
		b.download(fetch.Request{URL: e.URL}, e.Name)
	default:
		b.fetchPage(fetch.Request{URL: e.URL}, displayName(e))
	}
}

// fetchPage fetches req and shows what it gives as a new page: a listing,
// a text, or, for what is not text, a download.
func (b *Browser) fetchPage(req fetch.Request, title string) {
	b.fetchThen(req, "fetching "+redacted(req.URL)+" ...", func(ctx context.Context, resp *fetch.Response) {
		p := &page{req: req, title: title, match: -1, wrap: true}
		switch resp.Kind {
		case schemes.KindListing:
			b.showListing(p, resp.Listing)
		case schemes.KindInfo:
			p.kind = kindText
			p.text = infoText(resp)
			b.ui(func() { b.push(p) })
		case schemes.KindSession, schemes.KindHandoff:
			b.ui(func() { b.setStatus("this URL is an interactive session") })
		case schemes.KindRedirect:
			b.ui(func() { b.setStatus("redirected to " + resp.Location + " (not followed)") })
		default:
			if isGemini(resp) {
				b.geminiPage(ctx, resp, p)
				return
			}
			b.readText(ctx, resp, p)
		}
	})
}

// showListing reads a listing's entries, at most Config.MaxItems, and
// shows them as p.
func (b *Browser) showListing(p *page, l schemes.Listing) {
	p.kind = kindListing
	var lerr error
	for {
		if len(p.entries) == b.cfg.MaxItems {
			lerr = fmt.Errorf("the listing was cut at %d items", b.cfg.MaxItems)
			break
		}
		e, err := l.Next()
		if err != nil {
			if err != io.EOF {
				lerr = err
			}
			break
		}
		if e.News != nil && e.News.URL != "" {
			// An article by number on the server the listing
			// came from, not by message-id on $NNTPSERVER's.
			e.URL = e.News.URL
		}
		p.entries = append(p.entries, e)
	}
	b.ui(func() {
		b.push(p)
		if lerr != nil {
			b.showError(lerr)
		}
	})
}

// readText reads a file response into the pager, or saves it when it is
// not text after all (a NUL in its first bytes).
func (b *Browser) readText(ctx context.Context, resp *fetch.Response, p *page) {
	var buf bytes.Buffer
	n, err := io.CopyN(&buf, resp.Body, b.cfg.MaxText+1)
	if err != nil && err != io.EOF {
		b.fail(ctx, err)
		return
	}
	if bytes.IndexByte(buf.Bytes()[:min(buf.Len(), 4096)], 0) >= 0 {
		// Binary after all: the bytes read so far lead the download.
		b.saveResponse(ctx, resp, p.req, p.title, buf.Bytes())
		return
	}
	p.kind = kindText
	p.text = buf.Bytes()
	if n > b.cfg.MaxText {
		p.text, p.cut = p.text[:b.cfg.MaxText], true
	}
	b.ui(func() {
		b.push(p)
		if p.cut {
			b.setStatus(fmt.Sprintf("showing the first %d bytes; d downloads the whole item", b.cfg.MaxText))
		}
	})
}

// infoText is an Info response in readable form.
func infoText(resp *fetch.Response) []byte {
	var buf bytes.Buffer
	if w, ok := resp.Info.(interface{ WriteText(io.Writer) error }); ok && w.WriteText(&buf) == nil {
		return buf.Bytes()
	}
	io.Copy(&buf, io.LimitReader(resp.Body, 1<<20))
	return buf.Bytes()
}

// runSession opens a telnet, rlogin or tn3270 URL through the client (and
// so its guard), suspends the interface, connects the session to the
// terminal, and restores the interface when it ends.
func (b *Browser) runSession(e schemes.Entry) {
	b.fetchThen(fetch.Request{URL: e.URL}, "connecting to "+redacted(e.URL)+" ...", func(ctx context.Context, resp *fetch.Response) {
		var serr error
		b.ui(func() {
			b.app.Suspend(func() {
				switch resp.Kind {
				case schemes.KindSession:
					fmt.Fprintf(b.cfg.Stdout, "gofer: %s (Ctrl-] or the session's end returns to the browser)\r\n", redacted(e.URL))
					serr = resp.Session.Interact(ctx, b.cfg.Stdin, b.cfg.Stdout)
				case schemes.KindHandoff:
					serr = handoff(ctx, resp.Command, b.cfg.Stdin, b.cfg.Stdout)
				default:
					serr = fmt.Errorf("%s is not an interactive session", redacted(e.URL))
				}
			})
			// The session is over before the page says so.
			resp.Close()
			if serr != nil {
				b.showError(serr)
			} else {
				b.setStatus("session with " + redacted(e.URL) + " ended")
			}
		})
	})
}

// handoff runs a program (tn3270, rlogin) on the terminal, never through
// a shell.
func handoff(ctx context.Context, command []string, in io.Reader, out io.Writer) error {
	if len(command) == 0 {
		return errors.New("no program to run")
	}
	path, err := exec.LookPath(command[0])
	if err != nil {
		return schemes.Errorf(schemes.ErrMissingProgram, "%s is not installed", command[0])
	}
	cmd := exec.CommandContext(ctx, path, command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
	return cmd.Run()
}

// redacted is a URL for display, its password masked.
func redacted(raw string) string {
	u, err := fetch.ParseURL(raw)
	if err != nil {
		return "(a malformed URL)"
	}
	return u.Redacted()
}

// push shows p as the current page; the forward history ends here.
func (b *Browser) push(p *page) {
	if b.cur != nil {
		b.save()
		b.back = append(b.back, b.cur)
	}
	b.fwd = nil
	b.show(p)
}

// save records where the current page was looked at.
func (b *Browser) save() {
	switch b.cur.kind {
	case kindListing:
		b.cur.row = b.selectedRow()
	case kindText:
		b.cur.line, _ = b.pager.GetScrollOffset()
	}
}

func (b *Browser) goBack()    { b.step(&b.back, &b.fwd, "no previous page") }
func (b *Browser) goForward() { b.step(&b.fwd, &b.back, "no next page") }

// step shows the last page of from, the current one going onto to; none
// says so when from is empty.
func (b *Browser) step(from, to *[]*page, none string) {
	if len(*from) == 0 {
		b.setStatus(none)
		return
	}
	b.save()
	*to = append(*to, b.cur)
	p := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	b.show(p)
}

// show draws p.
func (b *Browser) show(p *page) {
	b.cur = p
	title := p.title
	if note := b.capturedNote(p.req.URL); note != "" {
		title += "  (" + note + ")"
	}
	if u := redacted(p.req.URL); p.req.URL != "" && u != p.title {
		title += "  " + u
	}
	b.title.SetText(clean(title))
	switch p.kind {
	case kindListing:
		b.fillTable(p)
		b.pages.SwitchToPage("listing")
		b.focus(b.table)
		b.pageStatus(fmt.Sprintf("%d items  (Enter open, = info, d download, a bookmark, ? help)", countItems(p.entries)))
	case kindText:
		b.fillPager(p)
		b.pages.SwitchToPage("pager")
		b.focus(b.pager)
		b.pageStatus(fmt.Sprintf("%d bytes  (/ search, n next, w wrap, r raw bytes, Left back, ? help)", len(p.text)))
	}
}

func countItems(es []schemes.Entry) int {
	n := 0
	for _, e := range es {
		if e.URL != "" {
			n++
		}
	}
	return n
}

// clean makes text safe to draw: control characters (a hostile name's
// escape sequences) become "?", invalid UTF-8 the replacement character.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return '?'
		}
		return r
	}, s)
}
