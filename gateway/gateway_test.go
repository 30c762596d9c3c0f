package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// fake answers fetches from a table keyed by URL and records every URL it
// was asked for, so that a test can say nothing was fetched.
type fake struct {
	mu     sync.Mutex
	routes map[string]func(*schemes.Request) (*schemes.Response, error)
	asked  []string
	// limit is the connection limit the fake says it learned of every
	// server (schemes.ConnLimiter), 0 for none; limitAsked, when set,
	// hears each time it is asked.
	limit      int
	limitAsked chan struct{}
}

func (f *fake) ConnLimit(string, int) int {
	if f.limitAsked != nil {
		f.limitAsked <- struct{}{}
	}
	return f.limit
}

func (f *fake) SetConnLimit(_ string, _, n int) { f.limit = n }

func (f *fake) Fetch(_ context.Context, req *schemes.Request) (*schemes.Response, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req.URL.String())
	h := f.routes[req.URL.String()]
	f.mu.Unlock()
	if h == nil {
		return nil, schemes.Errorf(schemes.ErrRefused, "no route for %s", req.URL)
	}
	return h(req)
}

func (f *fake) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

type entries struct{ es []schemes.Entry }

func (l *entries) Next() (schemes.Entry, error) {
	if len(l.es) == 0 {
		return schemes.Entry{}, io.EOF
	}
	e := l.es[0]
	l.es = l.es[1:]
	return e, nil
}

func (l *entries) Close() error { return nil }

func listing(es ...schemes.Entry) func(*schemes.Request) (*schemes.Response, error) {
	return func(req *schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{URL: req.URL, Kind: schemes.KindListing, Size: -1, Listing: &entries{es},
			Body: io.NopCloser(strings.NewReader("the listing as the server sent it\n"))}, nil
	}
}

func file(mediaType, typ, name, body string) func(*schemes.Request) (*schemes.Response, error) {
	return func(req *schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Size: int64(len(body)), MediaType: mediaType,
			Type: typ, Name: name, Body: io.NopCloser(strings.NewReader(body))}, nil
	}
}

func failing(err error) func(*schemes.Request) (*schemes.Response, error) {
	return func(*schemes.Request) (*schemes.Response, error) { return nil, err }
}

// newGateway is a gateway over a client whose every scheme the tests use
// is the fake f.
func newGateway(t *testing.T, f *fake, cfg Config) *httptest.Server {
	t.Helper()
	var opts fetch.Options
	opts.SetFetcher(f, "gopher", "gophers", "ftp", "gemini", "nntp", "news", "http", "wais", "file", "telnet")
	cfg.Client = fetch.NewClient(opts)
	t.Cleanup(func() { cfg.Client.Close() })
	srv := httptest.NewServer(New(cfg))
	t.Cleanup(srv.Close)
	return srv
}

// get fetches path from the gateway without following redirects.
func get(t *testing.T, srv *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

var hostileMenu = []schemes.Entry{
	{Name: "<script>alert(1)</script>", Type: schemes.TypeText, URL: "gopher://h/0/%3Cscript%3E", Size: -1},
	{Name: `"><img src=x onerror=alert(2)>`, Type: schemes.TypeDir, URL: `gopher://h/1/%22%3E%3Cimg%20src=x%20onerror=alert(2)%3E`, Size: -1},
	{Name: "click me", Type: schemes.TypeHTML, URL: "javascript:alert(3)", Size: -1},
	{Name: "An info line <b>bold</b>", Type: schemes.TypeInfo, Size: -1},
	{Name: "Not found <i>x</i>", Type: schemes.TypeError, Size: -1},
	{Name: "Search <the> archive", Type: schemes.TypeSearch, URL: "gopher://h/7/search", Size: -1},
	{Name: "A BBS", Type: schemes.TypeTelnet, URL: "telnet://bbs.h/", Size: -1},
}

// The tags a page of the gateway may hold: anything else came from a
// server unescaped.
var tag = regexp.MustCompile(`<\s*([a-zA-Z0-9]+)`)

var ownTags = map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
	"header": true, "form": true, "input": true, "button": true, "main": true, "h1": true, "h2": true, "h3": true,
	"p": true, "a": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true,
	"pre": true, "span": true, "label": true, "ul": true, "li": true, "blockquote": true,
	"select": true, "option": true, "textarea": true, "br": true}

