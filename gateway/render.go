package gateway

import (
	"embed"
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

//go:embed page.html
var pageFS embed.FS

// pages are the gateway's HTML templates: html/template escapes every byte
// of remote text for where it stands (element text, attribute, URL).
var pages = template.Must(template.New("page.html").ParseFS(pageFS, "page.html"))

// The data of each kind of page.
type (
	startPage struct {
		Live    bool
		Archive bool
		Root    string // where to start browsing the archive, "" for none
		URLs    int    // captured URLs
		Origins []origin
	}
	// origin is a URL the archive's captures started from.
	origin struct {
		URL   string
		Href  string // its latest capture
		All   string // every capture of it
		Count int    // how many times it was captured
	}
	inputPage struct {
		URL       string
		Prompt    string
		Sensitive bool
	}
	errorPage struct {
		Status  int
		Text    string
		Message string
		Live    string // the live page of what was not captured, "" for none
	}
	listingPage struct {
		Banner *banner // a capture's, nil for a live page
		URL    string
		Raw    string // the /raw/ path of the same URL
		Rows   []row
		Cut    bool // entries were left out past Config.MaxEntries
		Table  bool
		Err    string // what stopped the listing early
		// Threads is a group's articles threaded by their References,
		// nil for any other listing.
		Threads []*threadNode
	}
	gemtextPage struct {
		Banner *banner
		URL    string
		Raw    string
		Lines  []gemLine
		Cut    bool
		Err    string
	}
)

// pageData is a kind of page: the template that draws it, by name.
type pageData interface{ template() string }

func (startPage) template() string    { return "start" }
func (inputPage) template() string    { return "input" }
func (errorPage) template() string    { return "error" }
func (listingPage) template() string  { return "listing" }
func (gemtextPage) template() string  { return "gemtext" }
func (capturesPage) template() string { return "captures" }
func (infoPage) template() string     { return "info" }
func (askPage) template() string      { return "ask" }

// row is one entry of a listing as the page shows it.
type row struct {
	Kind   string // "link", "search", "ask", "text", "error", "session", "unparsed"
	Name   string
	Href   string // the gateway path it leads to, "" for none
	Info   string // a Gopher+ item's attributes page, "" for none
	URL    string // the entry's own URL, shown as text where it is no link
	Type   string
	Size   string
	Time   string
	Target string
	From   string
	// Missing says that the archive holds no capture of what a link of a
	// capture leads to; Live is then its live page ("" when the gateway
	// fetches nothing live).
	Missing bool
	Live    string
	// msgID and refs are an article's message-id and References, for
	// threading a group.
	msgID, refs string
}

// gemLine is one line of a gemtext page as the page shows it.
type gemLine struct {
	Kind    string // schemes.Gemini* kinds; "pre" lines come grouped in Pre
	Level   int
	Text    string
	Href    string
	URL     string
	Pre     []string
	Missing bool   // as row's
	Live    string // as row's
}

// uncaptured reports whether href, a link of a capture's page made by l
// under its banner b, leads to what the archive never captured, and then
// the live page of it ("" when the gateway fetches nothing live): the
// page says so beside the link. A live page's links are never missing.
func (g *Gateway) uncaptured(href string, l linker, b *banner) (bool, string) {
	raw, ok := strings.CutPrefix(href, string(l))
	if b == nil || b.captured == nil || href == "" || !ok || b.captured(raw) {
		return false, ""
	}
	if g.cfg.Client != nil {
		return true, live.to(raw)
	}
	return true, ""
}

// page renders a page of the gateway about pageURL ("" for none) with
// status code.
func (g *Gateway) page(w http.ResponseWriter, code int, title, pageURL string, data pageData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", pageCSP)
	w.WriteHeader(code)
	pages.ExecuteTemplate(w, data.template(), struct {
		Title string
		URL   string // the URL the page is about, for the URL box
		Page  any
	}{title, pageURL, data})
}

// fail renders an error page that says what went wrong, in one line.
func (g *Gateway) fail(w http.ResponseWriter, code int, msg string) {
	g.page(w, code, http.StatusText(code), "", errorPage{Status: code, Text: http.StatusText(code), Message: schemes.ServerText(msg)})
}

// fetchable are the schemes a link of a page leads to through the
// gateway; a link of any other scheme is shown as text.
var fetchable = map[string]bool{
	"ftp": true, "ftps": true, "http": true, "https": true, "gopher": true, "gophers": true,
	"gemini": true, "news": true, "nntp": true, "nntps": true, "wais": true,
}

// linker makes the gateway path of a link on a page: under /live/ for a
// page fetched now, under /web/TIMESTAMP/ for a capture, so that links
// stay where the page is.
type linker string

// live links to pages fetched now.
const live linker = "/live/"

// to is the gateway path that shows raw, "" when the gateway does not lead
// there (another scheme, a URL that does not read).
func (l linker) to(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !fetchable[strings.ToLower(u.Scheme)] {
		return ""
	}
	return string(l) + raw
}

// listing renders a directory, menu, group or group list, its links made
// by l, with banner (nil for a live page).
func (g *Gateway) listing(w http.ResponseWriter, u *schemes.URL, resp *fetch.Response, l linker, b *banner) {
	p := listingPage{URL: u.String(), Raw: "/raw/" + u.String(), Banner: b}
	if b != nil && b.Raw != "" {
		p.Raw = b.Raw
	}
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			p.Err = schemes.ServerText(err.Error())
			break
		}
		if len(p.Rows) == g.cfg.MaxEntries {
			p.Cut = true
			break
		}
		r := entryRow(e, l)
		if r.Kind == "link" {
			r.Missing, r.Live = g.uncaptured(r.Href, l, b)
		}
		p.Table = p.Table || r.Size != "" || r.Time != ""
		p.Rows = append(p.Rows, r)
	}
	p.Threads = threads(p.Rows)
	g.page(w, http.StatusOK, u.String(), u.String(), p)
}

