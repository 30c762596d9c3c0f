package gopher

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Every request form of RFC 1738 §3.4 and draft-ietf-uri-url-03's Gopher+
// section, from the URL as written to the bytes on the wire.
func TestWireDraftForms(t *testing.T) {
	tests := []struct {
		name, url, want string
	}{
		{"empty path: top menu", "gopher://{addr}", "\r\n"},
		{"slash only", "gopher://{addr}/", "\r\n"},
		{"type char not sent", "gopher://{addr}/0about.txt", "about.txt\r\n"},
		{"selector starting with its type", "gopher://{addr}/00/doc", "0/doc\r\n"},
		{"encoded selector", "gopher://{addr}/0a%20b%25c", "a b%c\r\n"},
		{"search", "gopher://{addr}/7/search%09gopher%20plus", "/search\tgopher plus\r\n"},
		{"gopher+ default view", "gopher://{addr}/0sel%09%09+", "sel\t+\r\n"},
		{"alternate view", "gopher://{addr}/0sel%09%09+application/postscript%20Es_ES", "sel\t+application/postscript Es_ES\r\n"},
		{"all attributes", "gopher://{addr}/0sel%09%09!", "sel\t!\r\n"},
		{"some attributes", "gopher://{addr}/0sel%09%09!+ABSTRACT%20+SMELL", "sel\t!+ABSTRACT +SMELL\r\n"},
		{"directory attributes", "gopher://{addr}/1dir%09%09$", "dir\t$\r\n"},
		{"directory attributes, some", "gopher://{addr}/1dir%09%09$+VIEWS", "dir\t$+VIEWS\r\n"},
		{"search and gopher+", "gopher://{addr}/7s%09words%09+", "s\twords\t+\r\n"},
		{"search attributes", "gopher://{addr}/7s%09%09!", "s\t\t!\r\n"},
		{"filled +ASK form",
			"gopher://{addr}/0sel%09%09+%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
			"sel\t+\t1\r\n+-1\r\nask_item1_value\r\nask_item2_value\r\n.\r\n"},
		{"filled +ASK form of an alternate view",
			"gopher://{addr}/0sel%09%09+view_name%20language_name%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
			"sel\t+view_name language_name\t1\r\n+-1\r\nask_item1_value\r\nask_item2_value\r\n.\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScripted(t, func(int, string) string { return "+-2\r\nok" })
			u := s.parse(t, tt.url)
			resp, err := New().Fetch(context.Background(), newRequest(u))
			if err != nil {
				t.Fatal(err)
			}
			drain(resp)
			resp.Close()
			got := s.Requests()
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("sent %q, want %q", got, tt.want)
			}
			// gofer parse shows the same lines.
			plan, err := New().Plan(newRequest(u))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSuffix(tt.want, "\r\n"), "\r\n")
			if strings.Join(plan.Requests, "|") != strings.Join(want, "|") {
				t.Fatalf("Plan = %q, want %q", plan.Requests, want)
			}
		})
	}
}

func drain(resp *schemes.Response) {
	switch {
	case resp.Body != nil:
		io.Copy(io.Discard, resp.Body)
	case resp.Listing != nil:
		for {
			if _, err := resp.Listing.Next(); err != nil {
				return
			}
		}
	}
}

