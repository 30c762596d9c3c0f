package nntp

import (
	"errors"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

func TestPlan(t *testing.T) {
	tests := []struct {
		name   string
		f      Fetcher
		req    schemes.Request
		want   []string
		server string
	}{
		{"news:message-id", Fetcher{Server: "127.0.0.119"}, schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "gofer-test-1@gofer.test"}}, Settings: &schemes.Settings{}},
			[]string{"ARTICLE <gofer-test-1@gofer.test>"}, "127.0.0.119:119"},
		{"news:message-id, head", Fetcher{Server: "127.0.0.119:1119"}, schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "a@b"}}, Call: schemes.Call{News: &schemes.NewsRequest{Part: "head"}}, Settings: &schemes.Settings{}},
			[]string{"HEAD <a@b>"}, "127.0.0.119:1119"},
		{"news:group", Fetcher{}, schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{Group: "gofer.test"}}, Settings: &schemes.Settings{}},
			[]string{"GROUP gofer.test", "OVER {low}-{high}"}, "none is set"},
		{"news:*", Fetcher{Server: "127.0.0.119"}, schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{All: true}}, Settings: &schemes.Settings{}},
			[]string{"LIST NEWSGROUPS", "LIST ACTIVE"}, "127.0.0.119:119"},
		{"nntp group and number", Fetcher{}, schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "gofer.test", Article: 3}}, Settings: &schemes.Settings{}},
			[]string{"GROUP gofer.test", "ARTICLE 3"}, "127.0.0.119:119"},
		{"nntp body", Fetcher{}, schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "gofer.test", Article: 3}}, Call: schemes.Call{News: &schemes.NewsRequest{Part: "body"}}, Settings: &schemes.Settings{}},
			[]string{"GROUP gofer.test", "BODY 3"}, "127.0.0.119:119"},
		{"nntp group", Fetcher{}, schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", Port: 1119, NNTP: &schemes.NNTP{Group: "gofer.test"}}, Settings: &schemes.Settings{}},
			[]string{"GROUP gofer.test", "OVER {low}-{high}"}, "127.0.0.119:1119"},
		{"nntps", Fetcher{RequireTLS: true}, schemes.Request{URL: &schemes.URL{Scheme: "nntps", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "g", Article: 1}}, Settings: &schemes.Settings{}},
			[]string{"GROUP g", "ARTICLE 1"}, "127.0.0.119:563"},
		{"login and STARTTLS", Fetcher{RequireTLS: true}, schemes.Request{
			URL: &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", User: "reader", HasUser: true,
				Password: "reader-secret", HasPassword: true, NNTP: &schemes.NNTP{Group: "gofer.secret", Article: 1}},
			Settings: &schemes.Settings{},
		},
			[]string{"STARTTLS", "AUTHINFO USER reader", "AUTHINFO PASS ****", "GROUP gofer.secret", "ARTICLE 1"}, "127.0.0.119:119"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.f.Plan(&tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(p.Requests, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("requests %q, want %q", p.Requests, tc.want)
			}
			if p.Notes["server"] != tc.server {
				t.Errorf("server note %q, want %q", p.Notes["server"], tc.server)
			}
		})
	}
}

func TestPlanRefusesInjection(t *testing.T) {
	req := &schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "a@b\r\nQUIT"}}, Settings: &schemes.Settings{}}
	if _, err := New().Plan(req); !errors.Is(err, security.ErrInjection) {
		t.Errorf("err %v, want ErrInjection", err)
	}
	req = &schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "h", User: "a\nb", HasUser: true, NNTP: &schemes.NNTP{Group: "g"}}, Settings: &schemes.Settings{}}
	if _, err := New().Plan(req); !errors.Is(err, security.ErrInjection) {
		t.Errorf("err %v, want ErrInjection for the user", err)
	}
}

// A part of an article asked for on a group's URL is a usage error said in
// the library's words: the NewsRequest field, never a command-line flag.
func TestPartOfGroupIsUsageError(t *testing.T) {
	req := &schemes.Request{
		URL:      &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "gofer.test"}},
		Call:     schemes.Call{News: &schemes.NewsRequest{Part: "head"}},
		Settings: &schemes.Settings{},
	}
	_, err := New().Plan(req)
	if !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), "NewsRequest.Part") || strings.Contains(err.Error(), "--") {
		t.Fatalf("err %v, want a usage error naming NewsRequest.Part and no flag", err)
	}
}
