package wais

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/goferurl/gofer/dial"
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
		// The search part is written as words joined by '+' (RFC 1738
		// §3.9, as for an HTTP ISINDEX query).
		t.words = strings.ReplaceAll(w.Search, "+", " ")
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
			raw = strings.NewReplacer("%3B", ";", "%3D", "=").Replace(raw)
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

// setQuery applies --query (or a prompt's answer): the words of a search.
func (t *target) setQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return schemes.Errorf(schemes.ErrUsage, "a WAIS search needs words (--query TEXT)")
	}
	// The guard saw the URL's words, not these.
	if err := security.CheckWAISField("wais query", q); err != nil {
		return err
	}
	t.mode, t.words, t.hasWords = modeSearch, q, true
	return nil
}

// resolveQuery finds the words of a search: --query, else the URL's, else
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
	return schemes.Errorf(schemes.ErrUsage, "a WAIS search needs words (--query TEXT)")
}

// Fetch retrieves req.URL: a search or a database's description as a
// Listing, a document as a streamed Body.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
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
		Notes:    map[string]string{"database": "a search with no words: a WAIS server answers it with the database's catalogue"},
	}, nil
}

// search runs a search (or, with no words, asks for the database's
// description) and lists the documents of the answer.
func (f *Fetcher) search(ctx context.Context, req *schemes.Request, t *target, c *conn) (*schemes.Response, error) {
	words := ""
	if t.mode == modeSearch {
		words = t.words
	}
	r, err := c.exchange(ctx, describeSearch(t.database, words), SearchRequest(t.database, words, MaxDocuments))
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
		Name: t.database, Listing: &listing{entries: entries}}, nil
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
		WAIS: true, Score: h.Score, WAISType: wtype, Date: h.Date,
	}
	if h.Length >= 0 {
		e.Size = h.Length
	}
	if h.Lines >= 0 {
		e.Lines = h.Lines
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

// listing yields entries already decoded from one answer (bounded by
// MaxMessage and the entry limit).
type listing struct {
	entries []schemes.Entry
	i       int
}

func (l *listing) Next() (schemes.Entry, error) {
	if l.i >= len(l.entries) {
		return schemes.Entry{}, io.EOF
	}
	l.i++
	return l.entries[l.i-1], nil
}

func (l *listing) Close() error { return nil }

// retrieve asks for the document's first range and returns a Body that
// streams it and asks for the other ranges in turn. The Response comes as
// soon as the first range's text begins.
func (f *Fetcher) retrieve(ctx context.Context, req *schemes.Request, t *target, c *conn) (*schemes.Response, error) {
	b := &body{c: c, t: t, pos: req.Offset, max: req.MaxBytes}
	if err := b.next(ctx); err != nil {
		return nil, err
	}
	resp := &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Body: b, Offset: req.Offset, Size: -1,
		Type: typeWord(t.wtype), MediaType: mediaType(t.wtype)}
	if b.last {
		resp.Size = req.Offset + b.text.n // the first range is the last: the size is known
	}
	return resp, nil
}

// body streams a document range by range over one connection.
type body struct {
	c    *conn
	t    *target
	pos  int64 // where the next range starts
	text *textReader
	last bool // the current range is the document's last
	got  bool // some range had text
	done bool
	max  int64
	out  int64
	err  error
}

// next asks for the range at pos and positions b.text at its bytes. A
// range that comes back short (or empty) is the last. An answer with no
// text at all after some text ends the document too, since a server may
// answer a range past the end with a diagnostic.
func (b *body) next(ctx context.Context) error {
	end := b.pos + RangeSize
	tr, diags, err := b.c.retrieveRange(ctx, describeRetrieval(b.t.database, b.t.wpath, b.t.wtype, b.pos, end),
		RetrievalRequest(b.t.database, b.t.id, b.t.wtype, b.pos, end))
	if err != nil {
		return err
	}
	if tr == nil {
		if b.got {
			b.done = true
			return nil
		}
		if len(diags) > 0 {
			return diagnosticError(diags)
		}
		return schemes.Errorf(schemes.ErrRefused, "wais server sent no document text for %s", b.t.wpath)
	}
	b.text = tr
	b.pos += tr.n
	b.got = b.got || tr.n > 0
	b.last = tr.n < RangeSize
	return nil
}

