package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// planner is a fetcher that can say what it would send.
type planner struct{ fakeFetcher }

func (p *planner) Plan(req *schemes.Request) (*schemes.Plan, error) {
	return &schemes.Plan{
		Requests: []string{"USER " + req.URL.User, "PASS ****", "RETR " + req.URL.FTP.Name()},
		Notes:    map[string]string{"file": req.URL.FTP.Name()},
	}, nil
}

func TestPlan(t *testing.T) {
	var warned []string
	c := newClient(Options{Warn: func(s string) { warned = append(warned, s) }})
	c.Register("ftp", &planner{})
	p, err := c.Plan(&Request{URL: "ftp://me:s3cret@127.0.0.1:2121/etc/motd"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"USER me", "PASS ****", "RETR motd"}
	if strings.Join(p.Requests, "|") != strings.Join(want, "|") {
		t.Errorf("requests %q, want %q", p.Requests, want)
	}
	if len(p.Warnings) != 2 || strings.Join(warned, "|") != strings.Join(p.Warnings, "|") {
		t.Errorf("warnings %q, sent to Warn %q; want the port and the password in both", p.Warnings, warned)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cret") {
		t.Errorf("plan JSON shows the password: %s", b)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	if obj["url"] != "ftp://me:****@127.0.0.1:2121/etc/motd" {
		t.Errorf("url %v", obj["url"])
	}
	if _, ok := any(p.URL).(json.Marshaler); ok && obj["scheme"] != "ftp" {
		t.Errorf("the URL's parts are missing: %s", b)
	}
	if notes, _ := obj["notes"].(map[string]any); notes["file"] != "motd" {
		t.Errorf("notes %v", obj["notes"])
	}
	if r, _ := obj["requests"].([]any); len(r) != 3 {
		t.Errorf("requests %v", obj["requests"])
	}

	// A scheme without a planner plans no requests, as an empty list.
	p, err = c.Plan(&Request{URL: "mailto:someone@example.invalid"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(p)
	if !strings.Contains(string(b), `"requests":[]`) || !strings.Contains(string(b), `"warnings":[]`) {
		t.Errorf("plan without a planner: %s", b)
	}
}

// TestPlanRefused: parse shows a guard refusal as an error, as get would.
func TestPlanRefused(t *testing.T) {
	c := newClient(Options{})
	c.Register("ftp", &planner{})
	_, err := c.Plan(&Request{URL: "ftp://127.0.0.1:25/x"})
	var fe *Error
	if !errors.Is(err, security.ErrPort) || !errors.As(err, &fe) || fe.Op != "parse" {
		t.Errorf("Plan = %v, want a parse *fetch.Error matching ErrPort", err)
	}
	if _, err := c.Plan(&Request{URL: "ftp://127.0.0.1/a%0D%0Ab"}); !errors.Is(err, security.ErrInjection) {
		t.Errorf("Plan = %v, want ErrInjection", err)
	}
	if _, err := c.Plan(&Request{URL: "ftp://127.0.0.1/%g"}); !errors.Is(err, schemes.ErrUsage) {
		var pe *schemes.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Plan = %v, want a parse error", err)
		}
	}
}

// requestSeen registers a fetcher that keeps the schemes.Request it gets.
func requestSeen(t *testing.T, opts Options) *schemes.Request {
	t.Helper()
	c := newClient(opts)
	f := newFake()
	var got *schemes.Request
	f.routes["ftp://127.0.0.21/x"] = func(req *schemes.Request) (*schemes.Response, error) {
		got = req
		return &schemes.Response{Kind: schemes.KindListing}, nil
	}
	c.Register("ftp", f)
	if _, err := c.Do(context.Background(), &Request{
		URL:  "ftp://127.0.0.21/x",
		Call: schemes.Call{Offset: 7, Query: "q", HasQuery: true, Form: []string{"1=a"}, News: &schemes.NewsRequest{Part: "head"}, Mail: &schemes.MailRequest{Body: strings.NewReader("text"), Headers: []string{"X-A: 1"}}},
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestSchemeRequest(t *testing.T) {
	req := requestSeen(t, Options{MaxEntries: 5, IdleTimeout: 3})
	if req.Offset != 7 || req.Query != "q" || !req.HasQuery || len(req.Form) != 1 || req.MaxEntries != 5 || req.IdleTimeout != 3 {
		t.Errorf("settings not passed through: %+v", req)
	}
	if req.News == nil || req.News.Part != "head" {
		t.Errorf("News %+v, want the part asked for", req.News)
	}
	if req.Mail == nil || req.Mail.Body == nil || len(req.Mail.Headers) != 1 || req.Mail.Headers[0] != "X-A: 1" {
		t.Errorf("Mail %+v, want the body and headers given", req.Mail)
	}
	if req.Dialer == nil || req.CheckURL == nil {
		t.Error("no Dialer or CheckURL")
	}
	if err := req.CheckURL(&schemes.URL{Scheme: "gopher", Host: "127.0.0.1", Port: 25}); !errors.Is(err, security.ErrPort) {
		t.Errorf("CheckURL is not the guard: %v", err)
	}
}

// TestSchemeRequestWithoutViews: a request that asks for no part and
// carries no message gives the fetcher no views.
func TestSchemeRequestWithoutViews(t *testing.T) {
	c := newClient(Options{})
	f := newFake()
	var got *schemes.Request
	f.routes["ftp://127.0.0.21/x"] = func(req *schemes.Request) (*schemes.Response, error) {
		got = req
		return &schemes.Response{Kind: schemes.KindListing}, nil
	}
	c.Register("ftp", f)
	if _, err := c.Get(context.Background(), "ftp://127.0.0.21/x"); err != nil {
		t.Fatal(err)
	}
	if got.News != nil || got.Mail != nil {
		t.Errorf("News %+v Mail %+v, want neither", got.News, got.Mail)
	}
}

func TestNetrc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "netrc")
	data := "machine 127.0.0.21 login alice password wonder\n\ndefault login anon password guest@\n"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	req := requestSeen(t, Options{Netrc: path})
	if req.Credentials == nil {
		t.Fatal("no Credentials from the netrc file")
	}
	if u, p, ok := req.Credentials("127.0.0.21"); !ok || u != "alice" || p != "wonder" {
		t.Errorf("Credentials(127.0.0.21) = %q %q %v", u, p, ok)
	}
	if u, p, ok := req.Credentials("127.0.0.99"); !ok || u != "anon" || p != "guest@" {
		t.Errorf("Credentials(other) = %q %q %v, want the default entry", u, p, ok)
	}

	c := newClient(Options{Netrc: filepath.Join(t.TempDir(), "missing")})
	c.Register("ftp", newFake())
	if _, err := c.Get(context.Background(), "ftp://127.0.0.21/x"); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("missing netrc file: %v, want ErrUsage", err)
	}
}
