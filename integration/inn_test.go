package integration_test

// The NNTP fetcher (schemes/nntp) against the real INN of the integration
// harness (integration/up news; integration/LAYOUT.md). They skip unless
// GOFER_INTEGRATION=1.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/nntp"
)

const innAddr = itest.NNTPHost + ":119"

// posted is one line of the harness's index.tsv: an article it posted and
// the number INN gave it.
type posted struct {
	group     string
	number    int64
	messageID string // with brackets, as in index.tsv
	subject   string
}

// name is the harness's file name for the article: the message-id's local part.
func (p posted) name() string {
	local, _, _ := strings.Cut(strings.TrimPrefix(p.messageID, "<"), "@")
	return local + ".txt"
}

func (p posted) id() string { return strings.TrimSuffix(strings.TrimPrefix(p.messageID, "<"), ">") }

func readIndex(t *testing.T) []posted {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.StateDir(), "news", "index.tsv"))
	if err != nil {
		t.Fatalf("the harness's article index: %v", err)
	}
	var ps []posted
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("index.tsv line %q", line)
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Fatalf("index.tsv line %q: %v", line, err)
		}
		ps = append(ps, posted{group: f[0], number: n, messageID: f[2], subject: f[3]})
	}
	return ps
}

func inGroup(ps []posted, group string) []posted {
	var out []posted
	for _, p := range ps {
		if p.group == group {
			out = append(out, p)
		}
	}
	return out
}

// harnessFile returns a file the harness kept under news/ (posted/ or
// served/), with CR LF line ends turned into LF: gofer delivers articles
// as textproto's DotReader decodes them, with LF line ends.
func harnessFile(t *testing.T, dir string, p posted) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.StateDir(), "news", dir, p.name()))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
}

func innReq(u *schemes.URL) *schemes.Request {
	return &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: &dial.Dialer{}, IdleTimeout: 20 * time.Second}}
}

func newsURL(n *schemes.News) *schemes.URL { return &schemes.URL{Scheme: "news", News: n} }

func nntpURL(group string, article int64) *schemes.URL {
	return &schemes.URL{Scheme: "nntp", Host: itest.NNTPHost, NNTP: &schemes.NNTP{Group: group, Article: article}}
}

// innFetcher is a Fetcher whose news server is the INN server.
func innFetcher() *nntp.Fetcher { return &nntp.Fetcher{Server: innAddr} }

func fetchBody(t *testing.T, req *schemes.Request) ([]byte, error) {
	t.Helper()
	return fetchWith(t, innFetcher(), req)
}

func fetchWith(t *testing.T, f *nntp.Fetcher, req *schemes.Request) ([]byte, error) {
	t.Helper()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	if resp.Kind != schemes.KindFile || resp.Type != schemes.TypeArticle {
		t.Fatalf("response kind %v type %q, want an article", resp.Kind, resp.Type)
	}
	return io.ReadAll(resp.Body)
}

func fetchEntries(t *testing.T, req *schemes.Request) ([]schemes.Entry, error) {
	t.Helper()
	resp, err := innFetcher().Fetch(context.Background(), req)
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	var es []schemes.Entry
	for {
		e, err := resp.Listing.Next()
		if errors.Is(err, io.EOF) {
			return es, nil
		}
		if err != nil {
			return es, err
		}
		es = append(es, e)
	}
}

// splitArticle splits an article at its first empty line.
func splitArticle(b []byte) (head, body []byte) {
	h, bd, ok := bytes.Cut(b, []byte("\n\n"))
	if !ok {
		return b, nil
	}
	return append(h, '\n'), bd
}

