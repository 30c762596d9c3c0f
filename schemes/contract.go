package schemes

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"strconv"
	"time"
)

// Fetcher retrieves what URLs of one scheme name. It is the one method a
// scheme package implements.
//
// Fetch returns a non-nil Response exactly when err is nil. The caller (the
// fetch package) has already checked req.URL against the security guard's
// port and injection policy; the fetcher still passes every URL-derived
// argument through security's line checks at the point it is written. An
// error means no usable response was obtained; its kind (see ErrConnect and
// friends, matched with errors.Is) says why.
type Fetcher interface {
	Fetch(ctx context.Context, req *Request) (*Response, error)
}

// Planner is implemented by fetchers that can say, with no network at all,
// which protocol lines a fetch of req would write (gofer parse).
type Planner interface {
	Plan(req *Request) (*Plan, error)
}

// Plan is what a fetch would send, for display: each request line exactly as
// written on the wire without its CR LF, passwords as "****".
type Plan struct {
	Requests []string
	// Notes are extra facts for a person: the advisory telnet login, the
	// local path of a file URL, the NNTP server a news URL would use.
	Notes map[string]string
}

// Closer is implemented by fetchers that keep connections for reuse; Close
// ends them.
type Closer interface {
	Close() error
}

// Dialer opens every connection a fetcher makes (dial.Dialer implements it).
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// Request is one retrieval as a scheme package sees it, in three parts:
// the URL and what this call asks beyond it (Call, the per-call request
// fetch.Request shares); the guard of this call (CheckURL, CheckPort and
// Warn, which collect the call's own warnings); and the settings of the
// client that makes it (Settings: dialer, limits, timeouts, credentials,
// prompt, TLS, charset, transcript), built once and shared by pointer by
// every Request of that client. A fetcher reads Settings and never
// changes them. A setting of one scheme's protocol lives on that scheme's
// Fetcher (an FTP server's anonymous password, the NNTP server of news:
// URLs), and the per-call inputs of one scheme are a typed view of Call
// (News, Mail), as URL has views.
//
// A fetcher takes a Request whose Settings are nil as one under the zero
// Settings (Ready), whose every limit is its safe default.
type Request struct {
	URL *URL
	Call
	// CheckURL applies the guard's policy to a URL the fetcher is about to
	// follow on its own (an HTTP redirect, a Gopher link); nil means allow.
	CheckURL func(*URL) error
	// CheckPort applies the guard's port policy to a server named outside
	// the URL (an SMTP or NNTP server a fetcher is configured with); nil
	// means allow.
	CheckPort func(protocol string, port int) error
	// Warn receives warnings for a person; nil discards them.
	Warn func(string)
	*Settings
}

// Ready returns r with Settings, r itself when it has them, else a copy
// of r under the zero Settings. Every fetcher's Fetch and Plan begin with
// it, so that a fetcher called without a client still reads its
// settings' defaults.
func (r *Request) Ready() *Request {
	if r.Settings != nil {
		return r
	}
	c := *r
	c.Settings = &Settings{}
	return &c
}

// WithSettings returns a copy of r under a copy of its Settings that
// change has changed: the one way to alter a setting for one fetch, since
// a client's Settings are shared by all its requests and never written.
func (r *Request) WithSettings(change func(*Settings)) *Request {
	c := *r.Ready()
	st := *c.Settings
	change(&st)
	c.Settings = &st
	return &c
}

// Call is what one retrieval asks beyond its URL: where to start and how
// much to read, a condition, a search or form, what to ask the server
// besides the bytes, and a capture; and, as typed views, what one
// scheme's call carries (News, Mail). fetch.Request and Request both
// hold it, so that a per-call setting is written once. Its zero value
// asks for the whole resource.
type Call struct {
	// Offset asks for the resource from this byte on (resume, -C).
	Offset int64
	// Length, when positive, says the caller reads only this many bytes
	// from Offset on (one segment of a segmented download): a fetcher that
	// can ask for a bounded range does (HTTP Range: bytes=Offset-End);
	// others send more, and the caller closes the body at its end.
	Length int64
	// IfModifiedSince asks for the body only if the resource changed after
	// this time (HTTP conditional GET); zero means always.
	IfModifiedSince time.Time
	// SkipMetadata says the caller already has the resource's size and
	// time (from a listing) and wants only the body: round trips that
	// would only fetch them (FTP SIZE and MDTM) are left out, and
	// Response.Size and Modified may then be unknown.
	SkipMetadata bool
	// SkipSize says the caller has the size (from a listing) but not the
	// time to the second: only the size's round trip (FTP SIZE) is left
	// out, and the time is still asked for (FTP MDTM).
	SkipSize bool
	// Hash asks a fetcher that can have the server hash the file (FTP
	// HASH, XSHA256 and its kin) to ask for the strongest hash the server
	// offers, alongside the transfer; Response.Hash holds the answer.
	Hash bool
	// ListHashes asks a fetcher whose listings can carry the server's
	// hash of each file (FTP, where the server offers one) to put it in
	// each file entry's Hash: asked for once the listing has ended, in
	// pipelined batches; an entry whose listing gave one already (an MLSD
	// fact) keeps it without a command.
	ListHashes bool
	// DirTimes asks a listing to date its directories to the second where
	// the server can say more than the listing shows (FTP: MDTM of a
	// directory, probed once per server; see DirTimesProber).
	DirTimes bool
	// Spare asks a fetcher that keeps connections for reuse to open up to
	// this many more to the server, at once and alongside this fetch, and
	// keep them for the fetches that follow (a mirror's workers, whose
	// logins then overlap the first listing). A fetcher without a pool
	// ignores it; one that cannot open them goes without.
	Spare int

	// Query answers a search (Gopher type 7, WAIS); HasQuery says it was given.
	Query    string
	HasQuery bool
	// Form holds Gopher+ +ASK answers as "NAME=VALUE", NAME being the
	// question's text or its 1-based position.
	Form []string

	// News holds what a fetch of an NNTP article asks for beyond its URL;
	// nil asks for the whole article.
	News *NewsRequest
	// Mail holds what a mailto message carries beyond its URL; nil
	// means nothing more.
	Mail *MailRequest

	// Capture, when not nil, receives the exact bytes of what the fetch
	// obtains, for an archive; see Capture.
	Capture Capture
}

