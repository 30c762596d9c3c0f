package wais

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// MaxMessage bounds one message body: a search answer of MaxDocuments
// headers, or one range of a document, is far smaller.
const MaxMessage = 4 << 20

// Fetcher retrieves wais URLs. Its zero value is ready to use; it keeps no
// connections, so one Fetcher serves any number of concurrent fetches.
type Fetcher struct{}

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
)

type mode int

const (
	modeDescribe mode = iota // wais://host/database
	modeSearch               // wais://host/database?search
	modeDocument             // wais://host/database/wtype/wpath
)

// target is what a wais URL asks for.
type target struct {
	host     string
	port     int
	mode     mode
	database string
	words    string
	hasWords bool
	wtype    string
	wpath    string // as written in the URL
	id       DocID
	length   int64 // the document's size where the URL gives it, else -1
}

func newTarget(u *schemes.URL) (*target, error) {
	w := u.WAIS
	if w == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "not a wais URL: %s", u.Scheme)
	}
	if w.Database == "" {
		return nil, schemes.Errorf(schemes.ErrUsage, "the wais URL names no database")
	}
	t := &target{host: u.Host, port: u.EffectivePort(), database: w.Database}
	switch {
	case w.HasSearch:
		t.mode = modeSearch
		// The search part is words joined by '+', as the W3C client
		// writes it (and as an HTTP ISINDEX query is); %2B is a plus.
		t.words = strings.ReplaceAll(w.Search, "+", " ")
		if w.RawSearch != "" && schemes.Decode(w.RawSearch) == w.Search {
			t.words = schemes.Decode(strings.ReplaceAll(w.RawSearch, "+", " "))
		}
		t.hasWords = strings.TrimSpace(t.words) != ""
	case w.WType != "" || w.WPath != "":
		t.mode = modeDocument
		t.wtype = w.WType
		if t.wtype == "" {
			t.wtype = "TEXT"
		}
		raw := w.RawWPath
		if raw == "" || schemes.Decode(raw) != w.WPath {
			raw = schemes.Escape(w.WPath) // a URL built in code: take WPath as one field list
			raw = strings.NewReplacer("%3B", ";", "%3D", "=", "%2F", "/").Replace(raw)
		}
		// The W3C clients wrote .../database/wtype/LENGTH/wpath: such a
		// URL still works, and gives the document's size.
		t.length = -1
		if l, rest, ok := strings.Cut(raw, "/"); ok && l != "" && strings.Trim(l, "0123456789") == "" {
			if n, err := strconv.ParseInt(l, 10, 64); err == nil {
				t.length, raw = n, rest
			}
		}
		id, err := ParseWPath(raw)
		if err != nil {
			return nil, err
		}
		t.wpath, t.id = raw, id
	}
	return t, nil
}

func (t *target) addr() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// setQuery applies Request.Query (or a prompt's answer): the words of a search.
func (t *target) setQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return schemes.NeedSetting(schemes.ErrUsage, "Query", "a WAIS search needs words")
	}
	// The guard saw the URL's words, not these.
	if err := security.CheckWAISField("wais query", q); err != nil {
		return err
	}
	t.mode, t.words, t.hasWords = modeSearch, q, true
	return nil
}

// resolveQuery finds the words of a search: Request.Query, else the URL's, else
// a prompt, else the fetch cannot be made.
func resolveQuery(t *target, req *schemes.Request) error {
	switch {
	case req.HasQuery:
		return t.setQuery(req.Query)
	case t.mode != modeSearch || t.hasWords:
		return nil
	case req.Prompt != nil:
		q, err := req.Prompt("Search for: ", false)
		if err != nil {
			return err
		}
		return t.setQuery(q)
	}
	return schemes.NeedSetting(schemes.ErrUsage, "Query", "a WAIS search needs words")
}

// Fetch retrieves req.URL: a search or a database's description as a
// Listing, a document as a streamed Body.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	t, err := newTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if t.mode != modeDocument {
		if err := resolveQuery(t, req); err != nil {
			return nil, err
		}
	}
	c, err := connect(ctx, req, t)
	if err != nil {
		return nil, err
	}
	if t.mode == modeDocument {
		resp, err := f.retrieve(ctx, req, t, c)
		if err != nil {
			c.Close()
			return nil, err
		}
		return resp, nil
	}
	defer c.Close()
	return f.search(ctx, req, t, c)
}

