package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// fakeFetcher answers from a table keyed by the URL without its login and
// records every URL it was asked for, login included.
type fakeFetcher struct {
	mu     sync.Mutex
	routes map[string]func(req *schemes.Request) (*schemes.Response, error)
	seen   []*schemes.URL
	closed int
}

func newFake() *fakeFetcher {
	return &fakeFetcher{routes: map[string]func(*schemes.Request) (*schemes.Response, error){}}
}

func (f *fakeFetcher) redirect(from, to string) {
	f.routes[from] = func(*schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{Kind: schemes.KindRedirect, Location: to, Status: "302 Found"}, nil
	}
}

func (f *fakeFetcher) body(at, text string) {
	f.routes[at] = func(*schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{Kind: schemes.KindFile, Body: io.NopCloser(strings.NewReader(text)), Size: -1}, nil
	}
}

func (f *fakeFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	f.mu.Lock()
	f.seen = append(f.seen, req.URL)
	f.mu.Unlock()
	v := *req.URL
	v.User, v.Password, v.HasUser, v.HasPassword = "", "", false, false
	h, ok := f.routes[v.String()]
	if !ok {
		return nil, schemes.Errorf(schemes.ErrRefused, "not found: %s", v.String())
	}
	return h(req)
}

func (f *fakeFetcher) Close() error { f.closed++; return nil }

func (f *fakeFetcher) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var s []string
	for _, u := range f.seen {
		s = append(s, u.String())
	}
	return s
}

// testClient is a Client with only fake http, https and ftp fetchers.
func testClient(opts Options) (*Client, *fakeFetcher) {
	c := newClient(opts)
	f := newFake()
	c.Register("http", f)
	c.Register("https", f)
	c.Register("ftp", f)
	return c, f
}

func readAll(t *testing.T, resp *Response) string {
	t.Helper()
	defer resp.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

func TestRedirectFollowed(t *testing.T) {
	c, f := testClient(Options{})
	f.redirect("http://127.0.0.1/a", "/b")
	f.redirect("http://127.0.0.1/b", "ftp://127.0.0.21/pub/file")
	f.body("ftp://127.0.0.21/pub/file", "contents")
	resp, err := c.Get(context.Background(), "http://127.0.0.1/a")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); got != "contents" {
		t.Errorf("body %q, want the last hop's", got)
	}
	want := []string{"http://127.0.0.1/a", "http://127.0.0.1/b", "ftp://127.0.0.21/pub/file"}
	if got := f.calls(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("hops %q, want %q", got, want)
	}
}

// chain builds /r0 -> /r1 -> ... -> /rN, which holds a body.
func chain(f *fakeFetcher, n int) {
	for i := 0; i < n; i++ {
		f.redirect("http://127.0.0.1/r"+strconv.Itoa(i), "/r"+strconv.Itoa(i+1))
	}
	f.body("http://127.0.0.1/r"+strconv.Itoa(n), "end")
}

