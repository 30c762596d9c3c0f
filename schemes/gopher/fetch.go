package gopher

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
	"github.com/goferurl/gofer/security"
)

// DefaultMaxAttributes bounds an attribute reply ("!", "$", the +ASK form)
// when Request.MaxBytes does not bound it lower: attributes are read whole.
const DefaultMaxAttributes = 4 << 20

// maxErrorText bounds the text of a Gopher+ error reply.
const maxErrorText = 64 << 10

// Fetcher retrieves gopher URLs. Its zero value is ready to use; it keeps no
// connections, so one Fetcher serves any number of concurrent fetches.
type Fetcher struct {
	// sessions keeps TLS sessions (gophers) for resumption: one request
	// per connection would otherwise pay a full handshake each. nil: none.
	sessions tls.ClientSessionCache
}

// New returns a Fetcher that resumes TLS sessions.
func New() *Fetcher { return &Fetcher{sessions: tls.NewLRUClientSessionCache(256)} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
)

// Fetch retrieves req.URL: a menu or search result as a Listing, attributes
// ("!", "$") as Info (*Attributes), anything else as a streamed Body.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	t, err := newTarget(req.URL)
	if err != nil {
		return nil, err
	}
	t.sessions = f.sessions
	if t.needsQuery() {
		if err := resolveQuery(t, req); err != nil {
			return nil, err
		}
	}
	switch t.mode {
	case modeAsk:
		return f.fetchAsk(ctx, req, t)
	case modeAttrs:
		c, err := exchange(ctx, req, t, t.request(), nil)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		attrs, ok, err := c.readAttributes(ctx, req, t)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, schemes.Errorf(schemes.ErrRefused, "the server did not answer %q with Gopher+ attributes", t.plus)
		}
		return f.infoResponse(req, t, attrs), nil
	}
	c, err := exchange(ctx, req, t, t.request(), nil)
	if err != nil {
		return nil, err
	}
	sent := ""
	if t.mode == modeData {
		sent = t.plus
	}
	resp, err := c.response(ctx, req, t, sent)
	if err != nil {
		c.Close()
		return nil, err
	}
	return resp, nil
}

// resolveQuery finds the search of a type-7 item: Request.Query, else a prompt,
// else the fetch cannot be made.
func resolveQuery(t *target, req *schemes.Request) error {
	switch {
	case req.HasQuery:
		return t.setQuery(req.Query)
	case req.Prompt != nil:
		q, err := req.Prompt("Search for: ", false)
		if err != nil {
			return err
		}
		return t.setQuery(q)
	}
	return schemes.NeedSetting(schemes.ErrUsage, "Query", "a query is needed")
}

// fetchAsk fills in a +ASK form (Gopher+ §2.8): it reads the item's +ASK
// block, answers it, and submits the answers as a "+-1" data block.
func (f *Fetcher) fetchAsk(ctx context.Context, req *schemes.Request, t *target) (*schemes.Response, error) {
	form, err := fetchForm(ctx, req, t)
	if err != nil {
		return nil, err
	}
	answers, secret, err := form.fill(req.Form, req.Prompt)
	if err != nil {
		return nil, err
	}
	// The same shape check a URL carrying a filled form must pass.
	block := dataBlock(answers)
	if err := security.CheckAskBlock("gopher+ form", block); err != nil {
		return nil, err
	}
	text := t.line(block)
	// Transcript lines: the request line and "+-1" are never secret.
	mask := append([]bool{false, false}, secret...)
	c, err := exchange(ctx, req, t, text, mask)
	if err != nil {
		return nil, err
	}
	resp, err := c.response(ctx, req, t, block)
	if err != nil {
		c.Close()
		return nil, err
	}
	return resp, nil
}

// fetchForm reads an item's +ASK form. A server that does not understand
// "!+ASK" (pygopherd answers only a bare "!") is asked for all attributes.
func fetchForm(ctx context.Context, req *schemes.Request, t *target) (*Form, error) {
	for _, text := range []string{t.askRequest(), t.line("!") + "\r\n"} {
		c, err := exchange(ctx, req, t, text, nil)
		if err != nil {
			return nil, err
		}
		attrs, ok, err := c.readAttributes(ctx, req, t)
		c.Close()
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for _, it := range attrs.Items {
			if it.Ask != nil {
				return it.Ask, nil
			}
		}
		return nil, schemes.Errorf(schemes.ErrRefused, "the server gave no +ASK form for %q", t.selector)
	}
	return nil, schemes.Errorf(schemes.ErrRefused, "the server did not answer with Gopher+ attributes, so the +ASK form of %q cannot be read", t.selector)
}