func checkOwnTags(t *testing.T, page string) {
	t.Helper()
	for _, m := range tag.FindAllStringSubmatch(page, -1) {
		if !ownTags[strings.ToLower(m[1])] {
			t.Errorf("the page holds a <%s> tag: remote text unescaped?", m[1])
		}
	}
	if strings.Contains(page, "onerror") && !strings.Contains(page, "onerror=alert(2)&gt;") {
		t.Error("an onerror attribute stands unescaped")
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "/") {
			t.Errorf("a link leaves the gateway: %q", m[1])
		}
	}
}

func TestMenuEscapesEverything(t *testing.T) {
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"gopher://h/1/menu": listing(hostileMenu...),
	}}
	srv := newGateway(t, f, Config{})
	resp, page := get(t, srv, "/live/gopher://h/1/menu")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, page)
	}
	checkOwnTags(t, page)
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Errorf("page CSP %q", csp)
	}
	if resp.Header.Get("Set-Cookie") != "" {
		t.Error("a cookie was set")
	}
	for _, want := range []string{
		`&lt;script&gt;alert(1)&lt;/script&gt;`,
		`<a href="/live/gopher://h/0/%3Cscript%3E">`,
		`An info line &lt;b&gt;bold&lt;/b&gt;`,
		`<span class="error">Not found &lt;i&gt;x&lt;/i&gt;</span>`,
		`<form action="/search/gopher://h/7/search" method="get">`,
		`A BBS <span class="url">telnet://bbs.h/</span>`,
		`click me <span class="url">javascript:alert(3)</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, `href="javascript`) || strings.Contains(page, `href="/live/javascript`) || strings.Contains(page, `href="/live/telnet`) {
		t.Error("a javascript: or telnet: item is a link")
	}
}

func TestFTPListingTable(t *testing.T) {
	day := time.Date(1994, 12, 20, 0, 0, 0, 0, time.UTC)
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"ftp://h/pub/": listing(
			schemes.Entry{Name: "README", Type: schemes.TypeFile, URL: "ftp://h/pub/README", Size: 1234, Modified: day, Precision: schemes.PrecisionDay},
			schemes.Entry{Name: "sub", Type: schemes.TypeDir, URL: "ftp://h/pub/sub/", Size: 4096, Modified: day.Add(12*time.Hour + 34*time.Minute), Precision: schemes.PrecisionMinute},
			schemes.Entry{Name: "latest", Type: schemes.TypeLink, URL: "ftp://h/pub/latest", Target: "sub/v2", Size: -1},
			schemes.Entry{Name: "total 12 <odd>", Type: schemes.TypeUnparsed, Size: -1},
		),
	}}
	srv := newGateway(t, f, Config{})
	_, page := get(t, srv, "/live/ftp://h/pub/")
	checkOwnTags(t, page)
	if strings.Contains(page, "The page stops here") {
		t.Error("a whole listing says it was cut")
	}
	for _, want := range []string{
		`<a href="/live/ftp://h/pub/README">README</a>`, `<td class="n">1234</td><td class="n">1994-12-20</td>`,
		`<a href="/live/ftp://h/pub/sub/">sub</a>`, `<td class="n"></td><td class="n">1994-12-20 12:34</td>`,
		`latest</a> -&gt; sub/v2`, `<pre>total 12 &lt;odd&gt;</pre>`, `<th>size</th>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

func TestGemtextRendered(t *testing.T) {
	page := "# Title <x>\n=> sub/ Sub page\n=> javascript:alert(1) bad\n=> data:text/html,<script>alert(2)</script> worse\n* item\n> quote\n```art\n  <pre> kept\n\tline two\n```\ntext\n=> http://h/p.html web\n"
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"gemini://h/": file("text/gemini", "", "", page),
	}}
	srv := newGateway(t, f, Config{})
	_, body := get(t, srv, "/live/gemini://h/")
	checkOwnTags(t, body)
	for _, want := range []string{
		`<h1>Title &lt;x&gt;</h1>`, `<a href="/live/gemini://h/sub/">Sub page</a>`,
		`bad <span class="url">javascript:alert(1)</span>`, `<li>item</li>`, `<blockquote>quote</blockquote>`,
		"<pre aria-label=\"art\">  &lt;pre&gt; kept\n\tline two\n</pre>", `<p>text</p>`, `<a href="/live/http://h/p.html">web</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(body, `href="/live/data:`) || strings.Contains(body, `href="/live/javascript:`) {
		t.Error("a data: or javascript: link leads somewhere")
	}
}

