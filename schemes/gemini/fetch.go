package gemini

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// MaxRequest is the longest request line, without its CR LF, and the
// longest META a status line may carry.
const MaxRequest = 1024

// Trust says how a Fetcher decides whether to believe a server's
// certificate.
type Trust int

const (
	// TrustTOFU pins the first certificate each server presents
	// (KnownHosts) and refuses another one later.
	TrustTOFU Trust = iota
	// TrustCA verifies the certificate against certificate authorities
	// (Request.TLSConfig's RootCAs, else the system's), as HTTPS does.
	TrustCA
)

// Fetcher retrieves gemini URLs. Its settings are fixed before the first
// Fetch; one Fetcher then serves any number of concurrent fetches.
type Fetcher struct {
	// Trust picks trust on first use (the zero value) or CA verification.
	Trust Trust
	// KnownHosts holds the pins of TrustTOFU; nil means pins kept in
	// memory for the Fetcher's life.
	KnownHosts *KnownHosts
	// AcceptNew pins a server's new certificate in place of the old one
	// instead of refusing it.
	AcceptNew bool
	// Identity is the client certificate offered to every server that
	// asks for one; nil offers none unless the server has its own.
	Identity *tls.Certificate
	// Identities is a directory of servers' own identities, one PEM file
	// (certificate and key) per server, named HOST:PORT.pem; a server's
	// own is offered in place of Identity, and CertRequiredError's
	// NewIdentity keeps the ones it makes there. "" means none.
	Identities string

	mu         sync.Mutex
	identities map[string]*tls.Certificate // "host:port"
	sessions   tls.ClientSessionCache
	memPins    *KnownHosts
}

// New returns a Fetcher that trusts on first use with pins in memory.
func New() *Fetcher { return &Fetcher{} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
)

// SetIdentity offers cert to the server at hostport ("host:port") in
// place of Identity; nil takes the server's own identity away again.
func (f *Fetcher) SetIdentity(hostport string, cert *tls.Certificate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.identities == nil {
		f.identities = map[string]*tls.Certificate{}
	}
	// nil is kept: the server has no identity of its own, not even a
	// stored one.
	f.identities[hostport] = cert
}

func (f *Fetcher) identityFor(hostport string) *tls.Certificate {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.identities[hostport]; c != nil {
		return c
	}
	if _, tried := f.identities[hostport]; !tried {
		// The stored one, read once: nil is remembered as "none".
		if f.identities == nil {
			f.identities = map[string]*tls.Certificate{}
		}
		c := f.storedIdentity(hostport)
		f.identities[hostport] = c
		if c != nil {
			return c
		}
	}
	return f.Identity
}

func (f *Fetcher) sessionCache() tls.ClientSessionCache {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sessions == nil {
		f.sessions = tls.NewLRUClientSessionCache(256)
	}
	return f.sessions
}

func (f *Fetcher) pins() *KnownHosts {
	if f.KnownHosts != nil {
		return f.KnownHosts
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.memPins == nil {
		f.memPins = &KnownHosts{}
	}
	return f.memPins
}

// Plan reports the request line a fetch would send first.
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	line, err := requestLine(req.URL)
	if err != nil {
		return nil, err
	}
	trust := "certificate pinned at first use"
	if f.Trust == TrustCA {
		trust = "certificate verified against certificate authorities"
	}
	return &schemes.Plan{Requests: []string{line}, Notes: map[string]string{"trust": trust}}, nil
}

// requestLine is the line a request for u sends, without CR LF: the URL
// in canonical form with no fragment, refused when it holds a login (a
// gemini URL has none) or is longer than MaxRequest.
func requestLine(u *schemes.URL) (string, error) {
	if u.HTTP == nil {
		return "", schemes.Errorf(schemes.ErrUsage, "not a gemini URL")
	}
	if u.HasUser || u.HasPassword {
		return "", schemes.Errorf(schemes.ErrUsage, "a gemini URL has no user or password")
	}
	c := *u
	c.Fragment, c.HasFragment = "", false
	if c.HTTP.Path == "" {
		h := *c.HTTP
		h.Path = "/"
		c.HTTP = &h
	}
	line := c.String()
	if len(line) > MaxRequest {
		return "", schemes.Errorf(schemes.ErrUsage, "gemini request of %d bytes: the limit is %d", len(line), MaxRequest)
	}
	return line, nil
}

