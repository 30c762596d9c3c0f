// Package http is gofer's fetcher for http and https URLs (RFC 1738 §3.3)
// on net/http, speaking HTTP/1.1 (RFC 9110 semantics, RFC 9112 messages).
//
// Every connection goes through Request.Dialer, which also reaches any proxy
// (SOCKS5 or an HTTP CONNECT tunnel, named by the caller or by the
// environment), and TLS uses Request.TLSConfig. The request target is the
// URL's path and search part as written, with only the octets that may not
// appear raw on the wire escaped; the fragment is never sent. Redirects are not followed here: a 3xx comes
// back as schemes.KindRedirect and the fetch package applies its policy.
package http

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	nethttp "net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Fetcher retrieves http and https URLs. It keeps idle connections for reuse
// across fetches that share a Dialer, TLS configuration and idle timeout;
// Close releases them. The zero value is usable and safe for concurrent use.
type Fetcher struct {
	mu         sync.Mutex
	transports map[transportKey]*nethttp.Transport
}

type transportKey struct {
	dialer  schemes.Dialer
	tls     *tls.Config
	idle    time.Duration
	capture bool // connections that record what crosses them (capture.go)
}

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
	_ schemes.Closer  = (*Fetcher)(nil)
)

// Close closes the idle connections the Fetcher keeps.
func (f *Fetcher) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, t := range f.transports {
		t.CloseIdleConnections()
		delete(f.transports, k)
	}
	return nil
}

// Plan returns the request line a fetch would send, and the Host header.
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	u := req.URL
	if u == nil || u.HTTP == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "not an http URL")
	}
	plan := &schemes.Plan{
		Requests: []string{"GET " + requestTarget(u.HTTP) + " HTTP/1.1"},
		Notes:    map[string]string{"host": "Host: " + hostHeader(u)},
	}
	if req.Offset > 0 {
		plan.Notes["range"] = fmt.Sprintf("Range: bytes=%d-", req.Offset)
	}
	return plan, nil
}

// Fetch sends one GET and returns the response without following redirects.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	u := req.URL
	if u == nil || u.HTTP == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "not an http URL")
	}
	// The guard has checked these already; check again where they are
	// written, so that no caller can bypass it.
	if err := security.CheckLine("http path", schemes.Decode(u.HTTP.Path)); err != nil {
		return nil, err
	}
	if err := security.CheckLine("http search", schemes.Decode(u.HTTP.Search)); err != nil {
		return nil, err
	}
	hreq, err := newRequest(ctx, req)
	if err != nil {
		return nil, err
	}
	what := "GET " + u.Scheme + "://" + hostHeader(u) + requestTarget(u.HTTP)
	transcriptRequest(req.Transcript, hreq)

	var wc *wireCapture
	if req.Capture != nil {
		wc = newWireCapture(req)
		hreq = tapped(hreq, wc)
	}
	resp, err := f.client(req, wc != nil).Do(hreq)
	if err != nil {
		return nil, classify(err, what)
	}
	transcriptResponse(req.Transcript, resp)
	r, err := response(req, resp, what)
	b, streaming := bodyOf(r).(*body)
	if err != nil || !streaming {
		// Drain a little so a short redirect or error page leaves the
		// connection reusable.
		_, derr := io.CopyN(io.Discard, resp.Body, 64<<10)
		resp.Body.Close()
		if wc != nil && derr == io.EOF {
			wc.commitResponse()
		}
	} else if wc != nil {
		b.rc = &captureBody{ReadCloser: b.rc, w: wc}
	}
	return r, err
}

func bodyOf(r *schemes.Response) io.ReadCloser {
	if r == nil {
		return nil
	}
	return r.Body
}

