package gemini

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// pinLine is the known-hosts line of cert for server.
func pinLine(server string, cert tls.Certificate) string {
	return server + " " + Fingerprint(cert.Leaf) + " " + cert.Leaf.NotAfter.UTC().Format(time.RFC3339)
}

// pinLines are the file's lines that are not comments.
func pinLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestTOFU: the first certificate is pinned in the file; the same one
// passes; another one on the same host:port is refused before anything is
// sent, with a *CertChangedError that Accept turns into a pin.
func TestTOFU(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gofer", "known_hosts")
	first := newCert(t, "first", inAnHour)
	s := newServer(t, first, reply("20 text/plain\r\nok"))
	f := &Fetcher{KnownHosts: &KnownHosts{Path: path}}

	var warned []string
	if _, body, err := get(t, f, request(t, s.URL("/"), &warned)); err != nil || string(body) != "ok" {
		t.Fatalf("first use: %q, %v", body, err)
	}
	s.next(t)
	if got, want := pinLines(t, path), []string{pinLine(s.addr, first)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("known hosts %q, want %q", got, want)
	}
	if !strings.HasPrefix(Fingerprint(first.Leaf), "SHA256:") || len(Fingerprint(first.Leaf)) != len("SHA256:")+64 {
		t.Errorf("fingerprint %q", Fingerprint(first.Leaf))
	}

	// The same certificate again, from a Fetcher reading the same file.
	f = &Fetcher{KnownHosts: &KnownHosts{Path: path}}
	if _, _, err := get(t, f, request(t, s.URL("/"), &warned)); err != nil {
		t.Fatalf("the pinned certificate: %v", err)
	}
	s.next(t)
	if len(warned) != 0 {
		t.Errorf("warnings for a pinned certificate: %q", warned)
	}

	// Another certificate on the same host:port.
	second := newCert(t, "second", inAnHour)
	s.SetCert(second)
	_, _, err := get(t, f, request(t, s.URL("/"), &warned))
	var cc *CertChangedError
	if !errors.As(err, &cc) {
		t.Fatalf("a changed certificate: %v; want a *CertChangedError", err)
	}
	if !errors.Is(err, schemes.ErrConnect) {
		t.Errorf("%v does not match the connect kind", err)
	}
	for _, want := range []string{Fingerprint(first.Leaf), Fingerprint(second.Leaf), s.addr, path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
	if cc.Server != s.addr || cc.Old.Fingerprint != Fingerprint(first.Leaf) || cc.New.Fingerprint != Fingerprint(second.Leaf) || cc.File != path {
		t.Errorf("error %+v", cc)
	}
	if ex := s.next(t); ex.Line != "" || ex.HandshakeErr == nil {
		t.Errorf("the server with the new certificate saw %+v; want a failed handshake and no request", ex)
	}
	if got := pinLines(t, path); len(got) != 1 || got[0] != pinLine(s.addr, first) {
		t.Errorf("the refusal changed the pins: %q", got)
	}

	// Accepted by a person, the new one passes.
	if err := cc.Accept(); err != nil {
		t.Fatal(err)
	}
	if got := pinLines(t, path); len(got) != 1 || got[0] != pinLine(s.addr, second) {
		t.Errorf("after Accept: %q", got)
	}
	if _, body, err := get(t, f, request(t, s.URL("/"), &warned)); err != nil || string(body) != "ok" {
		t.Fatalf("after Accept: %q, %v", body, err)
	}
	if ex := s.next(t); ex.Line != s.URL("/\r\n") {
		t.Errorf("after Accept the server read %q", ex.Line)
	}
	if len(warned) != 0 {
		t.Errorf("warnings: %q", warned)
	}

	// AcceptNew pins a third one, with a warning.
	third := newCert(t, "third", inAnHour)
	s.SetCert(third)
	f = &Fetcher{KnownHosts: &KnownHosts{Path: path}, AcceptNew: true}
	if _, _, err := get(t, f, request(t, s.URL("/"), &warned)); err != nil {
		t.Fatalf("with AcceptNew: %v", err)
	}
	s.next(t)
	if len(warned) != 1 || !strings.Contains(warned[0], Fingerprint(third.Leaf)) || !strings.Contains(warned[0], Fingerprint(second.Leaf)) {
		t.Errorf("AcceptNew warned %q; want one warning naming both fingerprints", warned)
	}
	if got := pinLines(t, path); len(got) != 1 || got[0] != pinLine(s.addr, third) {
		t.Errorf("after AcceptNew: %q", got)
	}
	p, ok, err := f.KnownHosts.Lookup(s.addr)
	if err != nil || !ok || p.Fingerprint != Fingerprint(third.Leaf) || !p.Expires.Equal(third.Leaf.NotAfter.Truncate(time.Second)) {
		t.Errorf("Lookup = %+v, %v, %v", p, ok, err)
	}
}

// TestTOFUExpired: a pin past its expiry gives way to the new certificate,
// with a warning.
func TestTOFUExpired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known_hosts")
	cert := newCert(t, "renewed", inAnHour)
	s := newServer(t, cert, reply("20 text/plain\r\nok"))
	old := "SHA256:" + strings.Repeat("ab", 32)
	hand := "# pinned by hand\nother.example:1965 SHA256:" + strings.Repeat("cd", 32) + " 2099-01-01T00:00:00Z\n" +
		s.addr + " " + old + " 2001-02-03T04:05:06Z\n"
	if err := os.WriteFile(path, []byte(hand), 0o600); err != nil {
		t.Fatal(err)
	}
	var warned []string
	f := &Fetcher{KnownHosts: &KnownHosts{Path: path}}
	if _, body, err := get(t, f, request(t, s.URL("/"), &warned)); err != nil || string(body) != "ok" {
		t.Fatalf("%q, %v", body, err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "expired") || !strings.Contains(warned[0], old) || !strings.Contains(warned[0], Fingerprint(cert.Leaf)) {
		t.Errorf("warnings %q; want one saying the old pin expired", warned)
	}
	want := []string{"other.example:1965 SHA256:" + strings.Repeat("cd", 32) + " 2099-01-01T00:00:00Z", pinLine(s.addr, cert)}
	if got := pinLines(t, path); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pins %q, want %q (order kept)", got, want)
	}
}

