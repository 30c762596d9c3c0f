package fetch

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/goferurl/gofer/schemes"
)

// Names are bytes (RFC 1738 §2.2: a URL carries octets, whatever charset
// they spell). Without Options.RemoteCharset gofer keeps them so: a listing
// shows a server's bytes, its URLs percent-encode them octet by octet, and
// a mirror writes them as they are. With it, the names of a listing are
// read in that charset for display and local names, and a URL's names that
// are UTF-8 text are written in it on the wire; the URLs of a listing keep
// the server's bytes, so that they fetch the same item with or without the
// option, and with any other client.

// CheckCharset reports whether Options.RemoteCharset may be name: nil for
// a charset gofer converts names with, else an error of kind
// schemes.ErrUsage that names it.
func CheckCharset(name string) error {
	_, err := newRemoteCharset(name)
	return err
}

// remoteCharset converts a server's names between its charset and UTF-8.
// A nil *remoteCharset converts nothing.
type remoteCharset struct {
	name string
	enc  encoding.Encoding

	// listed holds the server spellings, keyed by server, that a listing
	// handed out and that are valid UTF-8 all the same: a URL that names
	// one of them names the server's bytes, not text to convert.
	mu     sync.Mutex
	listed map[string]bool
}

// newRemoteCharset returns the converter for name: nil for "" and for
// UTF-8, whose names need no conversion.
func newRemoteCharset(name string) (*remoteCharset, error) {
	if name == "" {
		return nil, nil
	}
	enc, err := lookupCharset(name)
	if err != nil {
		return nil, err
	}
	if enc == nil {
		return nil, nil
	}
	return &remoteCharset{name: name, enc: enc, listed: map[string]bool{}}, nil
}

// lookupCharset finds name among the charsets of old archives, by the
// short names people use (latin1, cp437, sjis), else in the IANA registry,
// where only single-byte charsets that keep ASCII as it is are taken: a
// name's '/' and the protocols' own bytes must stay what they are. It
// returns a nil Encoding for UTF-8.
func lookupCharset(name string) (encoding.Encoding, error) {
	key := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(name))
	switch key {
	case "utf8":
		return nil, nil
	case "latin1", "iso88591", "l1":
		return charmap.ISO8859_1, nil
	case "cp1252", "windows1252":
		return charmap.Windows1252, nil
	case "cp437", "ibm437", "437":
		return charmap.CodePage437, nil
	case "cp850", "ibm850", "850":
		return charmap.CodePage850, nil
	case "koi8r":
		return charmap.KOI8R, nil
	case "gbk", "cp936":
		return simplifiedchinese.GBK, nil
	case "big5":
		return traditionalchinese.Big5, nil
	case "eucjp":
		return japanese.EUCJP, nil
	case "shiftjis", "sjis", "cp932", "windows31j":
		return japanese.ShiftJIS, nil
	case "euckr", "cp949":
		return korean.EUCKR, nil
	}
	unknown := schemes.Errorf(schemes.ErrUsage, "unknown remote charset %q (known: latin1, cp1252, cp437, cp850, koi8-r, gbk, big5, euc-jp, shift_jis, euc-kr, utf-8, or the IANA name of a single-byte charset)", name)
	enc, err := ianaindex.IANA.Encoding(name)
	if err != nil || enc == nil {
		return nil, unknown
	}
	if _, ok := enc.(*charmap.Charmap); !ok || !keepsASCII(enc) {
		return nil, unknown
	}
	return enc, nil
}

// keepsASCII reports whether enc reads and writes every ASCII byte as
// itself (EBCDIC code pages do not).
func keepsASCII(enc encoding.Encoding) bool {
	var ascii [128]byte
	for i := range ascii {
		ascii[i] = byte(i)
	}
	dec, err1 := enc.NewDecoder().String(string(ascii[:]))
	back, err2 := enc.NewEncoder().String(string(ascii[:]))
	return err1 == nil && err2 == nil && dec == string(ascii[:]) && back == string(ascii[:])
}

// isASCII reports whether s is the same in every charset gofer takes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// decodeName returns name, as the server spells it, read in the charset,
// each part between '/' on its own (a selector's segments). A part that
// does not read back to the same bytes (not valid in the charset) keeps
// its bytes, so that two such parts never become one.
func (rc *remoteCharset) decodeName(name string) string {
	if rc == nil || isASCII(name) {
		return name
	}
	if strings.Contains(name, "/") {
		parts := strings.Split(name, "/")
		for i, p := range parts {
			parts[i] = rc.decodePart(p)
		}
		return strings.Join(parts, "/")
	}
	return rc.decodePart(name)
}

func (rc *remoteCharset) decodePart(name string) string {
	if isASCII(name) {
		return name
	}
	text, err := rc.enc.NewDecoder().String(name)
	if err != nil {
		return name
	}
	if back, err := rc.enc.NewEncoder().String(text); err != nil || back != name {
		return name
	}
	return text
}

// encodePart returns one name of a URL as the server spells it. A part
// that is not valid UTF-8 is the server's bytes already (a listing's URL,
// or %XX octets typed as such) and so is one a listing of this server
// handed out; any other is text, written in the charset. A character the
// charset has no bytes for is a usage error.
func (rc *remoteCharset) encodePart(server, part string) (string, error) {
	if isASCII(part) || !utf8.ValidString(part) || rc.wasListed(server, part) {
		return part, nil
	}
	out, err := rc.enc.NewEncoder().String(part)
	if err == nil {
		return out, nil
	}
	for _, r := range part {
		if _, err := rc.enc.NewEncoder().String(string(r)); err != nil {
			return "", schemes.Errorf(schemes.ErrUsage, "%q cannot be written in %s: it has no %q (U+%04X)", part, rc.name, r, r)
		}
	}
	return "", schemes.Errorf(schemes.ErrUsage, "%q cannot be written in %s: %w", part, rc.name, err)
}

