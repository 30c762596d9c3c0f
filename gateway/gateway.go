package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/replay"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Config is what a gateway serves from.
type Config struct {
	// Client fetches every live URL; the guard it applies is the
	// gateway's too. Nil means no live fetches (every /live/ and /raw/
	// path is 403).
	Client *fetch.Client
	// AllowHosts, when not empty, is the only upstream hosts the gateway
	// fetches from: host globs ("*.example.org", "192.0.2.*", "[::1]"),
	// each with an optional ":PORT". Every other host is refused (403),
	// loopback and private addresses included.
	AllowHosts []string
	// Archive, when set, is what the time-travel paths (/web/, /timemap/)
	// answer from (replay.Open reads WARC files, segment prefixes and
	// merged indexes); nil means none.
	Archive *replay.Archive
	// MaxPerHost bounds the fetches of one upstream host and port at once
	// (0: DefaultMaxPerHost), or the server's own limit where the
	// client's fetcher learned a lower one (fetch.Client.ConnLimit); a
	// request past it waits for a turn.
	MaxPerHost int
	// MaxEntries bounds the entries a page renders (0:
	// DefaultMaxEntries); the page says where it stopped and links to the
	// raw listing.
	MaxEntries int
}

// Defaults of Config's zero values.
const (
	DefaultMaxEntries = 10000
	DefaultMaxPerHost = 8
)

// neverFetched are the schemes a browser is never given through the
// gateway: local files, interactive sessions, mail and names that resolve
// elsewhere.
var neverFetched = map[string]string{
	"file":     "local files are not served to browsers",
	"telnet":   "a telnet session needs a terminal",
	"rlogin":   "an rlogin session needs a terminal",
	"tn3270":   "a tn3270 session needs a terminal",
	"mailto":   "the gateway sends no mail",
	"prospero": "prospero names are resolved by gofer get, not for browsers",
}

// Gateway is an http.Handler that shows what URLs of the old protocols
// name to a web browser. Build it with New.
type Gateway struct {
	cfg Config
	// root, urls and origins are what the start page says of the
	// archive: where to start browsing it, how many URLs it captured, and
	// the URLs its captures started from.
	root    string
	urls    int
	origins []origin

	mu    sync.Mutex
	turns map[string]*turns // per upstream host:port
}

// turns are the fetches of one upstream host and port under way, and what
// wakes those waiting for one to end.
type turns struct {
	held  int
	freed chan struct{} // closed (and replaced) when a turn is given back
}

// New returns a gateway over cfg.
func New(cfg Config) *Gateway {
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	if cfg.MaxPerHost <= 0 {
		cfg.MaxPerHost = DefaultMaxPerHost
	}
	g := &Gateway{cfg: cfg, turns: map[string]*turns{}}
	if a := cfg.Archive; a != nil {
		g.urls = len(a.URIs(""))
		f := replay.NewFetcher(a)
		if root := f.Root(); root != "" {
			g.root = "/web/" + root
		}
		for _, o := range f.Origins() {
			last := o.Captures[len(o.Captures)-1]
			g.origins = append(g.origins, origin{URL: o.URI, Count: len(o.Captures),
				Href: "/web/" + last.UTC().Format(stamp) + "/" + o.URI, All: "/web/*/" + o.URI})
		}
	}
	return g
}

// ServeHTTP answers every request with the gateway's own headers: no
// cookies are ever set, and nothing the gateway serves may be framed.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		g.fail(w, http.StatusMethodNotAllowed, "only GET is served")
		return
	}
	// Routed by hand, not by http.ServeMux, which cleans paths: a target
	// URL's "//" and its escapes must reach the handler as they came.
	p := r.URL.EscapedPath()
	switch p {
	case "/":
		g.start(w, r)
		return
	case "/go":
		g.goTo(w, r)
		return
	}
	for _, rt := range []struct {
		prefix string
		serve  func(http.ResponseWriter, *http.Request)
	}{
		{"/live/", g.live}, {"/raw/", g.raw}, {"/search/", g.search}, {"/info/", g.info},
		{"/ask/", g.ask}, {"/web/", g.web}, {"/timemap/link/", g.timemap},
	} {
		if strings.HasPrefix(p, rt.prefix) {
			rt.serve(w, r)
			return
		}
	}
	g.fail(w, http.StatusNotFound, "the gateway has no page "+p)
}

