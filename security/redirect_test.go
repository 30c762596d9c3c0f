package security

import (
	"errors"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

func TestCheckRedirectFrom(t *testing.T) {
	tests := []struct {
		from, to string
		ok       bool
	}{
		{"http://h/", "ftp://h/x", true},
		{"http://h/", "https://h/x", true},
		{"http://h/", "gopher://h/", false},
		{"http://h/", "news:a@b", false},
		{"http://h/", "file:///etc/passwd", false},
		{"prospero://h//o", "ftp://h/x", true},
		{"prospero://h//o", "gopher://h/0x", true},
		{"prospero://h//o", "wais://h/db", true},
		{"prospero://h//o", "http://h/x", true},
		{"prospero://h//o", "https://h/x", true},
		{"prospero://h//o", "news:a@b", true},
		{"prospero://h//o", "nntp://h/g/1", true},
		{"prospero://h//o", "file:///etc/passwd", false},
		{"prospero://h//o", "telnet://h/", false},
		{"prospero://h//o", "rlogin://h/", false},
		{"prospero://h//o", "tn3270://h/", false},
		{"prospero://h//o", "prospero://h//p", false},
		{"prospero://h//o", "mailto:a@b", false},
		{"prospero://h//o", "gemini://h/", false},
		{"http://h/", "gemini://h/", false},
		{"gemini://h/a", "gemini://h/b", true},
		{"gemini://h/a", "gemini://other:1966/b?q", true},
		{"gemini://h/a", "http://h/x", false},
		{"gemini://h/a", "https://h/x", false},
		{"gemini://h/a", "file:///etc/passwd", false},
		{"gemini://h/a", "gopher://h/0x", false},
		{"gemini://h/a", "ftp://h/x", false},
		{"gemini://h/a", "mailto:a@b", false},
	}
	for _, tt := range tests {
		from, _ := schemes.Parse(tt.from)
		to, _ := schemes.Parse(tt.to)
		err := CheckRedirectFrom(from, to)
		if (err == nil) != tt.ok {
			t.Errorf("%s -> %s: %v, want ok=%v", tt.from, tt.to, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrRedirect) {
			t.Errorf("%s -> %s: %v does not match ErrRedirect", tt.from, tt.to, err)
		}
		if err != nil && from.Scheme == "prospero" && !strings.Contains(err.Error(), "prospero resolution") {
			t.Errorf("%s -> %s: %q does not say it was a prospero resolution", tt.from, tt.to, err)
		}
		wantFrom := from.Scheme
		if wantFrom == "http" {
			wantFrom = ""
		}
		var re *RedirectError
		if err != nil && (!errors.As(err, &re) || re.Scheme != to.Scheme || re.From != wantFrom) {
			t.Errorf("%s -> %s: %#v; want a *RedirectError from %s to %s", tt.from, tt.to, err, from.Scheme, to.Scheme)
		}
		if err != nil && from.Scheme == "gemini" && !strings.Contains(err.Error(), "gemini redirect") {
			t.Errorf("%s -> %s: %q does not say it was a gemini redirect", tt.from, tt.to, err)
		}
	}
}
