package schemes

// URL is a parsed URL. Every string field below Scheme holds decoded octets
// unless its comment says otherwise; exactly one of the per-scheme views is
// set, according to Scheme, or none for opaque schemes.
type URL struct {
	// Scheme is the scheme name in lower case.
	Scheme string

	// Login parts of the IP-based schemes (RFC 1738 §3.1).
	User        string
	Password    string
	HasUser     bool
	HasPassword bool
	// Host is the host as written (a domain name or dotted quad), never
	// resolved; an IPv6 literal is held without its brackets.
	Host string
	// Port is the port the URL gives, 0 when it gives none (see EffectivePort).
	Port int

	// Fragment is what follows '#', decoded; it is never sent to a server.
	Fragment    string
	HasFragment bool

	FTP      *FTP
	HTTP     *HTTP
	Gopher   *Gopher
	Mailto   *Mailto
	News     *News
	NNTP     *NNTP
	Telnet   *Telnet // telnet, rlogin and tn3270
	WAIS     *WAIS
	File     *File
	Prospero *Prospero

	// Opaque is the scheme-specific part of a scheme with no defined syntax
	// (mid, cid, urn, x-..., and any unknown scheme), as written: escapes are
	// validated but not decoded.
	Opaque string
}

// FTP is the typed view of an ftp URL (RFC 1738 §3.2).
type FTP struct {
	// Segments are the decoded cwd1..cwdN followed by the name; the name is
	// the last element and may be empty (URL ends in '/'). Segments is empty
	// when the URL has no url-path (the login directory is meant).
	Segments []string
	// TypeCode is 'a', 'i' or 'd' from ";type=", lower-cased, or 0 when absent.
	TypeCode byte
}

// Dirs returns the segments that are sent as CWD arguments.
func (f *FTP) Dirs() []string {
	if len(f.Segments) == 0 {
		return nil
	}
	return f.Segments[:len(f.Segments)-1]
}

// Name returns the last segment: the file to RETR, or "" for a directory.
func (f *FTP) Name() string {
	if len(f.Segments) == 0 {
		return ""
	}
	return f.Segments[len(f.Segments)-1]
}

// HTTP is the typed view of an http or https URL (RFC 1738 §3.3), and of a
// gemini URL, which has the same generic syntax (RFC 3986: authority, path,
// query). Path and Search are kept as written (escaped), because both
// protocols give meaning to the encoded form; the guard decodes them to
// check for line injection.
type HTTP struct {
	// Path is the escaped path including its leading '/', or "" when absent.
	Path string
	// Search is the escaped search part without '?'.
	Search    string
	HasSearch bool
}

// Gopher is the typed view of a gopher URL (RFC 1738 §3.4, draft-ietf-uri-url-03 Gopher+).
type Gopher struct {
	// Type is the gopher type character; '1' when the gopher-path is empty. It is never sent.
	Type byte
	// Selector is the decoded selector string.
	Selector string
	// Search is the decoded search string (after the first %09).
	Search    string
	HasSearch bool
	// PlusString is the decoded Gopher+ string (after the second %09),
	// e.g. "+", "!", "$", "?", "+application/postscript Es_ES" or a filled +ASK block.
	PlusString string
	HasPlus    bool
}

// Mailto is the typed view of a mailto URL (RFC 1738 §3.5, RFC 6068).
type Mailto struct {
	// Addr is the decoded address part before '?': one addr-spec, or
	// several separated by commas (RFC 6068 §2); empty when only a "to"
	// header names the recipients.
	Addr string
	// Headers are the decoded "name=value" pairs after '?' (RFC 6068
	// hfields), in URL order; "body" is among them. They are data: which
	// of them a message may carry is the mailto fetcher's decision.
	Headers []Header
}

// Header is one hfield of a mailto URL.
type Header struct {
	Name, Value string
}

// News is the typed view of a news URL (RFC 1738 §3.6): exactly one of
// Group, MessageID or All is set.
type News struct {
	Group     string
	MessageID string // without angle brackets
	All       bool   // news:*
}

// NNTP is the typed view of an nntp URL (RFC 1738 §3.7).
type NNTP struct {
	Group   string
	Article int64 // 0 when the URL names no article
}

// Telnet is the typed view of telnet, rlogin and tn3270 URLs (RFC 1738 §3.8,
// RFC 1630): nothing beyond the login parts and the host; the user and
// password are advisory.
type Telnet struct{}

// WAIS is the typed view of a wais URL (RFC 1738 §3.9).
type WAIS struct {
	Database  string
	Search    string
	HasSearch bool
	WType     string
	WPath     string // opaque WAIS document id, decoded
	// RawSearch is the search as written (in canonical escapes), escapes kept: a '+' there
	// joins words, an encoded one (%2B) is a plus sign.
	RawSearch string
	// RawWPath is the wpath as written (in canonical escapes), escapes kept: its fields are
	// "N=value;" with ';' and '=' inside a value encoded, which decoding
	// the whole wpath would confuse with the delimiters.
	RawWPath string
}

// File is the typed view of a file URL (RFC 1738 §3.10).
type File struct {
	// Path is the decoded path with its leading '/'.
	Path string
}

// Local reports whether a file URL names this machine ("localhost" or empty host).
func (u *URL) Local() bool {
	return u.Host == "" || equalFold(u.Host, "localhost")
}

// Prospero is the typed view of a prospero URL (RFC 1738 §3.11).
type Prospero struct {
	HSOName    string
	Fields     []Field
	Version    string // after %00 (draft-ietf-uri-url-03)
	HasVersion bool
}

// Field is one ";name=value" pair of a prospero URL.
type Field struct {
	Name, Value string
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
