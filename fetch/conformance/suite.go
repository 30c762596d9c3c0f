package conformance

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/internal/testcert"
	"github.com/goferurl/gofer/schemes"
)

// Object names what a scripted server serves at one URL.
type Object string

const (
	// Small is SmallBody, whole.
	Small Object = "small"
	// Missing is not there, and the server says so.
	Missing Object = "missing"
	// Listing is a directory, menu or group with at least one entry
	// (Adapter.ListingEntries says how many).
	Listing Object = "listing"
	// Large is LargeSize bytes, more than SizeLimit; the server does not
	// announce its size beforehand where the protocol lets it keep quiet.
	Large Object = "large"
	// Stall is accepted, and then the server sends nothing more.
	Stall Object = "stall"
	// Cut is CutHead, and then the server closes the connection.
	Cut Object = "cut"
	// Gated is GatedHead, and GatedTail once the test releases it.
	Gated Object = "gated"
)

// The bytes the scripted servers serve.
var (
	SmallBody = []byte("conformance: a small object\r\n")
	CutHead   = bytes.Repeat([]byte("cut:"), 1024)
	GatedHead = bytes.Repeat([]byte("head"), 1024)
	GatedTail = bytes.Repeat([]byte("tail"), 1024)
)

const (
	// LargeSize is the size of the Large object.
	LargeSize = 1 << 20
	// SizeLimit is Options.MaxBytes in the size-limit check.
	SizeLimit = 64 << 10
	// StallIdle is Options.IdleTimeout in the stall check.
	StallIdle = 800 * time.Millisecond
	// secret is the password the suite puts into URLs; no error may show it.
	secret = "s3cret-Pw0rd"
)

// Adapter is what one scheme family supplies to the suite.
type Adapter struct {
	// Serve handles one connection the scripted server accepted; the suite
	// closes c when Serve returns. Nil means the scheme dials nothing
	// (file:, hand-offs).
	Serve func(c net.Conn, env *Env)
	// TLS puts the scripted server (and env.Listen's listeners) behind TLS
	// with a certificate the client is made to trust.
	TLS bool
	// Setup, if set, runs once per check after the server started and
	// returns what URL receives as addr (e.g. a temporary directory for
	// file:, or the address of a second server).
	Setup func(t *testing.T, addr string) string
	// URL is the URL of o on the server at addr, or "" where o does not
	// apply to the scheme.
	URL func(addr string, o Object) string
	// Kind is the kind of the Small object's response (KindFile when zero).
	Kind schemes.Kind
	// ListingEntries is how many entries the Listing object yields; a
	// listing that ends sooner (or runs on) fails. Zero means at least one.
	ListingEntries int
	// SmallBody is what the Small object's Body reads, when the protocol
	// gives it another form than the package's SmallBody (an article).
	SmallBody []byte
	// Options adjusts the client's options (e.g. an nntp.Fetcher with the
	// news server of news: URLs, through Options.SetFetcher).
	Options func(o *fetch.Options, addr string)
	// NoCredentials says URLs of the scheme carry no user and password.
	NoCredentials bool
	// Fetcher is the fetcher under test, registered for the scheme in
	// every client the suite makes (fetch.Options.Fetchers); nil means
	// the one fetch.NewClient registers for it.
	Fetcher schemes.Fetcher
}

// Env is what a scripted server shares with the check that runs it.
type Env struct {
	tls      *tls.Config
	release  chan struct{}
	stalled  chan struct{}
	done     chan struct{}
	tracker  *tracker
	stallOne sync.Once
}

// Listen opens another listener of the scripted server on 127.0.0.1 (an
// FTP data connection), tracked like the first and behind TLS if it is.
func (e *Env) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if e.tls != nil {
		ln = tls.NewListener(ln, e.tls)
	}
	return e.tracker.listener(ln), nil
}

// Stall says nothing more on c until the client goes away or the server
// stops; the check learns that the stall began.
func (e *Env) Stall(c net.Conn) {
	e.stallOne.Do(func() { close(e.stalled) })
	e.drain(c)
}

// drain reads c until the client goes away, or closes it when the server
// stops.
func (e *Env) drain(c net.Conn) {
	drained := make(chan struct{})
	go func() {
		io.Copy(io.Discard, c)
		close(drained)
	}()
	select {
	case <-drained:
	case <-e.done:
		c.Close()
		<-drained
	}
}