// rowKinds say how a page shows an entry of each type; any other is a link.
var rowKinds = map[string]string{
	schemes.TypeInfo: "text", schemes.TypeError: "error", schemes.TypeUnparsed: "unparsed",
	schemes.TypeTelnet: "session", schemes.TypeTN3270: "session", schemes.TypeSearch: "search", schemes.TypeAsk: "ask",
}

// entryRow is how a page shows a listing's entry, its link made by l.
func entryRow(e schemes.Entry, l linker) row {
	r := row{Name: e.Name, URL: e.URL, Type: e.Type, Target: e.Target, Kind: rowKinds[e.Type]}
	if r.Kind == "" {
		r.Kind = "link"
	}
	if r.Kind == "link" || r.Kind == "search" || r.Kind == "ask" {
		u := e.URL
		if e.News != nil && e.News.URL != "" {
			u = e.News.URL // the article on the server that listed it
		}
		if r.Href = l.to(u); r.Href == "" {
			r.Kind = "session" // a link the gateway does not follow: its URL as text
		}
	}
	if r.Kind == "search" {
		r.Href = "/search/" + e.URL
	}
	if g := e.Gopher; g != nil && g.Plus != "" && r.Href != "" && l == live {
		r.Info = "/info/" + e.URL
		if r.Kind == "ask" {
			// The form's own answers travel as the query of /ask/: the
			// item's "?" (its Gopher+ string) is written escaped.
			r.Href = "/ask/" + strings.ReplaceAll(e.URL, "?", "%3F")
		}
	}
	if r.Kind == "ask" && r.Href != "" && !strings.HasPrefix(r.Href, "/ask/") {
		r.Kind = "link" // a form in an archive: its capture, as captured
	}
	if e.Size >= 0 && e.Type != schemes.TypeDir && r.Kind == "link" {
		r.Size = strconv.FormatInt(e.Size, 10)
	}
	if !e.Modified.IsZero() {
		r.Time = when(e.Modified, e.TimePrecision())
	}
	if n := e.News; n != nil && n.Subject != "" {
		r.Name, r.From, r.Time = n.Subject, n.From, n.Date
	}
	if n := e.News; n != nil && n.Number > 0 {
		r.msgID, r.refs = n.MessageID, n.References
	}
	return r
}