func (b *body) Read(p []byte) (int, error) {
	for {
		if b.err != nil {
			return 0, b.err
		}
		if b.done {
			return 0, io.EOF
		}
		n, err := b.text.Read(p)
		if n > 0 {
			b.out += int64(n)
			if b.max > 0 && b.out > b.max {
				b.err = schemes.Errorf(schemes.ErrTooLarge, "document larger than --max-size %d bytes", b.max)
				return n - int(b.out-b.max), b.err
			}
			return n, nil
		}
		if err != io.EOF {
			b.err = err
			return 0, err
		}
		// This range's text is read: the rest of its answer goes unread
		// into the discard, then the next range, if any.
		if err := b.text.finish(); err != nil {
			b.err = err
			return 0, err
		}
		if b.last {
			b.done = true
			continue
		}
		// The fetch's context still governs: cancelling it closes the
		// connection (see connect), which fails this exchange.
		if err := b.next(context.Background()); err != nil {
			b.err = err
			return 0, err
		}
	}
}

func (b *body) Close() error { return b.c.Close() }

// conn is one connection to a WAIS server, used for one request at a time.
type conn struct {
	c    net.Conn
	br   *bufio.Reader
	stop func() bool
	tr   io.Writer
	addr string
	once sync.Once
	// cancelled holds the context's error once cancelling it has closed c,
	// so that the read that fails because of it says why.
	cancelled atomic.Value
}

func connect(ctx context.Context, req *schemes.Request, t *target) (*conn, error) {
	addr := t.addr()
	if req.Dialer == nil {
		return nil, schemes.Errorf(schemes.ErrConnect, "no dialer for wais://%s", addr)
	}
	nc, err := req.Dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, dial.Classify(err, "connect to "+addr)
	}
	nc = dial.IdleConn(nc, req.Idle())
	c := &conn{c: nc, br: bufio.NewReader(nc), tr: req.Transcript, addr: addr}
	c.stop = context.AfterFunc(ctx, func() {
		c.cancelled.Store(ctx.Err())
		nc.Close()
	})
	return c, nil
}

// Close ends the connection; closing twice is harmless.
func (c *conn) Close() error {
	var err error
	c.once.Do(func() {
		c.stop()
		err = c.c.Close()
	})
	return err
}

func (c *conn) classify(err error, what string) error {
	if cause, ok := c.cancelled.Load().(error); ok {
		return dial.Classify(cause, what)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return schemes.Errorf(schemes.ErrInterrupted, "%s: the server closed the connection", what)
	}
	return dial.Classify(err, what)
}

// send writes one message and reads the answer's header; it returns the
// length of the answer's body, which is next on c.br.
func (c *conn) send(ctx context.Context, what string, body []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, dial.Classify(err, "wais request")
	}
	if c.tr != nil {
		fmt.Fprintf(c.tr, "> %s\n", what)
	}
	if _, err := c.c.Write(Message(body)); err != nil {
		return 0, c.classify(err, "send request to "+c.addr)
	}
	var hb [HeaderSize]byte
	if _, err := io.ReadFull(c.br, hb[:]); err != nil {
		return 0, c.classify(err, "read answer from "+c.addr)
	}
	h, err := ParseHeader(hb[:])
	if err != nil {
		return 0, schemes.Errorf(schemes.ErrRefused, "wais server %s: %v", c.addr, err)
	}
	switch {
	case h.Type != 'z':
		return 0, schemes.Errorf(schemes.ErrRefused, "wais server %s answered with message type %q, not a Z39.50 APDU", c.addr, h.Type)
	case h.Compression != ' ' || h.Encoding != ' ':
		return 0, schemes.Errorf(schemes.ErrRefused, "wais server %s used compression %q / encoding %q, which gofer does not ask for", c.addr, h.Compression, h.Encoding)
	}
	return h.Length, nil
}

