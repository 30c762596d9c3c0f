package replay

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

func newsArticleText(n int, body string) string {
	return fmt.Sprintf("From: Tester <t@gofer.test>\r\nNewsgroups: gofer.test\r\nSubject: Test\tarticle %d\r\n"+
		"Date: Tue, 20 Dec 1994 12:%02d:00 +0000\r\nMessage-ID: <a%d@gofer.test>\r\n\r\n%s", n, n, n, body)
}

var (
	dotted = newsArticleText(13, ".\r\n..\r\n.leading dot\r\nplain\r\n")
	second = newsArticleText(2, "second\r\n")
	// Fetched by message-id: its number is its Xref's.
	xref = strings.Replace(newsArticleText(5, "no final line end"), "\r\n\r\n", "\r\nXref: gofer.test other.group:7 gofer.test:5\r\n\r\n", 1)
)

// writeNews captures articles as gofer get of nntp: and news: URLs does.
func writeNews(t *testing.T, dir string) string {
	t.Helper()
	prefix := filepath.Join(dir, "news")
	w, err := warc.CreateSegments(prefix, 0, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(id, fetched, body string) {
		r := schemes.CaptureRecord{Type: "resource", ContentType: "message/rfc822", URI: "news:" + id}
		if fetched != "" {
			r.Also = []string{fetched}
		}
		record(t, w, r, body)
	}
	rec("a13@gofer.test", "nntp://127.0.0.119/gofer.test/13", dotted)
	rec("a2@gofer.test", "nntp://127.0.0.119/gofer.test/2", second)
	rec("a5@gofer.test", "", xref)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return prefix
}

// nntpClient is a line-at-a-time NNTP client over a raw connection.
type nntpClient struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func (n *nntpClient) line() string {
	n.t.Helper()
	l, err := n.br.ReadString('\n')
	if err != nil {
		n.t.Fatalf("reading: %v (after %q)", err, l)
	}
	return l
}

// cmd sends a command and returns its reply line and, for multi-line
// replies, the block as sent (dot-stuffed, with its "." line).
func (n *nntpClient) cmd(line string, multi bool) (string, string) {
	n.t.Helper()
	fmt.Fprintf(n.c, "%s\r\n", line)
	status := n.line()
	if !multi || status[0] > '2' {
		return status, ""
	}
	var b strings.Builder
	for {
		l := n.line()
		b.WriteString(l)
		if l == ".\r\n" {
			return status, b.String()
		}
	}
}

func TestNNTPReplay(t *testing.T) {
	a := open(t, Options{}, writeNews(t, t.TempDir()))
	s, err := NewNNTPServer(a, func(msg string) { t.Error("warning: " + msg) })
	if err != nil {
		t.Fatal(err)
	}
	if s.Groups() != 2 || s.Articles() != 3 {
		t.Errorf("%d groups, %d articles; want 2, 3", s.Groups(), s.Articles())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	n := &nntpClient{t: t, c: c, br: bufio.NewReader(c)}
	if g := n.line(); !strings.HasPrefix(g, "201 ") {
		t.Errorf("greeting %q, want 201", g)
	}
	stuffed := strings.Replace(dotted, "\r\n.\r\n..\r\n.leading", "\r\n..\r\n...\r\n..leading", 1) + ".\r\n"
	head := func(art string) string { return art[:strings.Index(art, "\r\n\r\n")+2] + ".\r\n" }
	for _, tc := range []struct {
		cmd        string
		multi      bool
		status     string
		block      string
		blockCheck bool
	}{
		{"CAPABILITIES", true, "101 ", "", false},
		{"MODE READER", false, "201 ", "", false},
		{"ARTICLE 13", false, "412 ", "", false},
		{"LIST", true, "215 ", "gofer.test 13 2 n\r\nother.group 7 7 n\r\n.\r\n", true},
		{"LIST ACTIVE other.*", true, "215 ", "other.group 7 7 n\r\n.\r\n", true},
		{"GROUP nothing.here", false, "411 ", "", false},
		{"GROUP gofer.test", false, "211 3 2 13 gofer.test", "", false},
		{"ARTICLE 13", true, "220 13 <a13@gofer.test>", stuffed, true},
		{"HEAD 13", true, "221 13 <a13@gofer.test>", head(dotted), true},
		{"BODY", true, "222 13 <a13@gofer.test>", "..\r\n...\r\n..leading dot\r\nplain\r\n.\r\n", true},
		{"ARTICLE <a5@gofer.test>", true, "220 0 <a5@gofer.test>", xref + "\r\n.\r\n", true},
		{"ARTICLE <none@gofer.test>", false, "430 ", "", false},
		{"ARTICLE 4", false, "423 ", "", false},
		{"STAT 2", false, "223 2 <a2@gofer.test>", "", false},
		{"NEXT", false, "223 5 <a5@gofer.test>", "", false},
		{"LAST", false, "223 2 <a2@gofer.test>", "", false},
		{"LAST", false, "422 ", "", false},
		{"LISTGROUP gofer.test 3-", true, "211 3 2 13 gofer.test", "5\r\n13\r\n.\r\n", true},
		{"OVER 2-5", true, "224 ", "2\tTest article 2\tTester <t@gofer.test>\tTue, 20 Dec 1994 12:02:00 +0000\t<a2@gofer.test>\t\t" +
			fmt.Sprint(len(second)) + "\t1\r\n5\tTest article 5\tTester <t@gofer.test>\tTue, 20 Dec 1994 12:05:00 +0000\t<a5@gofer.test>\t\t" +
			fmt.Sprint(len(xref)) + "\t1\r\n.\r\n", true},
		{"XOVER 100-", false, "423 ", "", false},
		{"POST", false, "440 ", "", false},
		{"IHAVE <x@y>", false, "435 ", "", false},
		{"DATE", false, "111 ", "", false},
		{"FROB", false, "500 ", "", false},
		{"QUIT", false, "205 ", "", false},
	} {
		status, block := n.cmd(tc.cmd, tc.multi)
		if !strings.HasPrefix(status, tc.status) {
			t.Errorf("%s: %q, want %q", tc.cmd, status, tc.status)
		}
		if tc.blockCheck && block != tc.block {
			t.Errorf("%s: block\n %q\nwant\n %q", tc.cmd, block, tc.block)
		}
	}
}