func TestRefusedBeforeAnythingIsSent(t *testing.T) {
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){}}
	srv := newGateway(t, f, Config{AllowHosts: []string{"allowed.example", "*.ok.example:70"}})
	for _, c := range []struct {
		path string
		code int
		says string
	}{
		{"/live/file:///etc/passwd", 403, "local files"},
		{"/live/telnet://allowed.example/", 403, "terminal"},
		{"/raw/file:///etc/passwd", 403, "local files"},
		{"/live/gopher://user:secret@allowed.example/1/", 403, "login"},
		{"/live/gopher://allowed.example:21/1/", 403, "port"},
		{"/live/gopher://allowed.example/0/a%0D%0AQUIT", 403, "CR"},
		{"/live/gopher://other.example/1/", 403, "allowlist"},
		{"/live/gopher://x.ok.example:71/1/", 403, "allowlist"},
		{"/live/gopher://127.0.0.1/1/", 403, "allowlist"},
		{"/live/gopher://[bad/", 400, "malformed"},
		{"/live/x-unknown://h/", 400, "scheme"},
		{"/live/", 400, "no URL"},
	} {
		resp, page := get(t, srv, c.path)
		if resp.StatusCode != c.code || !strings.Contains(strings.ToLower(page), strings.ToLower(c.says)) {
			t.Errorf("%s: status %d, want %d saying %q:\n%s", c.path, resp.StatusCode, c.code, c.says, page)
		}
	}
	if calls := f.calls(); len(calls) != 0 {
		t.Errorf("refused URLs reached the fetcher: %q", calls)
	}
	// A host on the list is fetched.
	get(t, srv, "/live/gopher://x.ok.example/1/")
	if calls := f.calls(); len(calls) != 1 {
		t.Errorf("an allowed host was not fetched: %q", calls)
	}
}

func TestUpstreamFailures(t *testing.T) {
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"gopher://h/1/slow":   failing(schemes.Errorf(schemes.ErrTimeout, "no answer in 60s")),
		"gopher://h/1/no":     failing(schemes.Errorf(schemes.ErrRefused, "the server says: <b>no</b>")),
		"gopher://h/1/closed": failing(schemes.Errorf(schemes.ErrConnect, "connection refused")),
		"gopher://h/1/gone":   failing(schemes.Errorf(schemes.ErrNotFound, "server error: no such selector")),
		"gemini://h/ask":      failing(&schemes.InputError{Protocol: "gemini", Prompt: "Password <p>", Sensitive: true}),
	}}
	srv := newGateway(t, f, Config{})
	for path, code := range map[string]int{"/live/gopher://h/1/slow": 504, "/live/gopher://h/1/no": 502, "/live/gopher://h/1/closed": 502, "/live/gopher://h/1/gone": 404} {
		if resp, page := get(t, srv, path); resp.StatusCode != code {
			t.Errorf("%s: status %d, want %d: %s", path, resp.StatusCode, code, page)
		} else {
			checkOwnTags(t, page)
		}
	}
	resp, page := get(t, srv, "/live/gemini://h/ask")
	if resp.StatusCode != 200 || !strings.Contains(page, `type="password"`) || !strings.Contains(page, "Password &lt;p&gt;") ||
		!strings.Contains(page, `action="/search/gemini://h/ask"`) {
		t.Errorf("input page: %d\n%s", resp.StatusCode, page)
	}
}

