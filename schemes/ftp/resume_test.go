package ftp

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/goferurl/gofer/internal/testcert"
	"golang.org/x/crypto/cryptobyte"
)

// tls12Pair runs a TLS 1.2 handshake over a pipe, the client's watched,
// against a server with tickets as given; it returns the watch, the
// client's configuration and its connection state.
func tls12Pair(t *testing.T, tickets bool) (*watchedHandshake, *tls.Config, tls.ConnectionState) {
	t.Helper()
	cert, pool := testcert.T(t, "resume")
	cn, sn := net.Pipe()
	t.Cleanup(func() { cn.Close(); sn.Close() })
	srv := tls.Server(sn, &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: tls.VersionTLS12, SessionTicketsDisabled: !tickets})
	go func() {
		if srv.Handshake() == nil {
			io.Copy(io.Discard, srv) // the client's reads of a ticket go on
		}
	}()
	cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", ClientSessionCache: tls.NewLRUClientSessionCache(4)}
	var w watchedHandshake
	hcfg, nc := w.watch(cfg, cn)
	tc := tls.Client(nc, hcfg)
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	return &w, cfg, tc.ConnectionState()
}

// The handshake's watch sees what crypto/tls keeps to itself: the master
// secret, and the ServerHello with the extended master secret agreed.
func TestWatchedHandshake(t *testing.T) {
	w, cfg, cs := tls12Pair(t, false)
	if cs.Version != tls.VersionTLS12 {
		t.Fatalf("version %x", cs.Version)
	}
	if n := len(w.keys.secret()); n != 48 {
		t.Errorf("master secret of %d bytes, want 48", n)
	}
	id, ems, ok := serverHelloSession(w.hello.bytes())
	if !ok || !ems {
		t.Errorf("ServerHello: ok %v, extended master secret %v", ok, ems)
	}
	// crypto/tls's server names no session (it resumes from tickets
	// only): nothing to resume by ID, and nothing is put in the cache.
	if len(id) != 0 {
		t.Errorf("session ID %x from a server that keeps no sessions", id)
	}
	if got := w.resumeByID(cfg, cs); got != nil {
		t.Errorf("resumeByID gave %x with no session ID to resume", got)
	}
	if _, ok := cfg.ClientSessionCache.Get("127.0.0.1"); ok {
		t.Error("a session was cached that no data connection could resume")
	}
	// A server that gave a ticket is resumed from it: no ID needed.
	w, cfg, cs = tls12Pair(t, true)
	if got := w.resumeByID(cfg, cs); got != nil {
		t.Errorf("resumeByID gave %x beside a ticket", got)
	}
}

// A session made of a handshake's secret is one crypto/tls takes, and a
// data connection's ClientHello carries the session ID it is given.
func TestClientHelloCarriesSessionID(t *testing.T) {
	w, cfg, cs := tls12Pair(t, false)
	state, err := clientSession(cs, w.keys.secret(), true)
	if err != nil {
		t.Fatalf("clientSession: %v", err)
	}
	cfg.ClientSessionCache.Put(cfg.ServerName, state)
	id := bytes.Repeat([]byte{0xA5}, 32)
	cn, sn := net.Pipe()
	defer cn.Close()
	defer sn.Close()
	go tls.Client(cn, dataConfig(cfg, id)).Handshake()
	var hdr [5]byte
	if _, err := io.ReadFull(sn, hdr[:]); err != nil {
		t.Fatal(err)
	}
	rec := make([]byte, int(hdr[3])<<8|int(hdr[4]))
	if _, err := io.ReadFull(sn, rec); err != nil {
		t.Fatal(err)
	}
	s := cryptobyte.String(rec)
	var typ uint8
	var body, sid cryptobyte.String
	var vers uint16
	if !s.ReadUint8(&typ) || typ != 1 || !s.ReadUint24LengthPrefixed(&body) || !body.ReadUint16(&vers) ||
		!body.Skip(32) || !body.ReadUint8LengthPrefixed(&sid) {
		t.Fatalf("not a ClientHello: % x", rec[:min(len(rec), 64)])
	}
	if !bytes.Equal(sid, id) {
		t.Fatalf("the ClientHello's session ID is %x, want %x: crypto/tls no longer draws it from Rand after the random", []byte(sid), id)
	}
}

