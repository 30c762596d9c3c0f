package schemes

import "strings"

// maxWrapped bounds the text searched for the '>' that closes a wrapper, so
// a stray '<' costs little.
const maxWrapped = 4096

// bareSchemes are the schemes recognised without a wrapper: those of RFC
// 1738 and RFC 1630 (and their TLS variants). Anything else needs "<...>".
func bareScheme(s string) bool {
	switch strings.ToLower(s) {
	case "ftp", "ftps", "http", "https", "gopher", "mailto", "news", "nntp", "nntps",
		"telnet", "rlogin", "tn3270", "wais", "file", "prospero", "mid", "cid", "urn":
		return true
	}
	return false
}

// FindInText returns the URLs written in plain text, in order of
// appearance (RFC 1738 appendix, "Recommendations for URLs in Context"):
// each "<URL:...>" or "<...>" wrapper whose content is a URL, with the white
// space inside it (line breaks of long URLs) removed, and each bare URL of
// a scheme of RFC 1738 or RFC 1630, ended by white space, a quote or an
// angle bracket, without trailing punctuation. Each is returned without
// wrapper or "URL:" prefix; none is parsed or checked further.
func FindInText(text string) []string {
	var found []string
	for i := 0; i < len(text); {
		c := text[i]
		if c == '<' {
			if u, end, ok := wrapped(text, i); ok {
				found = append(found, u)
				i = end
				continue
			}
			i++
			continue
		}
		if isSchemeStart(c) && (i == 0 || !isSchemeChar(text[i-1])) {
			if u, end, ok := bare(text, i); ok {
				found = append(found, u)
				i = end
				continue
			}
			for i < len(text) && isSchemeChar(text[i]) {
				i++
			}
			continue
		}
		i++
	}
	return found
}

func isSchemeStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSchemeChar(c byte) bool {
	return isSchemeStart(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// schemeLen returns the length of the scheme name s starts with when a ':'
// follows it, or 0.
func schemeLen(s string) int {
	if s == "" || !isSchemeStart(s[0]) {
		return 0
	}
	n := 1
	for n < len(s) && isSchemeChar(s[n]) {
		n++
	}
	if n < len(s) && s[n] == ':' {
		return n
	}
	return 0
}

// wrapped reads "<...>" at text[i]. Its content is a URL when, white space
// removed, it carries the "URL:" prefix, or starts with a scheme of its own
// followed by "//" or is a scheme FindInText knows bare.
func wrapped(text string, i int) (string, int, bool) {
	limit := min(len(text), i+1+maxWrapped)
	j := strings.IndexAny(text[i+1:limit], "<>")
	if j < 0 || text[i+1+j] != '>' {
		return "", 0, false
	}
	var b strings.Builder
	for _, c := range []byte(text[i+1 : i+1+j]) {
		if !isSpace(c) {
			b.WriteByte(c)
		}
	}
	s := b.String()
	prefixed := len(s) >= 4 && strings.EqualFold(s[:4], "url:")
	if prefixed {
		s = s[4:]
	}
	n := schemeLen(s)
	if n == 0 || n+1 == len(s) {
		return "", 0, false
	}
	if !prefixed && !bareScheme(s[:n]) && !strings.HasPrefix(s[n+1:], "//") {
		return "", 0, false
	}
	return s, i + 1 + j + 1, true
}

// bare reads a URL without wrapper at text[i]: "URL:" prefix optional, a
// scheme FindInText knows bare, then everything up to white space, a quote,
// an angle bracket or a control character, less trailing punctuation.
func bare(text string, i int) (string, int, bool) {
	start := i
	if len(text)-i >= 4 && strings.EqualFold(text[i:i+4], "url:") && schemeLen(text[i+4:]) > 0 {
		start = i + 4
	}
	n := schemeLen(text[start:])
	if n == 0 || !bareScheme(text[start:start+n]) {
		return "", 0, false
	}
	end := start + n + 1
	for end < len(text) {
		c := text[end]
		if c <= ' ' || c == 0x7f || c == '<' || c == '>' || c == '"' {
			break
		}
		end++
	}
	// A sentence's punctuation is not part of the URL; a ')' is, when the
	// URL opened it.
	for end > start+n+1 {
		c := text[end-1]
		if strings.IndexByte(".,;:!?'", c) >= 0 ||
			c == ')' && strings.Count(text[start:end], "(") < strings.Count(text[start:end], ")") {
			end--
			continue
		}
		break
	}
	if end == start+n+1 {
		return "", 0, false
	}
	return text[start:end], end, true
}
