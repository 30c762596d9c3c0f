package mailto

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// scripted is a scripted SMTP server: it records every line the client
// sends, and answers each command with the reply the test gives.
type scripted struct {
	addr  string
	mu    sync.Mutex
	lines []string
	conns int
	done  chan struct{}
}

// serveSMTP starts a server whose answer to a command line is reply(line);
// the DATA text is recorded up to its "." line and answered with dataReply.
// A reply of "" closes the connection; "stall" never answers.
func serveSMTP(t *testing.T, reply func(line string) string, dataReply string) *scripted {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{addr: l.Addr().String(), done: make(chan struct{})}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); l.Close(); <-s.done })
	go func() {
		defer close(s.done)
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		go func() { <-stop; conn.Close() }()
		s.mu.Lock()
		s.conns++
		s.mu.Unlock()
		br := bufio.NewReader(conn)
		conn.Write([]byte("220 scripted ESMTP\r\n"))
		inData := false
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\r\n")
			s.mu.Lock()
			s.lines = append(s.lines, line)
			s.mu.Unlock()
			var out string
			switch {
			case inData && line == ".":
				inData, out = false, dataReply
			case inData:
				continue
			case line == "DATA":
				if r := reply(line); r != "354 go ahead" {
					out = r
					break
				}
				inData, out = true, "354 go ahead"
			default:
				out = reply(line)
			}
			switch out {
			case "":
				return
			case "stall":
				<-stop
				return
			}
			conn.Write([]byte(out + "\r\n"))
		}
	}()
	return s
}

func (s *scripted) transcript() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

// postfixLike answers as a plain port-25 Postfix does.
func postfixLike(line string) string {
	switch {
	case strings.HasPrefix(line, "EHLO "):
		return "250-scripted\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SMTPUTF8"
	case strings.HasPrefix(line, "MAIL FROM:"), strings.HasPrefix(line, "RCPT TO:"):
		return "250 2.1.0 Ok"
	case line == "DATA":
		return "354 go ahead"
	case line == "QUIT":
		return "221 2.0.0 Bye"
	}
	return "502 5.5.2 Error: command not recognized"
}

func fixedClock() clock {
	return clock{
		now: func() time.Time { return time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC) },
		id:  func(domain string) string { return "<fixed@" + domain + ">" },
	}
}

// request is a send of the message raw names through the SMTP server
// at server: the Fetcher and the request.
func request(t *testing.T, raw, server string) (*Fetcher, *schemes.Request) {
	t.Helper()
	u, err := schemes.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &Fetcher{SMTPServer: server, From: "Sender <me@example.org>"},
		&schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: &net.Dialer{}, IdleTimeout: 5 * time.Second}}
}

// TestSendTranscript: the exact lines the client writes, the DATA text
// dot-stuffed with CR LF line ends, and the queue id from the reply.
func TestSendTranscript(t *testing.T) {
	s := serveSMTP(t, postfixLike, "250 2.0.0 Ok: queued as 4C1D2E3F")
	f, req := request(t, "mailto:a@example.org?subject=Hello&cc=c@example.org&body=From%20the%20URL", s.addr)
	req.Mail = &schemes.MailRequest{
		Body:    strings.NewReader("line one\n.leading dot\nbare\rcr\r\n.\nlast"),
		Headers: []string{"X-Test: yes", "Bcc: hidden@example.org"},
	}
	m, err := build(req, f.From, fixedClock())
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := parseServer(s.addr)
	reply, err := send(context.Background(), req, srv, nil, false, m)
	if err != nil {
		t.Fatal(err)
	}
	if QueueID(reply) != "4C1D2E3F" {
		t.Errorf("reply %q", reply)
	}
	want := []string{
		"EHLO [127.0.0.1]",
		"MAIL FROM:<me@example.org> BODY=8BITMIME SMTPUTF8",
		"RCPT TO:<a@example.org>",
		"RCPT TO:<c@example.org>",
		"RCPT TO:<hidden@example.org>",
		"DATA",
		`From: "Sender" <me@example.org>`,
		"To: a@example.org",
		"Cc: c@example.org",
		"Subject: Hello",
		"Date: Tue, 20 Dec 1994 12:00:00 +0000",
		"Message-ID: <fixed@example.org>",
		"MIME-Version: 1.0",
		"Content-Type: text/plain; charset=utf-8",
		"Content-Transfer-Encoding: 8bit",
		"X-Test: yes",
		"",
		"From the URL",
		"line one",
		"..leading dot",
		"bare",
		"cr",
		"..",
		"last",
		".",
		"QUIT",
	}
	got := s.transcript()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("transcript:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSendRefusedRecipient: a refused RCPT ends the send as ErrRefused with
// the server's text, before DATA.
func TestSendRefusedRecipient(t *testing.T) {
	s := serveSMTP(t, func(line string) string {
		if strings.HasPrefix(line, "RCPT TO:") {
			return "550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown"
		}
		return postfixLike(line)
	}, "250 ok")
	f, req := request(t, "mailto:nobody@example.org", s.addr)
	_, err := f.Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "550 5.1.1") {
		t.Fatalf("err %v", err)
	}
	for _, l := range s.transcript() {
		if l == "DATA" {
			t.Errorf("DATA sent after a refused recipient")
		}
	}
}

// TestSendStall: a server that stops answering ends the send with
// ErrTimeout within the idle timeout.
func TestSendStall(t *testing.T) {
	s := serveSMTP(t, func(line string) string {
		if strings.HasPrefix(line, "MAIL") {
			return "stall"
		}
		return postfixLike(line)
	}, "250 ok")
	f, req := request(t, "mailto:a@example.org", s.addr)
	req.IdleTimeout = 300 * time.Millisecond
	start := time.Now()
	_, err := f.Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrTimeout) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestSendCancel: cancelling the context ends a stalled send as ErrInterrupted.
func TestSendCancel(t *testing.T) {
	entered := make(chan struct{})
	s := serveSMTP(t, func(line string) string {
		if strings.HasPrefix(line, "MAIL") {
			close(entered)
			return "stall"
		}
		return postfixLike(line)
	}, "250 ok")
	f, req := request(t, "mailto:a@example.org", s.addr)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	_, err := f.Fetch(ctx, req)
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("err %v", err)
	}
}

