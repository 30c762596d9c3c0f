package fetch

import (
	"context"
	"errors"
	"testing"

	"github.com/goferurl/gofer/security"
)

// TestProsperoResolutionPolicy: a prospero resolution may lead to ftp,
// gopher, wais, http, https, news and nntp, and each target is fetched by
// its own scheme's fetcher; never to file:, telnet or rlogin, whose
// fetchers are never called.
func TestProsperoResolutionPolicy(t *testing.T) {
	allowed := []string{
		"ftp://127.0.0.21/pub/file",
		"gopher://127.0.0.71/0/about.txt",
		"wais://127.0.0.1/db",
		"http://127.0.0.80/x",
		"https://127.0.0.80/x",
		"news:a@b.example",
		"nntp://127.0.0.119/gofer.test/1",
	}
	for _, to := range allowed {
		c := newClient(Options{})
		pros, target := newFake(), newFake()
		c.Register("prospero", pros)
		for _, s := range []string{"ftp", "gopher", "wais", "http", "https", "news", "nntp"} {
			c.Register(s, target)
		}
		pros.redirect("prospero://127.0.0.15//obj", to)
		target.body(to, "contents")
		resp, err := c.Get(context.Background(), "prospero://127.0.0.15//obj")
		if err != nil {
			t.Errorf("resolution to %s: %v", to, err)
			continue
		}
		if got := readAll(t, resp); got != "contents" {
			t.Errorf("resolution to %s: body %q", to, got)
		}
	}
	for _, to := range []string{"file:///etc/passwd", "telnet://127.0.0.23/", "rlogin://127.0.0.23/", "prospero://127.0.0.15//other"} {
		c := newClient(Options{})
		pros, local := newFake(), newFake()
		c.Register("prospero", pros)
		c.Register("file", local)
		c.Register("telnet", local)
		c.Register("rlogin", local)
		pros.redirect("prospero://127.0.0.15//obj", to)
		_, err := c.Get(context.Background(), "prospero://127.0.0.15//obj")
		if !errors.Is(err, security.ErrRedirect) {
			t.Errorf("resolution to %s: %v, want security.ErrRedirect", to, err)
		}
		if n := len(local.calls()); n != 0 {
			t.Errorf("resolution to %s reached its fetcher", to)
		}
		if to != "prospero://127.0.0.15//other" && len(pros.calls()) != 1 {
			t.Errorf("resolution to %s: prospero fetched %d times", to, len(pros.calls()))
		}
	}
}

// TestHTTPRedirectPolicyUnchanged: an HTTP redirect still goes to http,
// https and ftp only, even where a prospero resolution could go further.
func TestHTTPRedirectPolicyUnchanged(t *testing.T) {
	for _, to := range []string{"gopher://127.0.0.71/", "wais://127.0.0.1/db", "nntp://127.0.0.119/gofer.test", "news:a@b.example"} {
		c, f := testClient(Options{})
		other := newFake()
		for _, s := range []string{"gopher", "wais", "nntp", "news"} {
			c.Register(s, other)
		}
		f.redirect("http://127.0.0.1/a", to)
		_, err := c.Get(context.Background(), "http://127.0.0.1/a")
		if !errors.Is(err, security.ErrRedirect) {
			t.Errorf("http redirect to %s: %v, want security.ErrRedirect", to, err)
		}
		if len(other.calls()) != 0 {
			t.Errorf("http redirect to %s reached its fetcher", to)
		}
	}
}

// TestProsperoResolutionGuarded: the target of a resolution passes the
// guard like a typed URL: a port the guard refuses is never fetched.
func TestProsperoResolutionGuarded(t *testing.T) {
	c := newClient(Options{})
	pros, target := newFake(), newFake()
	c.Register("prospero", pros)
	c.Register("ftp", target)
	pros.redirect("prospero://127.0.0.15//obj", "ftp://127.0.0.21:25/archive/README.txt")
	_, err := c.Get(context.Background(), "prospero://127.0.0.15//obj")
	if !errors.Is(err, security.ErrPort) {
		t.Fatalf("resolution to port 25: %v, want security.ErrPort", err)
	}
	if len(target.calls()) != 0 {
		t.Errorf("the refused target was fetched")
	}
}
