package integration_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/mailto"
)

// Postfix on 127.0.0.25 (integration/lib/smtp.sh, LAYOUT.md): port 25
// plain, 587 submission with STARTTLS and a SASL login; mail for
// inbox@gofer.test lands in srv/mail/inbox (a Maildir).
const (
	smtpAddr     = "127.0.0.25"
	smtpUser     = "mailer"
	smtpPassword = "mailer-secret"
	smtpInbox    = "inbox@gofer.test"
)

func maildir() string { return filepath.Join(itest.StateDir(), "srv", "mail", "inbox", "new") }

// token is a marker only one test's message holds.
func token(t *testing.T) string {
	b := make([]byte, 6)
	rand.Read(b)
	return t.Name() + "-" + hex.EncodeToString(b)
}

// delivered waits (polling the Maildir, up to 30 s) for the message whose
// Subject holds tok and returns its bytes.
func delivered(t *testing.T, tok string) string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		files, _ := filepath.Glob(filepath.Join(maildir(), "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err == nil && strings.Contains(string(b), "Subject: "+tok+"\n") {
				return string(b)
			}
		}
		select {
		case <-deadline:
			t.Fatalf("no message with subject %s delivered to %s", tok, maildir())
		case <-tick.C:
		}
	}
}

// sentData is the message as the -v transcript shows it between DATA's 354
// and the final ".", dot-stuffing undone, LF line ends (as Maildir keeps).
func sentData(t *testing.T, transcript string) string {
	t.Helper()
	var out []string
	in := false
	for _, line := range strings.Split(transcript, "\n") {
		switch {
		case strings.HasPrefix(line, "< 354"):
			in = true
		case in && line == "> .":
			return strings.Join(out, "\n") + "\n"
		case in && strings.HasPrefix(line, "> "):
			out = append(out, strings.TrimPrefix(strings.TrimPrefix(line, "> "), "."))
		case in && line == ">":
			out = append(out, "")
		}
	}
	t.Fatalf("no DATA in transcript:\n%s", transcript)
	return ""
}

// splitDelivery separates the trace lines Postfix puts first
// (Return-Path, X-Original-To, Delivered-To, Received with its folded
// lines) from the message as it was sent.
func splitDelivery(msg string) (trace, sent string) {
	lines := strings.SplitAfter(msg, "\n")
	i := 0
	for i < len(lines) {
		l := lines[i]
		if strings.HasPrefix(l, "Return-Path:") || strings.HasPrefix(l, "X-Original-To:") ||
			strings.HasPrefix(l, "Delivered-To:") || strings.HasPrefix(l, "Received:") ||
			strings.HasPrefix(l, "\t") || strings.HasPrefix(l, " ") {
			i++
			continue
		}
		break
	}
	return strings.Join(lines[:i], ""), strings.Join(lines[i:], "")
}

var queuedAs = regexp.MustCompile(`^queued as ([A-Za-z0-9]+) by `)

// checkSend runs gofer get on a mailto URL and proves the delivery: the
// message in the Maildir is exactly what was sent, and the queue id gofer
// printed is in its Received header and in Postfix's log.
func checkSend(t *testing.T, server string, extra []string, with string) {
	tok := token(t)
	body := "First line of " + tok + "\n.\n..two dots\nlast line, no newline"
	since := itest.LogSince(t, "postfix.log")
	args := append([]string{"get", "-v", "--from", "Gofer Tester <tester@example.org>", "--smtp-server", server,
		"--header", "X-Gofer-Test: " + tok}, extra...)
	r := itest.Run(t, strings.NewReader(body), nil, append(args, "mailto:"+smtpInbox+"?subject="+tok+"&keywords=k1,k2")...)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	m := queuedAs.FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("stdout %q names no queue id", r.Stdout)
	}
	id := m[1]
	msg := delivered(t, tok)
	trace, sent := splitDelivery(msg)
	if want := sentData(t, r.Stderr); sent != want {
		t.Errorf("delivered message differs from what was sent:\n%s\n---- sent:\n%s", sent, want)
	}
	if !strings.HasSuffix(sent, "\n\n"+body+"\n") {
		t.Errorf("delivered body:\n%s", sent)
	}
	for _, h := range []string{"From: \"Gofer Tester\" <tester@example.org>\n", "To: " + smtpInbox + "\n", "Keywords: k1,k2\n", "X-Gofer-Test: " + tok + "\n"} {
		if !strings.Contains(sent, h) {
			t.Errorf("delivered header lacks %q:\n%s", h, sent)
		}
	}
	if !strings.Contains(trace, "with "+with+" id "+id+"\n") {
		t.Errorf("Received header does not name %s with %s:\n%s", id, with, trace)
	}
	logged := since()
	if !strings.Contains(logged, id+": to=<"+smtpInbox+">") || !strings.Contains(logged, "status=sent") {
		t.Errorf("postfix.log has no delivery of %s:\n%s", id, logged)
	}
}

func TestMailtoPort25(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smtpAddr+":25")
	checkSend(t, smtpAddr, nil, "UTF8SMTP")
}

