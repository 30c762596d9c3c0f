package http

import (
	"fmt"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// wirePath returns the request target's path as it goes on the wire: the
// URL's path as written, with every octet that may not appear there raw
// (space, controls, non-ASCII, RFC 1738's unsafe characters) escaped as %HH.
// Escapes already present are kept as they are, so %2F stays %2F.
func wirePath(h *schemes.HTTP) string {
	p := h.Path
	if p == "" {
		p = "/"
	}
	return escapeWire(p, false)
}

// wireSearch is the search part for the wire, escaped the same way; '?' is
// allowed inside it (RFC 3986 query).
func wireSearch(h *schemes.HTTP) string {
	return escapeWire(h.Search, true)
}

// requestTarget is the origin-form request target (RFC 9112 §3.2.1).
func requestTarget(h *schemes.HTTP) string {
	t := wirePath(h)
	if h.HasSearch {
		t += "?" + wireSearch(h)
	}
	return t
}

func escapeWire(s string, query bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		case wireSafe(c) || (query && c == '?'):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// wireSafe: RFC 3986 unreserved and sub-delims, plus ':' '@' '/' — the
// characters a path may hold unescaped. Everything else, '%' not starting
// an escape included, is escaped.
func wireSafe(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// hostHeader is the authority for the request: the host, with the port only
// when the URL names one other than the scheme's default.
func hostHeader(u *schemes.URL) string {
	host := u.Host
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if u.Port != 0 && u.Port != schemes.DefaultPort(u.Scheme) {
		return fmt.Sprintf("%s:%d", host, u.Port)
	}
	return host
}

// lastSegment is the decoded last path segment: the resource's remote name.
func lastSegment(h *schemes.HTTP) string {
	p := h.Path
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	return schemes.Decode(p)
}
