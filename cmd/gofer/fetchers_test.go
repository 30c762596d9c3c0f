package main

import (
	"strings"
	"testing"
)

// TestFetcherFlagsOverEnvironment: the flags that configure one
// protocol's fetcher reach it, each over what the environment says, and
// the environment's settings reach it when no flag is given.
func TestFetcherFlagsOverEnvironment(t *testing.T) {
	t.Setenv("EMAIL", "env@example.invalid")
	t.Setenv("NNTPSERVER", "127.0.0.9")
	t.Setenv("SMTP_SERVER", "127.0.0.26")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"ftp://127.0.0.21/f"}, []string{"  PASS env@example.invalid\n"}},
		{[]string{"--email", "flag@example.invalid", "--ssl-reqd", "ftp://127.0.0.21/f"}, []string{"  AUTH TLS\n", "  PASS flag@example.invalid\n"}},
		{[]string{"news:a.b"}, []string{"127.0.0.9:119"}},
		{[]string{"--nntp-server", "127.0.0.8:1119", "--ftp-ssl", "news:a.b"}, []string{"127.0.0.8:1119", "  STARTTLS\n"}},
		{[]string{"mailto:you@example.org"}, []string{"127.0.0.26:25", "  MAIL FROM:<env@example.invalid>\n"}},
		{[]string{"--from", "me@example.org", "--smtp-server", "127.0.0.25", "--smtp-user", "me", "--ssl-reqd", "mailto:you@example.org"},
			[]string{"127.0.0.25:25", "  STARTTLS\n", "  AUTH PLAIN ****\n", "  MAIL FROM:<me@example.org>\n"}},
	}
	for _, c := range cases {
		code, out, errOut := gofer(t, "", append([]string{"parse"}, c.args...)...)
		if code != 0 {
			t.Errorf("%q: exit %d: %s", c.args, code, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%q: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

// TestMissingSettingHints: a fetch the library refuses for want of a
// fetcher's setting tells a person the flag and variable that give it.
func TestMissingSettingHints(t *testing.T) {
	t.Setenv("EMAIL", "")
	t.Setenv("NNTPSERVER", "")
	t.Setenv("SMTP_SERVER", "")
	code, _, errOut := gofer(t, "", "get", "news:comp.infosystems.gopher")
	if code != 2 || !strings.Contains(errOut, "--nntp-server HOST[:PORT] or $NNTPSERVER") {
		t.Errorf("news: without a server: exit %d, stderr %q; want 2 and the --nntp-server hint", code, errOut)
	}
	code, _, errOut = gofer(t, "", "get", "--smtp-server", "127.0.0.1:1", "mailto:you@example.org")
	if code != 2 || !strings.Contains(errOut, "give --from ADDR or set $EMAIL") {
		t.Errorf("mailto: without a sender: exit %d, stderr %q; want 2 and the --from hint", code, errOut)
	}
}