func TestFilesStreamed(t *testing.T) {
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"gopher://h/0/notes.txt":  file("", schemes.TypeText, "notes.txt", "plain <text>\n"),
		"gopher://h/h/page.html":  file("", schemes.TypeHTML, "page.html", "<script>alert(document.domain)</script>"),
		"gopher://h/9/tool.bin":   file("", schemes.TypeBinary, "tool \"x\".bin", "\x00\x01\x02"),
		"gopher://h/1/menu?x%20y": listing(schemes.Entry{Name: "m", Type: schemes.TypeText, URL: "gopher://h/0/m", Size: -1}),
	}}
	srv := newGateway(t, f, Config{})
	resp, body := get(t, srv, "/live/gopher://h/0/notes.txt")
	if body != "plain <text>\n" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || resp.Header.Get("Content-Length") != "13" {
		t.Errorf("text file: %q %v", body, resp.Header)
	}
	resp, body = get(t, srv, "/live/gopher://h/h/page.html")
	if !strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "sandbox") || body != "<script>alert(document.domain)</script>" {
		t.Errorf("HTML from a server not sandboxed: %v %q", resp.Header, body)
	}
	resp, body = get(t, srv, "/live/gopher://h/9/tool.bin")
	if body != "\x00\x01\x02" || resp.Header.Get("Content-Type") != "application/octet-stream" ||
		resp.Header.Get("Content-Disposition") != `attachment; filename="tool _x_.bin"` {
		t.Errorf("binary file: %q %v", body, resp.Header)
	}
	// The raw listing, and a query kept as typed.
	resp, body = get(t, srv, "/raw/gopher://h/1/menu?x%20y")
	if resp.StatusCode != 200 || body != "the listing as the server sent it\n" {
		t.Errorf("raw listing: %d %q (asked %q)", resp.StatusCode, body, f.calls())
	}
}

// Escapes in the target are read once: %2541 is "%41" in the selector.
func TestTargetEscapesReadOnce(t *testing.T) {
	var got string
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){}}
	f.routes["gopher://h/0/x%2541%20y"] = func(req *schemes.Request) (*schemes.Response, error) {
		got = req.URL.Gopher.Selector
		return file("text/plain", "", "", "ok")(req)
	}
	srv := newGateway(t, f, Config{})
	if resp, body := get(t, srv, "/live/gopher://h/0/x%2541%20y"); resp.StatusCode != 200 || got != "/x%41 y" {
		t.Errorf("status %d %q: selector %q, want %q (asked %q)", resp.StatusCode, body, got, "/x%41 y", f.calls())
	}
	// A browser's collapsed double slash.
	if resp, _ := get(t, srv, "/live/gopher:/h/0/x%2541%20y"); resp.StatusCode != 200 {
		t.Errorf("collapsed gopher:/h: status %d", resp.StatusCode)
	}
}

func TestSearchRedirects(t *testing.T) {
	srv := newGateway(t, &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){}}, Config{})
	for path, want := range map[string]string{
		"/search/gopher://h/7/find?q=old+news": "/live/gopher://h/7/find%09old%20news",
		"/search/wais://h/db?q=x":              "/live/wais://h/db?x",
		"/search/gemini://h/ask?q=a%26b":       "/live/gemini://h/ask?a%26b",
		"/go?url=gopher%3A%2F%2Fh%2F1%2F":      "/live/gopher://h/1/",
		"/search/file:///etc/passwd?q=x":       "",
		"/search/gopher://h:21/7/find?q=x%0Dy": "/live/gopher://h:21/7/find%09x%0Dy",
	} {
		resp, page := get(t, srv, path)
		if want == "" {
			if resp.StatusCode != 403 {
				t.Errorf("%s: status %d, want 403: %s", path, resp.StatusCode, page)
			}
			continue
		}
		if resp.StatusCode != 302 || resp.Header.Get("Location") != want {
			t.Errorf("%s: %d to %q, want 302 to %q", path, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
	// Where a search leads, the guard refuses what it would refuse: the
	// port of another protocol, a CR in the search.
	if resp, page := get(t, srv, "/live/gopher://h:21/7/find%09x%0Dy"); resp.StatusCode != 403 {
		t.Errorf("search to a refused URL: %d %s", resp.StatusCode, page)
	}
}

func TestEntriesCut(t *testing.T) {
	var es []schemes.Entry
	for range 30 {
		es = append(es, schemes.Entry{Name: "e", Type: schemes.TypeText, URL: "gopher://h/0/e", Size: -1})
	}
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){"gopher://h/1/": listing(es...)}}
	srv := newGateway(t, f, Config{MaxEntries: 10})
	_, page := get(t, srv, "/live/gopher://h/1/")
	if n := strings.Count(page, `<a href="/live/gopher://h/0/e">`); n != 10 {
		t.Errorf("%d entries shown, want 10", n)
	}
	if !strings.Contains(page, `<a href="/raw/gopher://h/1/">The whole of it`) {
		t.Error("no notice with the raw link")
	}
}

