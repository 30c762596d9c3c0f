package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/ftp"
	"github.com/goferurl/gofer/schemes/mailto"
	"github.com/goferurl/gofer/schemes/nntp"
	"github.com/goferurl/gofer/schemes/prospero"
	"github.com/goferurl/gofer/security"
)

// Response and Entry are the scheme contract's types.
type (
	Response = schemes.Response
	Entry    = schemes.Entry
)

// ErrUnsupportedScheme is the kind of error Do returns for a scheme with no
// registered fetcher.
var ErrUnsupportedScheme = schemes.ErrUnsupportedScheme

// DefaultMaxRedirects is how many redirects Do follows when
// Options.MaxRedirects is 0.
const DefaultMaxRedirects = 10

// Options configure a Client. The zero value is usable, and reads nothing
// from the environment: OptionsFromEnvironment gives the settings a
// person's environment names, as a command-line tool takes them.
type Options struct {
	// Warn receives warnings (non-default port, password in URL); nil discards them.
	Warn func(string)
	// AllowPorts lifts the port refusal for these ports.
	AllowPorts []int
	// ConnectTimeout bounds establishing a connection (0: 30 s).
	ConnectTimeout time.Duration
	// IdleTimeout is the per-operation deadline (0: schemes.DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxBytes stops a transfer that grows past it (0: no limit).
	MaxBytes int64
	// MaxLineLength and MaxEntries bound protocol lines and listings (0: defaults).
	MaxLineLength int
	MaxEntries    int
	// MaxRedirects bounds redirects (0: DefaultMaxRedirects); a negative
	// value follows none and returns the redirect response itself.
	MaxRedirects int
	// Dialer opens every connection; nil means a *dial.Dialer with
	// ConnectTimeout and Proxy, or, with ProxyFromEnvironment, the proxy
	// settings of the environment (<scheme>_proxy, ALL_PROXY, NO_PROXY)
	// when Proxy is "".
	Dialer schemes.Dialer
	// Proxy is a proxy URL for every connection when Dialer is nil:
	// "socks5://[user:password@]host[:port]" or "http://host[:port]" (CONNECT).
	Proxy string
	// ProxyFromEnvironment takes the proxy of each connection from the
	// environment when Proxy is "" and Dialer is nil.
	ProxyFromEnvironment bool
	// RemoteCharset is the charset the servers spell names in ("latin1",
	// "cp437", "shift_jis", ...; see CheckCharset); "" keeps names as
	// bytes. Listing entries' Name and a response's Name are read in it,
	// and a URL's names that are UTF-8 text are written in it on the wire;
	// entry URLs keep the server's bytes. An unknown charset fails every
	// Do and Plan with an error of kind schemes.ErrUsage.
	RemoteCharset string
	// Netrc is a netrc file to take logins from; "" means none.
	Netrc string
	// Prompt asks the person at a terminal; nil means there is none.
	Prompt func(question string, secret bool) (string, error)
	// TLSConfig is used for TLS connections; nil means the system's defaults.
	TLSConfig *tls.Config
	// Transcript receives the wire conversation with passwords masked.
	Transcript io.Writer
	// Fetchers are fetchers already configured, by scheme: each replaces
	// the one NewClient would register for its scheme, and a scheme gofer
	// does not ship is added. The settings of one protocol live on its
	// fetcher (ftp.Fetcher's Email, nntp.Fetcher's Server, mailto.Fetcher's
	// SMTPServer and From, gemini.Fetcher's trust); SetFetcher puts one
	// fetcher under every scheme it serves. A shipped fetcher registered
	// for two schemes (ftp and ftps) is replaced for the schemes named only.
	Fetchers map[string]schemes.Fetcher
	// Capture, when set, starts the capture of each fetch Do makes (a
	// WARC archive: warc.Writer.Capture), given the URL with its password
	// masked; a Request's own Capture takes precedence. The capture ends
	// when the response is closed.
	Capture func(url string) CaptureCloser
}

