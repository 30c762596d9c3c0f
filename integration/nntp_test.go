package integration_test

// The gofer command against the harness's INN (integration/LAYOUT.md):
// what a person at a terminal sees, and the exit codes of the CLI (4 no
// connection, 5 refused by the server, ...).

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

const newsServer = itest.NNTPHost + ":119"

// newsGofer runs the built gofer with args and env added to a clean
// environment (no $NNTPSERVER unless env gives it), and returns its exit
// code, stdout and stderr.
func newsGofer(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	r := itest.Run(t, nil, env, args...)
	return r.Code, r.Stdout, r.Stderr
}

// newsServed is the article as INN returned it to the harness after
// posting (news/served/NAME.txt), with its CR LF line ends made LF as gofer
// writes them.
func newsServed(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.StateDir(), "news", "served", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}

func TestGoferNewsArticleByMessageID(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	code, out, errOut := newsGofer(t, nil, "get", "--nntp-server", itest.NNTPHost, "news:gofer-test-13@gofer.test")
	if code != 0 || out != newsServed(t, "gofer-test-13") {
		t.Errorf("exit %d, stderr %q, stdout\n%s\nwant exit 0 and\n%s", code, errOut, out, newsServed(t, "gofer-test-13"))
	}
	// $NNTPSERVER names the server when --nntp-server does not.
	code, out, _ = newsGofer(t, []string{"NNTPSERVER=" + itest.NNTPHost}, "get", "news:gofer-test-2@gofer.test")
	if code != 0 || out != newsServed(t, "gofer-test-2") {
		t.Errorf("with $NNTPSERVER: exit %d, stdout\n%s", code, out)
	}
}

func TestGoferNewsWithoutServerIsUsage(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	code, out, errOut := newsGofer(t, nil, "get", "news:gofer-test-1@gofer.test")
	if code != 2 || out != "" || !strings.Contains(errOut, "--nntp-server") || !strings.Contains(errOut, "NNTPSERVER") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and how to set a server", code, out, errOut)
	}
}

func TestGoferNNTPArticleByNumberHeadAndBody(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	want := newsServed(t, "gofer-test-5")
	head, body, _ := strings.Cut(want, "\n\n")
	for _, tc := range []struct {
		flag, want string
	}{{"", want}, {"--head", head + "\n"}, {"--body", body}} {
		args := []string{"get"}
		if tc.flag != "" {
			args = append(args, tc.flag)
		}
		code, out, errOut := newsGofer(t, nil, append(args, "nntp://"+itest.NNTPHost+"/gofer.test/5")...)
		if code != 0 || out != tc.want {
			t.Errorf("%s: exit %d, stderr %q, stdout\n%q\nwant\n%q", tc.flag, code, errOut, out, tc.want)
		}
	}
}

func TestGoferNewsArticleToFile(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	path := filepath.Join(t.TempDir(), "article.txt")
	code, _, errOut := newsGofer(t, nil, "get", "--nntp-server", itest.NNTPHost, "-o", path, "news:gofer-test-7@gofer.test")
	got, err := os.ReadFile(path)
	if code != 0 || err != nil || string(got) != newsServed(t, "gofer-test-7") {
		t.Errorf("exit %d, stderr %q, file %q (%v)", code, errOut, got, err)
	}
}