func TestAllowed(t *testing.T) {
	pats := []string{"*.example.org", "192.0.2.*:70", "[::1]", "[2001:db8::1]:21"}
	for _, c := range []struct {
		host string
		port int
		ok   bool
	}{
		{"a.example.org", 21, true}, {"A.EXAMPLE.ORG", 70, true}, {"example.org", 21, false},
		{"192.0.2.9", 70, true}, {"192.0.2.9", 21, false}, {"::1", 119, true}, {"[::1]", 70, true},
		{"2001:db8::1", 21, true}, {"2001:db8::1", 22, false}, {"127.0.0.1", 70, false},
	} {
		if got := Allowed(pats, c.host, c.port); got != c.ok {
			t.Errorf("Allowed(%s, %d) = %v, want %v", c.host, c.port, got, c.ok)
		}
	}
	for _, bad := range []string{"", ":70", "[::1", "h:99999", "[x]y", "h:port"} {
		if CheckAllowPattern(bad) == nil {
			t.Errorf("CheckAllowPattern(%q) = nil", bad)
		}
	}
	if err := CheckAllowPattern("*.example.org:70"); err != nil {
		t.Error(err)
	}
	if Allowed([]string{"h:99999"}, "h", 99999) {
		t.Error("a pattern that does not read matched")
	}
}

// A redirect is the browser's to follow, to the gateway's page of the
// target, which is checked again: the client follows none itself.
func TestRedirectThroughTheGateway(t *testing.T) {
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"gemini://h/old": func(req *schemes.Request) (*schemes.Response, error) {
			return &schemes.Response{URL: req.URL, Kind: schemes.KindRedirect, Location: "new/place", Status: "31"}, nil
		},
		"gemini://h/away": func(req *schemes.Request) (*schemes.Response, error) {
			return &schemes.Response{URL: req.URL, Kind: schemes.KindRedirect, Location: "file:///etc/passwd", Status: "30"}, nil
		},
	}}
	var opts fetch.Options
	opts.SetFetcher(f, "gemini")
	opts.MaxRedirects = -1
	client := fetch.NewClient(opts)
	defer client.Close()
	srv := httptest.NewServer(New(Config{Client: client}))
	defer srv.Close()
	resp, _ := get(t, srv, "/live/gemini://h/old")
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "/live/gemini://h/new/place" {
		t.Errorf("redirect: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = get(t, srv, "/live/gemini://h/away")
	if loc := resp.Header.Get("Location"); resp.StatusCode != 302 || loc != "/live/file:///etc/passwd" {
		t.Fatalf("redirect away: %d to %q", resp.StatusCode, loc)
	}
	if resp, _ := get(t, srv, resp.Header.Get("Location")); resp.StatusCode != 403 {
		t.Errorf("the redirect's target was not checked again: %d", resp.StatusCode)
	}
}

// Ranges are answered with 206 through the server's own resume (FTP REST,
// an HTTP range), so that a browser can seek or go on with a download; a
// server that cannot resume gives the whole file with 200.
func TestRanges(t *testing.T) {
	const content = "0123456789abcdefghij"
	resumes := func(req *schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Size: int64(len(content)), Offset: req.Offset,
			Type: schemes.TypeBinary, Name: "f.bin", Body: io.NopCloser(strings.NewReader(content[req.Offset:]))}, nil
	}
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"ftp://h/f.bin":  resumes,
		"gopher://h/9/f": file("", schemes.TypeBinary, "f", content), // no resume: always from 0
	}}
	srv := newGateway(t, f, Config{})
	ranged := func(path, rng string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Range", rng)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, c := range []struct {
		path, rng string
		code      int
		body, cr  string
	}{
		{"/live/ftp://h/f.bin", "bytes=5-9", 206, "56789", "bytes 5-9/20"},
		{"/live/ftp://h/f.bin", "bytes=15-", 206, "fghij", "bytes 15-19/20"},
		{"/live/ftp://h/f.bin", "bytes=15-99", 206, "fghij", "bytes 15-19/20"},
		{"/live/ftp://h/f.bin", "bytes=0-3", 206, "0123", "bytes 0-3/20"},
		{"/live/ftp://h/f.bin", "bytes=-5", 200, content, ""},
		{"/live/ftp://h/f.bin", "bytes=1-2,5-6", 200, content, ""},
		{"/live/gopher://h/9/f", "bytes=5-9", 200, content, ""},
	} {
		resp, body := ranged(c.path, c.rng)
		if resp.StatusCode != c.code || body != c.body || resp.Header.Get("Content-Range") != c.cr {
			t.Errorf("%s %s: %d %q (Content-Range %q), want %d %q (%q)", c.path, c.rng, resp.StatusCode, body,
				resp.Header.Get("Content-Range"), c.code, c.body, c.cr)
		}
	}
	if resp, _ := ranged("/live/ftp://h/f.bin", "bytes=20-"); resp.StatusCode != http.StatusRequestedRangeNotSatisfiable ||
		resp.Header.Get("Content-Range") != "bytes */20" {
		t.Errorf("past the end: %d %v", resp.StatusCode, resp.Header)
	}
}

