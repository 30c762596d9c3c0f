package gemini_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/gemini"
	"github.com/goferurl/gofer/security"
)

// client is a fetch.Client with gemini fetched by f and port allowed.
func client(t *testing.T, f *gemini.Fetcher, port int) *fetch.Client {
	c := fetch.NewClient(fetch.Options{
		Fetchers:   map[string]schemes.Fetcher{"gemini": f},
		AllowPorts: []int{port},
		Warn:       func(string) {},
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestClientRedirects: through the front door, a gemini redirect is
// followed to gemini, a loop is refused, and a redirect to another scheme
// is refused by the redirect policy before anything is fetched there.
func TestClientRedirects(t *testing.T) {
	srv := gemini.NewTestServer(t, func(line string) string {
		switch pathOf(line) {
		case "/start":
			return "31 /next?x\r\n"
		case "/next?x":
			return "20 text/plain\r\narrived"
		case "/loop":
			return "30 /loop2\r\n"
		case "/loop2":
			return "30 " + strings.Replace(strings.TrimSuffix(line, "\r\n"), "/loop2", "/loop", 1) + "\r\n"
		case "/web":
			return "30 http://127.0.0.1:1/\r\n"
		case "/file":
			return "31 file:///etc/passwd\r\n"
		case "/gopher":
			return "30 gopher://127.0.0.1:1/0x\r\n"
		}
		return "51 Not found\r\n"
	})
	c := client(t, gemini.New(), srv.Port())

	resp, err := c.Do(context.Background(), &fetch.Request{URL: srv.URL("/start")})
	if err != nil {
		t.Fatalf("a redirect: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Close()
	if err != nil || string(body) != "arrived" || resp.URL.String() != srv.URL("/next?x") {
		t.Errorf("after the redirect: %q, %v at %s", body, err, resp.URL)
	}
	if a, b := srv.Next(t), srv.Next(t); a.Line != srv.URL("/start\r\n") || b.Line != srv.URL("/next?x\r\n") {
		t.Errorf("requests %q, %q", a.Line, b.Line)
	}

	_, err = c.Do(context.Background(), &fetch.Request{URL: srv.URL("/loop")})
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "loop") {
		t.Errorf("a redirect loop: %v; want it refused as a loop", err)
	}
	srv.Next(t)
	srv.Next(t)

	for _, path := range []string{"/web", "/file", "/gopher"} {
		_, err := c.Do(context.Background(), &fetch.Request{URL: srv.URL(path)})
		var re *security.RedirectError
		if !errors.Is(err, security.ErrRedirect) || !errors.As(err, &re) || re.From != "gemini" {
			t.Errorf("%s: %v; want a gemini redirect refused", path, err)
		}
		srv.Next(t)
	}
	srv.Close()
	if n := srv.Pending(); n != 0 {
		t.Errorf("%d more connections than the redirects asked for", n)
	}
}

// pathOf is the path and query of a request line.
func pathOf(line string) string {
	rest := strings.TrimPrefix(strings.TrimSuffix(line, "\r\n"), "gemini://")
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		return rest[i:]
	}
	return ""
}

// TestClientGuard: the front door guards the URL of a gemini fetch: a
// line end in the path is refused before anything is dialled.
func TestClientGuard(t *testing.T) {
	srv := gemini.NewTestServer(t, func(string) string { return "20 text/plain\r\nok" })
	c := client(t, gemini.New(), srv.Port())
	for _, u := range []string{srv.URL("/a%0D%0Ab"), srv.URL("/?q%00")} {
		if _, err := c.Do(context.Background(), &fetch.Request{URL: u}); !errors.Is(err, security.ErrInjection) {
			t.Errorf("%s: %v; want an injection refusal", u, err)
		}
	}
	if resp, err := c.Do(context.Background(), &fetch.Request{URL: srv.URL("/fine")}); err != nil {
		t.Fatal(err)
	} else {
		resp.Close()
	}
	srv.Close()
	if ex := srv.Next(t); ex.Line != srv.URL("/fine\r\n") || srv.Pending() != 0 {
		t.Errorf("the first request the server saw was %q, and %d more", ex.Line, srv.Pending())
	}
}