// Fetch retrieves req.URL: a success as a streamed Body (a text/gemini
// page included; NewListing reads its lines), a redirect as KindRedirect.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	u := req.URL
	answered := u.HTTP != nil && u.HTTP.HasSearch
	for {
		line, err := requestLine(u)
		if err != nil {
			return nil, err
		}
		c, st, err := f.exchange(ctx, req, u, line)
		if err != nil {
			return nil, err
		}
		if st.class() != 1 {
			return f.respond(req, u, c, st)
		}
		// The prompt is the whole response: record it beside its request.
		if c.resp != nil {
			c.resp.Commit()
		}
		c.Close()
		if answered {
			return nil, schemes.Errorf(schemes.ErrRefused, "gemini server asked for input again after it was given: %s", st.text())
		}
		answer, err := input(req, st)
		if err != nil {
			return nil, err
		}
		next := withQuery(u, answer)
		if req.CheckURL != nil {
			if err := req.CheckURL(next); err != nil {
				return nil, err
			}
		}
		u, answered = next, true
	}
}

// input finds the answer to an input request: the query given, else the
// first form answer, else the person at the terminal (without echo for
// sensitive input, 11).
func input(req *schemes.Request, st status) (string, error) {
	switch {
	case req.HasQuery:
		return req.Query, nil
	case len(req.Form) > 0:
		_, v, ok := strings.Cut(req.Form[0], "=")
		if !ok {
			v = req.Form[0]
		}
		return v, nil
	case req.Prompt != nil:
		q := st.meta
		if q == "" {
			q = "Input"
		}
		return req.Prompt(lineproto.ServerText(q)+": ", st.code == 11)
	}
	return "", &InputError{Protocol: "gemini", Prompt: st.meta, Sensitive: st.code == 11}
}

// InputError is an input request (1x) that nothing answered: no query,
// form answer or prompt was given. It is the contract's, and matches
// schemes.ErrUsage. A walker that meets one (a mirror) records the page as
// asking for input.
type InputError = schemes.InputError

// withQuery is u with its query replaced by answer, percent-encoded.
func withQuery(u *schemes.URL, answer string) *schemes.URL {
	c := *u
	h := *u.HTTP
	h.Search, h.HasSearch = escapeQuery(answer), true
	c.HTTP = &h
	return &c
}

// escapeQuery percent-encodes an answer for a URL's query: everything but
// RFC 3986's unreserved characters, so that a space is %20, never '+'.
func escapeQuery(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' ||
			ch == '-' || ch == '.' || ch == '_' || ch == '~' {
			b.WriteByte(ch)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", ch)
	}
	return b.String()
}

// status is a response's status line.
type status struct {
	code int
	meta string
}

func (s status) class() int { return s.code / 10 }

func (s status) text() string {
	if s.meta == "" {
		return strconv.Itoa(s.code)
	}
	return strconv.Itoa(s.code) + " " + lineproto.ServerText(s.meta)
}

// conn is one request's connection, after its status line.
type conn struct {
	nc   *lineproto.Conn
	br   *bufio.Reader
	resp schemes.CaptureBlock // the response record, nil without a capture
}

func (c *conn) Close() error { return c.nc.Close() }

// exchange connects, sends line, and reads the status line.
func (f *Fetcher) exchange(ctx context.Context, req *schemes.Request, u *schemes.URL, line string) (*conn, status, error) {
	addr := net.JoinHostPort(u.Host, strconv.Itoa(u.EffectivePort()))
	nc, err := lineproto.Dial(ctx, req, "tcp", addr)
	if err != nil {
		return nil, status{}, err
	}
	tc, err := lineproto.Handshake(ctx, nc, f.tlsConfig(req, u.Host, addr), "TLS with gemini server "+addr)
	if err != nil {
		nc.Close()
		return nil, status{}, err
	}
	c := &conn{nc: nc, br: bufio.NewReaderSize(tc, 4096)}
	// The record names what was asked for: the URL of the request line,
	// without the fragment, which is never sent.
	nf := *u
	nf.Fragment, nf.HasFragment = "", false
	uri := nf.Redacted()
	if req.Capture != nil {
		proto := []string{"gemini", tlsProtocol(tc.ConnectionState().Version)}
		rq := req.Capture.Record(schemes.CaptureRecord{Type: "request", URI: uri, ContentType: RequestType, Protocol: proto})
		io.WriteString(rq, line+"\r\n")
		rq.Commit()
		c.resp = req.Capture.Record(schemes.CaptureRecord{Type: "response", URI: uri, ContentType: ResponseType, Protocol: proto})
		c.br = bufio.NewReaderSize(io.TeeReader(tc, c.resp), 4096)
	}
	if err := nc.Classify(lineproto.WriteText(tc, "gemini request", line+"\r\n"), "send request to "+addr); err != nil {
		c.Close()
		return nil, status{}, err
	}
	if req.Transcript != nil {
		fmt.Fprintf(req.Transcript, "> %s\n", line)
	}
	st, err := c.readStatus(addr)
	if err != nil {
		c.Close()
		return nil, status{}, err
	}
	if req.Transcript != nil {
		fmt.Fprintf(req.Transcript, "< %s\n", st.text())
	}
	return c, st, nil
}

// Content types of the records a capture writes.
const (
	RequestType  = "application/gemini;msgtype=request"
	ResponseType = "application/gemini;msgtype=response"
)

func tlsProtocol(v uint16) string {
	switch v {
	case tls.VersionTLS12:
		return "tls/1.2"
	case tls.VersionTLS13:
		return "tls/1.3"
	}
	return "tls"
}

// tlsConfig is the configuration of one connection: TLS 1.2 at least, the
// host as server name, the Fetcher's trust and the identity for addr.
func (f *Fetcher) tlsConfig(req *schemes.Request, host, addr string) *tls.Config {
	cfg := dial.TLSConfig(req.TLSConfig, host)
	if cfg.MinVersion < tls.VersionTLS12 {
		cfg.MinVersion = tls.VersionTLS12
	}
	id := f.identityFor(addr)
	cfg.ClientSessionCache = sessionsFor{f.sessionCache(), addr + " " + identityKey(id) + " "}
	if id != nil {
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return id, nil }
	}
	if f.Trust == TrustCA && !cfg.InsecureSkipVerify {
		return cfg
	}
	skip := cfg.InsecureSkipVerify
	cfg.InsecureSkipVerify = true
	if skip {
		return cfg // verification turned off altogether (-k)
	}
	pins := f.pins()
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the server presented no certificate")
		}
		note, err := pins.check(addr, cs.PeerCertificates[0], f.AcceptNew, time.Now())
		if note != "" {
			req.Warnf(note)
		}
		return err
	}
	return cfg
}

// sessionsFor is the Fetcher's session cache as one server and one
// identity see it. A resumed session carries the client certificate it
// was made with, and crypto/tls keys sessions by server name alone, not
// port: kept under host:port and identity, a session never presents an
// identity taken away or replaced (SetIdentity), nor crosses to another
// port's server.
type sessionsFor struct {
	c      tls.ClientSessionCache
	prefix string
}

func (s sessionsFor) Get(key string) (*tls.ClientSessionState, bool) { return s.c.Get(s.prefix + key) }
func (s sessionsFor) Put(key string, cs *tls.ClientSessionState)     { s.c.Put(s.prefix+key, cs) }

// identityKey names a client certificate for the session cache.
func identityKey(id *tls.Certificate) string {
	if id == nil || len(id.Certificate) == 0 {
		return "-"
	}
	sum := sha256.Sum256(id.Certificate[0])
	return hex.EncodeToString(sum[:])
}

// maxStatus is the longest status line: two digits, a space, META, CR LF.
const maxStatus = 3 + MaxRequest + 2

// readStatus reads and checks the status line.
func (c *conn) readStatus(addr string) (status, error) {
	var line []byte
	for {
		b, err := c.br.ReadByte()
		if err != nil {
			if err == io.EOF {
				if len(line) == 0 {
					return status{}, schemes.Errorf(schemes.ErrRefused, "gemini server %s closed the connection without a status line", addr)
				}
				return status{}, schemes.Errorf(schemes.ErrRefused, "gemini server %s sent a status line without its end", addr)
			}
			return status{}, c.nc.Classify(err, "read status line from "+addr)
		}
		if b == '\n' {
			break
		}
		if len(line) >= maxStatus {
			return status{}, schemes.Errorf(schemes.ErrRefused, "gemini server %s sent a status line longer than %d bytes", addr, maxStatus)
		}
		line = append(line, b)
	}
	return parseStatus(strings.TrimSuffix(string(line), "\r"), addr)
}

