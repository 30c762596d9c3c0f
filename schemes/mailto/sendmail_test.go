package mailto

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

var ioEOF = io.EOF

// TestSendmail: with no SMTP server, the message goes to the sendmail
// program with -i, the sender and the recipients as arguments, LF line
// ends on its stdin.
func TestSendmail(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "sendmail")
	os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" >\""+dir+"/args\"\ncat >\""+dir+"/stdin\"\n"), 0o755)
	u, _ := schemes.Parse("mailto:a@example.org?subject=Hi&cc=-c@example.org")
	req := &schemes.Request{URL: u, Call: schemes.Call{Mail: &schemes.MailRequest{Body: strings.NewReader("one\r\n.\r\ntwo\n")}}, Settings: &schemes.Settings{}}
	resp, err := (&Fetcher{Sendmail: script, From: "me@example.org"}).Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if rc := resp.Info.(*Receipt); rc.Transport != "sendmail" || rc.Server != script {
		t.Errorf("receipt %+v", rc)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	if string(args) != "-i\n-f\nme@example.org\n--\na@example.org\n-c@example.org\n" {
		t.Errorf("args %q", args)
	}
	in, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	if !strings.HasPrefix(string(in), "From: me@example.org\nTo: a@example.org\nCc: -c@example.org\nSubject: Hi\nDate: ") ||
		!strings.HasSuffix(string(in), "\n\none\n.\ntwo\n") || strings.Contains(string(in), "\r") {
		t.Errorf("stdin %q", in)
	}
}

// TestSendmailFailure: a sendmail that exits non-zero is the server's refusal.
func TestSendmailFailure(t *testing.T) {
	script := filepath.Join(t.TempDir(), "sendmail")
	os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\necho 'sendmail: fatal: no way' >&2\nexit 75\n"), 0o755)
	u, _ := schemes.Parse("mailto:a@example.org")
	_, err := (&Fetcher{Sendmail: script, From: "me@example.org"}).Fetch(context.Background(), &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	if err == nil || !strings.Contains(err.Error(), "exit 75") || !strings.Contains(err.Error(), "no way") {
		t.Fatalf("err %v", err)
	}
}

// TestPlan: gofer parse shows the SMTP commands and the header block.
func TestPlan(t *testing.T) {
	u, _ := schemes.Parse("mailto:a@example.org?subject=Hi&body=text")
	p, err := (&Fetcher{From: "me@example.org", SMTPServer: "127.0.0.25"}).Plan(&schemes.Request{URL: u, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	want := "EHLO [{local address}]|MAIL FROM:<me@example.org>|RCPT TO:<a@example.org>|DATA|From: me@example.org|To: a@example.org|Subject: Hi|Date: {date}|Message-ID: {message-id}|MIME-Version: 1.0|Content-Type: text/plain; charset=utf-8|Content-Transfer-Encoding: 8bit||text|{text from stdin}|.|QUIT"
	if got := strings.Join(p.Requests, "|"); got != want {
		t.Errorf("plan\n got %s\nwant %s", got, want)
	}
	if p.Notes["server"] != "127.0.0.25:25" {
		t.Errorf("notes %v", p.Notes)
	}
	p, err = New().Plan(&schemes.Request{URL: u, Settings: &schemes.Settings{}})
	if err != nil || p.Notes["transport"] != "sendmail" || !strings.Contains(p.Notes["command"], "-f {from} -- a@example.org") {
		t.Errorf("sendmail plan %v %v", p, err)
	}
}
