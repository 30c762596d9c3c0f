package replay

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// Fetcher answers fetches from an Archive with what the servers answered
// when they were captured, in the Response a live fetch of the same URL
// gives: a Gopher menu or FTP listing as a listing (parsed by the scheme
// packages' own parsers), a Gopher text item with its framing undone, a
// Gopher+ attribute block as Info, an HTTP response's body with its
// Content-Type (a redirect as KindRedirect), a Gemini response's body
// with the media type of its status line, a news article as a file. It
// serves the gopher, gophers, ftp, ftps, http, https, gemini, news, nntp
// and nntps schemes; a URL of another scheme, or one the archive holds no
// capture of, is an error wrapping ErrNotCaptured. It opens no connection.
type Fetcher struct {
	a *Archive

	mu    sync.Mutex
	trees map[string]*ftpTree // by hostKey
}

// NewFetcher returns a Fetcher of a's captures.
func NewFetcher(a *Archive) *Fetcher {
	return &Fetcher{a: a, trees: map[string]*ftpTree{}}
}

// Schemes returns the URL schemes whose captures a Fetcher serves.
func (f *Fetcher) Schemes() []string {
	return []string{"gopher", "gophers", "ftp", "ftps", "http", "https", "gemini", "news", "nntp", "nntps"}
}

func notCaptured(u *schemes.URL) error {
	return fmt.Errorf("%s: %w", u.Redacted(), ErrNotCaptured)
}

// Fetch answers req from the archive.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	if err := ctx.Err(); err != nil {
		return nil, schemes.Errorf(schemes.ErrInterrupted, "%v", err)
	}
	u := req.URL
	switch u.Scheme {
	case "gopher", "gophers":
		return f.gopher(req)
	case "ftp", "ftps":
		return f.ftp(req)
	case "http", "https":
		return f.http(req)
	case "gemini":
		return f.gemini(req)
	case "news", "nntp", "nntps":
		return f.news(req)
	}
	return nil, notCaptured(u)
}

// CaptureTime returns when the capture a fetch of raw is answered with
// was made (a revisit's own date), false when the archive holds none.
func (f *Fetcher) CaptureTime(raw string) (time.Time, bool) {
	u, err := schemes.Parse(raw)
	if err != nil {
		return time.Time{}, false
	}
	uri := f.uri(u)
	if uri == "" {
		return time.Time{}, false
	}
	c := f.a.pick(uri, func(c *capture) bool { return c.entry.Type != "request" })
	if c == nil || c.date.IsZero() {
		return time.Time{}, false
	}
	return c.date, true
}

// Root returns the URL to start browsing the archive at: its first
// captured Gopher menu, FTP listing, Gemini page or HTTP page, else its
// first captured URI; "" when it holds none.
func (f *Fetcher) Root() string {
	for _, uri := range f.a.uris {
		if g := parseGopher(uri); g != nil && (g.typ == '1' || g.typ == '7' && g.hasSearch) && !g.hasPlus {
			return uri
		}
		c := f.a.pick(uri, func(c *capture) bool { return c.entry.Type != "request" })
		if c == nil {
			continue
		}
		switch m := c.entry.Mime; {
		case strings.HasPrefix(m, "text/x-ftp-list"), strings.HasPrefix(m, "text/x-ftp-mlsd"),
			strings.HasPrefix(m, "application/gemini"), strings.HasPrefix(m, "application/http"):
			return uri
		}
	}
	for _, uri := range f.a.uris {
		if _, err := schemes.Parse(uri); err == nil {
			return uri
		}
	}
	return ""
}

