package security

import (
	"net/url"
	"sort"
	"strings"
)

// mask is what a secret is shown as.
const mask = "****"

// Redact returns s with every non-empty secret replaced by "****", in its
// plain form and in the percent-encoded forms a URL would carry it in, so
// that passwords never reach errors, transcripts or logs.
func Redact(s string, secrets ...string) string {
	var forms []string
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		forms = append(forms, sec, url.PathEscape(sec), url.QueryEscape(sec), escapeAll(sec))
	}
	// Longest first, so that a secret containing another is masked whole.
	sort.Slice(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, mask)
	}
	return s
}

// escapeAll percent-encodes every byte outside RFC 1738's unreserved set,
// the way a canonical URL writes a password.
func escapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("$-_.+!*'(),", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// RedactURL masks the password of a URL given as a string that may not even
// parse: whatever lies between "user:" and "@" in the authority of
// "scheme://user:password@host" becomes "****".
func RedactURL(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	start := i + 3
	end := len(raw)
	if j := strings.IndexAny(raw[start:], "/?#"); j >= 0 {
		end = start + j
	}
	auth := raw[start:end]
	at := strings.LastIndexByte(auth, '@')
	if at < 0 {
		return raw
	}
	colon := strings.IndexByte(auth[:at], ':')
	if colon < 0 {
		return raw
	}
	return raw[:start+colon+1] + mask + raw[start+at:]
}