// newRequest builds the GET. The path goes in RawPath so that net/http sends
// it exactly as escapeWire wrote it (an escaped slash stays escaped).
func newRequest(ctx context.Context, req *schemes.Request) (*nethttp.Request, error) {
	u := req.URL
	wp := wirePath(u.HTTP)
	target := &url.URL{
		Scheme:  u.Scheme,
		Host:    hostHeader(u),
		Path:    schemes.Decode(wp),
		RawPath: wp,
	}
	if u.HTTP.HasSearch {
		target.RawQuery = wireSearch(u.HTTP)
		target.ForceQuery = target.RawQuery == ""
	}
	// The target is handed over as built, not as a string net/http would
	// parse a second time.
	hreq, err := nethttp.NewRequestWithContext(ctx, nethttp.MethodGet, "", nil)
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "cannot make a request for %s://%s: %w", u.Scheme, hostHeader(u), err)
	}
	hreq.URL, hreq.Host = target, target.Host
	hreq.Header.Set("User-Agent", "gofer")
	switch {
	case req.Length > 0:
		// RFC 9110 §14.1.2: the last byte position is inclusive.
		hreq.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", max(req.Offset, 0), max(req.Offset, 0)+req.Length-1))
	case req.Offset > 0:
		hreq.Header.Set("Range", fmt.Sprintf("bytes=%d-", req.Offset))
	}
	if !req.IfModifiedSince.IsZero() {
		hreq.Header.Set("If-Modified-Since", req.IfModifiedSince.UTC().Format(nethttp.TimeFormat))
	}
	return hreq, nil
}

// client returns a client on a transport for req's dialer and TLS settings.
// When the dialer cannot be a map key, the transport serves this one fetch
// and keeps no connection.
func (f *Fetcher) client(req *schemes.Request, capture bool) *nethttp.Client {
	d := dial.Default(req.Dialer)
	idle := req.Idle()
	build := newTransport
	if capture {
		build = newCaptureTransport
	}
	var t *nethttp.Transport
	if reflect.TypeOf(d).Comparable() {
		key := transportKey{dialer: d, tls: req.TLSConfig, idle: idle, capture: capture}
		f.mu.Lock()
		t = f.transports[key]
		if t == nil {
			t = build(d, req.TLSConfig, idle)
			if f.transports == nil {
				f.transports = make(map[transportKey]*nethttp.Transport)
			}
			f.transports[key] = t
		}
		f.mu.Unlock()
	} else {
		t = build(d, req.TLSConfig, idle)
		t.DisableKeepAlives = true
	}
	return &nethttp.Client{
		Transport: t,
		// The fetch package owns the redirect policy (count, schemes, guard).
		CheckRedirect: func(*nethttp.Request, []*nethttp.Request) error { return nethttp.ErrUseLastResponse },
	}
}

func newTransport(d schemes.Dialer, tlsConfig *tls.Config, idle time.Duration) *nethttp.Transport {
	var tc *tls.Config
	if tlsConfig != nil {
		tc = tlsConfig.Clone()
	}
	return &nethttp.Transport{
		// No Proxy: the dialer tunnels through any proxy, so requests
		// are always in origin form.
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return dial.IdleConn(c, idle), nil
		},
		TLSClientConfig:       tc,
		TLSHandshakeTimeout:   idle,
		ResponseHeaderTimeout: idle,
		// Bytes as the server stores them: a resumed or hashed file must
		// not be a transparently decompressed one.
		DisableCompression:  true,
		MaxIdleConnsPerHost: 4,
		IdleConnTimeout:     90 * time.Second,
		// A header block is a few kilobytes; net/http's 10 MiB default
		// would let an endless header line grow the process that far.
		MaxResponseHeaderBytes: maxHeaderBytes,
	}
}

// maxHeaderBytes bounds a response's header block.
const maxHeaderBytes = 256 << 10