// WaitRelease blocks until the check releases the Gated object's tail; it
// reports false when the server stops or the client closes c first. The
// client is not expected to send on c meanwhile.
func (e *Env) WaitRelease(c net.Conn) bool {
	gone := make(chan struct{})
	go func() {
		var b [1]byte
		c.Read(b[:])
		close(gone)
	}()
	released := false
	select {
	case <-e.release:
		released = true
	case <-e.done:
	case <-gone:
		return false
	}
	c.SetReadDeadline(time.Now())
	<-gone
	c.SetReadDeadline(time.Time{})
	return released
}

// Done is closed when the scripted server stops.
func (e *Env) Done() <-chan struct{} { return e.done }

// tracker counts the scripted server's open connections.
type tracker struct {
	mu      sync.Mutex
	open    int
	changed chan struct{}
	conns   map[net.Conn]bool
	wg      sync.WaitGroup
}

func newTracker() *tracker {
	return &tracker{changed: make(chan struct{}), conns: map[net.Conn]bool{}}
}

func (tr *tracker) add(c net.Conn, d int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.open += d
	if d > 0 {
		tr.conns[c] = true
	} else {
		delete(tr.conns, c)
	}
	close(tr.changed)
	tr.changed = make(chan struct{})
}

// waitClosed waits until no connection is open, or fails after limit.
func (tr *tracker) waitClosed(limit time.Duration) error {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		tr.mu.Lock()
		open, changed := tr.open, tr.changed
		tr.mu.Unlock()
		if open == 0 {
			return nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Errorf("the server still holds %d connection(s) open", open)
		}
	}
}

func (tr *tracker) closeAll() {
	tr.mu.Lock()
	conns := make([]net.Conn, 0, len(tr.conns))
	for c := range tr.conns {
		conns = append(conns, c)
	}
	tr.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// trackedListener counts each accepted connection open until it is closed.
type trackedListener struct {
	net.Listener
	tr *tracker
}

func (tr *tracker) listener(ln net.Listener) net.Listener { return &trackedListener{ln, tr} }

func (l *trackedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, tr: l.tr}
	l.tr.add(tc, 1)
	return tc, nil
}

type trackedConn struct {
	net.Conn
	tr   *tracker
	once sync.Once
}

func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.tr.add(c, -1) })
	return err
}

// server is one check's scripted server.
type server struct {
	addr string
	env  *Env
	ln   net.Listener
}

func startServer(t *testing.T, a Adapter, tlsConf *tls.Config) *server {
	tr := newTracker()
	env := &Env{release: make(chan struct{}), stalled: make(chan struct{}), done: make(chan struct{}), tracker: tr}
	if a.TLS {
		env.tls = tlsConf
	}
	s := &server{env: env}
	if a.Serve == nil {
		return s
	}
	ln, err := env.Listen()
	if err != nil {
		t.Fatal(err)
	}
	s.ln, s.addr = ln, ln.Addr().String()
	tr.wg.Add(1)
	go func() {
		defer tr.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tr.wg.Add(1)
			go func() {
				defer tr.wg.Done()
				defer c.Close()
				a.Serve(c, env)
				awaitClientClose(c, env)
			}()
		}
	}()
	return s
}

// awaitClientClose keeps c open after Serve returned until the client
// closes its end (or the server stops), so that a client that leaves a
// connection open is seen holding it even where the server speaks last: the
// server only half-closes, which the client reads as the end of the data,
// as it would a close.
func awaitClientClose(c net.Conn, env *Env) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	hc, ok := tc.Conn.(interface{ CloseWrite() error })
	if !ok || hc.CloseWrite() != nil {
		return
	}
	env.drain(c)
}

func (s *server) stop() {
	close(s.env.done)
	if s.ln != nil {
		s.ln.Close()
	}
	s.env.tracker.closeAll()
	s.env.tracker.wg.Wait()
}

// check is one scheme's run of the suite.
type check struct {
	t       *testing.T
	scheme  string
	a       Adapter
	tlsConf *tls.Config
	pool    *x509.CertPool
}

