// Package fetch is gofer's front door: a Client that retrieves whatever an
// RFC 1738 URL names by speaking that URL's protocol, with the security
// guard applied before any connection is opened.
package fetch

import (
	"context"
	"crypto/tls"
	"io"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// Response and Entry are the scheme contract's types.
type (
	Response = schemes.Response
	Entry    = schemes.Entry
)

// Options configure a Client. The zero value is usable.
type Options struct {
	// Warn receives warnings (non-default port, password in URL); nil discards them.
	Warn func(string)
	// AllowPorts lifts the port refusal for these ports.
	AllowPorts []int
	// Email is the anonymous FTP password; "" means $EMAIL, else user@hostname.
	Email string
	// ConnectTimeout bounds establishing a connection (0: 30 s).
	ConnectTimeout time.Duration
	// IdleTimeout is the per-operation deadline (0: schemes.DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxBytes stops a transfer that grows past it (0: no limit).
	MaxBytes int64
	// MaxLineLength and MaxEntries bound protocol lines and listings (0: defaults).
	MaxLineLength int
	MaxEntries    int
	// MaxRedirects bounds HTTP redirects (0: 10).
	MaxRedirects int
	// Dialer opens every connection; nil means a dial.Dialer from ConnectTimeout.
	Dialer *dial.Dialer
	// NNTPServer is "host[:port]" for news: URLs; "" means $NNTPSERVER.
	NNTPServer string
	// Netrc is a netrc file to take logins from; "" means none.
	Netrc string
	// Prompt asks the person at a terminal; nil means there is none.
	Prompt func(question string, secret bool) (string, error)
	// TLSConfig is used for TLS connections; nil means the system's defaults.
	TLSConfig *tls.Config
	// RequireTLS asks for explicit TLS (FTP AUTH TLS, NNTP STARTTLS).
	RequireTLS bool
	// AutoLogin and Linger configure telnet sessions.
	AutoLogin bool
	Linger    time.Duration
	// Transcript receives the wire conversation with passwords masked.
	Transcript io.Writer
}

// Request is one retrieval with its per-call settings.
type Request struct {
	URL string
	// Offset resumes from this byte.
	Offset int64
	// Query answers a search; HasQuery says it was given.
	Query    string
	HasQuery bool
	// Form holds +ASK answers as "NAME=VALUE".
	Form []string
	// Part asks for "head" or "body" of an article.
	Part string
	// IfModifiedSince asks for the body only if it changed after this time.
	IfModifiedSince time.Time
}

// Client retrieves URLs. It is safe for concurrent use once configured.
type Client struct {
	opts     Options
	fetchers map[string]schemes.Fetcher
}

// NewClient returns a Client with every shipped scheme registered.
func NewClient(opts Options) *Client {
	c := &Client{opts: opts, fetchers: map[string]schemes.Fetcher{}}
	registerShipped(c)
	return c
}

// Register adds a fetcher for scheme (e.g. an "x-" scheme). It panics if the
// scheme already has one, as net/http's RegisterProtocol does.
func (c *Client) Register(scheme string, f schemes.Fetcher) {
	if _, dup := c.fetchers[scheme]; dup {
		panic("fetch: Register called twice for scheme " + scheme)
	}
	c.fetchers[scheme] = f
}

// Get retrieves rawURL.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	return c.Do(ctx, &Request{URL: rawURL})
}

// Do retrieves r.URL with r's settings.
func (c *Client) Do(ctx context.Context, r *Request) (*Response, error) {
	return nil, &Error{Op: "get", URL: r.URL, Err: schemes.ErrUnsupportedScheme}
}

// Get retrieves rawURL with a Client of zero Options.
func Get(ctx context.Context, rawURL string) (*Response, error) {
	return NewClient(Options{}).Get(ctx, rawURL)
}

// Error is a failed retrieval: the operation, the URL with its password
// redacted, and the cause.
type Error struct {
	Op  string
	URL string
	Err error
}

func (e *Error) Error() string { return e.Op + " " + e.URL + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }
