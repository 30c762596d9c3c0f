package integration_test

// The Gemini server itself (molly-brown on 127.0.0.196:1965, see
// integration/LAYOUT.md), spoken to with crypto/tls alone: the capsule
// the gemini: scheme's tests rely on answers as LAYOUT.md says.

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

var geminiAddr = net.JoinHostPort(itest.GeminiHost, strconv.Itoa(itest.GeminiPort))

// geminiGet sends one request for url and returns the response header
// (without CRLF) and body. The server's certificate is checked against
// its own CA file; cert, when not nil, is presented as the client identity.
func geminiGet(t *testing.T, url string, cert *tls.Certificate) (header string, body []byte) {
	t.Helper()
	pem, err := os.ReadFile(itest.GeminiCertPath())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", itest.GeminiCertPath())
	}
	cfg := &tls.Config{RootCAs: roots, ServerName: itest.GeminiHost, MinVersion: tls.VersionTLS12}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: 10 * time.Second}, Config: cfg}
	c, err := d.Dial("tcp", geminiAddr)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, url+"\r\n"); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasSuffix(line, "\r\n") {
		t.Fatalf("%s: header %q: %v", url, line, err)
	}
	body, err = io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: body: %v", url, err)
	}
	return strings.TrimSuffix(line, "\r\n"), body
}

func TestGeminiServer(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	base := "gemini://" + itest.GeminiHost + "/"
	for _, tc := range []struct {
		path, header, body string
	}{
		{"", "20 text/gemini", "=> archive/ "},
		{"cgi-bin/ask", "10 What is your name?", ""},
		{"cgi-bin/ask?Ada", "20 text/gemini", "# Hello, Ada\n"},
		{"cgi-bin/secret", "11 Password?", ""},
		{"cgi-bin/secret?hunter2", "20 text/plain", "secret accepted: 7 characters\n"},
		{"old", "30 " + base + "index.gmi", ""},
		{"moved", "31 " + base + "archive/", ""},
		{"loop-a", "30 " + base + "loop-b", ""},
		{"loop-b", "30 " + base + "loop-a", ""},
		{"private/", "60 A pre-authorised certificate is required to access this resource", ""},
		{"robots.txt", "20 text/plain; charset=utf-8", "Disallow: /norobots/\n"},
		{"archive/", "20 text/gemini", "=> README.txt README.txt "},
	} {
		header, body := geminiGet(t, base+tc.path, nil)
		if header != tc.header || !bytes.Contains(body, []byte(tc.body)) {
			t.Errorf("%s: header %q, want %q; body %q, want it to contain %q", tc.path, header, tc.header, body, tc.body)
		}
	}

	// The certificate zone admits the client identity.
	id, err := tls.LoadX509KeyPair(itest.GeminiClientCertPath(), itest.GeminiClientKeyPath())
	if err != nil {
		t.Fatal(err)
	}
	header, body := geminiGet(t, base+"private/", &id)
	if header != "20 text/gemini" || !bytes.HasPrefix(body, []byte("# Members only\n")) {
		t.Errorf("private/ with the client identity: header %q, body %q", header, body)
	}

	// A file of the archive comes back byte for byte.
	header, body = geminiGet(t, base+"archive/README.txt", nil)
	if want := itest.Manifest(t)["README.txt"]; !strings.HasPrefix(header, "20 ") || sha(body) != want {
		t.Errorf("archive/README.txt: header %q, %d bytes, sha256 %s, want %s", header, len(body), sha(body), want)
	}
}