// Run runs every check of the suite for adapter a of scheme, as a test
// of the program that calls it (a scheme a program registers, "x-..."
// included: give its fetcher as a.Fetcher). The checks run in parallel,
// each with a scripted server and a client of its own; once all have
// ended, no goroutine any of them started may be left.
func Run(t *testing.T, scheme string, a Adapter) {
	cert, pool := selfSigned(t)
	c := &check{t: t, scheme: scheme, a: a, tlsConf: &tls.Config{Certificates: []tls.Certificate{cert}}, pool: pool}
	ignore := goleak.IgnoreCurrent()
	// oneoff sets the environment, which a parallel test may not.
	t.Run("oneoff", c.oneoff)
	t.Run("checks", func(t *testing.T) {
		for _, ch := range []struct {
			name string
			run  func(*testing.T)
		}{
			{"small", c.small}, {"direct", c.direct}, {"missing", c.missing}, {"listing", c.listing},
			{"stream", c.stream}, {"cancel-during-fetch", c.cancelFetch}, {"cancel-during-body", c.cancelBody},
			{"stall", c.stall}, {"size-limit", c.sizeLimit}, {"cut", c.cut}, {"plan", c.plan},
		} {
			t.Run(ch.name, func(t *testing.T) {
				t.Parallel()
				ch.run(t)
			})
		}
	})
	if err := goleak.Find(ignore); err != nil {
		t.Errorf("a goroutine outlived the checks: %v", err)
	}
}

// fixture is one check's server, its URLs and a client for them.
type fixture struct {
	t      *testing.T
	srv    *server
	addr   string
	a      Adapter
	client *fetch.Client
	opts   fetch.Options
}

// setup starts a server and a client; cleanup stops both and checks that
// every connection ended (Run checks the goroutines once all checks ended).
func (c *check) setup(t *testing.T, tweak func(*fetch.Options)) *fixture {
	srv := startServer(t, c.a, c.tlsConf)
	f := &fixture{t: t, srv: srv, a: c.a, addr: srv.addr}
	if c.a.Setup != nil {
		f.addr = c.a.Setup(t, srv.addr)
	}
	f.opts = fetch.Options{
		Warn:        func(string) {},
		IdleTimeout: 10 * time.Second,
		Dialer:      &dial.Dialer{ConnectTimeout: 5 * time.Second},
		TLSConfig:   &tls.Config{RootCAs: c.pool},
		Netrc:       "",
	}
	if c.a.Fetcher != nil {
		f.opts.Fetchers = map[string]schemes.Fetcher{c.scheme: c.a.Fetcher}
	}
	if c.a.Options != nil {
		c.a.Options(&f.opts, f.addr)
	}
	if tweak != nil {
		tweak(&f.opts)
	}
	f.client = fetch.NewClient(f.opts)
	t.Cleanup(func() {
		if err := f.client.Close(); err != nil {
			t.Errorf("Client.Close: %v", err)
		}
		if err := srv.env.tracker.waitClosed(5 * time.Second); err != nil {
			t.Errorf("after the response and the client were closed: %v", err)
		}
		srv.stop()
	})
	return f
}

// url returns o's URL, skipping the check when o does not apply.
func (f *fixture) url(o Object) string {
	u := f.a.URL(f.addr, o)
	if u == "" {
		f.t.Skipf("%s does not apply to this scheme", o)
	}
	return u
}

// get runs Do and checks the first rule of the contract: a Response
// exactly when there is no error, a Body whatever the kind, a kind on every
// error.
func (f *fixture) get(ctx context.Context, u string) (*fetch.Response, error) {
	f.t.Helper()
	resp, err := f.client.Do(ctx, &fetch.Request{URL: u})
	return f.contract(resp, err)
}

func (f *fixture) contract(resp *fetch.Response, err error) (*fetch.Response, error) {
	f.t.Helper()
	switch {
	case err == nil && resp == nil:
		f.t.Fatal("Do returned neither a response nor an error")
	case err != nil && resp != nil:
		resp.Close()
		f.t.Fatalf("Do returned a response and an error: %v", err)
	case err != nil:
		checkKind(f.t, err)
	case resp.Body == nil:
		resp.Close()
		f.t.Fatalf("Response.Body is nil for a response of kind %d", resp.Kind)
	}
	return resp, err
}

// drain fetches u and reads its body to the end; it returns the bytes read
// and the error that ended the fetch, from Do or from reading the body.
func (f *fixture) drain(ctx context.Context, u string) ([]byte, error) {
	f.t.Helper()
	resp, err := f.get(ctx, u)
	if err != nil {
		return nil, err
	}
	defer closeTwice(f.t, resp)
	var buf bytes.Buffer
	_, err = io.Copy(&buf, resp.Body)
	if err != nil {
		checkKind(f.t, err)
	}
	return buf.Bytes(), err
}