// Plan returns the requests a fetch of req.URL would send, one readable
// line each; a search without words shows the placeholder "<query>".
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	t, err := newTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if req.HasQuery {
		if err := t.setQuery(req.Query); err != nil {
			return nil, err
		}
	}
	switch t.mode {
	case modeDocument:
		start := req.Offset
		return &schemes.Plan{
			Requests: []string{describeRetrieval(t.database, t.wpath, t.wtype, start, start+RangeSize)},
			Notes: map[string]string{"ranges": fmt.Sprintf(
				"the document is asked for %d bytes at a time, on one connection, until a range comes back short", RangeSize)},
		}, nil
	case modeSearch:
		words := t.words
		if !t.hasWords {
			words = "<query>"
		}
		return &schemes.Plan{Requests: []string{describeSearch(t.database, words)}}, nil
	}
	return &schemes.Plan{
		Requests: []string{describeSearch(t.database, "")},
		Notes:    map[string]string{"description": "a search with no words: a WAIS server answers it with the database's catalogue"},
	}, nil
}

// search runs a search (or, with no words, asks for the database's
// description) and lists the documents of the answer.
func (f *Fetcher) search(ctx context.Context, req *schemes.Request, t *target, c *conn) (*schemes.Response, error) {
	words := ""
	if t.mode == modeSearch {
		words = t.words
	}
	r, err := c.exchange(ctx, func() string { return describeSearch(t.database, words) }, SearchRequest(t.database, words, MaxDocuments))
	if err != nil {
		return nil, err
	}
	if len(r.Documents) == 0 && len(r.Diagnostics) > 0 {
		return nil, diagnosticError(r.Diagnostics)
	}
	for _, d := range r.Diagnostics {
		req.Warnf("wais: " + d.String())
	}
	if len(r.Documents) > req.EntryLimit() {
		return nil, schemes.Errorf(schemes.ErrTooLarge, "search answer of %d documents, more than the limit of %d", len(r.Documents), req.EntryLimit())
	}
	entries := make([]schemes.Entry, 0, len(r.Documents)+1)
	for _, h := range r.Documents {
		e, err := t.entry(req.URL, h)
		if err != nil {
			req.Warnf("wais: skipping " + strconv.Quote(h.Headline) + ": " + err.Error())
			continue
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		msg := "no document matched " + strconv.Quote(words) + " in " + t.database
		if t.mode == modeDescribe {
			msg = "the server offers no description of database " + t.database
		}
		entries = append(entries, schemes.Entry{Name: msg, Type: schemes.TypeInfo, Size: -1})
	}
	return &schemes.Response{URL: req.URL, Kind: schemes.KindListing, Type: schemes.TypeDir, Size: -1,
		Name: t.database, Listing: schemes.ListingOf(entries, nil)}, nil
}

// entry is the listing entry of one document header: its URL names the
// server gofer dialled, never the name the server gives itself in the id.
func (t *target) entry(u *schemes.URL, h DocumentHeader) (schemes.Entry, error) {
	wpath, err := h.ID.WPath()
	if err != nil {
		return schemes.Entry{}, err
	}
	wtype := "TEXT"
	if len(h.Types) > 0 && h.Types[0] != "" {
		wtype = h.Types[0]
	}
	du := &schemes.URL{Scheme: "wais", Host: u.Host, Port: u.Port,
		WAIS: &schemes.WAIS{Database: t.database, WType: wtype, WPath: schemes.Decode(wpath), RawWPath: wpath}}
	e := schemes.Entry{
		Name: strings.TrimSpace(h.Headline), Type: typeWord(wtype), URL: du.String(), Size: -1,
		WAIS: &schemes.WAISHit{Score: h.Score, Type: wtype, Date: h.Date},
	}
	if h.Length >= 0 {
		e.Size = h.Length
	}
	if h.Lines >= 0 {
		e.WAIS.Lines = h.Lines
	}
	return e, nil
}

// typeWord maps a WAIS document type onto gofer's entry type words.
func typeWord(wtype string) string {
	switch strings.ToUpper(wtype) {
	case "TEXT", "WSRC", "TEXT-FTP":
		return schemes.TypeText
	case "HTML":
		return schemes.TypeHTML
	case "GIF", "JPEG", "PICT", "TIFF", "PNG":
		return schemes.TypeImage
	}
	return schemes.TypeBinary
}

// mediaType is the MIME type of a WAIS document type, as the W3C client
// maps them.
func mediaType(wtype string) string {
	switch strings.ToUpper(wtype) {
	case "TEXT":
		return "text/plain"
	case "WSRC":
		return "application/x-wais-source"
	case "HTML":
		return "text/html"
	case "GIF":
		return "image/gif"
	case "JPEG":
		return "image/jpeg"
	}
	return "application/octet-stream"
}

func diagnosticError(ds []Diagnostic) error {
	texts := make([]string, len(ds))
	for i, d := range ds {
		texts[i] = d.String()
	}
	return schemes.Errorf(schemes.ErrRefused, "wais server: %s", strings.Join(texts, "; "))
}