// uri returns the captured URI a fetch of u is answered from, "" when
// none: u as a capture names it (with its password masked), else, for a
// directory-like URL, the same with or without its final "/", else, for
// ftp, the same with or without a type code, else, for gopher, a capture
// of the same server and selector whatever its type.
func (f *Fetcher) uri(u *schemes.URL) string {
	key := u.Redacted()
	if _, ok := f.a.byURI[key]; ok {
		return key
	}
	switch u.Scheme {
	case "ftp", "ftps", "http", "https", "gemini":
		alt := key + "/"
		if strings.HasSuffix(key, "/") {
			alt = strings.TrimSuffix(key, "/")
		}
		if _, ok := f.a.byURI[alt]; ok {
			return alt
		}
		if u.Scheme == "ftp" || u.Scheme == "ftps" {
			// A file is captured under the URL that fetched it, with
			// the type code the transfer used (";type=i"): with or
			// without one, a URL names the same capture.
			plain, _, _ := strings.Cut(key, ";type=")
			for _, alt := range []string{plain, plain + ";type=i", plain + ";type=a"} {
				if _, ok := f.a.byURI[alt]; ok && alt != key {
					return alt
				}
			}
		}
	case "gopher", "gophers":
		want := parseGopher(key)
		if want == nil {
			return ""
		}
		// An item is captured as the request that fetched it: a
		// Gopher+ server's items with their "+" data request.
		wantAttrs := want.hasPlus && !strings.HasPrefix(want.plus, "+")
		best, rank := "", 1<<30
		for _, uri := range f.a.uris {
			g := parseGopher(uri)
			// "%09%09+" has an empty search before its Gopher+
			// string: an empty search is no search.
			if g == nil || g.host != want.host || g.selector != want.selector || g.search != want.search ||
				g.search == "" && g.hasSearch != want.hasSearch && !g.hasPlus && !want.hasPlus {
				continue
			}
			attrs := g.hasPlus && !strings.HasPrefix(g.plus, "+")
			if attrs != wantAttrs || attrs && g.plus != want.plus {
				continue
			}
			r := 4 * typeRank(g.typ)
			if g.typ == want.typ {
				r = 0
			}
			if g.hasPlus != want.hasPlus || g.plus != want.plus {
				r += 2
			}
			if r < rank {
				best, rank = uri, r
			}
		}
		return best
	}
	return ""
}

// lookup returns the payload of u's capture of one of types.
func (f *Fetcher) lookup(u *schemes.URL, raw bool, types ...string) (*Payload, error) {
	uri := f.uri(u)
	if uri == "" {
		return nil, notCaptured(u)
	}
	p, err := f.a.lookup(uri, raw, types)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	return p, nil
}

// gopher answers a gopher or gophers URL: a menu, an item, or a Gopher+
// attribute block.
func (f *Fetcher) gopher(req *schemes.Request) (*schemes.Response, error) {
	u := req.URL
	g := u.Gopher
	if g == nil {
		return nil, notCaptured(u)
	}
	if req.HasQuery && !g.HasSearch {
		// A search's words are in the URI of its capture.
		c, gg := *u, *g
		gg.Search, gg.HasSearch = req.Query, true
		c.Gopher = &gg
		u = &c
		g = &gg
	}
	if g.HasPlus && (strings.HasPrefix(g.PlusString, "!") || strings.HasPrefix(g.PlusString, "$")) {
		var text string
		if p, err := f.lookup(u, false, "metadata"); err == nil {
			b, err := io.ReadAll(io.LimitReader(p, 1<<20))
			p.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
			}
			text = string(b)
		} else if g.PlusString == "!" {
			// One item's block, as a captured "$" block of a menu
			// of the same server gives it.
			text = f.attributesFromMenus(u, g.Selector)
		}
		if text == "" {
			return nil, notCaptured(u)
		}
		return &schemes.Response{URL: u, Kind: schemes.KindInfo, Size: -1, Type: schemes.TypeInfo,
			Info: gopherArchived.Info(text, u)}, nil
	}
	p, err := f.lookup(u, false, "resource")
	if err != nil {
		return nil, err
	}
	resp := &schemes.Response{URL: u, Size: -1, Name: path.Base(g.Selector), Type: schemes.GopherTypeWord(g.Type),
		MediaType: p.ContentType}
	switch {
	case g.Type == '1' || g.Type == '7':
		resp.Kind, resp.Type = schemes.KindListing, schemes.TypeDir
		resp.Listing = &listingCloser{Listing: gopherArchived.Listing(p, p.ContentType, u, p.Date, req), c: p}
	case g.Type == '0':
		resp.Kind = schemes.KindFile
		resp.Body = readCloser{gopherArchived.Document(p, u), p}
	default:
		resp.Kind, resp.Size = schemes.KindFile, p.Size
		resp.Body = p
	}
	return resp, nil
}

// attributesFromMenus returns the attribute block of the item selector
// of u's server as a captured "$" block gives it, "" when none does.
func (f *Fetcher) attributesFromMenus(u *schemes.URL, selector string) string {
	host := hostKey(u.Host, u.EffectivePort())
	for _, uri := range f.a.uris {
		g := parseGopher(uri)
		if g == nil || g.host != host || !g.hasPlus || g.plus != "$" {
			continue
		}
		p, err := f.a.Lookup(uri, "metadata")
		if err != nil {
			continue
		}
		block := itemAttributes(p, selector, g.name, g.port)
		p.Close()
		if block != "" {
			return block
		}
	}
	return ""
}

