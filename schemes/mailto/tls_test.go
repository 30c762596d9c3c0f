package mailto

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/internal/testcert"
	"github.com/goferurl/gofer/schemes"
)

func testCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	return testcert.T(t, "scripted")
}

// TestStartTLSAuth: on a server that offers STARTTLS, the client starts TLS,
// says EHLO again, logs in with AUTH PLAIN over TLS, and the transcript
// (-v) shows the whole conversation with the credentials masked.
func TestStartTLSAuth(t *testing.T) {
	cert, pool := testCert(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	type result struct {
		plain, secure []string
		auth          string
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { done <- r }()
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(conn)
		conn.Write([]byte("220 scripted ESMTP\r\n"))
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\r\n")
			r.plain = append(r.plain, line)
			if strings.HasPrefix(line, "EHLO") {
				conn.Write([]byte("250-scripted\r\n250-STARTTLS\r\n250 8BITMIME\r\n"))
				continue
			}
			if line == "STARTTLS" {
				conn.Write([]byte("220 2.0.0 Ready to start TLS\r\n"))
				break
			}
			conn.Write([]byte("503 no\r\n"))
		}
		tc := tls.Server(conn, &tls.Config{Certificates: []tls.Certificate{cert}})
		br = bufio.NewReader(tc)
		inData := false
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\r\n")
			r.secure = append(r.secure, line)
			var out string
			switch {
			case inData && line == ".":
				inData, out = false, "250 2.0.0 Ok: queued as TLS123"
			case inData:
				continue
			case strings.HasPrefix(line, "EHLO"):
				out = "250-scripted\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME"
			case strings.HasPrefix(line, "AUTH PLAIN "):
				r.auth = strings.TrimPrefix(line, "AUTH PLAIN ")
				out = "235 2.7.0 Authentication successful"
			case line == "DATA":
				inData, out = true, "354 go ahead"
			case line == "QUIT":
				tc.Write([]byte("221 bye\r\n"))
				return
			default:
				out = "250 2.1.0 Ok"
			}
			tc.Write([]byte(out + "\r\n"))
		}
	}()
	u, _ := schemes.Parse("mailto:a@example.org?subject=over%20TLS")
	var transcript strings.Builder
	f := &Fetcher{SMTPServer: l.Addr().String(), From: "me@example.org", SMTPUser: "tester"}
	req := &schemes.Request{
		URL:      u,
		Call:     schemes.Call{Mail: &schemes.MailRequest{Body: strings.NewReader("hello\n")}},
		Settings: &schemes.Settings{Dialer: &net.Dialer{}, Credentials: func(host string) (string, string, bool) { return "tester", "s3cret", host == "127.0.0.1" }, TLSConfig: &tls.Config{RootCAs: pool}, Transcript: &transcript},
	}
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	rc := resp.Info.(*Receipt)
	if rc.QueueID != "TLS123" || rc.Transport != "smtp" || len(rc.Recipients) != 1 {
		t.Errorf("receipt %+v", rc)
	}
	r := <-done
	if strings.Join(r.plain, "|") != "EHLO [127.0.0.1]|STARTTLS" {
		t.Errorf("plain text part: %q", r.plain)
	}
	if len(r.secure) < 3 || r.secure[0] != "EHLO [127.0.0.1]" || !strings.HasPrefix(r.secure[1], "AUTH PLAIN ") {
		t.Errorf("TLS part: %q", r.secure)
	}
	if b, _ := base64.StdEncoding.DecodeString(r.auth); string(b) != "\x00tester\x00s3cret" {
		t.Errorf("AUTH PLAIN response %q", b)
	}
	tr := transcript.String()
	for _, want := range []string{"< 220 scripted ESMTP", "> STARTTLS", "< 220 2.0.0 Ready to start TLS", "> AUTH PLAIN ****", "< 235 2.7.0", "< 250 2.0.0 Ok: queued as TLS123"} {
		if !strings.Contains(tr, want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
	if strings.Contains(tr, "s3cret") || strings.Contains(tr, r.auth) {
		t.Errorf("transcript shows the credentials:\n%s", tr)
	}
}
