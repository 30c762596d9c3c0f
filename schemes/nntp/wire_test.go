package nntp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// An article as the server sends it: dot-stuffed lines, CR LF line ends.
var stuffedArticle = lines(
	"From: tester@gofer.test",
	"Subject: Test article 7",
	"Message-ID: <gofer-test-7@gofer.test>",
	"",
	"..leading dot",
	"..",
	"...",
	"plain line",
	".")

// ... and as gofer delivers it: unstuffed, LF line ends (textproto.DotReader).
const unstuffedArticle = "From: tester@gofer.test\nSubject: Test article 7\nMessage-ID: <gofer-test-7@gofer.test>\n\n.leading dot\n.\n..\nplain line\n"

func TestArticleByMessageIDIsDotUnstuffed(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "ARTICLE <gofer-test-7@gofer.test>", reply: "220 7 <gofer-test-7@gofer.test>\r\n" + stuffedArticle})
	req := newsReq(s, &schemes.News{MessageID: "gofer-test-7@gofer.test"})
	resp, err := newsFetcher(s).Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != schemes.KindFile || resp.Type != schemes.TypeArticle || resp.Name != "gofer-test-7@gofer.test" {
		t.Errorf("response kind %v type %q name %q, want a file of type article named by its message-id", resp.Kind, resp.Type, resp.Name)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	if string(body) != unstuffedArticle {
		t.Errorf("body\n%q\nwant\n%q", body, unstuffedArticle)
	}
	equalLines(t, s.wait(t), []string{"CAPABILITIES", "ARTICLE <gofer-test-7@gofer.test>", "QUIT"})
}