// redirect answers 302 to a path of the gateway, as written: http.Redirect
// would clean it, and a target URL's "//" with it.
func redirect(w http.ResponseWriter, to string) {
	w.Header().Set("Location", to)
	w.WriteHeader(http.StatusFound)
}

// target is the URL a gateway path names after prefix: the rest of the
// request line as the browser sent it, query included, its percent-escapes
// kept as they are (read collapsed).
func target(r *http.Request, prefix string) string {
	raw, ok := strings.CutPrefix(r.RequestURI, prefix)
	if !ok {
		raw = strings.TrimPrefix(r.URL.EscapedPath(), prefix)
	}
	return collapsed(raw)
}

// collapsed reads a browser's collapsed "gopher:/host" as "gopher://host".
func collapsed(raw string) string {
	if scheme, rest, ok := strings.Cut(raw, ":/"); ok && !strings.HasPrefix(rest, "/") && !strings.ContainsAny(scheme, "/?#") {
		return scheme + "://" + rest
	}
	return raw
}

// check parses raw and applies the gateway's policy before anything is
// sent: the schemes never fetched for a browser, logins in URLs, the host
// allowlist. The guard's own port and injection policy comes with the
// fetch (fetch.Client.Do refuses before dialling).
func (g *Gateway) check(raw string) (*schemes.URL, int, error) {
	if g.cfg.Client == nil {
		return nil, http.StatusForbidden, errors.New("this gateway fetches nothing live")
	}
	if raw == "" {
		return nil, http.StatusBadRequest, errors.New("no URL given")
	}
	u, err := fetch.ParseURL(raw)
	if err != nil {
		return nil, status(err), err
	}
	if why, ok := neverFetched[u.Scheme]; ok {
		return nil, http.StatusForbidden, fmt.Errorf("%s: URLs are not fetched through the gateway: %s", u.Scheme, why)
	}
	if !fetchable[u.Scheme] {
		return nil, http.StatusBadRequest, fmt.Errorf("%s: is not a scheme the gateway fetches", u.Scheme)
	}
	if u.HasUser || u.HasPassword {
		return nil, http.StatusForbidden, errors.New("a URL with a login is not fetched through the gateway")
	}
	if len(g.cfg.AllowHosts) > 0 && !Allowed(g.cfg.AllowHosts, u.Host, u.EffectivePort()) {
		return nil, http.StatusForbidden, fmt.Errorf("host %s is not on this gateway's allowlist", net.JoinHostPort(u.Host, strconv.Itoa(u.EffectivePort())))
	}
	return u, 0, nil
}

// fetch checks raw and fetches it, with the request's context.
func (g *Gateway) fetch(r *http.Request, raw string, req fetch.Request) (*fetch.Response, *schemes.URL, int, error) {
	u, code, err := g.check(raw)
	if err != nil {
		return nil, nil, code, err
	}
	release, err := g.turn(r.Context(), u)
	if err != nil {
		return nil, u, http.StatusGatewayTimeout, err
	}
	req.URL, req.Parsed = u.String(), u
	resp, err := g.cfg.Client.Do(r.Context(), &req)
	if err != nil {
		release()
		return nil, u, status(err), err
	}
	// The turn is the response's until it is closed.
	resp.Body = &releasing{ReadCloser: resp.Body, release: release}
	return resp, u, 0, nil
}