// SetFetcher has a Client of o use f for each of the schemes, in place of
// the fetcher NewClient would register for them; a scheme package's
// Schemes function names all it serves:
//
//	opts.SetFetcher(&ftp.Fetcher{Email: "me@example.org"}, ftp.Schemes()...)
func (o *Options) SetFetcher(f schemes.Fetcher, scheme ...string) {
	if o.Fetchers == nil {
		o.Fetchers = map[string]schemes.Fetcher{}
	}
	for _, s := range scheme {
		o.Fetchers[strings.ToLower(s)] = f
	}
}

// Request is one retrieval: its URL and what the call asks beyond it,
// the schemes.Call every fetcher sees as it is (where to start and how
// much to read, a condition, a search or form, what to ask the server
// besides the bytes, a capture that learns of every connection opened,
// and the typed views of one scheme's call: an article's part in News, a
// message's text and headers in Mail). What holds for every call of a
// Client is in its Options.
type Request struct {
	URL string
	// Parsed, when not nil, is the URL already parsed (by ParseURL), so
	// that a caller that looked at it first does not parse it twice: Do
	// and Plan use it and ignore URL. It is guarded all the same, and
	// never modified.
	Parsed *schemes.URL
	schemes.Call

	// quiet drops the warnings of a fetch that repeats one whose
	// warnings were given (a later stream of a Download).
	quiet bool
}

// Client retrieves URLs. It is safe for concurrent use once configured:
// Register every scheme before the first Do.
type Client struct {
	opts     Options
	fetchers map[string]schemes.Fetcher
	dialer   schemes.Dialer

	// settings holds the Settings of each scheme's fetches, made once
	// (settingsFor), so that every Request of the client points at the
	// same ones and a fetcher that pools connections by dialer (HTTP,
	// FTP) keeps reusing them.
	settingsMu sync.Mutex
	settings   map[string]*schemes.Settings

	netrc func() (*netrcFile, error)

	// charset converts names (Options.RemoteCharset); nil keeps bytes.
	// charsetErr is its lookup's failure, which every call reports.
	charset    *remoteCharset
	charsetErr error
}

// NewClient returns a Client with every shipped scheme registered.
func NewClient(opts Options) *Client {
	c := newClient(opts)
	registerShipped(c)
	return c
}

// newClient returns a Client with no scheme registered.
func newClient(opts Options) *Client {
	c := &Client{opts: opts, fetchers: map[string]schemes.Fetcher{}}
	c.dialer = opts.Dialer
	if c.dialer == nil {
		c.dialer = &dial.Dialer{ConnectTimeout: opts.ConnectTimeout, Proxy: opts.Proxy, Environment: opts.ProxyFromEnvironment}
	}
	c.netrc = sync.OnceValues(func() (*netrcFile, error) { return loadNetrc(opts.Netrc) })
	c.charset, c.charsetErr = newRemoteCharset(opts.RemoteCharset)
	return c
}

// Register adds a fetcher for scheme (e.g. an "x-" scheme), in any case:
// schemes are case-insensitive (RFC 1738 §2.1) and looked up in lower
// case. It panics if the scheme already has one, as net/http's
// RegisterProtocol does.
func (c *Client) Register(scheme string, f schemes.Fetcher) {
	scheme = strings.ToLower(scheme)
	if _, dup := c.fetchers[scheme]; dup {
		panic("fetch: Register called twice for scheme " + scheme)
	}
	c.fetchers[scheme] = f
}

// Fetcher returns the fetcher registered for scheme, nil when none is.
func (c *Client) Fetcher(scheme string) schemes.Fetcher {
	return c.fetchers[strings.ToLower(scheme)]
}

// Get retrieves rawURL.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	return c.Do(ctx, &Request{URL: rawURL})
}