// Each URL form sends exactly its commands, in order.
func TestCommandSequencePerURLForm(t *testing.T) {
	overviewBody := lines("224 Overview information follows",
		"1\tTest article 1\ttester@gofer.test\tSun, 22 Nov 2026 07:00:00 +0000\t<gofer-test-1@gofer.test>\t\t321\t5",
		"2\tTest article 2\ttester@gofer.test\tSun, 22 Nov 2026 07:01:00 +0000\t<gofer-test-2@gofer.test>\t\t322\t6",
		".")
	tests := []struct {
		name    string
		req     func(s *scripted) *schemes.Request
		script  []step
		want    []string
		body    string
		entries int
	}{
		{
			name: "news:group is GROUP then OVER of the group's range",
			req:  func(s *scripted) *schemes.Request { return newsReq(s, &schemes.News{Group: "gofer.test"}) },
			script: []step{{want: "GROUP gofer.test", reply: "211 2 1 2 gofer.test\r\n"},
				{want: "OVER 1-2", reply: overviewBody}},
			want:    []string{"CAPABILITIES", "GROUP gofer.test", "OVER 1-2", "QUIT"},
			entries: 2,
		},
		{
			name: "nntp://host/group/N is GROUP then ARTICLE N",
			req:  func(s *scripted) *schemes.Request { return nntpReq(t, s.addr, "gofer.test", 7) },
			script: []step{{want: "GROUP gofer.test", reply: "211 30 1 30 gofer.test\r\n"},
				{want: "ARTICLE 7", reply: "220 7 <gofer-test-7@gofer.test>\r\n" + stuffedArticle}},
			want: []string{"CAPABILITIES", "GROUP gofer.test", "ARTICLE 7", "QUIT"},
			body: unstuffedArticle,
		},
		{
			name: "nntp://host/group is the group listing",
			req:  func(s *scripted) *schemes.Request { return nntpReq(t, s.addr, "gofer.test", 0) },
			script: []step{{want: "GROUP gofer.test", reply: "211 2 1 2 gofer.test\r\n"},
				{want: "OVER 1-2", reply: overviewBody}},
			want:    []string{"CAPABILITIES", "GROUP gofer.test", "OVER 1-2", "QUIT"},
			entries: 2,
		},
		{
			name: "head of an article by message-id is HEAD",
			req: func(s *scripted) *schemes.Request {
				r := newsReq(s, &schemes.News{MessageID: "a@b"})
				r.News = &schemes.NewsRequest{Part: "head"}
				return r
			},
			script: []step{{want: "HEAD <a@b>", reply: lines("221 0 <a@b>", "Subject: x", ".")}},
			want:   []string{"CAPABILITIES", "HEAD <a@b>", "QUIT"},
			body:   "Subject: x\n",
		},
		{
			name: "body of an article by number is BODY",
			req: func(s *scripted) *schemes.Request {
				r := nntpReq(t, s.addr, "gofer.test", 3)
				r.News = &schemes.NewsRequest{Part: "body"}
				return r
			},
			script: []step{{want: "GROUP gofer.test", reply: "211 30 1 30 gofer.test\r\n"},
				{want: "BODY 3", reply: lines("222 3 <c@d>", "text", ".")}},
			want: []string{"CAPABILITIES", "GROUP gofer.test", "BODY 3", "QUIT"},
			body: "text\n",
		},
		{
			name:   "an empty group sends no OVER",
			req:    func(s *scripted) *schemes.Request { return newsReq(s, &schemes.News{Group: "gofer.empty"}) },
			script: []step{{want: "GROUP gofer.empty", reply: "211 0 1 0 gofer.empty\r\n"}},
			want:   []string{"CAPABILITIES", "GROUP gofer.empty", "QUIT"},
		},
		{
			name: "news:* is LIST NEWSGROUPS then LIST ACTIVE",
			req:  func(s *scripted) *schemes.Request { return newsReq(s, &schemes.News{All: true}) },
			script: []step{
				{want: "LIST NEWSGROUPS", reply: lines("215 Descriptions follow", "gofer.test\tTest articles", ".")},
				{want: "LIST ACTIVE", reply: lines("215 Active list follows", "gofer.empty 0000000000 0000000001 y", "gofer.test 0000000030 0000000001 y", ".")}},
			want:    []string{"CAPABILITIES", "LIST NEWSGROUPS", "LIST ACTIVE", "QUIT"},
			entries: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, append([]step{greeting, readerCaps}, tc.script...)...)
			body, entries, err := fetchAll(t, newsFetcher(s), tc.req(s))
			if err != nil {
				t.Fatal(err)
			}
			if body != tc.body {
				t.Errorf("body %q, want %q", body, tc.body)
			}
			if len(entries) != tc.entries {
				t.Errorf("%d entries, want %d", len(entries), tc.entries)
			}
			equalLines(t, s.wait(t), tc.want)
		})
	}
}

func TestXOVERWhenServerLacksOVER(t *testing.T) {
	s := serve(t, greeting, caps("READER", "LIST ACTIVE"),
		step{want: "GROUP g", reply: "211 1 5 5 g\r\n"},
		step{want: "XOVER 5-5", reply: lines("224 data follows", "5\ts\tf\td\t<m@x>\t\t1\t1", ".")})
	_, entries, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "g"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].News.Number != 5 {
		t.Errorf("entries %+v, want article 5", entries)
	}
	equalLines(t, s.wait(t), []string{"CAPABILITIES", "GROUP g", "XOVER 5-5", "QUIT"})
}

func TestPreRFC3977ServerFallsBackToXOVERAndPlainLIST(t *testing.T) {
	unknown := "500 What?\r\n"
	t.Run("XOVER", func(t *testing.T) {
		s := serve(t, greeting, step{want: "CAPABILITIES", reply: unknown},
			step{want: "MODE READER", reply: "200 reader\r\n"},
			step{want: "GROUP g", reply: "211 1 5 5 g\r\n"},
			step{want: "OVER 5-5", reply: unknown},
			step{want: "XOVER 5-5", reply: lines("224 data follows", "5\ts\tf\td\t<m@x>\t\t1\t1", ".")})
		_, entries, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "g"}))
		if err != nil || len(entries) != 1 {
			t.Fatalf("entries %v, err %v; want one", entries, err)
		}
		s.wait(t)
	})
	t.Run("LIST", func(t *testing.T) {
		s := serve(t, greeting, step{want: "CAPABILITIES", reply: unknown},
			step{want: "MODE READER", reply: unknown},
			step{want: "LIST NEWSGROUPS", reply: unknown},
			step{want: "LIST ACTIVE", reply: unknown},
			step{want: "LIST", reply: lines("215 list", "g 5 5 y", ".")})
		_, entries, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{All: true}))
		if err != nil || len(entries) != 1 || entries[0].Name != "g" {
			t.Fatalf("entries %v, err %v; want group g", entries, err)
		}
		s.wait(t)
	})
}