// turn waits for one of the turns of u's host and port, and returns what
// gives it back; an error when the browser left first. A host has
// MaxPerHost turns, or fewer when the client's fetcher learned that the
// server allows fewer connections at once (an FTP server's refusal of
// one more: fetch.Client.ConnLimit), which is asked again at each wait.
func (g *Gateway) turn(ctx context.Context, u *schemes.URL) (func(), error) {
	key := net.JoinHostPort(strings.ToLower(u.Host), strconv.Itoa(u.EffectivePort()))
	for {
		limit := g.cfg.MaxPerHost
		if n := g.cfg.Client.ConnLimit(u.Scheme, u.Host, u.EffectivePort()); n > 0 && n < limit {
			limit = n
		}
		g.mu.Lock()
		t := g.turns[key]
		if t == nil {
			t = &turns{freed: make(chan struct{})}
			g.turns[key] = t
		}
		if t.held < limit {
			t.held++
			g.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					g.mu.Lock()
					t.held--
					close(t.freed)
					t.freed = make(chan struct{})
					if t.held == 0 && g.turns[key] == t {
						delete(g.turns, key) // none in flight: nothing to keep
					}
					g.mu.Unlock()
				})
			}, nil
		}
		freed := t.freed
		g.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return nil, fmt.Errorf("waited for one of the %d fetches of %s at once: %w", limit, key, ctx.Err())
		}
	}
}

// releasing gives a host's turn back when the body is closed.
type releasing struct {
	io.ReadCloser
	release func()
}

func (r *releasing) Close() error {
	defer r.release()
	return r.ReadCloser.Close()
}

// WriteTo keeps the body's own way of writing itself out (an FTP body's
// large buffer), which the wrapping would otherwise hide from io.Copy.
func (r *releasing) WriteTo(w io.Writer) (int64, error) {
	if wt, ok := r.ReadCloser.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{r.ReadCloser})
}

// status is the HTTP status that says what a fetch error was.
func status(err error) int {
	var in *schemes.InputError
	switch {
	case errors.As(err, &in):
		return http.StatusOK // a form, answered by the page
	case errors.Is(err, security.ErrPort), errors.Is(err, security.ErrInjection):
		return http.StatusForbidden
	case errors.Is(err, schemes.ErrUsage), errors.Is(err, schemes.ErrUnsupportedScheme):
		return http.StatusBadRequest
	case errors.Is(err, schemes.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, schemes.ErrNotFound), errors.Is(err, replay.ErrNotCaptured):
		return http.StatusNotFound
	}
	return http.StatusBadGateway
}

func (g *Gateway) start(w http.ResponseWriter, r *http.Request) {
	g.page(w, http.StatusOK, "start", "", startPage{Live: g.cfg.Client != nil, Archive: g.cfg.Archive != nil, Root: g.root, URLs: g.urls, Origins: g.origins})
}

// goTo is the start page's form: a redirect to the page of the URL typed.
func (g *Gateway) goTo(w http.ResponseWriter, r *http.Request) {
	u := strings.TrimSpace(r.URL.Query().Get("url"))
	if u == "" {
		redirect(w, "/")
		return
	}
	redirect(w, "/live/"+u)
}

// search is what a search form sends: a redirect to the live page of the
// URL with the words as its search part, as each protocol writes one.
func (g *Gateway) search(w http.ResponseWriter, r *http.Request) {
	// The request's query is the form's: the URL is the path alone.
	raw := collapsed(strings.TrimPrefix(r.URL.EscapedPath(), "/search/"))
	q := r.URL.Query().Get("q")
	u, code, err := g.check(raw)
	if err != nil {
		g.fail(w, code, err.Error())
		return
	}
	var to string
	switch u.Scheme {
	case "gopher", "gophers":
		to = raw + "%09" + schemes.Escape(q)
	default:
		base, _, _ := strings.Cut(raw, "?")
		to = base + "?" + schemes.Escape(q)
	}
	redirect(w, "/live/"+to)
}

// raw serves what the URL names as the protocol gave it: a file's bytes,
// a listing's or menu's own text.
func (g *Gateway) raw(w http.ResponseWriter, r *http.Request) {
	resp, _, code, err := g.fetch(r, target(r, "/raw/"), fetch.Request{})
	if err != nil {
		g.fail(w, code, err.Error())
		return
	}
	defer resp.Close()
	if resp.Kind == schemes.KindFile {
		g.file(w, resp)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pageCSP)
	w.WriteHeader(http.StatusOK)
	stream(w, resp.Body)
}