// Do retrieves r.URL with r's settings: it parses the URL, applies the
// security guard before any connection is opened, hands the URL to its
// scheme's fetcher, follows redirects (to http, https and ftp only, each hop
// guarded again) and bounds a file's body by Options.MaxBytes. Every error
// is a *Error whose cause matches one of the schemes error kinds,
// security.ErrPort, security.ErrInjection or security.ErrRedirect, or is a
// *schemes.ParseError.
func (c *Client) Do(ctx context.Context, r *Request) (*Response, error) {
	u, err := r.parse()
	if err == nil {
		err = c.charsetErr
	}
	if err != nil {
		return nil, &Error{Op: "get", URL: security.RedactURL(r.URL), Err: err}
	}
	if c.opts.Capture != nil && r.Capture == nil {
		return c.doCaptured(ctx, r, u)
	}
	return c.follow(ctx, r, u)
}

// parse returns r.Parsed, or r.URL parsed.
func (r *Request) parse() (*schemes.URL, error) {
	if r.Parsed != nil {
		return r.Parsed, nil
	}
	return ParseURL(r.URL)
}

// ParseURL parses raw as Do and Plan do: a raw CR, LF or NUL in it is the
// guard's refusal (security.ErrInjection), not only a syntax error.
func ParseURL(raw string) (*schemes.URL, error) {
	u, err := schemes.Parse(raw)
	if err != nil {
		if rerr := security.CheckRaw(raw); rerr != nil {
			return nil, rerr
		}
		return nil, err
	}
	return u, nil
}

// fetchOne guards u with g and fetches it with its scheme's fetcher. With
// a remote charset, the fetcher sees u's names in it (the guard checks
// what is sent) and the response's names come back read in it.
func (c *Client) fetchOne(ctx context.Context, r *Request, u *schemes.URL, g *security.Guard) (*Response, error) {
	req, f, err := c.prepare(r, u, g)
	if err != nil {
		return nil, err
	}
	resp, err := f.Fetch(ctx, req)
	if err == nil && resp == nil {
		// The contract says a nil error comes with a response; a fetcher
		// that breaks it must not make callers dereference nil.
		return nil, fmt.Errorf("%s fetcher returned neither a response nor an error", u.Scheme)
	}
	if err != nil {
		return nil, err
	}
	return withPage(c.charset.fromRemote(resp), req), nil
}

// prepare converts u's names to the remote charset, guards the result
// with g, and builds the request its scheme's fetcher gets.
func (c *Client) prepare(r *Request, u *schemes.URL, g *security.Guard) (*schemes.Request, schemes.Fetcher, error) {
	u, err := c.charset.toRemote(u)
	if err != nil {
		return nil, nil, err
	}
	if err := g.Check(u); err != nil {
		return nil, nil, err
	}
	f, ok := c.fetchers[u.Scheme]
	if !ok {
		return nil, nil, schemes.Errorf(schemes.ErrUnsupportedScheme, "unsupported scheme %q", u.Scheme)
	}
	req, err := c.schemeRequest(r, u, g)
	if err != nil {
		return nil, nil, err
	}
	if c.charset != nil && u.Gopher != nil && req.HasQuery {
		// A search is text typed here, sent beside the selector.
		if req.Query, err = c.charset.encodePart("", req.Query); err != nil {
			return nil, nil, err
		}
	}
	return req, f, nil
}

// guardFor returns the guard of one Do or Plan call. It sends each distinct
// warning once, so that the hops of a redirect chain do not repeat the same
// port or password warning.
func (c *Client) guardFor(collect func(string)) *security.Guard {
	seen := map[string]bool{}
	var mu sync.Mutex
	return &security.Guard{AllowPorts: c.opts.AllowPorts, Warn: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		if seen[s] {
			return
		}
		seen[s] = true
		if collect != nil {
			collect(s)
		}
		if c.opts.Warn != nil {
			c.opts.Warn(s)
		}
	}}
}