func TestRedirectLimit(t *testing.T) {
	c, f := testClient(Options{})
	chain(f, 10)
	resp, err := c.Get(context.Background(), "http://127.0.0.1/r0")
	if err != nil {
		t.Fatalf("10 redirects: %v, want them followed", err)
	}
	if got := readAll(t, resp); got != "end" {
		t.Errorf("body %q after 10 redirects", got)
	}

	c, f = testClient(Options{})
	chain(f, 11)
	_, err = c.Get(context.Background(), "http://127.0.0.1/r0")
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "more than 10 redirects") {
		t.Errorf("11 redirects: %v, want ErrRefused \"more than 10 redirects\"", err)
	}
	if n := len(f.calls()); n != 11 {
		t.Errorf("%d fetches, want 11 (the start and 10 hops)", n)
	}

	c, f = testClient(Options{MaxRedirects: 2})
	chain(f, 3)
	if _, err := c.Get(context.Background(), "http://127.0.0.1/r0"); !strings.Contains(errString(err), "more than 2 redirects") {
		t.Errorf("MaxRedirects 2: %v", err)
	}

	c, f = testClient(Options{MaxRedirects: -1})
	chain(f, 1)
	resp, err = c.Get(context.Background(), "http://127.0.0.1/r0")
	if err != nil || resp.Kind != schemes.KindRedirect || resp.Location != "/r1" {
		t.Errorf("MaxRedirects -1: %+v, %v; want the redirect itself", resp, err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestRedirectLoop(t *testing.T) {
	c, f := testClient(Options{})
	f.redirect("http://127.0.0.1/a", "/b")
	f.redirect("http://127.0.0.1/b", "http://127.0.0.1/a#frag")
	_, err := c.Get(context.Background(), "http://127.0.0.1/a")
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "redirect loop") {
		t.Fatalf("loop: %v, want ErrRefused \"redirect loop\"", err)
	}
	if n := len(f.calls()); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}

// TestRedirectSchemeRefused: only http, https and ftp are followed; file:
// above all never, and its fetcher is never called.
func TestRedirectSchemeRefused(t *testing.T) {
	for _, to := range []string{"file:///etc/passwd", "file://localhost/etc/shadow", "gopher://127.0.0.70/", "telnet://127.0.0.23/"} {
		c, f := testClient(Options{})
		local := newFake()
		c.Register("file", local)
		c.Register("gopher", local)
		c.Register("telnet", local)
		f.redirect("http://127.0.0.1/a", to)
		_, err := c.Get(context.Background(), "http://127.0.0.1/a")
		if !errors.Is(err, security.ErrRedirect) {
			t.Errorf("redirect to %s: %v, want security.ErrRedirect", to, err)
		}
		if n := len(local.calls()); n != 0 {
			t.Errorf("redirect to %s reached its fetcher", to)
		}
	}
}

// TestRedirectCredentials: the login stays on its own host and never goes
// to another.
func TestRedirectCredentials(t *testing.T) {
	c, f := testClient(Options{})
	f.redirect("http://127.0.0.1/a", "/b")                    // same host: login kept
	f.redirect("http://127.0.0.1/b", "http://127.0.0.2/c")    // other host: dropped
	f.redirect("http://127.0.0.2/c", "http://127.0.0.1:81/d") // back, other port: dropped
	f.body("http://127.0.0.1:81/d", "x")
	resp, err := c.Get(context.Background(), "http://me:s3cret@127.0.0.1/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	got := f.calls()
	want := []string{"http://me:s3cret@127.0.0.1/a", "http://me:s3cret@127.0.0.1/b", "http://127.0.0.2/c", "http://127.0.0.1:81/d"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("hops %q, want %q", got, want)
	}

	// A relative location on another host's response cannot bring the
	// first host's login back.
	c, f = testClient(Options{})
	f.redirect("ftp://127.0.0.21/x", "http://127.0.0.2/y")
	f.body("http://127.0.0.2/y", "x")
	resp, err = c.Get(context.Background(), "ftp://me:s3cret@127.0.0.21/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	for _, u := range f.calls()[1:] {
		if strings.Contains(u, "s3cret") || strings.Contains(u, "me@") {
			t.Errorf("login carried to another host: %s", u)
		}
	}
}

// TestRedirectGuardEachHop: each hop passes the guard again, and a refused
// hop is never fetched.
func TestRedirectGuardEachHop(t *testing.T) {
	tests := []struct {
		to   string
		kind error
	}{
		{"http://127.0.0.1:25/", security.ErrPort},
		{"ftp://127.0.0.1:80/x", security.ErrPort},
		{"/a%0D%0ASet-Cookie:%20x", security.ErrInjection},
		{"ftp://127.0.0.21/etc%0D%0ADELE%20x/y", security.ErrInjection},
	}
	for _, tt := range tests {
		c, f := testClient(Options{})
		f.redirect("http://127.0.0.1/a", tt.to)
		_, err := c.Get(context.Background(), "http://127.0.0.1/a")
		if !errors.Is(err, tt.kind) {
			t.Errorf("redirect to %s: %v, want %v", tt.to, err, tt.kind)
		}
		if n := len(f.calls()); n != 1 {
			t.Errorf("redirect to %s: %d fetches, want only the first", tt.to, n)
		}
	}
}

func TestUnsupportedScheme(t *testing.T) {
	c := newClient(Options{})
	_, err := c.Get(context.Background(), "x-nothing:here")
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, ErrUnsupportedScheme) {
		t.Fatalf("Get = %v, want a *fetch.Error matching ErrUnsupportedScheme", err)
	}
	if !strings.Contains(err.Error(), `unsupported scheme "x-nothing"`) {
		t.Errorf("message %q", err)
	}
}

// trackedBody records whether it was closed.
type trackedBody struct {
	io.Reader
	closed bool
}

func (b *trackedBody) Close() error { b.closed = true; return nil }

func TestMaxBytes(t *testing.T) {
	c, f := testClient(Options{MaxBytes: 10})
	body := &trackedBody{Reader: strings.NewReader(strings.Repeat("x", 100))}
	f.routes["http://127.0.0.1/big"] = func(*schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{Kind: schemes.KindFile, Body: body, Size: -1}, nil
	}
	f.body("http://127.0.0.1/exact", "0123456789")
	f.routes["http://127.0.0.1/known"] = func(req *schemes.Request) (*schemes.Response, error) {
		if req.MaxBytes != 10 {
			t.Errorf("fetcher saw MaxBytes %d, want 10", req.MaxBytes)
		}
		return &schemes.Response{Kind: schemes.KindFile, Body: io.NopCloser(strings.NewReader("")), Size: 11}, nil
	}

	resp, err := c.Get(context.Background(), "http://127.0.0.1/big")
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	if len(got) != 10 || !errors.Is(err, schemes.ErrTooLarge) || err.Error() != "size limit of 10 bytes exceeded" {
		t.Errorf("read %d bytes, %v; want 10 then ErrTooLarge \"size limit of 10 bytes exceeded\"", len(got), err)
	}
	if !body.closed {
		t.Error("the body was not stopped at the limit")
	}
	resp.Close()

	resp, err = c.Get(context.Background(), "http://127.0.0.1/exact")
	if err != nil {
		t.Fatal(err)
	}
	if s := readAll(t, resp); s != "0123456789" {
		t.Errorf("a body of exactly MaxBytes: %q", s)
	}

	if _, err := c.Get(context.Background(), "http://127.0.0.1/known"); !errors.Is(err, schemes.ErrTooLarge) {
		t.Errorf("known size past the limit: %v, want ErrTooLarge", err)
	}
}

// recordingDialer counts dials and makes none.
type recordingDialer struct {
	mu    sync.Mutex
	addrs []string
}

func (d *recordingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	return nil, schemes.Errorf(schemes.ErrConnect, "no network in this test")
}

// dialingFetcher dials the URL's host, as a real fetcher does first.
type dialingFetcher struct{}

func (dialingFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	addr := net.JoinHostPort(req.URL.Host, strconv.Itoa(req.URL.EffectivePort()))
	_, err := req.Dialer.DialContext(ctx, "tcp", addr)
	return nil, err
}

// TestGuardBeforeDial: a refused URL never reaches the dialer; an allowed
// one does.
func TestGuardBeforeDial(t *testing.T) {
	d := &recordingDialer{}
	var warnings []string
	c := newClient(Options{Dialer: d, Warn: func(s string) { warnings = append(warnings, s) }})
	c.Register("gopher", dialingFetcher{})
	c.Register("ftp", dialingFetcher{})
	for _, raw := range []string{
		"gopher://127.0.0.1:25/0mail",
		"gopher://127.0.0.1/0a%0D%0Ab",
		"gopher://127.0.0.1/7search%09a%0Db",
		"ftp://127.0.0.1:119/x",
		"ftp://127.0.0.1/a%0Ab/c",
	} {
		_, err := c.Get(context.Background(), raw)
		if !errors.Is(err, security.ErrPort) && !errors.Is(err, security.ErrInjection) {
			t.Errorf("%s: %v, want a guard refusal", raw, err)
		}
	}
	if len(d.addrs) != 0 {
		t.Fatalf("refused URLs were dialed: %q", d.addrs)
	}
	_, err := c.Get(context.Background(), "gopher://127.0.0.1:7070/")
	if !errors.Is(err, schemes.ErrConnect) || len(d.addrs) != 1 || d.addrs[0] != "127.0.0.1:7070" {
		t.Errorf("allowed URL: %v, dials %q; want one dial of 127.0.0.1:7070", err, d.addrs)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "7070") {
		t.Errorf("warnings %q, want one about port 7070", warnings)
	}

	c = newClient(Options{Dialer: d, AllowPorts: []int{25}})
	c.Register("gopher", dialingFetcher{})
	if _, err := c.Get(context.Background(), "gopher://127.0.0.1:25/"); errors.Is(err, security.ErrPort) {
		t.Errorf("AllowPorts 25: %v", err)
	}
}

// TestErrorRedaction: a password never shows in an error, whatever the
// cause repeats, and the error is one line.
func TestErrorRedaction(t *testing.T) {
	c, f := testClient(Options{})
	f.routes["ftp://127.0.0.21/x"] = func(req *schemes.Request) (*schemes.Response, error) {
		return nil, schemes.Errorf(schemes.ErrAuth, "530 login as %s/%s refused\nby server", req.URL.User, req.URL.Password)
	}
	_, err := c.Get(context.Background(), "ftp://me:s3cret@127.0.0.21/x")
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, schemes.ErrAuth) {
		t.Fatalf("Get = %v, want a *fetch.Error matching ErrAuth", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "s3cret") || strings.ContainsAny(msg, "\r\n") {
		t.Errorf("error %q shows the password or spans lines", msg)
	}
	if fe.URL != "ftp://me:****@127.0.0.21/x" || fe.Op != "get" {
		t.Errorf("Error{Op: %q, URL: %q}", fe.Op, fe.URL)
	}

	// A URL that does not parse is redacted too, and the parse error is
	// still reachable.
	_, err = c.Get(context.Background(), "ftp://me:s3cret@127.0.0.21/%zz")
	var pe *schemes.ParseError
	if !errors.As(err, &pe) || !errors.As(err, &fe) {
		t.Fatalf("malformed URL: %v, want a *fetch.Error around a *schemes.ParseError", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q shows the password", err)
	}
}

func TestClose(t *testing.T) {
	c, f := testClient(Options{})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if f.closed != 1 {
		t.Errorf("a fetcher registered for three schemes was closed %d times, want 1", f.closed)
	}
}

// TestProxyPerScheme: the default dialer takes the proxy for the URL's
// scheme from the environment.
func TestProxyPerScheme(t *testing.T) {
	t.Setenv("gopher_proxy", "socks5://127.0.0.1:1080")
	c := newClient(Options{ProxyFromEnvironment: true})
	var got schemes.Dialer
	f := newFake()
	f.routes["gopher://127.0.0.1/1"] = func(req *schemes.Request) (*schemes.Response, error) {
		got = req.Dialer
		return &schemes.Response{Kind: schemes.KindListing}, nil
	}
	c.Register("gopher", f)
	if _, err := c.Get(context.Background(), "gopher://127.0.0.1/1"); err != nil {
		t.Fatal(err)
	}
	d, ok := got.(*dial.Dialer)
	if !ok || d.Scheme != "gopher" || !d.Environment {
		t.Errorf("fetcher's dialer %#v, want a dial.Dialer for gopher reading the environment", got)
	}
}

// TestRedirectMalformed: a location that does not parse is the server's
// fault (ErrRefused), not a usage error of the person.
func TestRedirectMalformed(t *testing.T) {
	c, f := testClient(Options{})
	f.redirect("http://127.0.0.1/a", "http://127.0.0.1/%zz")
	_, err := c.Get(context.Background(), "http://127.0.0.1/a")
	var pe *schemes.ParseError
	if !errors.Is(err, schemes.ErrRefused) || errors.As(err, &pe) || errors.Is(err, schemes.ErrUsage) {
		t.Errorf("malformed location: %v, want ErrRefused only", err)
	}
}

// TestWarningsOncePerCall: the hops of a redirect chain on one host do not
// repeat the port and password warnings; a new call warns again.
func TestWarningsOncePerCall(t *testing.T) {
	var warned []string
	c, f := testClient(Options{Warn: func(s string) { warned = append(warned, s) }})
	f.redirect("http://127.0.0.1:8080/a", "/b")
	f.redirect("http://127.0.0.1:8080/b", "/c")
	f.body("http://127.0.0.1:8080/c", "x")
	for i := 1; i <= 2; i++ {
		resp, err := c.Get(context.Background(), "http://me:s3cret@127.0.0.1:8080/a")
		if err != nil {
			t.Fatal(err)
		}
		resp.Close()
		if len(warned) != 2*i {
			t.Fatalf("after %d calls: warnings %q, want the port and the password once per call", i, warned)
		}
	}
}

// TestPackageGet: the package-level Get reaches a shipped scheme (file:).
func TestPackageGet(t *testing.T) {
	path := t.TempDir() + "/motd"
	if err := os.WriteFile(path, []byte("welcome\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := Get(context.Background(), "file://"+path)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); got != "welcome\n" {
		t.Errorf("body %q", got)
	}
	if _, err := Get(context.Background(), "x-unknown:thing"); !errors.Is(err, ErrUnsupportedScheme) {
		t.Errorf("Get(x-unknown:) = %v, want ErrUnsupportedScheme", err)
	}
}

// TestDialerPerSchemeStable: every fetch of one scheme gets the same
// dialer, so fetchers that pool connections by dialer reuse them: the
// client's Settings for the scheme, made once and pointed at by every
// request, each with its own Call and guard.
func TestDialerPerSchemeStable(t *testing.T) {
	c := newClient(OptionsFromEnvironment())
	var got []schemes.Dialer
	var settings []*schemes.Settings
	var offsets []int64
	f := newFake()
	f.routes["ftp://127.0.0.21/x"] = func(req *schemes.Request) (*schemes.Response, error) {
		got = append(got, req.Dialer)
		settings = append(settings, req.Settings)
		offsets = append(offsets, req.Offset)
		return &schemes.Response{Kind: schemes.KindListing}, nil
	}
	f.routes["http://127.0.0.80/"] = f.routes["ftp://127.0.0.21/x"]
	c.Register("ftp", f)
	c.Register("http", f)
	for _, u := range []string{"ftp://127.0.0.21/x", "ftp://127.0.0.21/x", "http://127.0.0.80/"} {
		if _, err := c.Get(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 3 || got[0] != got[1] || got[0] == got[2] {
		t.Errorf("dialers %p %p %p: want one per scheme, the same on every fetch", got[0], got[1], got[2])
	}
	if d := got[2].(*dial.Dialer); !d.Environment || d.Scheme != "http" {
		t.Errorf("http dialer %+v: want the environment's http_proxy to reach http through the dialer", d)
	}
	if settings[0] != settings[1] || settings[0] == settings[2] {
		t.Errorf("settings %p %p %p: want one per scheme, shared by every request", settings[0], settings[1], settings[2])
	}
	if _, err := c.Do(context.Background(), &Request{URL: "ftp://127.0.0.21/x", Call: schemes.Call{Offset: 7}}); err != nil {
		t.Fatal(err)
	}
	if settings[3] != settings[0] || offsets[3] != 7 || offsets[0] != 0 {
		t.Errorf("a call with an offset: settings %p (want %p), offsets %v", settings[3], settings[0], offsets)
	}
}

// TestGuardJudgesTargetNotProxy: through a proxy, a target on another
// protocol's port is still refused before the proxy is contacted, and the
// proxy's own port is no concern of the guard.
func TestGuardJudgesTargetNotProxy(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := NewClient(Options{Proxy: "socks5://" + l.Addr().String(), ConnectTimeout: 200 * time.Millisecond})
	defer c.Close()
	pending := func() bool { return queued(t, l) > 0 }
	if _, err := c.Get(context.Background(), "gopher://127.0.0.70:25/"); !errors.Is(err, security.ErrPort) {
		t.Errorf("target on port 25 through a proxy: %v, want ErrPort", err)
	}
	if pending() {
		t.Error("the proxy was contacted for a refused target")
	}
	// This proxy never answers: the fetch times out, after connecting to it.
	_, err = c.Get(context.Background(), "gopher://127.0.0.70/")
	if errors.Is(err, security.ErrPort) || err == nil {
		t.Errorf("allowed target through a silent proxy: %v", err)
	}
	if !pending() {
		t.Error("the allowed target did not go through the proxy")
	}
}

// queued returns how many connections wait in l's accept queue. It queues a
// marker connection of its own and accepts up to it: the queue is first in,
// first out, so no waiting on a clock is needed.
func queued(t *testing.T, l net.Listener) int {
	t.Helper()
	marker, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer marker.Close()
	n := 0
	for {
		conn, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		mine := conn.RemoteAddr().String() == marker.LocalAddr().String()
		conn.Close()
		if mine {
			return n
		}
		n++
	}
}

// TestRequestParsed: a URL the caller parsed already is fetched as it is,
// the very value reaching the fetcher (no second parse), and still guarded.
func TestRequestParsed(t *testing.T) {
	c, f := testClient(Options{})
	f.body("http://127.0.0.1/a", "parsed once")
	u, err := ParseURL("http://127.0.0.1/a")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(context.Background(), &Request{URL: "not even a URL", Parsed: u})
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); got != "parsed once" {
		t.Errorf("body %q", got)
	}
	if len(f.seen) != 1 || f.seen[0] != u {
		t.Errorf("the fetcher saw %v, want the caller's *schemes.URL itself", f.seen)
	}
	bad, err := ParseURL("http://127.0.0.1:25/")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(context.Background(), &Request{Parsed: bad}); !errors.Is(err, security.ErrPort) {
		t.Errorf("Do(Parsed: port 25) = %v, want security.ErrPort", err)
	}
	if len(f.seen) != 1 {
		t.Errorf("the refused URL reached the fetcher: %v", f.calls())
	}
}

// partsFetcher answers x-parts:KIND with a response of that kind whose
// parts record their closing; it keeps "connections" that Close ends.
type partsFetcher struct {
	closed   int
	listings []*countingListing
	sessions []*countingSession
}

type countingListing struct{ closed int }

func (l *countingListing) Next() (schemes.Entry, error) {
	return schemes.Entry{Type: schemes.TypeFile, Name: "a", Size: 1, URL: "x-parts:a"}, io.EOF
}
func (l *countingListing) Close() error { l.closed++; return nil }

type countingSession struct{ closed int }

func (s *countingSession) Interact(context.Context, io.Reader, io.Writer) error { return nil }
func (s *countingSession) Close() error                                         { s.closed++; return nil }

func (f *partsFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	r := &schemes.Response{URL: req.URL, Size: -1}
	switch req.URL.Opaque {
	case "file":
		r.Kind, r.Body = schemes.KindFile, io.NopCloser(strings.NewReader("bytes"))
	case "listing":
		l := &countingListing{}
		f.listings = append(f.listings, l)
		r.Kind, r.Listing = schemes.KindListing, l
	case "session":
		s := &countingSession{}
		f.sessions = append(f.sessions, s)
		r.Kind, r.Session = schemes.KindSession, s
	case "handoff":
		r.Kind, r.Command = schemes.KindHandoff, []string{"rlogin", "h"}
	}
	return r, nil
}

func (f *partsFetcher) Close() error { f.closed++; return nil }

// TestGetClosesClient: the package-level Get's one-off Client is closed
// once, whichever part of the response the caller closes, and at once
// when the response holds no connection. Body is never nil.
func TestGetClosesClient(t *testing.T) {
	ctx := context.Background()
	closeParts := map[string]func(*Response){
		"Body":     func(r *Response) { r.Body.Close() },
		"Response": func(r *Response) { r.Close() },
		"Listing":  func(r *Response) { r.Listing.Close() },
		"Session":  func(r *Response) { r.Session.Close() },
	}
	for _, tc := range []struct{ kind, part string }{
		{"file", "Body"}, {"file", "Response"},
		{"listing", "Body"}, {"listing", "Listing"}, {"listing", "Response"},
		{"session", "Body"}, {"session", "Session"}, {"session", "Response"},
	} {
		f := &partsFetcher{}
		c := newClient(Options{})
		c.Register("x-parts", f)
		resp, err := getOnce(ctx, c, "x-parts:"+tc.kind)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Body == nil {
			t.Fatalf("%s: nil Body", tc.kind)
		}
		if f.closed != 0 {
			t.Errorf("%s: client closed before the response", tc.kind)
		}
		closeParts[tc.part](resp)
		if f.closed != 1 {
			t.Errorf("%s, closing %s: client closed %d times, want 1", tc.kind, tc.part, f.closed)
		}
		resp.Close()
		if f.closed != 1 {
			t.Errorf("%s, closing %s then the Response: client closed %d times, want 1", tc.kind, tc.part, f.closed)
		}
		if tc.kind == "listing" && (tc.part == "Body" || tc.part == "Response") && f.listings[0].closed != 1 {
			t.Errorf("listing, closing %s: listing closed %d times, want 1", tc.part, f.listings[0].closed)
		}
	}
	f := &partsFetcher{}
	c := newClient(Options{})
	c.Register("x-parts", f)
	resp, err := getOnce(ctx, c, "x-parts:handoff")
	if err != nil {
		t.Fatal(err)
	}
	if f.closed != 1 {
		t.Errorf("handoff: client closed %d times, want 1 at once", f.closed)
	}
	if _, err := resp.Body.Read(make([]byte, 1)); err == nil || !strings.Contains(err.Error(), "use Command") {
		t.Errorf("handoff Body Read = %v, want the no-body error", err)
	}
}

// TestGetListingBody: a new user's first try, fetch.Get of a directory
// then io.Copy of its Body, gives the listing's text form.
func TestGetListingBody(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/motd", []byte("welcome\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := Get(context.Background(), "file://"+dir+"/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	var b strings.Builder
	if _, err := io.Copy(&b, resp.Body); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "file ") || !strings.Contains(b.String(), "  motd  file://") || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("listing Body = %q, want one text line for motd", b.String())
	}
}