// stream copies a body to the browser. A body that fails part way (the
// server went silent past the idle timeout, or hung up) ends the response
// abruptly, so that the browser sees it cut short rather than whole.
func stream(w io.Writer, body io.Reader) {
	if _, err := io.Copy(w, body); err != nil {
		panic(http.ErrAbortHandler)
	}
}

// live shows what the URL names: a page of links rendered as a page of
// the gateway whose links stay in it, a file streamed as its bytes.
func (g *Gateway) live(w http.ResponseWriter, r *http.Request) {
	raw := target(r, "/live/")
	rng, ranged := byteRange(r.Header.Get("Range"))
	req := fetch.Request{}
	if ranged {
		req.Offset, req.Length = rng.start, rng.length()
	}
	resp, u, code, err := g.fetch(r, raw, req)
	var in *schemes.InputError
	if errors.As(err, &in) {
		g.page(w, http.StatusOK, "input", raw, inputPage{URL: raw, Prompt: in.Prompt, Sensitive: in.Sensitive})
		return
	}
	if err != nil {
		g.fail(w, code, err.Error())
		return
	}
	if ranged && resp.Kind == schemes.KindFile && resp.Size < 0 && rng.end < 0 && resp.Offset > 0 {
		// A range to the end of a file of no known size cannot be
		// written as a Content-Range: the whole file, then.
		resp.Close()
		if resp, u, code, err = g.fetch(r, raw, fetch.Request{}); err != nil {
			g.fail(w, code, err.Error())
			return
		}
		ranged = false
	}
	defer resp.Close()
	if ranged && resp.Kind == schemes.KindFile {
		g.partial(w, resp, rng)
		return
	}
	g.show(w, u, resp, live, &banner{Note: portNote(u)})
}

// portNote is the guard's warning of a port other than the scheme's
// default, for the page to show as gofer get shows it; "" for none.
func portNote(u *schemes.URL) string {
	def := schemes.DefaultPort(u.Scheme)
	if u.Port == 0 || def == 0 || u.Port == def {
		return ""
	}
	host := u.Host
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]" // an IPv6 address, written as its URL writes it
	}
	return fmt.Sprintf("%s names port %d, not %s's default %d: whatever answers there may not be a %s server.", host, u.Port, u.Scheme, def, u.Scheme)
}

// show answers with what resp holds: a page of links rendered with its
// links made by l and, for a capture, its banner; a file streamed; a
// redirect as the browser's to follow, to the gateway's page of the
// target, which is checked again as any other.
func (g *Gateway) show(w http.ResponseWriter, u *schemes.URL, resp *fetch.Response, l linker, b *banner) {
	switch {
	case resp.Kind == schemes.KindRedirect:
		to, err := url.Parse(resp.Location)
		base, berr := url.Parse(u.String())
		if err != nil || berr != nil {
			g.fail(w, http.StatusBadGateway, "the server redirects to "+resp.Location+", which does not read as a URL")
			return
		}
		redirect(w, string(l)+base.ResolveReference(to).String())
	case resp.Kind == schemes.KindListing:
		g.listing(w, u, resp, l, b)
	case resp.Kind == schemes.KindFile && resp.Page != nil && u.Scheme == "gemini":
		g.gemtext(w, u, resp, l, b)
	case resp.Kind == schemes.KindFile && l != live && isHTML(resp):
		g.capturedHTML(w, u, resp, l, b)
	case resp.Kind == schemes.KindFile:
		g.file(w, resp)
	case resp.Kind == schemes.KindInfo:
		w.Header().Set("Content-Security-Policy", pageCSP)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		stream(w, resp.Body)
	default:
		g.fail(w, http.StatusForbidden, fmt.Sprintf("a %s is not shown through the gateway", resp.Kind))
	}
}

// span is one byte range a browser asks for: from start, to end inclusive
// (-1: to the end of the file).
type span struct{ start, end int64 }