// Settings are the settings of a client that every fetch it makes works
// under: fetch.NewClient builds them once from its Options (one per
// scheme, each with the dialer of that scheme's proxy) and every Request
// points at them. A fetcher that keeps connections keys them on the
// settings that change a connection (FTP: Dialer, TLSConfig, IdleTimeout,
// RemoteCharset). The zero value of each limit means its safe default.
type Settings struct {
	// Dialer opens every connection, FTP data connections included; nil
	// means a plain net.Dialer.
	Dialer Dialer
	// TLSConfig is used for every TLS connection (CA pool, verification).
	TLSConfig *tls.Config

	// Credentials returns a login for host from netrc or flags; nil means none.
	Credentials func(host string) (user, password string, ok bool)
	// Prompt asks the person at the terminal; secret means without echo.
	// It is nil when there is no terminal.
	Prompt func(question string, secret bool) (string, error)

	// MaxBytes stops a transfer that grows past it (0: no limit).
	MaxBytes int64
	// MaxLineLength bounds one protocol line (0: DefaultMaxLineLength).
	MaxLineLength int
	// MaxEntries bounds a listing, menu or group (0: DefaultMaxEntries).
	MaxEntries int
	// IdleTimeout is the per-operation deadline: a read or write that makes
	// no progress for this long fails with ErrTimeout (0: DefaultIdleTimeout).
	IdleTimeout time.Duration

	// RemoteCharset is the charset other than UTF-8 the server spells
	// names in, as the user named it ("latin1", "shift_jis"); "" when
	// names are bytes or UTF-8. The fetch package converts names itself; a
	// fetcher only leaves out asking the server for UTF-8 names (FTP's
	// OPTS UTF8 ON) when it is set.
	RemoteCharset string

	// Transcript receives the wire conversation (-v) with passwords as "****".
	Transcript io.Writer
}

// NewsRequest is what a fetch of an NNTP article asks for beyond its URL.
type NewsRequest struct {
	// Part asks for part of an article: "" (all of it), "head" or "body".
	Part string
}

// MailRequest is what a mailto message carries beyond its URL.
type MailRequest struct {
	// Body is the text of the message, after the URL's own body (RFC 6068
	// "body"); nil means none. It is read to its end.
	Body io.Reader
	// Headers are extra header lines, "Name: value".
	Headers []string
}

// Defaults for the zero values of Settings' limits.
const (
	DefaultMaxLineLength = 64 << 10
	DefaultMaxEntries    = 1 << 20
	DefaultIdleTimeout   = 60 * time.Second
)

// LineLimit returns MaxLineLength or its default (nil Settings: the default).
func (r *Settings) LineLimit() int {
	if r != nil && r.MaxLineLength > 0 {
		return r.MaxLineLength
	}
	return DefaultMaxLineLength
}

// EntryLimit returns MaxEntries or its default.
func (r *Settings) EntryLimit() int {
	if r != nil && r.MaxEntries > 0 {
		return r.MaxEntries
	}
	return DefaultMaxEntries
}

// Idle returns IdleTimeout or its default.
func (r *Settings) Idle() time.Duration {
	if r != nil && r.IdleTimeout > 0 {
		return r.IdleTimeout
	}
	return DefaultIdleTimeout
}

// Warnf sends a warning through Warn, if set.
func (r *Request) Warnf(msg string) {
	if r.Warn != nil {
		r.Warn(msg)
	}
}

// Kind says what a Response holds.
type Kind int