// when writes a time at the precision the listing knows it.
func when(t time.Time, precision string) string {
	t = t.UTC()
	switch precision {
	case schemes.PrecisionDay:
		return t.Format(time.DateOnly)
	case schemes.PrecisionMinute:
		return t.Format("2006-01-02 15:04")
	}
	return t.Format(time.DateTime)
}

// gemtext renders a text/gemini page: headings, lists, quotes,
// preformatted blocks verbatim, link lines as links made by lk, with
// banner (nil for a live page).
func (g *Gateway) gemtext(w http.ResponseWriter, u *schemes.URL, resp *fetch.Response, lk linker, b *banner) {
	p := gemtextPage{URL: u.String(), Raw: "/raw/" + u.String(), Banner: b}
	if b != nil && b.Raw != "" {
		p.Raw = b.Raw
	}
	l := resp.Page(resp.Body)
	defer l.Close()
	n := 0
	for {
		e, err := l.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.Err = schemes.ServerText(err.Error())
			break
		}
		if n++; n > g.cfg.MaxEntries {
			p.Cut = true
			break
		}
		kind, level := schemes.GeminiText, 0
		if e.Gemini != nil {
			kind, level = e.Gemini.Kind, e.Gemini.Level
		}
		switch kind {
		case schemes.GeminiPre:
			if last := len(p.Lines) - 1; last >= 0 && p.Lines[last].Kind == schemes.GeminiPreOpen {
				p.Lines[last].Pre = append(p.Lines[last].Pre, e.Name)
				continue
			}
			p.Lines = append(p.Lines, gemLine{Kind: schemes.GeminiPreOpen, Pre: []string{e.Name}})
		case schemes.GeminiPreEnd:
		case schemes.GeminiLink:
			gl := gemLine{Kind: kind, Text: e.Name, Href: lk.to(e.URL), URL: e.URL}
			gl.Missing, gl.Live = g.uncaptured(gl.Href, lk, b)
			p.Lines = append(p.Lines, gl)
		default:
			p.Lines = append(p.Lines, gemLine{Kind: kind, Level: level, Text: e.Name})
		}
	}
	g.page(w, http.StatusOK, u.String(), u.String(), p)
}

// threadNode is an article of a group with the articles that follow it up.
type threadNode struct {
	Row      row
	Children []*threadNode
}

// maxThreadDepth bounds how deep a page nests follow-ups; one deeper is
// shown beside the articles at that depth.
const maxThreadDepth = 32

// threads arranges the rows of a group's articles (each with a
// message-id, as an overview gives them) by their References: an article
// follows the last article of its References the page lists before it,
// else it starts a thread. Nil when the rows are not all articles.
func threads(rows []row) []*threadNode {
	if len(rows) == 0 {
		return nil
	}
	byID := map[string]*threadNode{}
	parent := map[*threadNode]*threadNode{}
	depth := map[*threadNode]int{}
	var roots []*threadNode
	for _, r := range rows {
		if r.msgID == "" {
			return nil
		}
		n := &threadNode{Row: r}
		var p *threadNode
		refs := strings.Fields(r.refs)
		for i := len(refs) - 1; i >= 0 && p == nil; i-- {
			p = byID[strings.TrimSuffix(strings.TrimPrefix(refs[i], "<"), ">")]
		}
		for p != nil && depth[p] >= maxThreadDepth {
			p = parent[p]
		}
		if _, dup := byID[r.msgID]; !dup {
			byID[r.msgID] = n
		}
		if p == nil {
			roots = append(roots, n)
			continue
		}
		parent[n], depth[n] = p, depth[p]+1
		p.Children = append(p.Children, n)
	}
	return roots
}