// exchange writes one message and reads the SearchResponse that answers
// it, whole (at most MaxMessage bytes).
func (c *conn) exchange(ctx context.Context, what string, body []byte) (*SearchResponse, error) {
	n, err := c.send(ctx, what, body)
	if err != nil {
		return nil, err
	}
	if n > MaxMessage {
		return nil, schemes.Errorf(schemes.ErrTooLarge, "wais server %s announced an answer of %d bytes, more than %d", c.addr, n, MaxMessage)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(c.br, b); err != nil {
		return nil, c.classify(err, "read answer from "+c.addr)
	}
	r, err := ParseSearchResponse(b)
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrRefused, "wais server %s: %v", c.addr, err)
	}
	c.logAnswer(r, -1)
	return r, nil
}

func (c *conn) logAnswer(r *SearchResponse, text int64) {
	if c.tr == nil {
		return
	}
	fmt.Fprintf(c.tr, "< SearchResponse status=%d results=%d returned=%d documents=%d diagnostics=%d",
		r.Status, r.ResultCount, r.Returned, len(r.Documents), len(r.Diagnostics))
	if text >= 0 {
		fmt.Fprintf(c.tr, " text=%d bytes", text)
	}
	fmt.Fprintln(c.tr)
	for _, d := range r.Diagnostics {
		fmt.Fprintf(c.tr, "< %s\n", d)
	}
}

// maxItem bounds an item of an answer that is read whole (the APDU, a
// diagnostic record, a document id); anything else streams or is skipped.
const maxItem = 1 << 16

// retrieveRange writes a retrieval and reads its answer up to the first
// document text (tag 127 inside a text group), which it returns as a
// reader over the connection: the text streams, whatever its length. The
// text is nil when the answer has none; diags are the diagnostics seen
// before it.
func (c *conn) retrieveRange(ctx context.Context, what string, body []byte) (*textReader, []Diagnostic, error) {
	n, err := c.send(ctx, what, body)
	if err != nil {
		return nil, nil, err
	}
	m := &message{c: c, left: n}
	tr, r, err := m.scanToText()
	if err != nil {
		return nil, nil, err
	}
	text := int64(-1)
	if tr != nil {
		text = tr.n
	}
	c.logAnswer(r, text)
	if tr == nil {
		return nil, r.Diagnostics, nil
	}
	return tr, r.Diagnostics, nil
}

// message reads one answer's body from the connection, counting what is
// left of it.
type message struct {
	c    *conn
	left int64
}

func (m *message) fail(err error) error {
	if errors.Is(err, errMalformed) {
		return schemes.Errorf(schemes.ErrRefused, "wais server %s: %v", m.c.addr, err)
	}
	return m.c.classify(err, "read answer from "+m.c.addr)
}

func (m *message) bytes(n int64) ([]byte, error) {
	if n > m.left || n > maxItem {
		return nil, m.fail(malformed("an item of %d bytes where %d remain", n, m.left))
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(m.c.br, b); err != nil {
		return nil, m.fail(err)
	}
	m.left -= n
	return b, nil
}

func (m *message) skip(n int64) error {
	if n > m.left {
		return m.fail(malformed("an item of %d bytes where %d remain", n, m.left))
	}
	k, err := io.CopyN(io.Discard, m.c.br, n)
	m.left -= k
	if err != nil {
		return m.fail(err)
	}
	return nil
}

func (m *message) compressed() (uint64, error) {
	var n uint64
	for k := 0; k < maxCompressed; k++ {
		if m.left <= 0 {
			return 0, m.fail(malformed("compressed integer runs past the end"))
		}
		c, err := m.c.br.ReadByte()
		if err != nil {
			return 0, m.fail(err)
		}
		m.left--
		n = n<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return n, nil
		}
	}
	return 0, m.fail(malformed("compressed integer longer than %d bytes", maxCompressed))
}