func (f *Fetcher) infoResponse(req *schemes.Request, t *target, attrs *Attributes) *schemes.Response {
	return &schemes.Response{URL: req.URL, Kind: schemes.KindInfo, Info: attrs, Size: -1,
		Name: itemName(t.selector), Type: TypeWord(t.typ)}
}

// conn is one request's connection.
type conn struct {
	nc *lineproto.Conn // the TCP connection: deadlines, context, close
	rw io.ReadWriter   // nc, or TLS over it (gophers)
	br *bufio.Reader
	tr io.Writer
}

// exchange connects to the target's server and sends text. mask says, line
// by line, which lines the transcript shows as "****".
func exchange(ctx context.Context, req *schemes.Request, t *target, text string, mask []bool) (*conn, error) {
	addr := net.JoinHostPort(t.host, strconv.Itoa(t.port))
	nc, err := lineproto.Dial(ctx, req, "tcp", addr)
	if err != nil {
		return nil, err
	}
	var rw io.ReadWriter = nc
	if t.tls {
		// gophers: TLS from the first byte, as curl speaks it. A server
		// that answers the handshake in plain text fails it: there is no
		// fall back to an unencrypted request.
		cfg := dial.TLSConfig(req.TLSConfig, t.host)
		if cfg.ClientSessionCache == nil {
			cfg.ClientSessionCache = t.sessions
		}
		tc, err := lineproto.Handshake(ctx, nc, cfg, "TLS with gopher server "+addr)
		if err != nil {
			nc.Close()
			return nil, err
		}
		rw = tc
	}
	c := &conn{nc: nc, rw: rw, br: bufio.NewReader(rw), tr: req.Transcript}
	if err := c.send(text, mask, addr); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// send writes a request: the one place a Gopher request reaches the wire,
// every line of it checked there (a +ASK submission is several lines).
func (c *conn) send(text string, mask []bool, addr string) error {
	if err := c.nc.Classify(lineproto.WriteText(c.rw, "gopher request", text), "send request to "+addr); err != nil {
		return err
	}
	c.transcript(">", text, mask)
	return nil
}

func (c *conn) Close() error { return c.nc.Close() }

// transcript writes lines to Request.Transcript, masked where mask says so.
func (c *conn) transcript(dir, text string, mask []bool) {
	if c.tr == nil {
		return
	}
	lines := strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n")
	for i, l := range lines {
		if i < len(mask) && mask[i] {
			l = "****"
		}
		fmt.Fprintf(c.tr, "%s %s\n", dir, l)
	}
}

func (c *conn) classify(err error, what string) error { return c.nc.Classify(err, what) }

// header is a Gopher+ reply's first line (Gopher+ §2.3): "+N" N bytes
// follow, "+-1" a dot-terminated block, "+-2" data until the close; a
// leading "-" instead of "+" makes it an error.
type header struct {
	ok     bool
	length int64 // -1, -2 or a byte count
}

// parseHeader recognises a Gopher+ reply header; ok is false for anything
// else (a plain reply, an attribute block written without a header).
func parseHeader(line string) (h header, isHeader bool) {
	line = strings.TrimRight(line, "\r\n")
	if len(line) < 2 || (line[0] != '+' && line[0] != '-') {
		return header{}, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(line[1:]), 10, 64)
	if err != nil || n < -2 {
		return header{}, false
	}
	return header{ok: line[0] == '+', length: n}, true
}

// maxHeader bounds a Gopher+ header line: a sign, a number, CR LF.
const maxHeader = 24

// readHeader consumes the first line if it is a Gopher+ header and reports
// whether it was. Anything else stays unread, byte for byte: a server that
// ignores the Gopher+ string answers as plain Gopher, and its first line may
// be binary data of any length. Only as many bytes are peeked at as the
// header needs, so a short reply is never waited on.
func (c *conn) readHeader(ctx context.Context, req *schemes.Request) (header, bool, error) {
	for i := 1; i <= maxHeader; i++ {
		b, err := c.br.Peek(i)
		if len(b) < i {
			if err != nil && err != io.EOF {
				return header{}, false, c.classify(err, "read reply")
			}
			return header{}, false, nil // the reply ended: it is not framed
		}
		if i == 1 && b[0] != '+' && b[0] != '-' {
			return header{}, false, nil
		}
		if b[i-1] != '\n' {
			continue
		}
		line := strings.TrimRight(string(b), "\r\n")
		h, ok := parseHeader(line)
		if !ok {
			return header{}, false, nil
		}
		if c.tr != nil {
			fmt.Fprintf(c.tr, "< %s\n", line)
		}
		c.br.Discard(i)
		return h, true, nil
	}
	return header{}, false, nil
}

// framed returns the data a header announces.
func (c *conn) framed(h header) io.Reader {
	switch {
	case h.length == -1:
		return newDotReader(c.br, false)
	case h.length == -2:
		return c.br
	}
	return &exactReader{r: c.br, n: h.length}
}

// serverError turns a Gopher+ error reply into ErrRefused with the
// server's text: "code <admin>" and then the message lines (Gopher+ §2.3).
func (c *conn) serverError(ctx context.Context, h header) error {
	text, err := io.ReadAll(io.LimitReader(c.framed(h), maxErrorText))
	if err != nil && len(text) == 0 {
		return c.classify(err, "read error reply")
	}
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(string(text)), "\r\n", "\n"), "\n")
	code, first, _ := strings.Cut(strings.TrimSpace(lines[0]), " ")
	var msg []string
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			msg = append(msg, l)
		}
	}
	// Gopher+ §2.3 error code 1: the item is not available.
	kind := schemes.ErrRefused
	if code == "1" {
		kind = schemes.ErrNotFound
	}
	if len(msg) == 0 {
		return schemes.Errorf(kind, "gopher+ error %s: %s", lineproto.ServerText(code), lineproto.ServerText(first))
	}
	s := fmt.Sprintf("gopher+ error %s: %s", code, strings.Join(msg, " "))
	if first = strings.TrimSpace(first); first != "" {
		s += " (" + first + ")"
	}
	return schemes.Errorf(kind, "%s", lineproto.ServerText(s))
}