// TestTOFUInMemory: without a file, pins last as long as the Fetcher.
func TestTOFUInMemory(t *testing.T) {
	s := newServer(t, newCert(t, "a", inAnHour), reply("20 text/plain\r\nok"))
	f := New()
	if _, _, err := get(t, f, request(t, s.URL("/"), nil)); err != nil {
		t.Fatal(err)
	}
	s.SetCert(newCert(t, "b", inAnHour))
	_, _, err := get(t, f, request(t, s.URL("/"), nil))
	var cc *CertChangedError
	if !errors.As(err, &cc) || cc.File != "" {
		t.Fatalf("%v; want a *CertChangedError without a file", err)
	}
	if _, _, err := get(t, New(), request(t, s.URL("/"), nil)); err != nil {
		t.Fatalf("a new Fetcher has no pins: %v", err)
	}
}

// TestInsecureSkipsPins: with verification turned off (-k) nothing is
// checked or pinned.
func TestInsecureSkipsPins(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known_hosts")
	s := newServer(t, newCert(t, "a", inAnHour), reply("20 text/plain\r\nok"))
	f := &Fetcher{KnownHosts: &KnownHosts{Path: path}}
	req := request(t, s.URL("/"), nil)
	req.TLSConfig = &tls.Config{InsecureSkipVerify: true}
	if _, _, err := get(t, f, req); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a pin was written with verification off: %v", err)
	}
}

// TestTrustCA: with TrustCA the certificate must chain to RootCAs.
func TestTrustCA(t *testing.T) {
	cert := newCert(t, "ca", inAnHour)
	s := newServer(t, cert, reply("20 text/plain\r\nok"))
	f := &Fetcher{Trust: TrustCA}
	pool := x509.NewCertPool()
	pool.AddCert(cert.Leaf)
	req := request(t, s.URL("/"), nil)
	req.TLSConfig = &tls.Config{RootCAs: pool}
	if _, body, err := get(t, f, req); err != nil || string(body) != "ok" {
		t.Fatalf("with the certificate in RootCAs: %q, %v", body, err)
	}
	s.next(t)

	req = request(t, s.URL("/"), nil)
	req.TLSConfig = &tls.Config{RootCAs: x509.NewCertPool()}
	_, _, err := get(t, f, req)
	if !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("without it: %v; want the connect kind", err)
	}
	if ex := s.next(t); ex.Line != "" {
		t.Errorf("the untrusted server was sent %q", ex.Line)
	}
}