// tagLength reads an item's tag and length and checks that the value fits
// in what is left.
func (m *message) tagLength() (int, int64, error) {
	tag, err := m.compressed()
	if err != nil {
		return 0, 0, err
	}
	n, err := m.compressed()
	if err != nil {
		return 0, 0, err
	}
	if n > uint64(m.left) {
		return 0, 0, m.fail(malformed("tag %d claims %d bytes, %d remain", tag, n, m.left))
	}
	return int(tag), int64(n), nil
}

// scanToText reads the APDU and the WAIS part's items up to the first
// document text.
func (m *message) scanToText() (*textReader, *SearchResponse, error) {
	lb, err := m.bytes(2)
	if err != nil {
		return nil, nil, err
	}
	apdu, err := m.bytes(int64(lb[0])<<8 | int64(lb[1]))
	if err != nil {
		return nil, nil, err
	}
	// The APDU alone, through the whole-answer decoder.
	r, err := ParseSearchResponse(append(lb, apdu...))
	if err != nil {
		return nil, nil, m.fail(err)
	}
	if m.left == 0 {
		return nil, r, nil
	}
	tag, n, err := m.tagLength()
	if err != nil {
		return nil, nil, err
	}
	if tag != tagUserInformation || n != m.left {
		return nil, nil, m.fail(malformed("WAIS part has tag %d and %d bytes, %d remain", tag, n, m.left))
	}
	for m.left > 0 {
		start := m.left
		tag, err := m.compressed()
		if err != nil {
			return nil, nil, err
		}
		if tag == tagDiagnosticRecords {
			lb, err := m.bytes(2)
			if err != nil {
				return nil, nil, err
			}
			rec, err := m.bytes(int64(lb[0])<<8 | int64(lb[1]) + 1)
			if err != nil {
				return nil, nil, err
			}
			d, _, err := readDiagnostic(append(append(appendCompressed(nil, tag), lb...), rec...), 0)
			if err != nil {
				return nil, nil, m.fail(err)
			}
			r.Diagnostics = append(r.Diagnostics, d)
			continue
		}
		n, err := m.compressed()
		if err != nil {
			return nil, nil, err
		}
		if n > uint64(m.left) {
			return nil, nil, m.fail(malformed("tag %d claims %d bytes, %d remain (item at %d)", tag, n, m.left, start))
		}
		if tag != tagDocumentTextGroup {
			if err := m.skip(int64(n)); err != nil {
				return nil, nil, err
			}
			continue
		}
		groupEnd := m.left - int64(n)
		for m.left > groupEnd {
			ft, fn, err := m.tagLength()
			if err != nil {
				return nil, nil, err
			}
			if m.left-fn < groupEnd {
				return nil, nil, m.fail(malformed("tag %d runs past its text group", ft))
			}
			if ft == tagDocumentText {
				return &textReader{m: m, n: fn, rest: fn}, r, nil
			}
			if err := m.skip(fn); err != nil {
				return nil, nil, err
			}
		}
	}
	return nil, r, nil
}

// textReader reads one document text from the connection; finish skips
// the rest of its answer.
type textReader struct {
	m    *message
	n    int64 // the text's length
	rest int64 // of it, not yet read
}

func (t *textReader) Read(p []byte) (int, error) {
	if t.rest <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > t.rest {
		p = p[:t.rest]
	}
	n, err := t.m.c.br.Read(p)
	t.rest -= int64(n)
	t.m.left -= int64(n)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, t.m.fail(err)
	}
	return n, nil
}

func (t *textReader) finish() error {
	if t.rest > 0 {
		return t.m.fail(malformed("document text not read to its end"))
	}
	return t.m.skip(t.m.left)
}