// failingBody gives its text, then an error, as a server that went silent
// past the idle timeout does.
type failingBody struct{ r io.Reader }

func (b *failingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, schemes.Errorf(schemes.ErrTimeout, "no progress in 2s")
	}
	return n, err
}

func (b *failingBody) Close() error { return nil }

// A file that fails part way is cut short for the browser too: it never
// looks whole.
func TestFileCutShort(t *testing.T) {
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"gopher://h/9/f": func(req *schemes.Request) (*schemes.Response, error) {
			return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Size: -1, Type: schemes.TypeBinary,
				Body: &failingBody{strings.NewReader(strings.Repeat("x", 100000))}}, nil
		},
	}}
	srv := newGateway(t, f, Config{})
	resp, err := http.Get(srv.URL + "/live/gopher://h/9/f")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("a file cut short upstream read whole")
	}
}

// A port other than the scheme's default is fetched, with the guard's
// warning on the page.
func TestPortWarnedOnThePage(t *testing.T) {
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"gopher://h:7070/1/menu": listing(schemes.Entry{Name: "x", Type: schemes.TypeText, URL: "gopher://h:7070/0/x", Size: -1}),
		"gopher://h/1/menu":      listing(schemes.Entry{Name: "x", Type: schemes.TypeText, URL: "gopher://h/0/x", Size: -1}),
	}}
	srv := newGateway(t, f, Config{})
	if _, page := get(t, srv, "/live/gopher://h:7070/1/menu"); !strings.Contains(page, "h names port 7070, not gopher&#39;s default 70") {
		t.Errorf("no port warning:\n%s", page)
	}
	if _, page := get(t, srv, "/live/gopher://h/1/menu"); strings.Contains(page, "names port") {
		t.Errorf("a warning for the default port:\n%s", page)
	}
}

// gatedBody blocks its reader until gate closes, and counts itself out of
// flight when closed.
type gatedBody struct {
	gate     chan struct{}
	inFlight *atomic.Int32
	done     bool
}

func (b *gatedBody) Read(p []byte) (int, error) {
	<-b.gate
	if b.done {
		return 0, io.EOF
	}
	b.done = true
	return copy(p, "ok"), nil
}

func (b *gatedBody) Close() error { b.inFlight.Add(-1); return nil }

// No more than MaxPerHost fetches of one host at once: the others wait
// for a turn, and every one is answered in the end.
func TestMaxPerHost(t *testing.T) {
	gate := make(chan struct{})
	var inFlight, peak atomic.Int32
	started := make(chan struct{}, 10)
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){}}
	f.routes["gopher://h/0/slow"] = func(req *schemes.Request) (*schemes.Response, error) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		started <- struct{}{}
		return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Size: -1, Type: schemes.TypeText,
			Body: &gatedBody{gate: gate, inFlight: &inFlight}}, nil
	}
	srv := newGateway(t, f, Config{MaxPerHost: 2})
	var wg sync.WaitGroup
	bodies := make(chan string, 5)
	for range 5 {
		wg.Go(func() {
			resp, err := http.Get(srv.URL + "/live/gopher://h/0/slow")
			if err != nil {
				bodies <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			bodies <- string(b)
		})
	}
	// Two fetches start; the rest wait for a turn while those are held.
	<-started
	<-started
	select {
	case <-started:
		t.Error("a third fetch of the host started while two were in flight")
	case <-time.After(200 * time.Millisecond):
	}
	close(gate)
	wg.Wait()
	close(bodies)
	for b := range bodies {
		if b != "ok" {
			t.Errorf("a response: %q", b)
		}
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("peak fetches of the host at once: %d, want 2", p)
	}
}