// readAttributes reads an attribute reply, framed or not; ok is false when
// the reply is not attributes at all (the server did not understand).
func (c *conn) readAttributes(ctx context.Context, req *schemes.Request, t *target) (*Attributes, bool, error) {
	h, isHeader, err := c.readHeader(ctx, req)
	if err != nil {
		return nil, false, err
	}
	var r io.Reader = c.br
	if isHeader {
		if !h.ok {
			return nil, false, c.serverError(ctx, h)
		}
		r = c.framed(h)
	} else if b, _ := c.br.Peek(1); len(b) == 0 || b[0] != '+' {
		return nil, false, nil
	}
	limit := int64(DefaultMaxAttributes)
	if req.MaxBytes > 0 && req.MaxBytes < limit {
		limit = req.MaxBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, c.classify(replyError(err), "read attributes")
	}
	if int64(len(data)) > limit {
		return nil, false, schemes.Errorf(schemes.ErrTooLarge, "attribute reply larger than %d bytes", limit)
	}
	attrs := ParseAttributes(string(data), t.host, t.port)
	if req.Capture != nil {
		rec := schemes.CaptureRecord{Type: "metadata", URI: itemURI(req, t), ContentType: "text/x-gopher-plus-attributes",
			Protocol: schemes.Protocols("gopher", c.rw)}
		for _, it := range attrs.Items {
			if it.Info != nil && it.Info.URL != "" {
				rec.Describes = append(rec.Describes, it.Info.URL)
			}
		}
		blk := req.Capture.Record(rec)
		blk.Write(data)
		blk.Commit()
	}
	return attrs, true, nil
}

// captureItem starts the record of an item or menu when the request has a
// capture, nil otherwise.
func captureItem(req *schemes.Request, c *conn, t *target, media string) schemes.CaptureBlock {
	if req.Capture == nil {
		return nil
	}
	if media == "" {
		media = "application/octet-stream"
	}
	return req.Capture.Record(schemes.CaptureRecord{Type: "resource", URI: itemURI(req, t), ContentType: media,
		Protocol: schemes.Protocols("gopher", c.rw)})
}

// itemURI is the URL an archive records an item under: the URL fetched,
// password-free (gopher has none) and with a type-7 search given apart
// from the URL (Request.Query, a prompt) written into it after %09, so that the
// record names the result it holds. A Gopher+ string stays when it asks
// for a view or the attributes.
func itemURI(req *schemes.Request, t *target) string {
	u := req.URL
	if t.hasSearch && u.Gopher != nil && !u.Gopher.HasSearch {
		c := *u
		g := *u.Gopher
		g.Search, g.HasSearch = t.search, true
		c.Gopher = &g
		u = &c
	}
	return u.Redacted()
}