// remoteName is the charset's name as the user gave it, "" when names
// are not converted (none named, or UTF-8): what schemes.Request's
// RemoteCharset carries.
func (rc *remoteCharset) remoteName() string {
	if rc == nil {
		return ""
	}
	return rc.name
}

func (rc *remoteCharset) wasListed(server, part string) bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.listed[server+"\x00"+part]
}

// serverKey names the server a URL's names live on.
func serverKey(u *schemes.URL) string {
	return fmt.Sprintf("%s://%s:%d", u.Scheme, strings.ToLower(u.Host), u.EffectivePort())
}

// names returns the parts of u that are names on the server, which the
// fetcher writes into its commands: the FTP segments, the Gopher selector
// and search, the NNTP group. Everything else is ASCII by its protocol
// (message-ids, article numbers) or keeps its escapes (HTTP).
func names(u *schemes.URL) []*string {
	var out []*string
	switch {
	case u.FTP != nil:
		for i := range u.FTP.Segments {
			out = append(out, &u.FTP.Segments[i])
		}
	case u.Gopher != nil:
		out = append(out, &u.Gopher.Selector, &u.Gopher.Search)
	case u.News != nil:
		out = append(out, &u.News.Group)
	case u.NNTP != nil:
		out = append(out, &u.NNTP.Group)
	}
	return out
}

// toRemote returns u with its names as the server spells them; u itself
// is never modified (Request.Parsed is the caller's). It returns u when
// nothing changes.
func (rc *remoteCharset) toRemote(u *schemes.URL) (*schemes.URL, error) {
	if rc == nil {
		return u, nil
	}
	v := *u
	switch {
	case u.FTP != nil:
		f := *u.FTP
		f.Segments = slices.Clone(f.Segments)
		v.FTP = &f
	case u.Gopher != nil:
		g := *u.Gopher
		v.Gopher = &g
	case u.News != nil:
		n := *u.News
		v.News = &n
	case u.NNTP != nil:
		n := *u.NNTP
		v.NNTP = &n
	default:
		return u, nil
	}
	server := serverKey(u)
	changed := false
	for _, p := range names(&v) {
		s, err := rc.encodePart(server, *p)
		if err != nil {
			return nil, err
		}
		changed = changed || s != *p
		*p = s
	}
	if !changed {
		return u, nil
	}
	return &v, nil
}

// remember records the names of a listing's entry URL that are valid UTF-8
// beyond ASCII: they are the server's bytes, and a later fetch of that URL
// (a mirror's, a browser's) sends them as they are.
func (rc *remoteCharset) remember(rawURL string) {
	if !hasHighOctet(rawURL) {
		return
	}
	u, err := schemes.Parse(rawURL)
	if err != nil {
		return
	}
	server := serverKey(u)
	for _, p := range names(u) {
		if !isASCII(*p) && utf8.ValidString(*p) {
			rc.mu.Lock()
			rc.listed[server+"\x00"+*p] = true
			rc.mu.Unlock()
		}
	}
}

// hasHighOctet reports whether a URL has an escape of an octet beyond
// ASCII ("%80" to "%FF"), or such an octet itself; only those can hold a
// name that is valid UTF-8 beyond ASCII.
func hasHighOctet(raw string) bool {
	for i := 0; i < len(raw); i++ {
		switch {
		case raw[i] >= utf8.RuneSelf:
			return true
		case raw[i] == '%' && i+1 < len(raw) && strings.IndexByte("89abcdefABCDEF", raw[i+1]) >= 0:
			return true
		}
	}
	return false
}

// fromRemote reads the names of a response in the charset: the remote
// name (Response.Name, a mirror's single file) and each listing entry's Name. URLs,
// selectors and other protocol fields keep the server's bytes.
func (rc *remoteCharset) fromRemote(resp *Response) *Response {
	if rc == nil {
		return resp
	}
	resp.Name = rc.decodeName(resp.Name)
	if resp.Listing != nil {
		resp.Listing = &charsetListing{Listing: resp.Listing, rc: rc}
	}
	return resp
}

// charsetListing reads each entry's Name in the charset.
type charsetListing struct {
	schemes.Listing
	rc *remoteCharset
}

func (l *charsetListing) Next() (Entry, error) {
	e, err := l.Listing.Next()
	if err != nil {
		return e, err
	}
	l.rc.remember(e.URL)
	e.Name = l.rc.decodeName(e.Name)
	return e, nil
}

// DecodeName returns a name as the server spells it (a listing's selector
// segment, a remote file name) read in Options.RemoteCharset, for a local
// name or for display; without a charset, or for a name not valid in it,
// the name as it is.
func (c *Client) DecodeName(remote string) string {
	return c.charset.decodeName(remote)
}

// RemoteURL returns u as a fetch sends it: its names (FTP segments, Gopher
// selector and search, NNTP group) in Options.RemoteCharset. u is not
// modified; without a charset it is returned as it is. An error is of
// kind schemes.ErrUsage: an unknown charset, or a name with a character
// the charset cannot write.
func (c *Client) RemoteURL(u *schemes.URL) (*schemes.URL, error) {
	if c.charsetErr != nil {
		return nil, c.charsetErr
	}
	return c.charset.toRemote(u)
}
