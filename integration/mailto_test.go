package integration_test

import (
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// mailtoInjection: CR, LF and NUL, percent-encoded and raw, in every part
// of a mailto send (address, subject, cc, body, --header, --from; a NUL
// cannot be a program argument, so the library tests cover it there). Each is
// refused with exit 3 and the SMTP listener sees no connection.
var mailtoInjection = []struct {
	url  string
	args []string
	part string
}{
	{"mailto:a@example.org%0D%0ABcc:evil@example.org", nil, "address"},
	{"mailto:a@example.org%0Aevil", nil, "address"},
	{"mailto:a@example.org%00", nil, "address"},
	{"mailto:a@example.org?subject=hi%0D%0ABcc:%20evil@example.org", nil, "subject"},
	{"mailto:a@example.org?subject=hi%0A", nil, "subject"},
	{"mailto:a@example.org?subject=hi%00", nil, "subject"},
	{"mailto:a@example.org?cc=c@example.org%0D%0ABcc:evil@example.org", nil, "cc"},
	{"mailto:a@example.org?cc=c@example.org%00", nil, "cc"},
	{"mailto:a@example.org?in-reply-to=%3Cx@y%3E%0D%0AX:1", nil, "in-reply-to"},
	{"mailto:a@example.org?body=one%0Atwo", nil, "body"},
	{"mailto:a@example.org?body=one%0Dtwo", nil, "body"},
	{"mailto:a@example.org?body=one%00two", nil, "body"},
	{"mailto:a@example.org?body=x%0A.%0D%0AMAIL%20FROM:%3Ce@x%3E", nil, "body"},
	{"mailto:a@example.org?x%0D%0Ay=1", nil, "header name"},
	{"mailto:a@example.org", []string{"--header", "X-A: 1\r\nBcc: evil@example.org"}, "header"},
	{"mailto:a@example.org", []string{"--header", "X-A: 1\nBcc: evil@example.org"}, "header"},
	{"mailto:a@example.org", []string{"--from", "me@example.org\r\nBcc: evil@example.org"}, "sender"},
	{"mailto:a@example.org\r\nBcc: evil@example.org", nil, ""},
	{"mailto:a@example.org?subject=x\nBcc: evil@example.org", nil, ""},
}

func TestMailtoInjectionNeverReachesTheWire(t *testing.T) {
	itest.Parallel(t)
	rec := listenRecorder(t, "127.0.0.1:0")
	addr := rec.ln.Addr().String()
	for _, c := range mailtoInjection {
		args := append([]string{"get", "--smtp-server", addr, "--from", "me@example.org"}, c.args...)
		r := itest.Run(t, strings.NewReader("text\n"), nil, append(args, c.url)...)
		if r.Code != 3 {
			t.Errorf("%q %q: exit %d, want 3 (stderr %q)", c.url, c.args, r.Code, r.Stderr)
		}
		if r.Stdout != "" {
			t.Errorf("%q: wrote %q to stdout", c.url, r.Stdout)
		}
		if reason := r.Reason(); c.part != "" && !strings.Contains(reason, c.part) {
			t.Errorf("%q %q: reason %q does not name the %s", c.url, c.args, reason, c.part)
		}
		if got := rec.received(t); len(got) > 0 {
			t.Errorf("%q %q: the listener received %v", c.url, c.args, got)
		}
	}
}

// TestMailtoServerPort: the SMTP server's port follows the port policy:
// another protocol's port is refused before any connection.
func TestMailtoServerPort(t *testing.T) {
	itest.Parallel(t)
	rec := listenRecorder(t, "127.0.0.251:119")
	r := itest.Run(t, strings.NewReader("text\n"), nil, "get", "--smtp-server", "127.0.0.251:119", "--from", "me@example.org", "mailto:a@example.org")
	if r.Code != 3 || !strings.Contains(r.Reason(), "nntp port") {
		t.Errorf("exit %d, stderr %q", r.Code, r.Stderr)
	}
	if got := rec.received(t); len(got) > 0 {
		t.Errorf("the listener received %v", got)
	}
}