func TestModeReaderOnlyWhenServerAsks(t *testing.T) {
	// A mode-switching server lists MODE-READER (RFC 3977 §5.3); the
	// capabilities are asked for again in reader mode.
	s := serve(t, greeting, caps("IHAVE", "MODE-READER"),
		step{want: "MODE READER", reply: "201 reader mode, no posting\r\n"},
		readerCaps,
		step{want: "GROUP g", reply: "211 0 1 0 g\r\n"})
	if _, _, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "g"})); err != nil {
		t.Fatal(err)
	}
	equalLines(t, s.wait(t), []string{"CAPABILITIES", "MODE READER", "CAPABILITIES", "GROUP g", "QUIT"})
}

func TestAuthinfoOn480(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "GROUP gofer.secret", reply: "480 Authentication required\r\n"},
		step{want: "AUTHINFO USER reader", reply: "381 Password required\r\n"},
		step{want: "AUTHINFO PASS reader-secret", reply: "281 Authentication accepted\r\n"},
		readerCaps,
		step{want: "GROUP gofer.secret", reply: "211 0 1 0 gofer.secret\r\n"})
	req := newsReq(s, &schemes.News{Group: "gofer.secret"})
	var asked []string
	req.Prompt = func(q string, secret bool) (string, error) {
		asked = append(asked, q)
		if secret {
			return "reader-secret", nil
		}
		return "reader", nil
	}
	var transcript bytes.Buffer
	req.Transcript = &transcript
	if _, _, err := fetchAll(t, newsFetcher(s), req); err != nil {
		t.Fatal(err)
	}
	equalLines(t, s.wait(t), []string{"CAPABILITIES", "GROUP gofer.secret", "AUTHINFO USER reader",
		"AUTHINFO PASS reader-secret", "CAPABILITIES", "GROUP gofer.secret", "QUIT"})
	if len(asked) != 2 {
		t.Errorf("prompted %q, want a user and a password question", asked)
	}
	if strings.Contains(transcript.String(), "reader-secret") || !strings.Contains(transcript.String(), "> AUTHINFO PASS ****") {
		t.Errorf("transcript shows the password or not its masked line:\n%s", transcript.String())
	}
}

// A server that lets anyone select the group but wants a login for its
// articles: after the login the group is selected again, then the article.
func TestAuthinfoOn480AfterGroupSelectsItAgain(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "GROUP g", reply: "211 1 1 1 g\r\n"},
		step{want: "ARTICLE 1", reply: "480 Authentication required\r\n"},
		step{want: "AUTHINFO USER reader", reply: "381 Password required\r\n"},
		step{want: "AUTHINFO PASS reader-secret", reply: "281 Authentication accepted\r\n"},
		readerCaps,
		step{want: "GROUP g", reply: "211 1 1 1 g\r\n"},
		step{want: "ARTICLE 1", reply: lines("220 1 <a@b>", "after login", ".")})
	req := nntpReq(t, s.addr, "g", 1)
	req.Prompt = func(q string, secret bool) (string, error) {
		if secret {
			return "reader-secret", nil
		}
		return "reader", nil
	}
	body, _, err := fetchAll(t, newsFetcher(s), req)
	if err != nil || body != "after login\n" {
		t.Fatalf("body %q, err %v", body, err)
	}
	s.wait(t)
}

