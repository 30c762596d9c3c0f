package schemes

import "strings"

// RFC 1738 §2.2: alphanumerics, the "safe" and "extra" characters may appear
// unencoded anywhere; the reserved characters only where a scheme does not
// give them a meaning.
func unreserved(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("$-_.+!*'(),", b) >= 0
}

// keepSet lists the reserved characters a part may hold unencoded in the
// canonical form (RFC 1738 §5 BNF of each part).
type keepSet string

const (
	keepLogin        keepSet = "&="        // user, password (below)
	keepFTP          keepSet = ":@&="      // fsegment (below)
	keepFilePath     keepSet = "/?:@&=;"   // file path (one string, '/' stays)
	keepGopher       keepSet = ";/?:@&="   // selector, search, Gopher+ string
	keepMailtoAddr   keepSet = ";/:@&="    // encoded822addr; '?' starts RFC 6068 hfields
	keepMailtoHeader keepSet = ";/?:@"     // hfname, hfvalue: '&', '=' delimit them
	keepNews         keepSet = ";/?:@&="   // group and article
	keepSegment      keepSet = ";?:@&="    // nntp group, wais parts
	keepProspero     keepSet = "/?:@&="    // hsoname and version
	keepField        keepSet = "?:@&"      // prospero field name
	keepValue        keepSet = "?:@&="     // prospero field value
	keepFragment     keepSet = ";/?:@&=~"  // fragment
	keepLoose        keepSet = ";/?:@&=~%" // as-written parts; '%' starts a validated escape
)

// RFC 1738 lets ';' and '?' stand unencoded in a login and '?' in an FTP
// segment, but the URL parsers of other clients (RFC 3986: curl, wget)
// end the path at '?' and take ';' in a login for login options: a URL
// gofer prints encodes them, so that it fetches the same object anywhere.

// escape encodes every octet of s that keep does not allow, as %HH.
func escape(s string, keep keepSet) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !allowed(s[i], keep) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if allowed(c, keep) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func allowed(c byte, keep keepSet) bool {
	return unreserved(c) || strings.IndexByte(string(keep), c) >= 0
}

// canonical returns an as-written part (HTTP path and search, opaque
// scheme-specific parts) with existing escapes kept and every other octet
// that may not appear unencoded (space, non-ASCII, "<>\"{}|\\^`") encoded,
// so that String gives a form with no unsafe octet. s must hold only valid
// escapes.
func canonical(s string) string { return escape(s, keepLoose) }

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Decode decodes every %HH of s; a '%' not followed by two hex digits stays
// as it is. Parse refuses such URLs, so for the parts of a parsed URL the
// result is exact.
func Decode(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			h, okh := unhex(s[i+1])
			l, okl := unhex(s[i+2])
			if okh && okl {
				b = append(b, h<<4|l)
				i += 2
				continue
			}
		}
		b = append(b, c)
	}
	return string(b)
}

// Unescape decodes every %HH of s, reporting the first malformed escape.
func Unescape(s string) (string, error) {
	if i := badEscape(s); i >= 0 {
		return "", &ParseError{Input: s, Pos: i + 1, Msg: "bad escape " + quoteEscape(s[i:])}
	}
	return Decode(s), nil
}

// Escape encodes s as one path segment: every octet but the unreserved ones
// becomes %HH.
func Escape(s string) string { return escape(s, "") }

// badEscape returns the offset of the first '%' in s not followed by two hex
// digits, or -1.
func badEscape(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+2 >= len(s) {
			return i
		}
		if _, ok := unhex(s[i+1]); !ok {
			return i
		}
		if _, ok := unhex(s[i+2]); !ok {
			return i
		}
		i += 2
	}
	return -1
}

func quoteEscape(s string) string {
	if len(s) > 3 {
		s = s[:3]
	}
	return `"` + s + `"`
}

// splitEscaped splits raw (escaped) text at the escape sep (e.g. "%09"),
// into at most n parts, walking escapes as units so that "%2509" is never
// mistaken for a separator.
func splitEscaped(s, sep string, n int) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s) && len(parts) < n-1; i++ {
		if s[i] != '%' {
			continue
		}
		if i+3 <= len(s) && strings.EqualFold(s[i:i+3], sep) {
			parts = append(parts, s[start:i])
			start = i + 3
		}
		i += 2
	}
	return append(parts, s[start:])
}