// response turns the server's answer into a schemes.Response.
func response(req *schemes.Request, resp *nethttp.Response, what string) (*schemes.Response, error) {
	statusLine := resp.Proto + " " + resp.Status
	r := &schemes.Response{
		URL:       req.URL,
		Kind:      schemes.KindFile,
		Size:      -1,
		Name:      lastSegment(req.URL.HTTP),
		Status:    statusLine,
		MediaType: mediaType(resp.Header.Get("Content-Type")),
	}
	r.Type = typeWord(r.MediaType)
	if lm := resp.Header.Get("Last-Modified"); lm != "" {
		if t, err := nethttp.ParseTime(lm); err == nil {
			r.Modified = t
		}
	}
	code := resp.StatusCode
	switch {
	case code == nethttp.StatusNotModified:
		r.NotModified = true
		r.Body = nethttp.NoBody
		return r, nil
	case code >= 300 && code < 400:
		loc := resp.Header.Get("Location")
		if loc == "" {
			return nil, schemes.Errorf(schemes.ErrRefused, "%s: %s without a Location", what, statusLine)
		}
		r.Kind = schemes.KindRedirect
		r.Location = loc
		return r, nil
	case code == nethttp.StatusRequestedRangeNotSatisfiable && req.Offset > 0:
		// Resuming a file that is already complete: nothing is left to send.
		if _, _, total, ok := contentRange(resp.Header.Get("Content-Range")); ok && total == req.Offset {
			r.Body = nethttp.NoBody
			r.Offset = req.Offset
			r.Size = total
			return r, nil
		}
		return nil, schemes.Errorf(schemes.ErrRefused, "%s: %s", what, statusLine)
	case code >= 400:
		// 5xx and 429 (RFC 6585 §4) are worth another try; the rest is final.
		reply := &schemes.ReplyError{Code: code, Transient: code >= 500 || code == nethttp.StatusTooManyRequests}
		return nil, schemes.ReplyErrorf(schemes.ErrRefused, reply, "%s: %s", what, statusLine)
	case code == nethttp.StatusPartialContent:
		first, _, total, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok {
			return nil, schemes.Errorf(schemes.ErrRefused, "%s: 206 with a bad Content-Range %q", what, resp.Header.Get("Content-Range"))
		}
		if first != req.Offset {
			return nil, schemes.Errorf(schemes.ErrRefused, "%s: asked for byte %d on, the server sent from byte %d", what, req.Offset, first)
		}
		r.Offset = first
		r.Size = total
	default:
		// A 200 to a Range request is the whole resource from byte 0.
		r.Size = resp.ContentLength
	}
	if err := schemes.CheckSize(what, req.MaxBytes, resp.ContentLength, 0); err != nil {
		return nil, err
	}
	r.Body = &body{rc: resp.Body, what: what}
	return r, nil
}

// contentRange parses "bytes FIRST-LAST/TOTAL" (RFC 9110 §14.4) and the
// unsatisfied form "bytes */TOTAL"; total is -1 when given as "*".
func contentRange(v string) (first, last, total int64, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(v), "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	total = -1
	if tot != "*" {
		n, err := strconv.ParseInt(tot, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, 0, false
		}
		total = n
	}
	if rng == "*" {
		return 0, 0, total, total >= 0
	}
	a, b, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, 0, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || first < 0 || last < first {
		return 0, 0, 0, false
	}
	return first, last, total, true
}

func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

// typeWord maps a media type onto the entry type words of the contract.
func typeWord(mt string) string {
	switch {
	case mt == "":
		return schemes.TypeFile
	case mt == "text/html", mt == "application/xhtml+xml":
		return schemes.TypeHTML
	case strings.HasPrefix(mt, "text/"):
		return schemes.TypeText
	case strings.HasPrefix(mt, "image/"):
		return schemes.TypeImage
	case strings.HasPrefix(mt, "audio/"):
		return schemes.TypeAudio
	}
	return schemes.TypeBinary
}

// classify maps a failed round trip onto gofer's error kinds.
func classify(err error, what string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	switch {
	case errors.As(err, &certErr):
		return schemes.Errorf(schemes.ErrConnect, "%s: TLS certificate not accepted: %w", what, err)
	case errors.As(err, &recErr):
		return schemes.Errorf(schemes.ErrRefused, "%s: the server does not speak TLS: %w", what, err)
	case strings.Contains(err.Error(), "malformed HTTP"):
		return schemes.Errorf(schemes.ErrRefused, "%s: protocol error: %w", what, err)
	case strings.Contains(err.Error(), "server response headers exceeded"):
		return schemes.Errorf(schemes.ErrTooLarge, "%s: response header longer than the limit of %d bytes", what, maxHeaderBytes)
	}
	return dial.Classify(err, what)
}

// body streams the response body, mapping read failures onto error kinds.
// A body that grows past MaxBytes is the caller's to stop.
type body struct {
	rc   io.ReadCloser
	what string
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	return n, b.wrap(err)
}

func (b *body) wrap(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return dial.Classify(err, b.what+": read body")
}

func (b *body) Close() error { return b.rc.Close() }