func TestCredentialsFromURLAreSentUpfront(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "AUTHINFO USER reader", reply: "381 Password required\r\n"},
		step{want: "AUTHINFO PASS reader-secret", reply: "281 Authentication accepted\r\n"},
		readerCaps,
		step{want: "GROUP gofer.secret", reply: "211 1 4 4 gofer.secret\r\n"},
		step{want: "ARTICLE 4", reply: lines("220 4 <s@x>", "secret", ".")})
	req := nntpReq(t, s.addr, "gofer.secret", 4)
	req.URL.User, req.URL.HasUser = "reader", true
	req.URL.Password, req.URL.HasPassword = "reader-secret", true
	body, _, err := fetchAll(t, newsFetcher(s), req)
	if err != nil || body != "secret\n" {
		t.Fatalf("body %q, err %v", body, err)
	}
	s.wait(t)
}

func TestAuthErrors(t *testing.T) {
	t.Run("480 with no way to log in", func(t *testing.T) {
		s := serve(t, greeting, readerCaps, step{want: "GROUP gofer.secret", reply: "480 Authentication required\r\n"})
		_, _, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "gofer.secret"}))
		if !errors.Is(err, schemes.ErrAuth) {
			t.Errorf("err %v, want ErrAuth", err)
		}
		s.wait(t)
	})
	t.Run("481 wrong password", func(t *testing.T) {
		s := serve(t, greeting, readerCaps,
			step{want: "AUTHINFO USER reader", reply: "381 Password required\r\n"},
			step{want: "AUTHINFO PASS wrong", reply: "481 Authentication failed\r\n"})
		req := newsReq(s, &schemes.News{Group: "gofer.secret"})
		req.Credentials = func(host string) (string, string, bool) { return "reader", "wrong", host == "127.0.0.1" }
		_, _, err := fetchAll(t, newsFetcher(s), req)
		if !errors.Is(err, schemes.ErrAuth) || strings.Contains(err.Error(), "wrong") {
			t.Errorf("err %v, want ErrAuth without the password", err)
		}
		s.wait(t)
	})
	t.Run("502 permission denied", func(t *testing.T) {
		s := serve(t, greeting, readerCaps, step{want: "GROUP gofer.secret", reply: "502 Permission denied\r\n"})
		_, _, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "gofer.secret"}))
		if !errors.Is(err, schemes.ErrAuth) {
			t.Errorf("err %v, want ErrAuth", err)
		}
		s.wait(t)
	})
}

func TestServerRefusalsCarryTheServersText(t *testing.T) {
	tests := []struct {
		name  string
		req   func(s *scripted) *schemes.Request
		steps []step
		code  int
	}{
		{"no such group", func(s *scripted) *schemes.Request { return newsReq(s, &schemes.News{Group: "gofer.nope"}) },
			[]step{{want: "GROUP gofer.nope", reply: "411 No such group gofer.nope\r\n"}}, 411},
		{"no such message-id", func(s *scripted) *schemes.Request { return newsReq(s, &schemes.News{MessageID: "nope@x"}) },
			[]step{{want: "ARTICLE <nope@x>", reply: "430 No article with that message-id\r\n"}}, 430},
		{"no such number", func(s *scripted) *schemes.Request { return nntpReq(t, s.addr, "g", 99) },
			[]step{{want: "GROUP g", reply: "211 1 1 1 g\r\n"}, {want: "ARTICLE 99", reply: "423 No article with that number\r\n"}}, 423},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, append([]step{greeting, readerCaps}, tc.steps...)...)
			_, _, err := fetchAll(t, newsFetcher(s), tc.req(s))
			if !errors.Is(err, schemes.ErrRefused) {
				t.Fatalf("err %v, want ErrRefused", err)
			}
			var te *textproto.Error
			if !errors.As(err, &te) || te.Code != tc.code || !strings.Contains(err.Error(), te.Msg) {
				t.Errorf("err %q does not carry the server's %d reply", err, tc.code)
			}
			// The session was between commands: it ends with QUIT.
			if got := s.wait(t); len(got) == 0 || got[len(got)-1] != "QUIT" {
				t.Errorf("client sent %q, want QUIT last", got)
			}
		})
	}
}

