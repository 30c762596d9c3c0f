package security

import (
	"errors"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

func TestSafeName(t *testing.T) {
	for _, ok := range []string{"motd", "README.txt", ".hidden", "..dots", "a b", "C", "é"} {
		if err := SafeName(ok); err != nil {
			t.Errorf("SafeName(%q) = %v, want nil", ok, err)
		}
	}
	if err := SafeName(strings.Repeat("n", MaxNameBytes)); err != nil {
		t.Errorf("a name of %d bytes: %v", MaxNameBytes, err)
	}
	for _, bad := range []string{"", ".", "..", "a/b", "/etc", `a\b`, `..\x`, "a\x00b", "C:x", "c:", strings.Repeat("n", MaxNameBytes+1)} {
		err := SafeName(bad)
		if !errors.Is(err, ErrUnsafeName) {
			t.Errorf("SafeName(%q) = %v, want ErrUnsafeName", bad, err)
		}
	}
}

// TestSafeNameEscapes: the refusal names the name with non-printable bytes
// escaped, so a hostile name cannot drive the terminal.
func TestSafeNameEscapes(t *testing.T) {
	err := SafeName("evil\x1b[2J/x\x00")
	if err == nil {
		t.Fatal("SafeName accepted a name with '/' and NUL")
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\x1b\x00") {
		t.Errorf("message %q carries raw control bytes", msg)
	}
	if !strings.Contains(msg, `evil\x1b[2J/x\x00`) {
		t.Errorf("message %q does not name the escaped name", msg)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"PASS s3cr3t", "PASS ****"},
		{"ftp://me:p%40ss@127.0.0.21/x failed", "ftp://me:****@127.0.0.21/x failed"},
		{"nothing secret here", "nothing secret here"},
	}
	for _, tt := range tests {
		secret := "s3cr3t"
		if strings.Contains(tt.in, "p%40ss") {
			secret = "p@ss"
		}
		if got := Redact(tt.in, secret, ""); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Redact("abcdef", "abc", "abcdef"); got != "****" {
		t.Errorf("overlapping secrets: %q, want the longer masked whole", got)
	}
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ftp://me:secret@127.0.0.21/x", "ftp://me:****@127.0.0.21/x"},
		{"ftp://me@127.0.0.21/x", "ftp://me@127.0.0.21/x"},
		{"ftp://me:se%ZZcret@127.0.0.21/x", "ftp://me:****@127.0.0.21/x"},
		{"http://127.0.0.1/a:b@c", "http://127.0.0.1/a:b@c"},
		{"news:a@b", "news:a@b"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCheckRedirect(t *testing.T) {
	for _, s := range []string{"http", "https", "ftp"} {
		if err := CheckRedirect(&schemes.URL{Scheme: s}); err != nil {
			t.Errorf("redirect to %s: %v, want allowed", s, err)
		}
	}
	for _, s := range []string{"file", "gopher", "telnet", "news", "mailto", "x-local"} {
		err := CheckRedirect(&schemes.URL{Scheme: s})
		if !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), s+":") {
			t.Errorf("redirect to %s: %v, want ErrRedirect naming the scheme", s, err)
		}
	}
}