// A server's connection limit the fetcher learned, below MaxPerHost, is
// the host's number of turns: of five browsers, two fetch at once while
// the other three wait, and every one is answered in the end.
func TestLearnedConnLimit(t *testing.T) {
	gate := make(chan struct{})
	var inFlight, peak atomic.Int32
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){}, limit: 2, limitAsked: make(chan struct{}, 100)}
	f.routes["ftp://h/slow"] = func(req *schemes.Request) (*schemes.Response, error) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Size: -1, Type: schemes.TypeText,
			Body: &gatedBody{gate: gate, inFlight: &inFlight}}, nil
	}
	srv := newGateway(t, f, Config{MaxPerHost: 8})
	var wg sync.WaitGroup
	bodies := make(chan string, 5)
	for range 5 {
		wg.Go(func() {
			resp, err := http.Get(srv.URL + "/live/ftp://h/slow")
			if err != nil {
				bodies <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			bodies <- string(b)
		})
	}
	// Every browser has asked for a turn before any body is let go: two
	// hold one, three wait.
	for range 5 {
		select {
		case <-f.limitAsked:
		case <-time.After(10 * time.Second):
			t.Fatal("the gateway never asked the fetcher for the server's limit")
		}
	}
	close(gate)
	wg.Wait()
	close(bodies)
	for b := range bodies {
		if b != "ok" {
			t.Errorf("a response: %q", b)
		}
	}
	if p := peak.Load(); p != 2 {
		t.Errorf("peak fetches of the host at once: %d, want the learned limit 2", p)
	}
}

// article is an entry of a group's overview.
func article(n int64, subject, from, id, refs string) schemes.Entry {
	return schemes.Entry{Name: subject, Type: schemes.TypeArticle, URL: "news:" + id, Size: -1,
		News: &schemes.NewsItem{Number: n, Subject: subject, From: from, Date: "Tue, 20 Dec 1994 12:0" + string(rune('0'+n)) + ":00 +0000",
			MessageID: id, References: refs, URL: "nntp://h/g/" + string(rune('0'+n))}}
}

// A group is shown as its articles threaded by References, nested lists
// of subject, sender and date: a follow-up under the last article of its
// References the group holds, one whose References the group does not
// hold starting a thread of its own.
func TestNewsThreaded(t *testing.T) {
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"nntp://h/g": listing(
			article(1, "Root", "Ann <ann@x>", "a@x", ""),
			article(2, "Re: Root", "Bob <bob@x>", "b@x", "<a@x>"),
			article(3, "Other", "Cy <cy@x>", "c@x", "<gone@x>"),
			article(4, "Re: Re: Root", "Ann <ann@x>", "d@x", "<a@x> <b@x>"),
			article(5, "Re: Root again", "Dee <dee@x>", "e@x", "<a@x>\t<gone@x>"),
			article(6, "<script>alert(1)</script>", "<b>evil</b>", "f@x", "<c@x>"),
		),
	}}
	srv := newGateway(t, f, Config{})
	resp, page := get(t, srv, "/live/nntp://h/g")
	if resp.StatusCode != 200 {
		t.Fatalf("%d\n%s", resp.StatusCode, page)
	}
	checkOwnTags(t, page)
	var outline []string
	for _, m := range regexp.MustCompile(`<ul>|</ul>|<a href="/live/nntp://h/g/[0-9]">([^<]*)</a>`).FindAllStringSubmatch(page, -1) {
		if m[1] != "" {
			outline = append(outline, m[1])
		} else {
			outline = append(outline, m[0])
		}
	}
	want := "<ul> Root <ul> Re: Root <ul> Re: Re: Root </ul> Re: Root again </ul> Other <ul> &lt;script&gt;alert(1)&lt;/script&gt; </ul> </ul>"
	if got := strings.Join(outline, " "); got != want {
		t.Errorf("threads:\n got %s\nwant %s\n%s", got, want, page)
	}
	for _, s := range []string{`<span class="type">Bob &lt;bob@x&gt;</span> <span class="type">Tue, 20 Dec 1994 12:02:00 &#43;0000</span>`, "&lt;b&gt;evil&lt;/b&gt;"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %s:\n%s", s, page)
		}
	}
}