func TestGoferNewsGroupListing(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	code, out, errOut := newsGofer(t, nil, "get", "--nntp-server", itest.NNTPHost, "news:gofer.test")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	ls := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(ls) != 30 {
		t.Fatalf("%d lines, want 30 articles:\n%s", len(ls), out)
	}
	for _, l := range ls {
		if !strings.HasPrefix(l, "article") || !strings.Contains(l, "Test article ") || !strings.Contains(l, "news:gofer-test-") {
			t.Errorf("listing line %q does not show an article with its subject and URL", l)
		}
	}

	code, out, errOut = newsGofer(t, nil, "get", "--json", "--nntp-server", itest.NNTPHost, "news:gofer.test")
	var listing struct {
		URL     string `json:"url"`
		Entries []struct {
			Name      string `json:"name"`
			Type      string `json:"type"`
			URL       string `json:"url"`
			NNTPURL   string `json:"nntp_url"`
			Number    int64  `json:"number"`
			Subject   string `json:"subject"`
			MessageID string `json:"message_id"`
			Lines     int64  `json:"lines"`
			Bytes     int64  `json:"bytes"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &listing); code != 0 || err != nil {
		t.Fatalf("exit %d, stderr %q, JSON %v:\n%s", code, errOut, err, out)
	}
	if len(listing.Entries) != 30 {
		t.Fatalf("%d JSON entries, want 30", len(listing.Entries))
	}
	seen := map[string]bool{}
	for _, e := range listing.Entries {
		seen[e.Subject] = true
		if e.Type != "article" || e.URL != "news:"+e.MessageID || !strings.HasPrefix(e.NNTPURL, "nntp://"+itest.NNTPHost+"/gofer.test/") ||
			e.Number <= 0 || e.Bytes <= 0 || e.Lines <= 0 {
			t.Errorf("JSON entry %+v", e)
		}
	}
	for n := 1; n <= 30; n++ {
		if s := "Test article " + strconv.Itoa(n); !seen[s] {
			t.Errorf("no entry with subject %q", s)
		}
	}
}

func TestGoferNewsListsGroups(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	code, out, errOut := newsGofer(t, nil, "get", "--nntp-server", itest.NNTPHost, "news:*")
	if code != 0 || !strings.Contains(out, "gofer.test") || !strings.Contains(out, "gofer.empty") ||
		!strings.Contains(out, "Thirty test articles for gofer.") || !strings.Contains(out, "news:gofer.test") {
		t.Errorf("exit %d, stderr %q, stdout\n%s", code, errOut, out)
	}
}

func TestGoferNewsUnknownGroupExits5(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	code, out, errOut := newsGofer(t, nil, "get", "--nntp-server", itest.NNTPHost, "news:gofer.nope")
	if code != 5 || out != "" || !strings.Contains(errOut, "411") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 5 with INN's 411", code, out, errOut)
	}
	code, _, errOut = newsGofer(t, nil, "get", "--nntp-server", itest.NNTPHost, "news:no-such-article@gofer.test")
	if code != 5 || !strings.Contains(errOut, "430") {
		t.Errorf("missing article: exit %d, stderr %q; want 5 with INN's 430", code, errOut)
	}
}

func TestGoferNewsAuthentication(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	// Without credentials INN answers 480: exit 6.
	code, out, errOut := newsGofer(t, nil, "get", "--nntp-server", itest.NNTPHost, "news:gofer.secret")
	if code != 6 || out != "" {
		t.Errorf("no login: exit %d, stdout %q, stderr %q; want 6", code, out, errOut)
	}
	// A wrong password: exit 6, the password never shown.
	code, _, errOut = newsGofer(t, nil, "get", "nntp://reader:not-the-password@"+itest.NNTPHost+"/gofer.secret/1")
	if code != 6 || strings.Contains(errOut, "not-the-password") {
		t.Errorf("wrong password: exit %d, stderr %q; want 6 without the password", code, errOut)
	}
	// Credentials in the URL, with the wire transcript: the password is masked.
	code, out, errOut = newsGofer(t, nil, "get", "-v", "nntp://reader:reader-secret@"+itest.NNTPHost+"/gofer.secret/1")
	if code != 0 || !strings.Contains(out, "Secret article 1") {
		t.Errorf("URL login: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	if !strings.Contains(errOut, "AUTHINFO PASS ****") || strings.Contains(errOut, "reader-secret") {
		t.Errorf("transcript does not mask the password:\n%s", errOut)
	}
	// A login from a netrc file.
	netrc := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(netrc, []byte("machine "+itest.NNTPHost+" login reader password reader-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = newsGofer(t, nil, "get", "--netrc-file", netrc, "--nntp-server", itest.NNTPHost, "news:gofer.secret")
	if code != 0 || strings.Count(out, "Secret article") != 3 {
		t.Errorf("netrc login: exit %d, stderr %q, stdout\n%s", code, errOut, out)
	}
}

// INN advertises STARTTLS but cannot start it here (580): asked for TLS,
// gofer stops rather than read news in plain text.
func TestGoferNewsRequiredTLSNeverFallsBack(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	code, out, errOut := newsGofer(t, nil, "get", "--ftp-ssl", "--nntp-server", itest.NNTPHost, "news:gofer-test-1@gofer.test")
	if code != 5 || out != "" || !strings.Contains(errOut, "STARTTLS") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 5, nothing read", code, out, errOut)
	}
}

func TestGoferNewsInjectionRefusedBeforeConnecting(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, newsServer)
	code, out, errOut := newsGofer(t, nil, "get", "--nntp-server", itest.NNTPHost, "news:a%0D%0AQUIT@gofer.test")
	if code != 3 || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 3", code, out, errOut)
	}
}

// A news server that closes the connection in the middle of an article:
// gofer keeps what arrived and exits 8. No real server drops on demand, so
// this one is scripted.
func TestGoferNewsClosedMidArticleExits8(t *testing.T) {
	itest.Parallel(t)
	if !itest.Enabled() {
		t.Skip("integration test: run `integration/test` (or set GOFER_INTEGRATION=1)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		io.WriteString(c, "200 scripted\r\n")
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			switch {
			case strings.HasPrefix(line, "CAPABILITIES"):
				io.WriteString(c, "101 caps\r\nVERSION 2\r\nREADER\r\n.\r\n")
			case strings.HasPrefix(line, "ARTICLE"):
				io.WriteString(c, "220 0 <cut@gofer.test>\r\nSubject: cut short\r\n\r\nfirst line\r\nsecond li")
				return
			default:
				io.WriteString(c, "500 not scripted\r\n")
			}
		}
	}()
	out := filepath.Join(t.TempDir(), "article")
	code, _, errOut := newsGofer(t, nil, "get", "--nntp-server", ln.Addr().String(), "-o", out, "news:cut@gofer.test")
	if code != 8 {
		t.Errorf("exit %d, stderr %q; want 8", code, errOut)
	}
	// What arrived is kept under the partial name, for -C; nothing under
	// the final name.
	part, err := os.ReadFile(out + ".part")
	if err != nil || !strings.HasPrefix(string(part), "Subject: cut short\n\nfirst line\n") {
		t.Errorf("partial file %q (%v), want what arrived before the close", part, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an interrupted article was saved under its final name")
	}
}
