package schemes

import (
	"io"
	"strings"
)

// Limits that keep the search for URLs in text cheap and its memory
// bounded whatever the input: the span searched for the '>' that closes a
// wrapper, the length of a bare URL (a longer one is skipped), and the
// length of a scheme name.
const (
	maxWrapped   = 4096
	maxBare      = 8192
	maxSchemeLen = 32
)

// bareScheme reports whether a URL of scheme s is recognised without a
// wrapper: the schemes of RFC 1738 and RFC 1630 (and their TLS variants).
// Anything else needs "<...>".
func bareScheme(s string) bool {
	switch strings.ToLower(s) {
	case "ftp", "ftps", "http", "https", "gopher", "gophers", "mailto", "news", "nntp", "nntps",
		"telnet", "rlogin", "tn3270", "wais", "file", "prospero", "mid", "cid", "urn", "gemini":
		return true
	}
	return false
}

// FindInText returns the URLs written in plain text, in order of
// appearance (RFC 1738 appendix, "Recommendations for URLs in Context"):
// each "<URL:...>" or "<...>" wrapper whose content is a URL, with the white
// space inside it (line breaks of long URLs) removed, and each bare URL of
// a scheme of RFC 1738 or RFC 1630, ended by white space, a quote, an angle
// bracket or a non-ASCII byte, without trailing punctuation. Each is
// returned without wrapper or "URL:" prefix. A bare candidate counts only
// when Parse accepts it (prose and syntax templates such as "http://:/" are
// not URLs); a wrapper's content is the author's word and is not checked.
func FindInText(text string) []string {
	var found []string
	var sc textScanner
	_, _ = sc.scan(text, false, func(u string) error {
		found = append(found, u)
		return nil
	})
	return found
}

// FindInReader calls fn with each URL of the text r gives, as FindInText
// finds them, reading r in chunks: memory stays bounded by the limits above
// whatever r's length. An error from fn or r stops it and is returned.
func FindInReader(r io.Reader, fn func(string) error) error {
	var sc textScanner
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 32<<10)
	for {
		n, rerr := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if rerr != nil && rerr != io.EOF {
			return rerr
		}
		more := rerr == nil
		k, err := sc.scan(string(buf), more, fn)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		buf = append(buf[:0], buf[k:]...)
	}
}

// scanState is what a look at a candidate found.
type scanState int

const (
	stNone       scanState = iota // not a URL here
	stFound                       // a URL
	stSkip                        // an over-long bare URL: skip to its end
	stIncomplete                  // cannot tell before more text arrives
)

// textScanner carries the scan across the chunks of FindInReader.
type textScanner struct {
	prev     byte // the byte before the text scanned next
	skipping bool // inside an over-long bare URL
}

// scan emits the URLs of text. With more (text follows), it stops before a
// candidate that may go on past the end of text and returns the offset it
// consumed up to; the caller passes the rest again with what follows.
func (s *textScanner) scan(text string, more bool, emit func(string) error) (int, error) {
	i := 0
	for i < len(text) {
		if s.skipping {
			for i < len(text) && !bareEnd(text[i]) {
				i++
			}
			if i == len(text) {
				break
			}
			s.skipping = false
		}
		c := text[i]
		prev := s.prev
		if i > 0 {
			prev = text[i-1]
		}
		var u string
		var end int
		st := stNone
		switch {
		case c == '<':
			u, end, st = wrapped(text, i, more)
			if st == stNone {
				end = i + 1
			}
		case isSchemeStart(c) && !isSchemeChar(prev):
			u, end, st = bare(text, i, more)
			if st == stNone {
				end = i
				for end < len(text) && isSchemeChar(text[end]) {
					end++
				}
			}
		default:
			end = i + 1
		}
		switch st {
		case stIncomplete:
			if i > 0 {
				s.prev = text[i-1]
			}
			return i, nil
		case stFound:
			if err := emit(u); err != nil {
				return i, err
			}
		case stSkip:
			s.skipping = end == len(text)
		}
		i = end
	}
	if i > 0 {
		s.prev = text[i-1]
	}
	return i, nil
}

func isSchemeStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSchemeChar(c byte) bool {
	return isSchemeStart(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'
}

// bareEnd reports whether c ends a bare URL: white space, a control
// character, a quote or an angle bracket, or a non-ASCII byte (RFC 1738
// §2.2: URLs are written in ASCII; text around them may not be).
func bareEnd(c byte) bool {
	return c <= ' ' || c >= 0x7f || c == '<' || c == '>' || c == '"'
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

// tokenCut reports whether the scheme-name characters from s's start run to
// its end while still short enough to be a scheme name.
func tokenCut(s string) bool {
	n := 0
	for n < len(s) && isSchemeChar(s[n]) {
		n++
	}
	return n == len(s) && n <= maxSchemeLen
}

// wrapped reads "<...>" at text[i]. Its content is a URL when, white space
// removed, it carries the "URL:" prefix, or starts with a scheme followed by
// "//", or with a scheme FindInText knows bare.
func wrapped(text string, i int, more bool) (string, int, scanState) {
	limit := min(len(text), i+1+maxWrapped)
	j := strings.IndexAny(text[i+1:limit], "<>")
	if j < 0 {
		if more && limit == len(text) {
			return "", 0, stIncomplete
		}
		return "", 0, stNone
	}
	if text[i+1+j] != '>' {
		return "", 0, stNone
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
		return "", 0, stNone
	}
	if !prefixed && !bareScheme(s[:n]) && !strings.HasPrefix(s[n+1:], "//") {
		return "", 0, stNone
	}
	return s, i + 1 + j + 1, stFound
}

// bare reads a URL without wrapper at text[i]: "URL:" prefix optional, a
// scheme FindInText knows bare, then everything up to white space, a quote,
// an angle bracket or a control character, less trailing punctuation.
func bare(text string, i int, more bool) (string, int, scanState) {
	if more && tokenCut(text[i:]) {
		return "", 0, stIncomplete
	}
	start := i
	if len(text)-i >= 4 && strings.EqualFold(text[i:i+4], "url:") {
		if more && tokenCut(text[i+4:]) {
			return "", 0, stIncomplete
		}
		if schemeLen(text[i+4:]) > 0 {
			start = i + 4
		}
	}
	n := schemeLen(text[start:])
	if n == 0 || !bareScheme(text[start:start+n]) {
		return "", 0, stNone
	}
	end := start + n + 1
	for end < len(text) && !bareEnd(text[end]) && end-start <= maxBare {
		end++
	}
	switch {
	case end-start > maxBare:
		for end < len(text) && !bareEnd(text[end]) {
			end++
		}
		return "", end, stSkip
	case end == len(text) && more:
		return "", 0, stIncomplete
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
		return "", 0, stNone
	}
	if _, err := Parse(text[start:end]); err != nil {
		return "", end, stSkip
	}
	return text[start:end], end, stFound
}