func TestMailtoSubmission(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smtpAddr+":587")
	netrc := filepath.Join(t.TempDir(), "netrc")
	os.WriteFile(netrc, []byte("machine "+smtpAddr+" login "+smtpUser+" password "+smtpPassword+"\n"), 0o600)
	// ESMTPSA: Postfix's word for ESMTP with TLS (S) and a login (A).
	checkSend(t, smtpAddr+":587", []string{"--cacert", itest.CertPath(), "--netrc-file", netrc, "--smtp-user", smtpUser}, "UTF8SMTPSA")
}

// TestMailtoSubmissionRefusals: no login (refused before connecting), a
// wrong password (535), an unknown mailbox (550).
func TestMailtoSubmissionRefusals(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smtpAddr+":587")
	netrc := filepath.Join(t.TempDir(), "netrc")
	os.WriteFile(netrc, []byte("machine "+smtpAddr+" login "+smtpUser+" password wrong\n"), 0o600)
	base := []string{"get", "--from", "tester@example.org", "--cacert", itest.CertPath()}
	r := itest.Run(t, strings.NewReader("x"), nil, append(base, "--smtp-server", smtpAddr+":587", "mailto:"+smtpInbox)...)
	if r.Code != 6 || !strings.Contains(r.Reason(), "needs a login") {
		t.Errorf("no login: exit %d %q", r.Code, r.Stderr)
	}
	r = itest.Run(t, strings.NewReader("x"), nil, append(base, "--netrc-file", netrc, "--smtp-server", smtpAddr+":587", "mailto:"+smtpInbox)...)
	if r.Code != 6 || !strings.Contains(r.Reason(), "535") || strings.Contains(r.Stderr, "wrong") {
		t.Errorf("wrong password: exit %d %q", r.Code, r.Stderr)
	}
	r = itest.Run(t, strings.NewReader("x"), nil, append(base, "--smtp-server", smtpAddr, "mailto:nobody@gofer.test")...)
	if r.Code != 5 || !strings.Contains(r.Reason(), "550 5.1.1") {
		t.Errorf("unknown mailbox: exit %d %q", r.Code, r.Stderr)
	}
}

// TestMailtoSendmail: with no server named, Postfix's sendmail takes the
// message (MAIL_CONFIG points it at the harness's Postfix).
func TestMailtoSendmail(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smtpAddr+":25")
	if _, err := os.Stat(mailto.DefaultSendmail); err != nil {
		t.Skip("no sendmail program")
	}
	tok := token(t)
	env := []string{"MAIL_CONFIG=" + filepath.Join(itest.StateDir(), "etc", "postfix"), "EMAIL=tester@example.org"}
	r := itest.Run(t, strings.NewReader("through sendmail\n"), env, "get", "mailto:"+smtpInbox+"?subject="+tok)
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "handed to "+mailto.DefaultSendmail) {
		t.Fatalf("exit %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	msg := delivered(t, tok)
	if !strings.HasSuffix(msg, "\n\nthrough sendmail\n") || !strings.Contains(msg, "From: tester@example.org\n") {
		t.Errorf("delivered:\n%s", msg)
	}
}

// TestMailtoLibrary: the library sends with a Body reader and returns the
// receipt.
func TestMailtoLibrary(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smtpAddr+":25")
	tok := token(t)
	var opts fetch.Options
	opts.SetFetcher(&mailto.Fetcher{SMTPServer: smtpAddr, From: "lib@example.org"}, mailto.Schemes()...)
	c := fetch.NewClient(opts)
	defer c.Close()
	resp, err := c.Do(context.Background(), &fetch.Request{URL: "mailto:" + smtpInbox + "?subject=" + tok, Call: schemes.Call{Mail: &schemes.MailRequest{Body: strings.NewReader("from the library\n")}}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	rc, ok := resp.Info.(*mailto.Receipt)
	if !ok || rc.QueueID == "" || rc.Server != smtpAddr+":25" || len(rc.Recipients) != 1 {
		t.Fatalf("receipt %#v", resp.Info)
	}
	msg := delivered(t, tok)
	if !strings.Contains(msg, " id "+rc.QueueID+"\n") || !strings.HasSuffix(msg, "\n\nfrom the library\n") {
		t.Errorf("delivered:\n%s", msg)
	}
}

// TestMailtoJSON: --json prints the receipt with the documented fields.
func TestMailtoJSON(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, smtpAddr+":25")
	tok := token(t)
	r := itest.Run(t, strings.NewReader("json\n"), nil, "get", "--json", "--from", "tester@example.org", "--smtp-server", smtpAddr,
		"mailto:"+smtpInbox+"?subject="+tok)
	if r.Code != 0 {
		t.Fatalf("exit %d %s", r.Code, r.Stderr)
	}
	var rc struct {
		Recipients []string `json:"recipients"`
		QueueID    string   `json:"queue_id"`
		Server     string   `json:"server"`
		Transport  string   `json:"transport"`
		MessageID  string   `json:"message_id"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rc); err != nil {
		t.Fatalf("%v: %s", err, r.Stdout)
	}
	if rc.QueueID == "" || rc.Server != smtpAddr+":25" || rc.Transport != "smtp" || len(rc.Recipients) != 1 || rc.Recipients[0] != smtpInbox {
		t.Errorf("receipt %+v", rc)
	}
	msg := delivered(t, tok)
	if !strings.Contains(msg, " id "+rc.QueueID+"\n") || !strings.Contains(msg, "Message-ID: "+rc.MessageID+"\n") {
		t.Errorf("delivered:\n%s", msg)
	}
}