// response reads a data reply: Gopher+ framed when plus (the Gopher+ string
// sent) is set and the server answers with a header, plain (RFC 1436)
// otherwise.
func (c *conn) response(ctx context.Context, req *schemes.Request, t *target, plus string) (*schemes.Response, error) {
	resp := &schemes.Response{URL: req.URL, Size: -1, Name: itemName(t.selector),
		Type: TypeWord(t.typ), MediaType: mediaType(t.typ)}
	var r io.Reader
	menu := isMenu(t.typ)
	h, isHeader := header{}, false
	if plus != "" {
		var err error
		if h, isHeader, err = c.readHeader(ctx, req); err != nil {
			return nil, err
		}
	}
	if isHeader {
		if !h.ok {
			return nil, c.serverError(ctx, h)
		}
		r = c.framed(h)
		if h.length >= 0 {
			resp.Size = h.length
		}
		if view := viewOf(plus); view != "" {
			resp.MediaType = view
			menu = menu && strings.Contains(view, "menu")
		}
	} else {
		// A plain server answers a missing item with an error line.
		if err := c.plainError(); err != nil {
			return nil, err
		}
		switch {
		case menu:
			r = newDotReader(c.br, true)
		case isText(t.typ):
			r = newTextReader(c.br)
		default:
			r = c.br
		}
	}
	if blk := captureItem(req, c, t, resp.MediaType); blk != nil {
		// The bytes recorded are those the server sent after any Gopher+
		// header line: below the dot reader of a plain reply, so that a
		// menu or text keeps its dot-stuffing and terminating line.
		if d, ok := r.(*dotReader); ok && !isHeader {
			text := d.text
			d = newDotReader(bufio.NewReader(io.TeeReader(c.br, blk)), true)
			d.text = text
			r = d
		} else {
			r = io.TeeReader(r, blk)
		}
		r = schemes.CommitAtEOF(r, blk)
	}
	if menu {
		resp.Kind = schemes.KindListing
		resp.Type = schemes.TypeDir
		m := newMenuListing(&errReader{r: r, c: c, what: "read menu"}, c, t.host, t.port, req)
		m.tls = t.tls
		resp.Listing = m
		return resp, nil
	}
	resp.Kind = schemes.KindFile
	resp.Body = &body{r: &errReader{r: r, c: c, what: "read item"}, c: c}
	return resp, nil
}

// plainError recognises the one-line menu a plain server sends instead of
// an item it does not have: type "3", or a line naming "error.host".
func (c *conn) plainError() error {
	b, _ := c.br.Peek(1)
	if len(b) == 0 || (b[0] != '3' && b[0] != '0') {
		return nil
	}
	b, _ = c.br.Peek(512)
	line, _, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return nil
	}
	f := strings.Split(strings.TrimRight(string(line), "\r"), "\t")
	if len(f) < 4 || (b[0] != '3' && f[2] != "error.host") {
		return nil
	}
	// An error item in place of the item or menu: the server has nothing
	// under that selector.
	return schemes.Errorf(schemes.ErrNotFound, "server error: %s", lineproto.ServerText(f[0][1:]))
}

// viewOf returns the view a data Gopher+ string asks for ("+text/plain En_US"
// gives "text/plain"), "" for the default view.
func viewOf(plus string) string {
	v, _, _ := strings.Cut(strings.TrimPrefix(plus, "+"), "\t")
	v, _, _ = strings.Cut(v, " ")
	return strings.TrimSpace(v)
}

// itemName is the last "/"-separated part of a selector, for Response.Name.
func itemName(sel string) string {
	if i := strings.LastIndexByte(sel, '/'); i >= 0 {
		return sel[i+1:]
	}
	return sel
}

// exactReader reads exactly n bytes ("+N"): fewer is an interrupted transfer.
type exactReader struct {
	r io.Reader
	n int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.n {
		p = p[:e.n]
	}
	n, err := e.r.Read(p)
	e.n -= int64(n)
	if err == io.EOF && e.n > 0 {
		err = errShort
	}
	return n, err
}

var errShort = errors.New("connection closed before the announced size")

// replyError gives protocol-level stream errors their kind.
func replyError(err error) error {
	if errors.Is(err, errShort) || errors.Is(err, errNoTerminator) {
		return schemes.Errorf(schemes.ErrInterrupted, "%v", err)
	}
	return err
}

// errReader gives every read error its kind.
type errReader struct {
	r    io.Reader
	c    *conn
	what string
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		err = e.c.classify(replyError(err), e.what)
	}
	return n, err
}

// body is a streamed item; closing it closes the connection.
type body struct {
	r io.Reader
	c *conn
}

func (b *body) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *body) Close() error { return b.c.Close() }
