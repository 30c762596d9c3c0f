package nntp

import (
	"crypto/tls"
	"errors"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/internal/testcert"
	"github.com/goferurl/gofer/schemes"
)

// testTLS returns a server config with a certificate for 127.0.0.1 and a
// client config that trusts it.
func testTLS(t *testing.T) (server, client *tls.Config) {
	cert, pool := testcert.T(t, "gofer test")
	return &tls.Config{Certificates: []tls.Certificate{cert}}, &tls.Config{RootCAs: pool}
}

func TestStartTLSThenCapabilitiesAgain(t *testing.T) {
	srvCfg, cliCfg := testTLS(t)
	s := serve(t, greeting, caps("READER", "OVER", "STARTTLS"),
		step{want: "STARTTLS", reply: "382 Continue with TLS negotiation\r\n", startTLS: srvCfg},
		readerCaps,
		step{want: "ARTICLE <a@b>", reply: lines("220 0 <a@b>", "over TLS", ".")})
	req := newsReq(s, &schemes.News{MessageID: "a@b"})
	req.TLSConfig = cliCfg
	f := newsFetcher(s)
	f.RequireTLS = true
	body, _, err := fetchAll(t, f, req)
	if err != nil || body != "over TLS\n" {
		t.Fatalf("body %q, err %v", body, err)
	}
	equalLines(t, s.wait(t), []string{"CAPABILITIES", "STARTTLS", "CAPABILITIES", "ARTICLE <a@b>", "QUIT"})
}

func TestStartTLSWithUntrustedCertificateFails(t *testing.T) {
	srvCfg, _ := testTLS(t)
	s := serve(t, greeting, caps("READER", "STARTTLS"),
		step{want: "STARTTLS", reply: "382 Continue with TLS negotiation\r\n", startTLS: srvCfg})
	req := newsReq(s, &schemes.News{MessageID: "a@b"})
	f := newsFetcher(s)
	f.RequireTLS = true // system roots: the test certificate is not trusted
	if _, _, err := fetchAll(t, f, req); !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("err %v, want ErrConnect for an untrusted certificate", err)
	}
	got := s.wait(t)
	for _, line := range got {
		if line == "ARTICLE <a@b>" {
			t.Errorf("client went on after a failed handshake: %q", got)
		}
	}
}

func TestNNTPSIsTLSFromTheFirstByte(t *testing.T) {
	srvCfg, cliCfg := testTLS(t)
	s := serveOn(t, srvCfg, greeting, readerCaps,
		step{want: "GROUP g", reply: "211 1 1 1 g\r\n"},
		step{want: "ARTICLE 1", reply: lines("220 1 <a@b>", "secure", ".")})
	host, port := splitAddr(t, s.addr)
	req := &schemes.Request{
		URL: &schemes.URL{Scheme: "nntps", Host: host, Port: port,
			NNTP: &schemes.NNTP{Group: "g", Article: 1}},
		Settings: &schemes.Settings{Dialer: &dial.Dialer{}, TLSConfig: cliCfg, IdleTimeout: 10 * time.Second},
	}
	body, _, err := fetchAll(t, newsFetcher(s), req)
	if err != nil || body != "secure\n" {
		t.Fatalf("body %q, err %v", body, err)
	}
	equalLines(t, s.wait(t), []string{"CAPABILITIES", "GROUP g", "ARTICLE 1", "QUIT"})
}