// helloRand gives the random, then the ID, then random bytes again,
// however the reads are cut.
func TestHelloRand(t *testing.T) {
	id := bytes.Repeat([]byte{7}, 32)
	r := &helloRand{base: bytes.NewReader(bytes.Repeat([]byte{1}, 100)), id: id}
	var got []byte
	for _, n := range []int{10, 30, 5, 40} {
		b := make([]byte, n)
		k, err := io.ReadFull(r, b)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b[:k]...)
	}
	want := append(append(bytes.Repeat([]byte{1}, 32), id...), bytes.Repeat([]byte{1}, 21)...)
	if !bytes.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

// A ServerHello split over two records, with the extended master secret
// among its extensions; what is not a ServerHello is refused.
func TestServerHelloSession(t *testing.T) {
	id := bytes.Repeat([]byte{9}, 32)
	var b cryptobyte.Builder
	b.AddUint8(2)
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint16(tls.VersionTLS12)
		b.AddBytes(make([]byte, 32))
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(id) })
		b.AddUint16(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)
		b.AddUint8(0)
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16(0xff01) // renegotiation_info
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(0) })
			b.AddUint16(23) // extended_master_secret
			b.AddUint16(0)
		})
	})
	hs := b.BytesOrPanic()
	record := func(p []byte) []byte { return append([]byte{22, 3, 3, byte(len(p) >> 8), byte(len(p))}, p...) }
	two := append(record(hs[:20]), record(hs[20:])...)
	got, ems, ok := serverHelloSession(append(two, 22, 3, 3, 0, 4, 11, 0, 0, 0))
	if !ok || !ems || !bytes.Equal(got, id) {
		t.Fatalf("got %x ems %v ok %v", got, ems, ok)
	}
	for name, bad := range map[string][]byte{
		"cut":   two[:len(two)-3],
		"alert": {21, 3, 3, 0, 2, 2, 40},
		"empty": nil,
		"other": record([]byte{11, 0, 0, 0}),
	} {
		if _, _, ok := serverHelloSession(bad); ok {
			t.Errorf("%s: taken for a ServerHello", name)
		}
	}
}

// A server that requires its session resumed on every data connection
// and cannot resume it (it keeps no session: crypto/tls's server without
// tickets) refuses the data connection with 522; the error says why, and
// nothing hangs.
func TestDataConnectionNotResumed(t *testing.T) {
	cert, pool := testcert.T(t, "reuse")
	fake := newFakeWith(t, func(f *fakeFTP) {
		f.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: tls.VersionTLS12, SessionTicketsDisabled: true}
		f.requireReuse = true
	})
	fake.addFile("/f", "secret")
	f := &Fetcher{Email: testEmail}
	defer f.Close()
	u := ftpURL(fake.port(), 0, "f")
	u.Scheme = "ftps"
	req := newReq(u)
	req.TLSConfig = &tls.Config{RootCAs: pool}
	resp, err := f.Fetch(t.Context(), req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "did not resume the control connection's TLS session (522 ") {
		t.Fatalf("err %v: want the 522 said as a refusal to resume", err)
	}
	// With tickets, the same server resumes, and the file comes.
	fake2 := newFakeWith(t, func(f *fakeFTP) {
		f.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: tls.VersionTLS12}
		f.requireReuse = true
	})
	fake2.addFile("/f", "secret")
	u = ftpURL(fake2.port(), 0, "f")
	u.Scheme = "ftps"
	req = newReq(u)
	req.TLSConfig = &tls.Config{RootCAs: pool}
	if got := fetchText(t, f, req); got != "secret" {
		t.Fatalf("with tickets: %q", got)
	}
}