// A selector, search or Gopher+ string that would inject is refused before
// any connection is made.
func TestInjectionRefusedBeforeDial(t *testing.T) {
	for _, g := range []schemes.Gopher{
		{Type: '0', Selector: "a\r\nb"},
		{Type: '0', Selector: "a\tb"},
		{Type: '7', Selector: "s", Search: "x\ny", HasSearch: true},
		{Type: '0', Selector: "s", PlusString: "+\r\nQUIT", HasPlus: true},
		{Type: '0', Selector: "s", PlusString: "+\t1\r\n+-1\r\n.\r\nX\r\n.\r\n", HasPlus: true},
	} {
		req := &schemes.Request{URL: &schemes.URL{Scheme: "gopher", Host: "127.0.0.1", Gopher: &g}, Settings: &schemes.Settings{Dialer: failDialer{t}}}
		_, err := New().Fetch(context.Background(), req)
		if !errors.Is(err, security.ErrInjection) {
			t.Errorf("%+v: err = %v, want ErrInjection", g, err)
		}
		if _, err := New().Plan(req); !errors.Is(err, security.ErrInjection) {
			t.Errorf("%+v: Plan err = %v, want ErrInjection", g, err)
		}
	}
	// A --query is checked the same way.
	req := &schemes.Request{
		URL: &schemes.URL{Scheme: "gopher", Host: "127.0.0.1",
			Gopher: &schemes.Gopher{Type: '7', Selector: "s"}},
		Call:     schemes.Call{Query: "a\r\nb", HasQuery: true},
		Settings: &schemes.Settings{Dialer: failDialer{t}},
	}
	if _, err := New().Fetch(context.Background(), req); !errors.Is(err, security.ErrInjection) {
		t.Errorf("query: err = %v, want ErrInjection", err)
	}
}

type failDialer struct{ t *testing.T }

func (d failDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	d.t.Error("dialed although the request must be refused")
	return nil, errors.New("no")
}

// Type 7: the query comes from the URL, else --query, else a prompt, else
// the fetch is a usage error that names the setting (Query), not a flag.
func TestSearchQuery(t *testing.T) {
	s := newScripted(t, func(int, string) string { return "0hit\t/hit\t127.0.0.1\t70\r\n.\r\n" })
	u := s.url(schemes.Gopher{Type: '7', Selector: "/search"})

	req := newRequest(u)
	_, err := New().Fetch(context.Background(), req)
	var se *schemes.SettingError
	if !errors.Is(err, schemes.ErrUsage) || !errors.As(err, &se) || se.Setting != "Query" || err.Error() != "a query is needed" {
		t.Fatalf("no query: err = %v", err)
	}

	req = newRequest(u)
	req.Query, req.HasQuery = "from flag", true
	resp, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != schemes.KindListing {
		t.Fatalf("search result Kind = %v, want listing", resp.Kind)
	}
	e, err := resp.Listing.Next()
	if err != nil || e.Name != "hit" || e.Gopher.Selector != "/hit" {
		t.Fatalf("entry %+v, %v", e, err)
	}
	resp.Close()

	req = newRequest(u)
	var asked string
	req.Prompt = func(q string, secret bool) (string, error) { asked = q; return "typed", nil }
	resp, err = New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	if asked == "" {
		t.Error("prompt not used")
	}

	want := []string{"/search\tfrom flag\r\n", "/search\ttyped\r\n"}
	if got := s.Requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("sent %q, want %q", got, want)
	}
}

// A server that stops sending fails the read with ErrTimeout after the idle
// timeout, and a cancelled context ends a fetch as interrupted.
func TestStalledServer(t *testing.T) {
	s := newScripted(t, func(int, string) string { return "partial" })
	s.hold = true
	req := newRequest(s.url(schemes.Gopher{Type: '9', Selector: "big"}))
	req.IdleTimeout = 200 * time.Millisecond
	_, body, err := fetchBody(t, req)
	if !errors.Is(err, schemes.ErrTimeout) || body != "partial" {
		t.Fatalf("body %q err %v, want the partial body and ErrTimeout", body, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	req = newRequest(s.url(schemes.Gopher{Type: '9', Selector: "big"}))
	resp, err := New().Fetch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	buf := make([]byte, 7)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("after cancel: err = %v, want ErrInterrupted", err)
	}
}

func TestConnectRefused(t *testing.T) {
	s := newScripted(t, func(int, string) string { return "" })
	u := s.url(schemes.Gopher{Type: '1'})
	s.ln.Close()
	_, err := New().Fetch(context.Background(), newRequest(u))
	if !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("err = %v, want ErrConnect", err)
	}
}