// An article by message-id is, byte for byte, what INN returned to the
// harness's own ARTICLE right after posting (news/served/, with CR LF made
// LF, as textproto's DotReader delivers lines). Against what was posted
// (news/posted/): every posted header line is there unchanged, though not
// in the same order (INN adds Path, Injection-Info and Xref, and moves
// Message-ID), and the body after the first empty line is identical.
func TestINNArticleByMessageIDIsWhatWasPosted(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	for _, p := range inGroup(readIndex(t), "gofer.test") {
		got, err := fetchBody(t, innReq(newsURL(&schemes.News{MessageID: p.id()})))
		if err != nil {
			t.Fatalf("%s: %v", p.messageID, err)
		}
		if want := harnessFile(t, "served", p); !bytes.Equal(got, want) {
			t.Errorf("%s: got\n%s\nwant (served)\n%s", p.messageID, got, want)
		}
		postedHead, postedBody := splitArticle(harnessFile(t, "posted", p))
		gotHead, gotBody := splitArticle(got)
		if !bytes.Equal(gotBody, postedBody) {
			t.Errorf("%s: body\n%q\nwant the posted body\n%q", p.messageID, gotBody, postedBody)
		}
		gotLines := strings.Split(string(gotHead), "\n")
		for _, h := range strings.Split(strings.TrimSuffix(string(postedHead), "\n"), "\n") {
			if !contains(gotLines, h) {
				t.Errorf("%s: posted header line %q is not in the article", p.messageID, h)
			}
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Article 13 has lines that begin with '.': INN stuffs them, gofer unstuffs.
func TestINNDotLinesSurvive(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	got, err := fetchBody(t, innReq(newsURL(&schemes.News{MessageID: "gofer-test-13@gofer.test"})))
	if err != nil {
		t.Fatal(err)
	}
	want := "\n.\n..\n.leading dot\n...\nand a last line.\n"
	if !strings.HasSuffix(string(got), want) {
		t.Errorf("article 13 ends\n%q\nwant\n%q", got[max(0, len(got)-len(want)):], want)
	}
}

func TestINNArticleByGroupAndNumber(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	ps := inGroup(readIndex(t), "gofer.test")
	for _, p := range []posted{ps[0], ps[12], ps[len(ps)-1]} {
		got, err := fetchBody(t, innReq(nntpURL(p.group, p.number)))
		if err != nil {
			t.Fatalf("%s/%d: %v", p.group, p.number, err)
		}
		if want := harnessFile(t, "served", p); !bytes.Equal(got, want) {
			t.Errorf("%s/%d: got\n%s\nwant\n%s", p.group, p.number, got, want)
		}
	}
}

func TestINNHeadAndBody(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	p := inGroup(readIndex(t), "gofer.test")[6]
	wantHead, wantBody := splitArticle(harnessFile(t, "served", p))
	for part, want := range map[string][]byte{"head": wantHead, "body": wantBody} {
		req := innReq(newsURL(&schemes.News{MessageID: p.id()}))
		req.News = &schemes.NewsRequest{Part: part}
		got, err := fetchBody(t, req)
		if err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: got\n%q\nwant\n%q", part, got, want)
		}
	}
}

func TestINNGroupListing(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	ps := inGroup(readIndex(t), "gofer.test")
	es, err := fetchEntries(t, innReq(newsURL(&schemes.News{Group: "gofer.test"})))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(ps) || len(es) != 30 {
		t.Fatalf("%d entries, want the 30 posted articles", len(es))
	}
	bySubject := map[int64]posted{}
	for _, p := range ps {
		bySubject[p.number] = p
	}
	for _, e := range es {
		if e.News == nil {
			t.Errorf("entry %+v has no article fields", e)
			continue
		}
		p, ok := bySubject[e.News.Number]
		if !ok {
			t.Errorf("entry %d is not a posted article", e.News.Number)
			continue
		}
		if e.Type != "article" || e.News.Subject != p.subject || "<"+e.News.MessageID+">" != p.messageID ||
			e.URL != "news:"+p.id() || e.News.URL != "nntp://"+itest.NNTPHost+"/gofer.test/"+strconv.FormatInt(p.number, 10) ||
			e.News.From != "Gofer Tester <tester@gofer.test>" || e.News.Bytes <= 0 || e.News.Lines <= 0 || e.Modified.Year() != 1994 {
			t.Errorf("entry %+v does not describe %+v", e, p)
		}
	}
	// The same listing through nntp://host/group.
	es2, err := fetchEntries(t, innReq(nntpURL("gofer.test", 0)))
	if err != nil || len(es2) != 30 {
		t.Errorf("nntp://%s/gofer.test: %d entries, err %v; want 30", itest.NNTPHost, len(es2), err)
	}
}

func TestINNEmptyGroup(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	es, err := fetchEntries(t, innReq(newsURL(&schemes.News{Group: "gofer.empty"})))
	if err != nil || len(es) != 0 {
		t.Errorf("gofer.empty: %d entries, err %v; want none", len(es), err)
	}
}

func TestINNListsTheTestGroups(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	es, err := fetchEntries(t, innReq(newsURL(&schemes.News{All: true})))
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]schemes.Entry{}
	for _, e := range es {
		groups[e.Name] = e
	}
	test, empty := groups["gofer.test"], groups["gofer.empty"]
	if test.News == nil || test.Type != "group" || test.URL != "news:gofer.test" || test.News.High < 30 || test.News.Description != "Thirty test articles for gofer." {
		t.Errorf("gofer.test entry %+v", test)
	}
	if empty.News == nil || empty.Type != "group" || empty.News.Description != "A group with no articles." {
		t.Errorf("gofer.empty entry %+v", empty)
	}
	if _, ok := groups["gofer.secret"]; ok {
		t.Error("gofer.secret is listed to a reader who has not logged in")
	}

	// After a login, the list holds gofer.secret too.
	req := innReq(newsURL(&schemes.News{All: true}))
	req.Credentials = func(host string) (string, string, bool) { return itest.NewsUser, itest.NewsPassword, true }
	es, err = fetchEntries(t, req)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range es {
		found = found || e.Name == "gofer.secret" && e.News != nil && e.News.Description == "Articles readable only after AUTHINFO."
	}
	if !found {
		t.Error("gofer.secret, with its description, is not listed after a login")
	}
}

func TestINNUnknownGroupIsRefused(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	_, err := fetchEntries(t, innReq(newsURL(&schemes.News{Group: "gofer.nope"})))
	var te *textproto.Error
	if !errors.Is(err, schemes.ErrRefused) || !errors.As(err, &te) || te.Code != 411 {
		t.Errorf("err %v, want ErrRefused carrying INN's 411", err)
	}
	_, err = fetchBody(t, innReq(newsURL(&schemes.News{MessageID: "no-such-article@gofer.test"})))
	if !errors.Is(err, schemes.ErrRefused) || !errors.As(err, &te) || te.Code != 430 {
		t.Errorf("err %v, want ErrRefused carrying INN's 430", err)
	}
}

// gofer.secret is readable only after AUTHINFO: INN answers 480 without it.
func TestINNAuthentication(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	secret := inGroup(readIndex(t), "gofer.secret")
	if len(secret) == 0 {
		t.Fatal("the harness posted no articles to gofer.secret")
	}
	p := secret[0]

	t.Run("no credentials", func(t *testing.T) {
		_, err := fetchEntries(t, innReq(newsURL(&schemes.News{Group: "gofer.secret"})))
		if !errors.Is(err, schemes.ErrAuth) {
			t.Errorf("group: err %v, want ErrAuth", err)
		}
		_, err = fetchBody(t, innReq(newsURL(&schemes.News{MessageID: p.id()})))
		var te *textproto.Error
		if !errors.Is(err, schemes.ErrAuth) || !errors.As(err, &te) || te.Code != 480 {
			t.Errorf("article: err %v, want ErrAuth carrying INN's 480", err)
		}
	})
	t.Run("credentials in the URL", func(t *testing.T) {
		u := nntpURL(p.group, p.number)
		u.User, u.HasUser, u.Password, u.HasPassword = itest.NewsUser, true, itest.NewsPassword, true
		got, err := fetchBody(t, innReq(u))
		if err != nil {
			t.Fatal(err)
		}
		if want := harnessFile(t, "served", p); !bytes.Equal(got, want) {
			t.Errorf("got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("credentials from netrc or flags", func(t *testing.T) {
		req := innReq(newsURL(&schemes.News{Group: "gofer.secret"}))
		req.Credentials = func(host string) (string, string, bool) {
			return itest.NewsUser, itest.NewsPassword, host == itest.NNTPHost
		}
		es, err := fetchEntries(t, req)
		if err != nil || len(es) != len(secret) {
			t.Fatalf("%d entries, err %v; want %d", len(es), err, len(secret))
		}
	})
	t.Run("login on 480 from the terminal", func(t *testing.T) {
		req := innReq(newsURL(&schemes.News{MessageID: p.id()}))
		req.Prompt = func(q string, secret bool) (string, error) {
			if secret {
				return itest.NewsPassword, nil
			}
			return itest.NewsUser, nil
		}
		var transcript bytes.Buffer
		req.Transcript = &transcript
		if _, err := fetchBody(t, req); err != nil {
			t.Fatal(err)
		}
		tr := transcript.String()
		if !strings.Contains(tr, "< 480") || !strings.Contains(tr, "> AUTHINFO PASS ****") || strings.Contains(tr, itest.NewsPassword) {
			t.Errorf("transcript does not show 480 then a masked login:\n%s", tr)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		u := nntpURL(p.group, p.number)
		u.User, u.HasUser, u.Password, u.HasPassword = itest.NewsUser, true, "wrong", true
		_, err := fetchBody(t, innReq(u))
		if !errors.Is(err, schemes.ErrAuth) || strings.Contains(err.Error(), "wrong") {
			t.Errorf("err %v, want ErrAuth without the password", err)
		}
	})
}

// INN offers STARTTLS but cannot start it here (580): asked for TLS, the
// fetch fails rather than go on in plain text.
func TestINNRequiredTLSNeverFallsBack(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, innAddr)
	req := innReq(newsURL(&schemes.News{MessageID: "gofer-test-1@gofer.test"}))
	var transcript bytes.Buffer
	req.Transcript = &transcript
	_, err := fetchWith(t, &nntp.Fetcher{Server: innAddr, RequireTLS: true}, req)
	if !errors.Is(err, schemes.ErrRefused) || strings.Contains(transcript.String(), "ARTICLE") {
		t.Errorf("err %v; transcript\n%s\nwant a refusal before any ARTICLE", err, transcript.String())
	}
}