func TestRefusalMessage(t *testing.T) {
	s := serve(t, greeting, readerCaps, step{want: "GROUP gofer.nope", reply: "411 No such group \x1b[2Jgofer.nope\r\n"})
	_, _, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "gofer.nope"}))
	want := "news server " + s.addr + " answered GROUP gofer.nope with 411 No such group ?[2Jgofer.nope"
	if err == nil || err.Error() != want {
		t.Errorf("err %q, want %q", err, want)
	}
	s.wait(t)
}

func TestAuthRequiredSaysHowToLogIn(t *testing.T) {
	s := serve(t, greeting, readerCaps, step{want: "GROUP gofer.secret", reply: "480 Read access denied\r\n"})
	_, _, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "gofer.secret"}))
	if !errors.Is(err, schemes.ErrAuth) || !strings.Contains(err.Error(), "480 Read access denied") || !strings.Contains(err.Error(), "netrc entry") {
		t.Errorf("err %v, want ErrAuth with the server's text and how to log in", err)
	}
	s.wait(t)
}

func TestGreetingRefusal(t *testing.T) {
	s := serve(t, step{reply: "502 You have no permission to talk\r\n", close: true})
	_, _, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "g"}))
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "no permission to talk") {
		t.Errorf("err %v, want ErrRefused with the server's text", err)
	}
	s.wait(t)
}

func TestConnectionClosedMidArticleIsInterrupted(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "ARTICLE <a@b>", reply: "220 0 <a@b>\r\nSubject: cut\r\n\r\nfirst line\r\nsecond li", close: true})
	body, _, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{MessageID: "a@b"}))
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	if !strings.HasPrefix(body, "Subject: cut\n\nfirst line\n") {
		t.Errorf("partial body %q lost what arrived", body)
	}
	s.wait(t)
}

func TestConnectionClosedMidListingIsInterrupted(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "GROUP g", reply: "211 3 1 3 g\r\n"},
		step{want: "OVER 1-3", reply: "224 follows\r\n1\ts\tf\td\t<m@x>\t\t1\t1\r\n", close: true})
	_, entries, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "g"}))
	if !errors.Is(err, schemes.ErrInterrupted) || len(entries) != 1 {
		t.Errorf("entries %d, err %v; want 1 entry then ErrInterrupted", len(entries), err)
	}
	s.wait(t)
}

func TestOverviewEntries(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "GROUP gofer.test", reply: "211 1 12 12 gofer.test\r\n"},
		step{want: "OVER 12-12", reply: lines("224 follows",
			"12\t=?UTF-8?Q?Caf=C3=A9?= talk\tTester <tester@gofer.test>\tSun, 22 Nov 2026 07:00:00 +0000\t<gofer-test-12@gofer.test>\t<p@x>\t1234\t17\tXref: h gofer.test:12",
			".")})
	_, entries, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{Group: "gofer.test"}))
	if err != nil || len(entries) != 1 {
		t.Fatalf("entries %v, err %v", entries, err)
	}
	e := entries[0]
	want := schemes.Entry{Name: "12", Type: "article", Size: 1234, URL: "news:gofer-test-12@gofer.test",
		News: &schemes.NewsItem{Number: 12, Subject: "Café talk", From: "Tester <tester@gofer.test>",
			Date: "Sun, 22 Nov 2026 07:00:00 +0000", MessageID: "gofer-test-12@gofer.test", References: "<p@x>", Lines: 17, Bytes: 1234,
			URL: "nntp://" + s.addr + "/gofer.test/12"}}
	want.Modified = e.Modified
	if e.Modified.IsZero() || e.Modified.UTC().Hour() != 7 {
		t.Errorf("modified %v, want the article's date", e.Modified)
	}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("entry\n%+v\nwant\n%+v", e, want)
	}
	s.wait(t)
}