// ftp answers an ftp or ftps URL: a captured listing, a directory made of
// the captured files under it, or a file.
func (f *Fetcher) ftp(req *schemes.Request) (*schemes.Response, error) {
	u := req.URL
	fu := parseFTP(u.Redacted())
	if fu == nil {
		return nil, notCaptured(u)
	}
	if !fu.dir {
		if p, err := f.lookup(u, false, "resource"); err == nil {
			if !isFTPListing(p.ContentType) {
				return &schemes.Response{URL: u, Kind: schemes.KindFile, Body: p, Size: p.Size,
					Name: path.Base(fu.path), Type: schemes.TypeFile}, nil
			}
			p.Close()
		}
	}
	// A directory: its own listing as captured, else what the capture
	// holds under it.
	dirURL := *u
	if !fu.dir && u.FTP != nil {
		fs := *u.FTP
		fs.Segments = append(append([]string(nil), fs.Segments...), "")
		dirURL.FTP = &fs
	}
	if p, err := f.lookup(&dirURL, false, "resource"); err == nil {
		if isFTPListing(p.ContentType) {
			// The captured reply, read as the FTP fetcher reads one.
			return &schemes.Response{URL: &dirURL, Kind: schemes.KindListing, Size: -1, Type: schemes.TypeDir,
				Listing: &listingCloser{Listing: ftpArchived.Listing(p, p.ContentType, &dirURL, p.Date, req), c: p}}, nil
		}
		p.Close()
	}
	t := f.tree(fu.host)
	dir := fu.path
	if t.dirs[dir] == nil {
		return nil, notCaptured(u)
	}
	var es []schemes.Entry
	for _, name := range t.children(dir) {
		fa, ok := t.stat(path.Join(dir, name))
		if !ok {
			continue
		}
		e := schemes.Entry{Name: name, Type: schemes.TypeFile, Size: fa.size, Modified: fa.mtime,
			Precision: schemes.PrecisionSecond}
		segs := append(append([]string(nil), ftpDirSegments(dirURL.FTP)...), name)
		if fa.dir {
			e.Type, e.Size = schemes.TypeDir, -1
			segs = append(segs, "")
		}
		if fa.mtime.IsZero() {
			e.Precision = ""
		}
		eu := dirURL
		eu.FTP = &schemes.FTP{Segments: segs}
		e.URL = eu.Redacted()
		es = append(es, e)
	}
	return &schemes.Response{URL: &dirURL, Kind: schemes.KindListing, Size: -1, Type: schemes.TypeDir,
		Listing: schemes.ListingOf(es, nil)}, nil
}

func ftpDirSegments(f *schemes.FTP) []string {
	if f == nil {
		return nil
	}
	s := f.Segments
	if n := len(s); n > 0 && s[n-1] == "" {
		s = s[:n-1]
	}
	return s
}

func isFTPListing(contentType string) bool {
	kind, ok := strings.CutPrefix(contentType, "text/x-ftp-")
	return ok && (kind == "list" || kind == "mlsd" || kind == "nlst")
}

// tree is the tree of one FTP server's captures, made once.
func (f *Fetcher) tree(host string) *ftpTree {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.trees[host]
	if t == nil {
		t = newFTPTree(f.a, host)
		f.trees[host] = t
	}
	return t
}

// http answers an http or https URL from its captured response record.
func (f *Fetcher) http(req *schemes.Request) (*schemes.Response, error) {
	u := req.URL
	p, err := f.lookup(u, true, "response")
	if err != nil {
		return nil, err
	}
	hr, err := http.ReadResponse(bufio.NewReader(p), nil)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("%s: captured response: %w", u.Redacted(), err)
	}
	status := hr.Status
	switch {
	case hr.StatusCode/100 == 3 && hr.Header.Get("Location") != "":
		hr.Body.Close()
		p.Close()
		return &schemes.Response{URL: u, Kind: schemes.KindRedirect, Size: -1,
			Location: hr.Header.Get("Location"), Status: status}, nil
	case hr.StatusCode/100 != 2:
		hr.Body.Close()
		p.Close()
		return nil, schemes.Errorf(schemes.ErrRefused, "http server (captured): %s", status)
	}
	var body io.Reader = hr.Body
	if strings.EqualFold(hr.Header.Get("Content-Encoding"), "gzip") {
		if zr, err := gzip.NewReader(hr.Body); err == nil {
			body = zr
		}
	}
	media := hr.Header.Get("Content-Type")
	return &schemes.Response{URL: u, Kind: schemes.KindFile, Size: -1, Name: u.LocalName(),
		Type: typeOfMedia(media), MediaType: media, Status: status,
		Body: readCloser{body, multiCloser{hr.Body, p}}}, nil
}