func (s span) length() int64 {
	if s.end < 0 {
		return 0
	}
	return s.end - s.start + 1
}

// byteRange reads a Range header of one range from a known start
// ("bytes=N-" or "bytes=N-M", RFC 9110 §14.1.2); any other form is
// answered with the whole file, as the RFC allows.
func byteRange(h string) (span, bool) {
	spec, ok := strings.CutPrefix(h, "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return span{}, false
	}
	from, to, ok := strings.Cut(spec, "-")
	start, err := strconv.ParseInt(strings.TrimSpace(from), 10, 64)
	if !ok || err != nil || start < 0 {
		return span{}, false
	}
	s := span{start: start, end: -1}
	if to = strings.TrimSpace(to); to != "" {
		end, err := strconv.ParseInt(to, 10, 64)
		if err != nil || end < start {
			return span{}, false
		}
		s.end = end
	}
	return s, true
}

// partial answers a range of a file: 206 with the bytes from where the
// server resumed (FTP REST, an HTTP range, a capture's offset), or the
// whole file with 200 where it could not.
func (g *Gateway) partial(w http.ResponseWriter, resp *fetch.Response, s span) {
	if resp.Offset != s.start || resp.Size < 0 && s.end < 0 {
		g.file(w, resp)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType(resp))
	h.Set("Content-Security-Policy", sandboxCSP)
	total := "*"
	if resp.Size >= 0 {
		total = strconv.FormatInt(resp.Size, 10)
		if s.start >= resp.Size {
			h.Set("Content-Range", "bytes */"+total)
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		if s.end < 0 || s.end >= resp.Size {
			s.end = resp.Size - 1
		}
	}
	h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%s", s.start, s.end, total))
	h.Set("Content-Length", strconv.FormatInt(s.length(), 10))
	w.WriteHeader(http.StatusPartialContent)
	stream(w, io.LimitReader(resp.Body, s.length()))
}

// file streams a file as its bytes, under a sandbox so that HTML from a
// server runs no script in the gateway's origin.
func (g *Gateway) file(w http.ResponseWriter, resp *fetch.Response) {
	h := w.Header()
	h.Set("Content-Type", contentType(resp))
	h.Set("Content-Security-Policy", sandboxCSP)
	h.Set("Accept-Ranges", "bytes")
	if resp.Size >= 0 && resp.Offset == 0 {
		h.Set("Content-Length", strconv.FormatInt(resp.Size, 10))
	}
	if resp.Name != "" && !isShown(contentType(resp)) {
		h.Set("Content-Disposition", "attachment; filename=\""+safeFilename(resp.Name)+"\"")
	}
	w.WriteHeader(http.StatusOK)
	stream(w, resp.Body)
}

// contentType is a file's media type: the protocol's, else one for its
// entry type or name. A news article is shown as the text it is.
func contentType(resp *fetch.Response) string {
	if strings.EqualFold(resp.MediaType, "message/rfc822") {
		return "text/plain; charset=utf-8"
	}
	if resp.MediaType != "" {
		return resp.MediaType
	}
	switch resp.Type {
	case schemes.TypeText:
		return "text/plain; charset=utf-8"
	case schemes.TypeHTML:
		return "text/html"
	}
	if t := schemes.NameMediaType(resp.Name); t != "" {
		return t
	}
	if resp.Type == schemes.TypeImage {
		return "image/gif" // Gopher's g items; I items name no format
	}
	return "application/octet-stream"
}

// isShown reports whether a browser shows a file of this type in place.
func isShown(mediaType string) bool {
	return strings.HasPrefix(mediaType, "text/") || strings.HasPrefix(mediaType, "image/")
}

// safeFilename keeps a Content-Disposition name to printable ASCII without
// quotes or backslashes.
func safeFilename(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, s)
}

// Content-Security-Policy of the gateway's own pages: nothing but their
// own inline style and same-origin images and forms; and of files from
// servers: a sandbox, so that no script of theirs runs as the gateway.
const (
	pageCSP    = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
	sandboxCSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'"
)