func TestGroupEntries(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "LIST NEWSGROUPS", reply: lines("215 follows", "gofer.test  Test articles for gofer", ".")},
		step{want: "LIST ACTIVE", reply: lines("215 follows", "gofer.test 0000000030 0000000001 y", "gofer.empty 0000000000 0000000001 m", ".")})
	_, entries, err := fetchAll(t, newsFetcher(s), newsReq(s, &schemes.News{All: true}))
	if err != nil || len(entries) != 2 {
		t.Fatalf("entries %v, err %v", entries, err)
	}
	want := []schemes.Entry{
		{Name: "gofer.test", Type: "group", URL: "news:gofer.test", Size: -1, News: &schemes.NewsItem{Description: "Test articles for gofer", Low: 1, High: 30, Status: "y"}},
		{Name: "gofer.empty", Type: "group", URL: "news:gofer.empty", Size: -1, News: &schemes.NewsItem{Low: 1, High: 0, Status: "m"}},
	}
	for i := range want {
		if !reflect.DeepEqual(entries[i], want[i]) {
			t.Errorf("entry %d\n%+v\nwant\n%+v", i, entries[i], want[i])
		}
	}
	s.wait(t)
}

func TestEntryLimit(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "GROUP g", reply: "211 3 1 3 g\r\n"},
		step{want: "OVER 1-3", reply: lines("224 follows", "1\ta", "2\tb", "3\tc", ".")})
	req := newsReq(s, &schemes.News{Group: "g"})
	req.MaxEntries = 2
	_, entries, err := fetchAll(t, newsFetcher(s), req)
	if !errors.Is(err, schemes.ErrTooLarge) || len(entries) != 2 {
		t.Errorf("entries %d, err %v; want 2 then ErrTooLarge", len(entries), err)
	}
	s.wait(t)
}

// An article that grows past --max-size is the caller's to stop (the fetch
// package's front door): the fetcher streams what the server sends.
func TestMaxBytesLeftToTheCaller(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "ARTICLE <a@b>", reply: lines("220 0 <a@b>", "0123456789", "0123456789", ".")})
	req := newsReq(s, &schemes.News{MessageID: "a@b"})
	req.MaxBytes = 15
	body, _, err := fetchAll(t, newsFetcher(s), req)
	if err != nil || len(body) != 22 {
		t.Errorf("body %q, err %v; want all 22 bytes", body, err)
	}
	s.wait(t)
}

func TestStartTLSNeverFallsBackToPlainText(t *testing.T) {
	t.Run("not offered", func(t *testing.T) {
		s := serve(t, greeting, readerCaps)
		req := newsReq(s, &schemes.News{Group: "g"})
		f := newsFetcher(s)
		f.RequireTLS = true
		_, _, err := fetchAll(t, f, req)
		if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "STARTTLS") {
			t.Errorf("err %v, want a refusal naming STARTTLS", err)
		}
		equalLines(t, s.wait(t), []string{"CAPABILITIES"})
	})
	t.Run("refused", func(t *testing.T) {
		s := serve(t, greeting, caps("READER", "STARTTLS"), step{want: "STARTTLS", reply: "580 Can not initiate TLS negotiation\r\n"})
		req := newsReq(s, &schemes.News{Group: "g"})
		f := newsFetcher(s)
		f.RequireTLS = true
		_, _, err := fetchAll(t, f, req)
		if !errors.Is(err, schemes.ErrRefused) {
			t.Errorf("err %v, want ErrRefused", err)
		}
		equalLines(t, s.wait(t), []string{"CAPABILITIES", "STARTTLS"})
	})
}

// noDial fails the test if a connection is attempted.
type noDial struct{ t *testing.T }

func (d noDial) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.t.Errorf("dialled %s although the request must be refused first", addr)
	return nil, errors.New("no dial")
}