// TestKnownHostsConcurrent: sixteen writers, each with its own KnownHosts
// on one file, lose none of each other's pins.
func TestKnownHostsConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "known_hosts")
	const n = 16
	certs := make([]tls.Certificate, n)
	for i := range certs {
		certs[i] = newCert(t, fmt.Sprint("server", i), inAnHour)
	}
	errs := make(chan error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := &KnownHosts{Path: path}
			<-start
			note, err := k.check(fmt.Sprintf("127.0.0.1:%d", 20000+i), certs[i].Leaf, false, time.Now())
			if err == nil && note != "" {
				err = fmt.Errorf("first use noted %q", note)
			}
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	lines := pinLines(t, path)
	if len(lines) != n {
		t.Fatalf("%d pins in the file, want %d:\n%s", len(lines), n, strings.Join(lines, "\n"))
	}
	pins, _ := parseKnownHosts([]byte(strings.Join(lines, "\n")))
	k := &KnownHosts{Path: path}
	for i := 0; i < n; i++ {
		server := fmt.Sprintf("127.0.0.1:%d", 20000+i)
		if pins[server].Fingerprint != Fingerprint(certs[i].Leaf) {
			t.Errorf("%s pinned as %q", server, pins[server].Fingerprint)
		}
		if _, err := k.check(server, certs[i].Leaf, false, time.Now()); err != nil {
			t.Errorf("%s: its own certificate: %v", server, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %q; want the file and its lock, no leftovers", names)
	}
}

// TestKnownHostsSkipsBadLines: a line that cannot be read is skipped, not
// fatal, and comments are comments.
func TestKnownHostsSkipsBadLines(t *testing.T) {
	pins, order := parseKnownHosts([]byte("# comment a SHA256:x 2001-01-01T00:00:00Z\ngarbage\nh:1 SHA256:aa not-a-time\nh:2 SHA256:bb 2030-01-01T00:00:00Z extra\n\n"))
	if len(pins) != 1 || pins["h:2"].Fingerprint != "SHA256:bb" || len(order) != 1 {
		t.Errorf("pins %v order %q", pins, order)
	}
}

// TestIdentity: a server that asks for a client certificate gets the
// Fetcher's Identity, or the one set for its host:port.
func TestIdentity(t *testing.T) {
	answer := reply("20 text/plain\r\nok")
	s := newServer(t, newCert(t, "server", inAnHour), answer, askClientCert)
	other := newServer(t, newCert(t, "other", inAnHour), answer, askClientCert)
	shared, own := newCert(t, "shared identity", inAnHour), newCert(t, "own identity", inAnHour)

	sawCert := func(srv *gemServer, f *Fetcher) *x509.Certificate {
		t.Helper()
		if _, _, err := get(t, f, request(t, srv.URL("/"), nil)); err != nil {
			t.Fatal(err)
		}
		ex := srv.next(t)
		if len(ex.ClientCerts) == 0 {
			return nil
		}
		return ex.ClientCerts[0]
	}
	same := func(got *x509.Certificate, want tls.Certificate) bool { return got != nil && got.Equal(want.Leaf) }
	name := func(c *x509.Certificate) string {
		if c == nil {
			return "none"
		}
		return c.Subject.CommonName
	}

	f := New()
	if c := sawCert(s, f); c != nil {
		t.Errorf("without an identity the server saw %s", name(c))
	}
	f = &Fetcher{Identity: &shared}
	if c := sawCert(s, f); !same(c, shared) {
		t.Errorf("the server saw %s, want the shared identity", name(c))
	}
	f.SetIdentity(s.addr, &own)
	if c := sawCert(s, f); !same(c, own) {
		t.Errorf("after SetIdentity the server saw %s, want its own identity", name(c))
	}
	if c := sawCert(other, f); !same(c, shared) {
		t.Errorf("another server saw %s, want the shared identity", name(c))
	}
	f.SetIdentity(s.addr, nil)
	if c := sawCert(s, f); !same(c, shared) {
		t.Errorf("after SetIdentity(nil) the server saw %s, want the shared identity again", name(c))
	}
}

// TestIdentityStoredAndMade: a 60 to a fetcher with no identity for the
// server is a CertRequiredError; NewIdentity makes one, keeps it in the
// Identities directory and offers it; a new fetcher over the same
// directory offers it too, and a 60 with it offered is a plain refusal.
func TestIdentityStoredAndMade(t *testing.T) {
	asks := func(c net.Conn, _ string) {
		certs := c.(*tls.Conn).ConnectionState().PeerCertificates
		if len(certs) == 0 {
			io.WriteString(c, "60 Certificate please\r\n")
			return
		}
		io.WriteString(c, "20 text/plain\r\nmember "+certs[0].Subject.CommonName)
	}
	s := newServer(t, newCert(t, "server", inAnHour), asks, askClientCert)
	dir := t.TempDir()
	f := &Fetcher{Identities: dir}
	_, _, err := get(t, f, request(t, s.URL("/private/"), nil))
	var cr *CertRequiredError
	if !errors.As(err, &cr) || !errors.Is(err, schemes.ErrAuth) || cr.Server != s.addr || cr.Prompt != "Certificate please" {
		t.Fatalf("err %v, want a CertRequiredError for %s", err, s.addr)
	}
	s.next(t)
	if err := cr.NewIdentity(); err != nil {
		t.Fatal(err)
	}
	_, body, err := get(t, f, request(t, s.URL("/private/"), nil))
	if err != nil || string(body) != "member gofer identity for "+s.addr {
		t.Fatalf("with the new identity: %q, %v", body, err)
	}
	s.next(t)
	if fi, err := os.Stat(identityFile(dir, s.addr)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("identity file: %v %v", fi, err)
	}
	// A later run reads it from the directory.
	_, body, err = get(t, &Fetcher{Identities: dir}, request(t, s.URL("/private/"), nil))
	if err != nil || !strings.HasPrefix(string(body), "member gofer identity") {
		t.Fatalf("a new fetcher: %q, %v", body, err)
	}
	s.next(t)
}