// closeTwice closes resp twice: the second Close must not fail or panic.
func closeTwice(t *testing.T, resp *fetch.Response) {
	t.Helper()
	resp.Close()
	if err := resp.Close(); err != nil {
		t.Errorf("a second Close failed: %v", err)
	}
}

func (c *check) small(t *testing.T) {
	f := c.setup(t, nil)
	resp, err := f.get(context.Background(), f.url(Small))
	if err != nil {
		t.Fatalf("fetch of a small object: %v", err)
	}
	defer closeTwice(t, resp)
	if resp.Kind != c.a.Kind {
		t.Fatalf("kind %d, want %d", resp.Kind, c.a.Kind)
	}
	body, err := io.ReadAll(resp.Body)
	switch resp.Kind {
	case schemes.KindFile:
		want := SmallBody
		if c.a.SmallBody != nil {
			want = c.a.SmallBody
		}
		if err != nil || !bytes.Equal(body, want) {
			t.Fatalf("body %q, %v; want %q", body, err, want)
		}
	case schemes.KindSession, schemes.KindHandoff:
		if err == nil || len(body) > 0 {
			t.Fatalf("reading the body of a kind-%d response gave %q, %v; want an error saying it has none", resp.Kind, body, err)
		}
	default:
		if err != nil || len(body) == 0 {
			t.Fatalf("the readable form of a kind-%d response is %q, %v", resp.Kind, body, err)
		}
	}
}