func TestRefusedBeforeConnecting(t *testing.T) {
	tests := []struct {
		name string
		url  *schemes.URL
		kind error
	}{
		{"CR LF in a group", &schemes.URL{Scheme: "news", News: &schemes.News{Group: "g\r\nQUIT"}}, security.ErrInjection},
		{"LF in a message-id", &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "a@b\nQUIT"}}, security.ErrInjection},
		{"NUL in an nntp group", &schemes.URL{Scheme: "nntp", Host: "127.0.0.1", NNTP: &schemes.NNTP{Group: "g\x00", Article: 1}}, security.ErrInjection},
		{"'>' in a message-id", &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "a>b@c"}}, schemes.ErrUsage},
		{"space in a message-id", &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "a b@c"}}, schemes.ErrUsage},
		{"wildmat as a group", &schemes.URL{Scheme: "news", News: &schemes.News{Group: "comp.*"}}, schemes.ErrUsage},
		{"nntp URL without a group", &schemes.URL{Scheme: "nntp", Host: "127.0.0.1", NNTP: &schemes.NNTP{}}, schemes.ErrUsage},
		{"CR LF in a password", &schemes.URL{Scheme: "nntp", Host: "127.0.0.1", User: "u", HasUser: true, Password: "p\r\nQUIT", HasPassword: true,
			NNTP: &schemes.NNTP{Group: "g"}}, security.ErrInjection},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := &schemes.Request{URL: tc.url, Settings: &schemes.Settings{Dialer: noDial{t}}}
			_, err := (&Fetcher{Server: "127.0.0.1:1"}).Fetch(context.Background(), req)
			if !errors.Is(err, tc.kind) {
				t.Errorf("err %v, want %v", err, tc.kind)
			}
		})
	}
}

func TestNewsURLWithoutServerSaysHowToSetOne(t *testing.T) {
	req := &schemes.Request{URL: &schemes.URL{Scheme: "news", News: &schemes.News{Group: "g"}}, Settings: &schemes.Settings{Dialer: noDial{t}}}
	_, err := New().Fetch(context.Background(), req)
	var se *schemes.SettingError
	if !errors.Is(err, schemes.ErrUsage) || !errors.As(err, &se) || se.Setting != "nntp.Fetcher.Server" || strings.Contains(err.Error(), "--") {
		t.Errorf("err %v, want a usage error for the nntp.Fetcher.Server setting, naming no flag", err)
	}
}

func TestConnectFailureIsErrConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, _, err = fetchAll(t, New(), nntpReq(t, addr, "g", 0))
	if !errors.Is(err, schemes.ErrConnect) {
		t.Errorf("err %v, want ErrConnect", err)
	}
}

func TestStalledServerTimesOut(t *testing.T) {
	t.Run("before the reply", func(t *testing.T) {
		s := serve(t, greeting, readerCaps, step{want: "GROUP g", stall: true})
		req := newsReq(s, &schemes.News{Group: "g"})
		req.IdleTimeout = 100 * time.Millisecond
		_, _, err := fetchAll(t, newsFetcher(s), req)
		if !errors.Is(err, schemes.ErrTimeout) {
			t.Errorf("err %v, want ErrTimeout", err)
		}
		s.wait(t)
	})
	t.Run("in the middle of an article", func(t *testing.T) {
		s := serve(t, greeting, readerCaps, step{want: "ARTICLE <a@b>", reply: "220 0 <a@b>\r\nSubject: slow\r\n", stall: true})
		req := newsReq(s, &schemes.News{MessageID: "a@b"})
		req.IdleTimeout = 100 * time.Millisecond
		body, _, err := fetchAll(t, newsFetcher(s), req)
		if !errors.Is(err, schemes.ErrTimeout) || body != "Subject: slow\n" {
			t.Errorf("body %q, err %v; want the first line then ErrTimeout", body, err)
		}
		s.wait(t)
	})
}

func TestCancelledContextEndsTheFetch(t *testing.T) {
	s := serve(t, greeting, readerCaps,
		step{want: "ARTICLE <a@b>", reply: "220 0 <a@b>\r\npartial\r\n"})
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := newsFetcher(s).Fetch(ctx, newsReq(s, &schemes.News{MessageID: "a@b"}))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	buf := make([]byte, 8)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, schemes.ErrInterrupted) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("err %v, want ErrInterrupted for the cancellation", err)
	}
	resp.Close()
	s.wait(t)
}