// schemeRequest builds what a fetcher sees: the URL, r's Call as it is,
// the guard g of the call (whose Check and Warn the fetcher gets) and the
// Settings of the client for u's scheme.
func (c *Client) schemeRequest(r *Request, u *schemes.URL, g *security.Guard) (*schemes.Request, error) {
	st, err := c.settingsFor(u.Scheme)
	if err != nil {
		return nil, err
	}
	req := &schemes.Request{URL: u, Call: r.Call, CheckURL: g.Check, CheckPort: g.CheckServerPort, Warn: g.Warn, Settings: st}
	withCapture(req, r.Capture)
	return req, nil
}

// settingsFor returns the Settings of the client's fetches of scheme,
// made from the Options the first time: a *dial.Dialer learns the scheme,
// which picks its proxy (<scheme>_proxy; the guard has checked the
// target, and the proxy is the user's own choice, not checked), and the
// netrc file is read once.
func (c *Client) settingsFor(scheme string) (*schemes.Settings, error) {
	nf, err := c.netrc()
	if err != nil {
		return nil, err
	}
	c.settingsMu.Lock()
	defer c.settingsMu.Unlock()
	if st := c.settings[scheme]; st != nil {
		return st, nil
	}
	o := &c.opts
	st := &schemes.Settings{Dialer: c.dialer, TLSConfig: o.TLSConfig, Prompt: o.Prompt,
		MaxBytes: o.MaxBytes, MaxLineLength: o.MaxLineLength, MaxEntries: o.MaxEntries, IdleTimeout: o.IdleTimeout,
		RemoteCharset: c.charset.remoteName(), Transcript: o.Transcript}
	if d, ok := c.dialer.(*dial.Dialer); ok {
		st.Dialer = d.For(scheme)
	}
	if nf != nil {
		st.Credentials = nf.login
	}
	if c.settings == nil {
		c.settings = map[string]*schemes.Settings{}
	}
	c.settings[scheme] = st
	return st, nil
}

// OptionsFromEnvironment returns the Options a person's environment
// names, as gofer's command line reads them: proxies from <scheme>_proxy,
// ALL_PROXY and NO_PROXY, and in Fetchers, under every scheme each
// serves, an ftp.Fetcher whose anonymous password is $EMAIL, an
// nntp.Fetcher whose news server is $NNTPSERVER, a mailto.Fetcher that
// sends from $EMAIL through $SMTP_SERVER, and a prospero.Fetcher that
// names the local part of $EMAIL as its user. An unset variable leaves
// its setting at the fetcher's default. Nothing else in the package reads
// the environment.
func OptionsFromEnvironment() Options {
	email := os.Getenv("EMAIL")
	o := Options{ProxyFromEnvironment: true}
	o.SetFetcher(&ftp.Fetcher{Email: email}, ftp.Schemes()...)
	o.SetFetcher(&nntp.Fetcher{Server: os.Getenv("NNTPSERVER")}, nntp.Schemes()...)
	o.SetFetcher(&mailto.Fetcher{SMTPServer: os.Getenv("SMTP_SERVER"), From: email}, mailto.Schemes()...)
	user, _, _ := strings.Cut(email, "@")
	o.SetFetcher(&prospero.Fetcher{User: user}, "prospero")
	return o
}

// Get retrieves rawURL with a Client of the environment's Options
// (OptionsFromEnvironment), as net/http's Get uses its default
// client's environment proxies. Closing the response,
// or whichever part of it outlives the call (Body, Listing or Session),
// also ends the connections that client kept.
func Get(ctx context.Context, rawURL string) (*Response, error) {
	return getOnce(ctx, NewClient(OptionsFromEnvironment()), rawURL)
}

// getOnce retrieves rawURL with c, which only the response then holds.
func getOnce(ctx context.Context, c *Client, rawURL string) (*Response, error) {
	resp, err := c.Get(ctx, rawURL)
	if err != nil {
		c.Close()
		return nil, err
	}
	if resp.Kind != schemes.KindFile && resp.Listing == nil && resp.Session == nil {
		// Metadata, a hand-off or a redirect holds no connection.
		c.Close()
		return resp, nil
	}
	done := &clientCloser{c: c}
	resp.Body = &closeAlso{ReadCloser: resp.Body, c: done}
	if resp.Listing != nil {
		resp.Listing = &listingCloseAlso{Listing: resp.Listing, c: done}
	}
	if resp.Session != nil {
		resp.Session = &sessionCloseAlso{Session: resp.Session, c: done}
	}
	return resp, nil
}