// parseStatus reads "NN META": two digits of a known class, then a space
// and a META of UTF-8 (a bare "NN" has an empty META).
func parseStatus(line, addr string) (status, error) {
	bad := func(why string) (status, error) {
		return status{}, schemes.Errorf(schemes.ErrRefused, "gemini server %s sent %s: %q", addr, why, lineproto.ServerText(cut(line, 80)))
	}
	if len(line) < 2 || line[0] < '1' || line[0] > '6' || line[1] < '0' || line[1] > '9' {
		return bad("no status (a body without a status line, or not Gemini)")
	}
	st := status{code: int(line[0]-'0')*10 + int(line[1]-'0')}
	rest := line[2:]
	switch {
	case rest == "":
	case rest[0] == ' ':
		st.meta = rest[1:]
	default:
		return bad("a malformed status line")
	}
	if len(st.meta) > MaxRequest {
		return bad(fmt.Sprintf("a META longer than %d bytes", MaxRequest))
	}
	if !utf8.ValidString(st.meta) {
		return bad("a META that is not UTF-8")
	}
	return st, nil
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// respond turns a status other than input into the Response or error.
func (f *Fetcher) respond(req *schemes.Request, u *schemes.URL, c *conn, st status) (*schemes.Response, error) {
	if st.class() != 2 {
		// Nothing but the status line is the response's: record it.
		if c.resp != nil {
			c.resp.Commit()
		}
		c.Close()
	}
	switch st.class() {
	case 2:
		return f.success(req, u, c, st), nil
	case 3:
		return &schemes.Response{URL: u, Kind: schemes.KindRedirect, Size: -1,
			Location: st.meta, Status: st.text()}, nil
	case 4:
		err := schemes.Errorf(schemes.ErrRefused, "gemini server: temporary failure %s", st.text())
		if st.code == 44 || st.code == 41 {
			// Slow down, server unavailable: worth another try later.
			err = schemes.ReplyErrorf(schemes.ErrRefused, &schemes.ReplyError{Code: st.code, Transient: true}, "gemini server: temporary failure %s", st.text())
		}
		return nil, err
	case 5:
		kind := schemes.ErrRefused
		if st.code == 51 {
			kind = schemes.ErrNotFound
		}
		return nil, schemes.Errorf(kind, "gemini server: %s", st.text())
	case 6:
		addr := net.JoinHostPort(u.Host, strconv.Itoa(u.EffectivePort()))
		if st.code == 60 && f.identityFor(addr) == nil {
			return nil, f.certRequired(addr, lineproto.ServerText(st.meta))
		}
		what := "refused the client certificate"
		if st.code == 60 {
			what = "asks for a client certificate"
		}
		return nil, schemes.Errorf(schemes.ErrAuth, "gemini server %s: %s", what, st.text())
	}
	return nil, schemes.Errorf(schemes.ErrRefused, "gemini server sent an unknown status %s", st.text())
}

// success is a 2x response: the body streams from the connection.
func (f *Fetcher) success(req *schemes.Request, u *schemes.URL, c *conn, st status) *schemes.Response {
	media := st.meta
	if strings.TrimSpace(media) == "" {
		media = "text/gemini; charset=utf-8"
	}
	var r io.Reader = c.br
	if c.resp != nil {
		r = schemes.CommitAtEOF(r, c.resp)
	}
	return &schemes.Response{URL: u, Kind: schemes.KindFile, Size: -1,
		Name: u.LocalName(), Type: typeOfMedia(media), MediaType: media, Status: st.text(),
		Body: &body{r: r, c: c}}
}

// IsGemtext reports whether a media type is text/gemini.
func IsGemtext(media string) bool {
	t, _, err := mime.ParseMediaType(media)
	if err != nil {
		t, _, _ = strings.Cut(media, ";")
		t = strings.ToLower(strings.TrimSpace(t))
	}
	return t == "text/gemini"
}

// typeOfMedia is the entry type word of a MIME type.
func typeOfMedia(media string) string {
	t, _, _ := strings.Cut(media, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	switch {
	case t == "text/gemini":
		return schemes.TypeText
	case t == "text/html":
		return schemes.TypeHTML
	case strings.HasPrefix(t, "text/"):
		return schemes.TypeText
	case strings.HasPrefix(t, "image/"):
		return schemes.TypeImage
	case strings.HasPrefix(t, "audio/"):
		return schemes.TypeAudio
	}
	return schemes.TypeBinary
}

// body streams a success's bytes; a read that fails is classified.
type body struct {
	r io.Reader
	c *conn
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = b.c.nc.Classify(err, "read body")
	}
	return n, err
}

func (b *body) Close() error { return b.c.Close() }