// TestSendCut: a server that closes after DATA's text ends the send as
// ErrInterrupted: nothing claims the message was queued.
func TestSendCut(t *testing.T) {
	s := serveSMTP(t, postfixLike, "")
	f, req := request(t, "mailto:a@example.org", s.addr)
	_, err := f.Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("err %v", err)
	}
}

// TestSendNUL: a NUL in the text stops the send before the final ".", so the
// server never accepts the message.
func TestSendNUL(t *testing.T) {
	s := serveSMTP(t, postfixLike, "250 queued")
	f, req := request(t, "mailto:a@example.org", s.addr)
	req.Mail = &schemes.MailRequest{Body: strings.NewReader("ok\nnul\x00here\n")}
	_, err := f.Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrUsage) {
		t.Fatalf("err %v", err)
	}
	for _, l := range s.transcript() {
		if l == "." {
			t.Errorf("the message was ended with a NUL in it")
		}
	}
}

// TestPasswordNeedsTLS: a login is never sent over a plain connection: a
// server without STARTTLS is refused before AUTH.
func TestPasswordNeedsTLS(t *testing.T) {
	s := serveSMTP(t, postfixLike, "250 ok")
	f, req := request(t, "mailto:a@example.org", s.addr)
	f.SMTPUser = "u"
	req.Credentials = func(string) (string, string, bool) { return "u", "s3cret", true }
	_, err := f.Fetch(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "without TLS") {
		t.Fatalf("err %v", err)
	}
	for _, l := range s.transcript() {
		if strings.HasPrefix(l, "AUTH") || strings.Contains(l, "s3cret") {
			t.Errorf("sent %q", l)
		}
	}
}

// TestInjectionNothingSent: header injection in any part is refused before
// a connection is opened.
func TestInjectionNothingSent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan string, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	cases := []struct {
		url     string
		headers []string
		from    string
	}{
		{url: "mailto:a@b%0D%0ABcc:evil@x"},
		{url: "mailto:a@b?subject=x%0ABcc:evil@x"},
		{url: "mailto:a@b?cc=c@d%0D%0A"},
		{url: "mailto:a@b?body=x%00"},
		{url: "mailto:a@b", headers: []string{"X-A: 1\r\nBcc: evil@x"}},
		{url: "mailto:a@b", headers: []string{"X-A: 1\x00"}},
		{url: "mailto:a@b", from: "me@x\r\nBcc: evil@x"},
	}
	for _, c := range cases {
		u, err := schemes.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		req := &schemes.Request{URL: u, Call: schemes.Call{Mail: &schemes.MailRequest{Headers: c.headers}}, Settings: &schemes.Settings{Dialer: &net.Dialer{}}}
		f := &Fetcher{SMTPServer: l.Addr().String(), From: "me@example.org"}
		if c.from != "" {
			f.From = c.from
		}
		_, err = f.Fetch(context.Background(), req)
		if err == nil || !strings.Contains(err.Error(), "inject") {
			t.Errorf("%s %q %q: %v", c.url, c.headers, c.from, err)
		}
	}
	// A sentinel connection of the test's own: the listener accepts in
	// order, so anything before it came from a refused message.
	sentinel, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer sentinel.Close()
	if first := <-accepted; first != sentinel.LocalAddr().String() {
		t.Errorf("a refused message reached the listener (from %s)", first)
	}
}
