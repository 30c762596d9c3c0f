package gemini

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// newCert makes a self-signed certificate for 127.0.0.1 named name, valid
// until notAfter, that is its own certificate authority (so a pool with
// it verifies it) and serves as a server's and as a client's identity.
func newCert(t testing.TB, name string, notAfter time.Time) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              notAfter,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}

// script answers one request line (with its CR LF) on c. The server closes
// c when it returns.
type script func(c net.Conn, line string)

// reply is a script that sends b whatever was asked.
func reply(b string) script {
	return func(c net.Conn, _ string) { io.WriteString(c, b) }
}

// exchange is what the scripted server saw of one connection.
type exchange struct {
	// Line is the request line exactly as read, CR LF included; "" when
	// none arrived.
	Line string
	// HandshakeErr is why TLS failed on the server's side.
	HandshakeErr error
	// ClientCerts is the certificate chain the client presented.
	ClientCerts []*x509.Certificate
	// Version is the TLS version spoken.
	Version uint16
}

// gemServer is a scripted Gemini server on 127.0.0.1: TLS from the first
// byte with a certificate made for the test (replaceable with SetCert),
// one request line read (up to its LF, at most 4096 bytes) and recorded
// exactly, then the script's bytes, then close. Each connection's exchange
// is reported on a channel once the connection is closed, so a test waits
// for what the server saw instead of sleeping.
type gemServer struct {
	t       testing.TB
	ln      net.Listener
	addr    string
	port    int
	plain   bool
	script  script
	cfg     *tls.Config
	cert    atomic.Pointer[tls.Certificate]
	accepts atomic.Int32
	// seen holds, in the order the connections were accepted, a channel
	// per connection that its exchange is sent on once it is closed.
	seen chan chan exchange

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
	once  sync.Once
}

type serverOption func(*gemServer, *tls.Config)

// askClientCert makes the server ask for a client certificate.
func askClientCert(s *gemServer, cfg *tls.Config) { cfg.ClientAuth = tls.RequestClientCert }

// plainText makes the server speak without TLS.
func plainText(s *gemServer, _ *tls.Config) { s.plain = true }

// newServer starts a scripted server presenting cert; it stops when the
// test ends.
func newServer(t testing.TB, cert tls.Certificate, sc script, opts ...serverOption) *gemServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &gemServer{t: t, ln: ln, addr: ln.Addr().String(), port: ln.Addr().(*net.TCPAddr).Port,
		script: sc, seen: make(chan chan exchange, 256), conns: map[net.Conn]bool{}}
	s.cert.Store(&cert)
	cfg := &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return s.cert.Load(), nil }}
	s.cfg = cfg
	for _, o := range opts {
		o(s, cfg)
	}
	s.wg.Add(1)
	go s.serve(cfg)
	t.Cleanup(s.Close)
	return s
}

// SetCert makes the server present cert from its next connection on, as
// another server would: with new session ticket keys, so that no session
// of the old one resumes.
func (s *gemServer) SetCert(cert tls.Certificate) {
	var key [32]byte
	if _, err := rand.Read(key[:]); err != nil {
		s.t.Fatal(err)
	}
	s.cfg.SetSessionTicketKeys([][32]byte{key})
	s.cert.Store(&cert)
}

// URL is the gemini URL of path (with its query) on the server.
func (s *gemServer) URL(path string) string { return "gemini://" + s.addr + path }

func (s *gemServer) serve(cfg *tls.Config) {
	defer s.wg.Done()
	for {
		raw, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.accepts.Add(1)
		s.mu.Lock()
		s.conns[raw] = true
		s.mu.Unlock()
		done := make(chan exchange, 1)
		s.seen <- done
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			done <- s.handle(raw, cfg)
		}()
	}
}

func (s *gemServer) handle(raw net.Conn, cfg *tls.Config) (ex exchange) {
	defer func() {
		raw.Close()
		s.mu.Lock()
		delete(s.conns, raw)
		s.mu.Unlock()
	}()
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	c := raw
	if !s.plain {
		tc := tls.Server(raw, cfg)
		if err := tc.Handshake(); err != nil {
			ex.HandshakeErr = err
			return ex
		}
		st := tc.ConnectionState()
		ex.ClientCerts, ex.Version = st.PeerCertificates, st.Version
		c = tc
		defer tc.Close() // close_notify, then the socket
	}
	line, err := bufio.NewReader(io.LimitReader(c, 4096)).ReadString('\n')
	if err != nil {
		ex.Line = ""
		return ex
	}
	ex.Line = line
	s.script(c, line)
	return ex
}

// next waits for the exchange of the next connection the server accepted,
// returned once that connection is closed.
func (s *gemServer) next(t testing.TB) exchange {
	t.Helper()
	timeout := time.After(10 * time.Second)
	select {
	case done := <-s.seen:
		select {
		case ex := <-done:
			return ex
		case <-timeout:
			t.Fatal("the server's next connection did not end within 10s")
		}
	case <-timeout:
		t.Fatal("the server saw no connection within 10s")
	}
	return exchange{}
}

// Close stops the server and waits for its connections to end.
func (s *gemServer) Close() {
	s.once.Do(func() {
		s.ln.Close()
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
}

// countingDialer dials directly and counts the dials.
type countingDialer struct{ n atomic.Int32 }

func (d *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.n.Add(1)
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

// request is a Request for raw with a short idle timeout; warnings go to
// *warned when it is not nil.
func request(t testing.TB, raw string, warned *[]string) *schemes.Request {
	t.Helper()
	u, err := schemes.Parse(raw)
	if err != nil {
		t.Fatalf("parse %q: %v", raw, err)
	}
	req := &schemes.Request{URL: u, Settings: &schemes.Settings{IdleTimeout: 5 * time.Second}}
	if warned != nil {
		var mu sync.Mutex
		req.Warn = func(s string) {
			mu.Lock()
			*warned = append(*warned, s)
			mu.Unlock()
		}
	}
	return req
}

// get fetches req with f and reads the whole body.
func get(t testing.TB, f *Fetcher, req *schemes.Request) (*schemes.Response, []byte, error) {
	t.Helper()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		if resp != nil {
			t.Errorf("Fetch returned a response and an error: %v", err)
		}
		return nil, nil, err
	}
	if resp.Body == nil {
		return resp, nil, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}