// oneoff fetches the small object with the package-level fetch.Get, whose
// response alone must free everything when closed.
func (c *check) oneoff(t *testing.T) {
	if c.a.Options != nil || c.a.TLS || c.a.Fetcher != nil {
		t.Skip("the scheme needs client options fetch.Get does not take")
	}
	f := c.setup(t, nil)
	for _, v := range []string{"ALL_PROXY", "all_proxy", c.scheme + "_proxy", strings.ToUpper(c.scheme) + "_PROXY"} {
		t.Setenv(v, "")
	}
	resp, err := f.contract(fetch.Get(context.Background(), f.url(Small)))
	if err != nil {
		t.Fatalf("fetch.Get: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	closeTwice(t, resp)
	if err := f.srv.env.tracker.waitClosed(5 * time.Second); err != nil {
		t.Fatalf("after closing the response of fetch.Get: %v", err)
	}
}

func (c *check) missing(t *testing.T) {
	f := c.setup(t, nil)
	for _, u := range f.withCredentials(f.url(Missing)) {
		resp, err := f.get(context.Background(), u)
		if err == nil {
			closeTwice(t, resp)
			t.Fatalf("%s: fetched a missing object", u)
		}
		if !errors.Is(err, schemes.ErrRefused) {
			t.Errorf("%s: %v; want the refused kind", u, err)
		}
		noSecret(t, err)
	}
}

func (c *check) listing(t *testing.T) {
	f := c.setup(t, nil)
	resp, err := f.get(context.Background(), f.url(Listing))
	if err != nil {
		t.Fatalf("fetch of a listing: %v", err)
	}
	defer closeTwice(t, resp)
	if resp.Kind != schemes.KindListing || resp.Listing == nil {
		t.Fatalf("kind %d, listing %v; want a listing", resp.Kind, resp.Listing)
	}
	// Every entry, to the listing's clean end.
	var entries []schemes.Entry
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			checkKind(t, err)
			t.Fatalf("entry %d: %v", len(entries)+1, err)
		}
		if e.Type == "" || e.Name == "" && e.Type != schemes.TypeInfo {
			t.Errorf("entry %d %+v has no name or type", len(entries)+1, e)
		}
		if e.URL != "" {
			if _, err := schemes.Parse(e.URL); err != nil {
				t.Errorf("entry URL %q does not parse: %v", e.URL, err)
			}
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		t.Fatal("the listing has no entry")
	}
	if n := c.a.ListingEntries; n > 0 && len(entries) != n {
		t.Errorf("the listing yielded %d entries, want %d", len(entries), n)
	}

	// The same listing read as text, through the Body alone, names them all.
	text, err := f.drain(context.Background(), f.url(Listing))
	if err != nil || len(text) == 0 {
		t.Fatalf("the listing's text form: %q, %v", text, err)
	}
	for _, e := range entries {
		if !bytes.Contains(text, []byte(schemes.Printable(e.Name))) {
			t.Errorf("the listing's text form does not name the entry %q:\n%s", e.Name, text)
		}
	}
}

// direct fetches the small and the missing object from the scheme's
// Fetcher itself, as a program that holds one would, with no fetch.Client
// in between: the contract holds there too.
func (c *check) direct(t *testing.T) {
	f := c.setup(t, nil)
	fetcher := f.client.Fetcher(c.scheme)
	if fetcher == nil {
		t.Fatalf("no fetcher registered for %s", c.scheme)
	}
	for _, o := range []Object{Small, Missing} {
		u, err := schemes.Parse(f.url(o))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := fetcher.Fetch(context.Background(), requestFor(&f.opts, u))
		switch {
		case err == nil && resp == nil:
			t.Fatalf("%s: Fetch returned neither a response nor an error", o)
		case err != nil && resp != nil:
			resp.Close()
			t.Fatalf("%s: Fetch returned a response and an error: %v", o, err)
		case err != nil:
			checkKind(t, err)
			noSecret(t, err)
			if o == Small {
				t.Fatalf("%s: %v", o, err)
			}
			if !errors.Is(err, schemes.ErrRefused) && !errors.Is(err, schemes.ErrAuth) {
				t.Errorf("%s: %v; want the refused kind", o, err)
			}
			continue
		}
		if o == Missing && resp.Kind != schemes.KindRedirect {
			resp.Close()
			t.Fatalf("%s: fetched a missing object", o)
		}
		if o == Small && resp.Kind == schemes.KindFile && c.a.Kind == schemes.KindFile {
			want := SmallBody
			if c.a.SmallBody != nil {
				want = c.a.SmallBody
			}
			if body, err := io.ReadAll(resp.Body); err != nil || !bytes.Equal(body, want) {
				t.Errorf("%s: body %q, %v; want %q", o, body, err, want)
			}
		}
		resp.Close()
		if err := resp.Close(); err != nil {
			t.Errorf("%s: a second Close failed: %v", o, err)
		}
	}
}

// requestFor is the request a fetcher gets for u under opts, as a program
// would make it without a fetch.Client.
func requestFor(o *fetch.Options, u *schemes.URL) *schemes.Request {
	return &schemes.Request{
		URL:      u,
		Warn:     o.Warn,
		Call:     schemes.Call{Mail: &schemes.MailRequest{Body: strings.NewReader("conformance\n")}},
		Settings: &schemes.Settings{Dialer: o.Dialer, IdleTimeout: o.IdleTimeout, MaxBytes: o.MaxBytes, TLSConfig: o.TLSConfig, Prompt: o.Prompt},
	}
}

// stream proves the body streams: its head arrives while the server holds
// the tail back.
func (c *check) stream(t *testing.T) {
	f := c.setup(t, nil)
	u := f.url(Gated)
	type result struct {
		resp *fetch.Response
		err  error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := f.client.Do(context.Background(), &fetch.Request{URL: u})
		if err == nil {
			_, err = io.ReadFull(resp.Body, make([]byte, len(GatedHead)))
		}
		got <- result{resp, err}
	}()
	var r result
	select {
	case r = <-got:
	case <-time.After(10 * time.Second):
		close(f.srv.env.release)
		r = <-got
		if r.resp != nil {
			r.resp.Close()
		}
		t.Fatal("the body's first bytes did not arrive before the server sent the rest: it does not stream")
	}
	r.resp, r.err = f.contract(r.resp, r.err)
	if r.err != nil {
		t.Fatalf("gated fetch: %v", r.err)
	}
	defer closeTwice(t, r.resp)
	close(f.srv.env.release)
	tail, err := io.ReadAll(r.resp.Body)
	if err != nil || !bytes.HasPrefix(tail, GatedTail) || len(tail) > len(GatedTail)+2 {
		t.Fatalf("tail %d bytes, %v; want %d bytes", len(tail), err, len(GatedTail))
	}
}

// cancelFetch cancels the context while the server stalls.
func (c *check) cancelFetch(t *testing.T) {
	f := c.setup(t, nil)
	u := f.url(Stall)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := f.drain(ctx, u)
		done <- err
	}()
	select {
	case <-f.srv.env.stalled:
	case err := <-done:
		t.Fatalf("the fetch ended before the server stalled: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, schemes.ErrInterrupted) {
			t.Fatalf("cancelled fetch: %v; want the interrupted kind", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the context did not end the fetch")
	}
}

// cancelBody cancels the context while the body is being read.
func (c *check) cancelBody(t *testing.T) {
	f := c.setup(t, nil)
	u := f.url(Gated)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := f.get(ctx, u)
	if err != nil {
		t.Fatalf("gated fetch: %v", err)
	}
	defer closeTwice(t, resp)
	if _, err := io.ReadFull(resp.Body, make([]byte, len(GatedHead))); err != nil {
		t.Fatalf("reading the head: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, schemes.ErrInterrupted) {
			t.Fatalf("reading after cancel: %v; want the interrupted kind", err)
		}
		checkKind(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the context did not end the body")
	}
}

// stall lets the idle timeout end a fetch from a silent server.
func (c *check) stall(t *testing.T) {
	f := c.setup(t, func(o *fetch.Options) { o.IdleTimeout = StallIdle })
	for _, u := range f.withCredentials(f.url(Stall)) {
		start := time.Now()
		_, err := f.drain(context.Background(), u)
		took := time.Since(start)
		if !errors.Is(err, schemes.ErrTimeout) {
			t.Fatalf("%s: %v; want the timeout kind", u, err)
		}
		if took > 3*StallIdle+time.Second {
			t.Errorf("%s: timed out after %v with an idle timeout of %v", u, took, StallIdle)
		}
		noSecret(t, err)
	}
}

// sizeLimit fetches an object larger than Options.MaxBytes.
func (c *check) sizeLimit(t *testing.T) {
	f := c.setup(t, func(o *fetch.Options) { o.MaxBytes = SizeLimit })
	got, err := f.drain(context.Background(), f.url(Large))
	if !errors.Is(err, schemes.ErrTooLarge) {
		t.Fatalf("%d bytes, %v; want the limit kind", len(got), err)
	}
	if len(got) > SizeLimit {
		t.Fatalf("%d bytes delivered past a limit of %d", len(got), SizeLimit)
	}
}

// cut fetches from a server that closes mid-transfer.
func (c *check) cut(t *testing.T) {
	f := c.setup(t, nil)
	for _, u := range f.withCredentials(f.url(Cut)) {
		got, err := f.drain(context.Background(), u)
		if !errors.Is(err, schemes.ErrInterrupted) {
			t.Fatalf("%s: %d bytes, %v; want the interrupted kind", u, len(got), err)
		}
		if !bytes.HasPrefix(CutHead, got) {
			t.Errorf("%s: delivered bytes the server never sent", u)
		}
		noSecret(t, err)
	}
}

// plan asks for the plan of every URL of the scheme and checks that
// nothing was dialled.
func (c *check) plan(t *testing.T) {
	d := &refusingDialer{}
	f := c.setup(t, func(o *fetch.Options) { o.Dialer = d })
	for _, o := range []Object{Small, Missing, Listing, Large, Stall, Cut, Gated} {
		u := f.a.URL(f.addr, o)
		if u == "" {
			continue
		}
		if _, err := f.client.Plan(&fetch.Request{URL: u}); err != nil {
			checkKind(t, err)
		}
	}
	if n := d.count(); n > 0 {
		t.Fatalf("Plan dialled %d time(s)", n)
	}
}

// withCredentials returns u, and u with a user and the suite's secret
// password where the scheme's URLs carry them.
func (f *fixture) withCredentials(u string) []string {
	if f.a.NoCredentials {
		return []string{u}
	}
	p, err := schemes.Parse(u)
	if err != nil || p.Host == "" {
		return []string{u}
	}
	p.User, p.Password, p.HasUser, p.HasPassword = "conformance", secret, true, true
	return []string{u, p.String()}
}

// checkKind fails t unless err matches one of the error kinds.
func checkKind(t *testing.T, err error) {
	t.Helper()
	for _, k := range schemes.Kinds {
		if errors.Is(err, k) {
			return
		}
	}
	t.Errorf("error without a kind: %v", err)
}

func noSecret(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("the password appears in the error: %v", err)
	}
}

// refusingDialer counts dials and refuses them.
type refusingDialer struct {
	mu sync.Mutex
	n  int
}

func (d *refusingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.n++
	d.mu.Unlock()
	return nil, errors.New("the plan dialled " + addr)
}

func (d *refusingDialer) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	return testcert.T(t, "conformance")
}
