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
		req    schemes.Request
		want   []string
		server string
	}{
		{"news:message-id", schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "gofer-test-1@gofer.test"}}, NNTPServer: "127.0.0.119"},
			[]string{"ARTICLE <gofer-test-1@gofer.test>"}, "127.0.0.119:119"},
		{"news:message-id, head", schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "a@b"}}, Part: "head", NNTPServer: "127.0.0.119:1119"},
			[]string{"HEAD <a@b>"}, "127.0.0.119:1119"},
		{"news:group", schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{Group: "gofer.test"}}},
			[]string{"GROUP gofer.test", "OVER {low}-{high}"}, "none is set"},
		{"news:*", schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{All: true}}, NNTPServer: "127.0.0.119"},
			[]string{"LIST NEWSGROUPS", "LIST ACTIVE"}, "127.0.0.119:119"},
		{"nntp group and number", schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "gofer.test", Article: 3}}},
			[]string{"GROUP gofer.test", "ARTICLE 3"}, "127.0.0.119:119"},
		{"nntp body", schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "gofer.test", Article: 3}}, Part: "body"},
			[]string{"GROUP gofer.test", "BODY 3"}, "127.0.0.119:119"},
		{"nntp group", schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", Port: 1119, NNTP: &schemes.NNTP{Group: "gofer.test"}}},
			[]string{"GROUP gofer.test", "OVER {low}-{high}"}, "127.0.0.119:1119"},
		{"nntps", schemes.Request{URL: &schemes.URL{Scheme: "nntps", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "g", Article: 1}}, RequireTLS: true},
			[]string{"GROUP g", "ARTICLE 1"}, "127.0.0.119:563"},
		{"login and STARTTLS", schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", User: "reader", HasUser: true,
			Password: "reader-secret", HasPassword: true, NNTP: &schemes.NNTP{Group: "gofer.secret", Article: 1}}, RequireTLS: true},
			[]string{"STARTTLS", "AUTHINFO USER reader", "AUTHINFO PASS ****", "GROUP gofer.secret", "ARTICLE 1"}, "127.0.0.119:119"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New().Plan(&tc.req)
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
	req := &schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "a@b\r\nQUIT"}}}
	if _, err := New().Plan(req); !errors.Is(err, security.ErrInjection) {
		t.Errorf("err %v, want ErrInjection", err)
	}
	req = &schemes.Request{URL: &schemes.URL{Scheme: "nntp", Host: "h", User: "a\nb", HasUser: true, NNTP: &schemes.NNTP{Group: "g"}}}
	if _, err := New().Plan(req); !errors.Is(err, security.ErrInjection) {
		t.Errorf("err %v, want ErrInjection for the user", err)
	}
}