// gemini answers a gemini URL from its captured response record: status
// line, then the body of a success. An input request is answered with
// Request.Query, else Prompt, and the answer's capture is looked up.
func (f *Fetcher) gemini(req *schemes.Request) (*schemes.Response, error) {
	u := req.URL
	for range 2 {
		p, err := f.lookup(u, true, "response")
		if err != nil {
			return nil, err
		}
		br := bufio.NewReaderSize(p, 4096)
		line, err := br.ReadString('\n')
		if err != nil && line == "" {
			p.Close()
			return nil, fmt.Errorf("%s: captured response without a status line: %w", u.Redacted(), err)
		}
		line = strings.TrimRight(line, "\r\n")
		code, meta, _ := strings.Cut(line, " ")
		n, err := strconv.Atoi(code)
		if err != nil || len(code) != 2 {
			p.Close()
			return nil, schemes.Errorf(schemes.ErrRefused, "gemini server (captured) sent an unknown status %q", line)
		}
		switch n / 10 {
		case 2:
			media := meta
			if strings.TrimSpace(media) == "" {
				media = "text/gemini; charset=utf-8"
			}
			return &schemes.Response{URL: u, Kind: schemes.KindFile, Size: -1, Name: u.LocalName(),
				Type: typeOfMedia(media), MediaType: media, Status: line, Body: readCloser{br, p}}, nil
		case 3:
			p.Close()
			return &schemes.Response{URL: u, Kind: schemes.KindRedirect, Size: -1, Location: meta, Status: line}, nil
		case 1:
			p.Close()
			if u.HTTP != nil && u.HTTP.HasSearch {
				return nil, schemes.Errorf(schemes.ErrRefused, "gemini server (captured) asked for input again: %s", line)
			}
			answer, ok := req.Query, req.HasQuery
			if !ok && req.Prompt != nil {
				if answer, err = req.Prompt(meta+" ", n == 11); err != nil {
					return nil, err
				}
				ok = true
			}
			if !ok || u.HTTP == nil {
				return nil, schemes.Errorf(schemes.ErrUsage, "gemini server (captured) asks for input: %s", meta)
			}
			c, h := *u, *u.HTTP
			h.Search, h.HasSearch = strings.ReplaceAll(url.QueryEscape(answer), "+", "%20"), true
			c.HTTP = &h
			u = &c
			continue
		default:
			p.Close()
			return nil, schemes.Errorf(schemes.ErrRefused, "gemini server (captured): %s", line)
		}
	}
	return nil, notCaptured(u)
}

// news answers a news or nntp URL with its captured article.
func (f *Fetcher) news(req *schemes.Request) (*schemes.Response, error) {
	u := req.URL
	p, err := f.lookup(u, false, "resource")
	if err != nil {
		return nil, err
	}
	return &schemes.Response{URL: u, Kind: schemes.KindFile, Size: p.Size, Type: schemes.TypeText,
		MediaType: "message/rfc822", Body: p}, nil
}

// typeOfMedia is the entry type word of a MIME type.
func typeOfMedia(media string) string {
	t, _, _ := strings.Cut(media, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	switch {
	case t == "" || strings.HasPrefix(t, "text/"):
		return schemes.TypeText
	case strings.HasPrefix(t, "image/"):
		return schemes.TypeImage
	case strings.HasPrefix(t, "audio/"):
		return schemes.TypeAudio
	}
	return schemes.TypeBinary
}

type readCloser struct {
	io.Reader
	io.Closer
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for _, c := range m {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// listingCloser closes the payload a listing reads with the listing.
type listingCloser struct {
	schemes.Listing
	c io.Closer
}

func (l *listingCloser) Close() error {
	err := l.Listing.Close()
	if cerr := l.c.Close(); err == nil {
		err = cerr
	}
	return err
}

// The readers of captured FTP and Gopher replies: the schemes' own, as
// the fetch package wires them, so that replay reads a capture as the
// fetcher read the live reply.
var (
	ftpArchived    = fetch.ArchivedReader("ftp")
	gopherArchived = fetch.ArchivedReader("gopher")
)

// drain reads l to its end and closes it.
func drain(l schemes.Listing) ([]schemes.Entry, error) {
	defer l.Close()
	var es []schemes.Entry
	for {
		e, err := l.Next()
		if err == io.EOF {
			return es, nil
		}
		if err != nil {
			return es, err
		}
		es = append(es, e)
	}
}

// parseFTPListing reads a captured FTP listing of the media type
// mediaType, as the listing's time now dates its lines.
func parseFTPListing(r io.Reader, mediaType string, base *schemes.URL, now time.Time) ([]schemes.Entry, error) {
	return drain(ftpArchived.Listing(r, mediaType, base, now, &schemes.Request{}))
}