// clientCloser closes a one-off Client once, whichever part of its
// response is closed first.
type clientCloser struct {
	c    *Client
	once sync.Once
	err  error
}

func (x *clientCloser) Close() error {
	x.once.Do(func() { x.err = x.c.Close() })
	return x.err
}

// closeAlso and its kin close a one-off Client with the response part that
// outlives the call.
type closeAlso struct {
	io.ReadCloser
	c *clientCloser
}

func (x *closeAlso) Close() error { return errors.Join(x.ReadCloser.Close(), x.c.Close()) }

type listingCloseAlso struct {
	schemes.Listing
	c *clientCloser
}

func (x *listingCloseAlso) Close() error { return errors.Join(x.Listing.Close(), x.c.Close()) }

type sessionCloseAlso struct {
	schemes.Session
	c *clientCloser
}

func (x *sessionCloseAlso) Close() error { return errors.Join(x.Session.Close(), x.c.Close()) }

// Close ends the connections the fetchers keep for reuse.
func (c *Client) Close() error {
	var seen []schemes.Fetcher
	var errs []error
	for _, f := range c.fetchers {
		cl, ok := f.(schemes.Closer)
		if !ok || contains(seen, f) {
			continue
		}
		seen = append(seen, f)
		errs = append(errs, cl.Close())
	}
	return errors.Join(errs...)
}

// contains reports whether f is in list; one fetcher is often registered
// for several schemes (http and https) and must be closed once.
func contains(list []schemes.Fetcher, f schemes.Fetcher) bool {
	if !reflect.TypeOf(f).Comparable() {
		return false
	}
	for _, g := range list {
		if reflect.TypeOf(g) == reflect.TypeOf(f) && g == f {
			return true
		}
	}
	return false
}

// Schemes returns the schemes that have a registered fetcher, sorted.
func (c *Client) Schemes() []string {
	list := make([]string, 0, len(c.fetchers))
	for s := range c.fetchers {
		list = append(list, s)
	}
	slices.Sort(list)
	return list
}

// ConnLimit is how many connections at once the server at host and port
// was found to allow, for a scheme whose fetcher learns it
// (schemes.ConnLimiter, FTP's); 0 when none was learned.
func (c *Client) ConnLimit(scheme, host string, port int) int {
	if l, ok := c.fetchers[strings.ToLower(scheme)].(schemes.ConnLimiter); ok {
		return l.ConnLimit(host, port)
	}
	return 0
}

// DirTimesProbe reports what the scheme's fetcher found when it probed
// the server at host and port for directory times to the second
// (schemes.DirTimesProber); probed is false when it has not, or cannot.
func (c *Client) DirTimesProbe(scheme, host string, port int) (answers, probed bool) {
	if p, ok := c.fetchers[strings.ToLower(scheme)].(schemes.DirTimesProber); ok {
		return p.DirTimesProbe(host, port)
	}
	return false, false
}

// SetDirTimesProbe tells the scheme's fetcher what an earlier probe of the
// server at host and port found, so that it probes no more; it does
// nothing for a fetcher that does not probe.
func (c *Client) SetDirTimesProbe(scheme, host string, port int, answers bool) {
	if p, ok := c.fetchers[strings.ToLower(scheme)].(schemes.DirTimesProber); ok {
		p.SetDirTimesProbe(host, port, answers)
	}
}

// SetConnLimit keeps the scheme's fetcher to n connections at once to the
// server at host and port (a limit an earlier run learned); it does
// nothing for a fetcher that keeps no limits.
func (c *Client) SetConnLimit(scheme, host string, port, n int) {
	if l, ok := c.fetchers[strings.ToLower(scheme)].(schemes.ConnLimiter); ok {
		l.SetConnLimit(host, port, n)
	}
}