const (
	// KindFile: Body streams the resource's bytes.
	KindFile Kind = iota
	// KindListing: Listing yields a directory, menu, group or group list;
	// Body reads the same entries as text. Use the one or the other.
	KindListing
	// KindInfo: Info holds structured metadata (e.g. Gopher+ attributes);
	// Body reads the raw bytes it came from when the scheme has them, else
	// Info's readable form.
	KindInfo
	// KindSession: Session is an interactive connection (telnet); Body
	// fails on Read.
	KindSession
	// KindHandoff: Command is a program to run for the URL (rlogin,
	// tn3270); Body fails on Read.
	KindHandoff
	// KindRedirect: Location names where the resource is (HTTP 3xx); the
	// fetch package decides whether to follow. Body fails on Read.
	KindRedirect
)

var kindWords = [...]string{KindFile: "file", KindListing: "listing", KindInfo: "info",
	KindSession: "session", KindHandoff: "handoff", KindRedirect: "redirect"}

// String is the kind as a word ("file", "listing", ...), so that %v and
// errors that name a kind read as words, not numbers.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindWords) {
		return kindWords[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Response is what a fetch obtained. The caller must Close it.
type Response struct {
	URL  *URL
	Kind Kind

	// Body streams the resource (KindFile), starting at byte Offset. It is
	// never nil in a Response the fetch package returns, whatever the Kind
	// (see SetBody): a fetcher may leave it nil for the other kinds.
	Body io.ReadCloser
	// Offset is where Body starts: Request.Offset when the server honoured the resume, else 0.
	Offset int64
	// Size is the size of the whole resource in bytes, -1 when unknown.
	Size int64
	// Name is the resource's remote name (the last path segment), for -O.
	Name string
	// Type is the entry type word of the resource ("text", "binary", ...; see Entry.Type).
	Type string
	// MediaType is a MIME type when the protocol gives one.
	MediaType string
	// Modified is the resource's modification time, zero when unknown.
	Modified time.Time
	// NotModified reports that Request.IfModifiedSince held: Body is empty.
	NotModified bool
	// Hash is the server's own checksum of the whole file, when
	// Request.Hash asked for it and the server gave one; zero otherwise.
	Hash ServerHash

	// Listing yields entries (KindListing).
	Listing Listing
	// Page, when not nil, says that the document Body streams (KindFile)
	// is also a page of links, a text/gemini page or an HTML page, and
	// reads it: given the page's bytes (Body itself, or a copy of them a
	// caller kept), it yields the page's entries with their links resolved
	// against URL. A page of links of a scheme's own (a Gopher menu, an
	// FTP listing, a group) is KindListing instead. The fetch package sets
	// it from the scheme and MediaType; a fetcher leaves it nil.
	Page PageReader
	// Info is structured metadata, JSON-marshalable (KindInfo). If it has a
	// WriteText(io.Writer) error method, that is its readable form.
	Info any
	// Session is the interactive connection (KindSession).
	Session Session
	// Command is the program and its arguments (KindHandoff), never run through a shell.
	Command []string
	// Location is the redirect target as the server sent it (KindRedirect),
	// and Status the status line that came with it.
	Location string
	Status   string

	closed bool
}

// Close releases whatever the response holds. Only the first call does
// anything; a later one returns nil.
func (r *Response) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var err error
	if r.Body != nil {
		err = r.Body.Close()
	}
	if r.Listing != nil {
		if e := r.Listing.Close(); err == nil {
			err = e
		}
	}
	if r.Session != nil {
		if e := r.Session.Close(); err == nil {
			err = e
		}
	}
	return err
}

// EntriesInfo is implemented by an Info that describes the items of a
// listing (a Gopher+ directory's "$" attributes, Gopher+ §2.7): Entries
// returns one Entry per item, with what the metadata says of it (Modified
// from a +ADMIN Mod-Date). A caller that walks a tree (fetch/mirror) learns
// items' times through it without knowing the scheme's Info type.
type EntriesInfo interface {
	Entries() []Entry
}

// Listing yields the entries of a directory, menu, group or group list one at
// a time, so that memory does not grow with its length.
type Listing interface {
	// Next returns the next entry, or io.EOF after the last one.
	Next() (Entry, error)
	Close() error
}

// Session is an interactive connection.
type Session interface {
	// Interact connects the session to a person (or a pipe) until either
	// side ends it. When in is a terminal, the implementation puts it in raw
	// mode and restores it on every exit path.
	Interact(ctx context.Context, in io.Reader, out io.Writer) error
	Close() error
}

// DirTimesProber is implemented by fetchers that probe a server once for
// whether it dates directories to the second (Request.DirTimes).
// DirTimesProbe reports what the probe of host and port found (probed
// false: not yet probed); SetDirTimesProbe records what an earlier probe
// found, so that the server is not probed again.
type DirTimesProber interface {
	DirTimesProbe(host string, port int) (answers, probed bool)
	SetDirTimesProbe(host string, port int, answers bool)
}

// ServerHash is a checksum a server computed of a file: Alg is "SHA-512",
// "SHA-256", "SHA-1", "MD5" or "CRC32", Hex the digest in lower-case
// hexadecimal.
type ServerHash struct {
	Alg string `json:"alg"`
	Hex string `json:"hex"`
}
