package ftp

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/cryptobyte"
)

// A TLS 1.2 session can be resumed two ways (RFC 5246 §7.4.1.2, RFC
// 5077): from a session ticket the server gave the client, or by the
// session ID the server named in its ServerHello, which it keeps in a
// cache of its own. crypto/tls resumes from tickets only. A server that
// requires every data connection to resume the control connection's
// session (RFC 4217 §10.2) and gives no tickets, as vsftpd and ProFTPD do
// when their OpenSSL has tickets off, is resumed by session ID here:
//
//   - the control connection's handshake is watched: its master secret
//     from the key log crypto/tls writes, its session ID and whether the
//     extended master secret (RFC 7627) was agreed from the ServerHello
//     the server sent, read as it arrives;
//   - a client session is made of them, in the session encoding crypto/tls
//     defines (tls.ParseSessionState), and put in the connection's session
//     cache, with no ticket;
//   - each data connection's ClientHello carries that session ID: crypto/tls
//     draws a ClientHello's random and then its session ID from
//     Config.Rand, so the data connection's Rand gives 32 random bytes and
//     then the ID. A server that finds the ID in its cache answers with it,
//     and crypto/tls, seeing its own ID echoed, resumes from the session
//     in the cache. A server that does not starts a full handshake, and
//     its refusal of the data connection says so (reuseRefusal).

// watchedHandshake is what a control connection's TLS handshake showed
// that crypto/tls does not keep.
type watchedHandshake struct {
	keys  keyLog
	hello helloCapture
}

// watch returns cfg for the control connection's handshake over nc, with
// the key log and the capture of the server's first bytes in place.
func (w *watchedHandshake) watch(cfg *tls.Config, nc net.Conn) (*tls.Config, net.Conn) {
	cfg = cfg.Clone() // the session cache is shared with the clone
	w.keys.next = cfg.KeyLogWriter
	cfg.KeyLogWriter = &w.keys
	w.hello.Conn = nc
	return cfg, &w.hello
}

// resumeByID puts in cfg's session cache a session that a data connection
// can resume by ID, when the handshake was TLS 1.2 and the server gave no
// ticket; it returns the session ID a data connection's ClientHello must
// carry, nil when none is needed or it cannot be done.
func (w *watchedHandshake) resumeByID(cfg *tls.Config, cs tls.ConnectionState) []byte {
	w.hello.off.Store(true)
	if cs.Version != tls.VersionTLS12 || cfg.ClientSessionCache == nil || cfg.ServerName == "" || cfg.SessionTicketsDisabled {
		return nil
	}
	if _, ok := cfg.ClientSessionCache.Get(cfg.ServerName); ok {
		return nil // a ticket: crypto/tls resumes from it
	}
	id, ems, ok := serverHelloSession(w.hello.bytes())
	secret := w.keys.secret()
	if !ok || len(id) != 32 || len(secret) == 0 {
		return nil
	}
	state, err := clientSession(cs, secret, ems)
	if err != nil {
		return nil
	}
	cfg.ClientSessionCache.Put(cfg.ServerName, state)
	return id
}

// clientSession is a client's TLS 1.2 session of cs with its master
// secret, encoded as tls.SessionState documents its encoding and parsed
// back: the only way to a session crypto/tls did not make itself.
func clientSession(cs tls.ConnectionState, secret []byte, ems bool) (*tls.ClientSessionState, error) {
	var b cryptobyte.Builder
	b.AddUint16(cs.Version)
	b.AddUint8(2) // a client's session
	b.AddUint16(cs.CipherSuite)
	b.AddUint64(uint64(time.Now().Unix()))
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(secret) })
	b.AddUint24LengthPrefixed(func(*cryptobyte.Builder) {}) // no extra
	b.AddUint8(boolByte(ems))
	b.AddUint8(0) // no early data
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, c := range cs.PeerCertificates {
			b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(c.Raw) })
			b.AddUint16(0) // no extensions
		}
	})
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, chain := range cs.VerifiedChains {
			b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, c := range chain[min(1, len(chain)):] { // the leaf is left out
					b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(c.Raw) })
				}
			})
		}
	})
	b.AddUint16(uint16(cs.CurveID))
	data, err := b.Bytes()
	if err != nil {
		return nil, err
	}
	st, err := tls.ParseSessionState(data)
	if err != nil {
		return nil, err
	}
	return tls.NewResumptionState(nil, st)
}

func boolByte(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}

// dataConfig is cfg for one data connection that resumes the session
// named id: its ClientHello carries id as its session ID.
func dataConfig(cfg *tls.Config, id []byte) *tls.Config {
	cfg = cfg.Clone()
	base := cfg.Rand
	if base == nil {
		base = rand.Reader
	}
	cfg.Rand = &helloRand{base: base, id: id}
	cfg.MaxVersion = tls.VersionTLS12 // the version of the session resumed
	return cfg
}

// helloRand gives a ClientHello's random from base, then id as its
// session ID, then base again.
type helloRand struct {
	base io.Reader
	id   []byte
	n    int
}

func (r *helloRand) Read(p []byte) (int, error) {
	const random = 32
	if r.n >= random && r.n < random+len(r.id) {
		k := copy(p, r.id[r.n-random:])
		r.n += k
		return k, nil
	}
	if r.n < random && len(p) > random-r.n {
		p = p[:random-r.n]
	}
	k, err := r.base.Read(p)
	r.n += k
	return k, err
}

// keyLog keeps the TLS 1.2 master secret crypto/tls logs
// ("CLIENT_RANDOM <random> <secret>"), and passes every line to next.
type keyLog struct {
	next io.Writer
	mu   sync.Mutex
	ms   []byte
}

func (k *keyLog) Write(p []byte) (int, error) {
	if f := strings.Fields(string(p)); len(f) == 3 && f[0] == "CLIENT_RANDOM" {
		if s, err := hex.DecodeString(f[2]); err == nil {
			k.mu.Lock()
			k.ms = s
			k.mu.Unlock()
		}
	}
	if k.next != nil {
		return k.next.Write(p)
	}
	return len(p), nil
}

func (k *keyLog) secret() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ms
}

// helloCapture keeps the first bytes the server sends, until off: its
// ServerHello is among them.
type helloCapture struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
	off atomic.Bool
}

// maxHello bounds what is kept: a ServerHello comes first and is small.
const maxHello = 16 << 10

func (h *helloCapture) Read(p []byte) (int, error) {
	n, err := h.Conn.Read(p)
	if n > 0 && !h.off.Load() {
		h.mu.Lock()
		h.buf = append(h.buf, p[:min(n, max(0, maxHello-len(h.buf)))]...)
		if len(h.buf) >= maxHello {
			h.off.Store(true)
		}
		h.mu.Unlock()
	}
	return n, err
}

func (h *helloCapture) bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf
}

// serverHelloSession reads the session ID of the ServerHello at the start
// of b (TLS records of the handshake type, RFC 5246 §6.2.1 and §7.4.1.3)
// and whether it agreed the extended master secret (RFC 7627 §5.1).
func serverHelloSession(b []byte) (id []byte, ems, ok bool) {
	const handshake, serverHello, extEMS = 22, 2, 23
	var hs []byte
	for len(b) >= 5 && b[0] == handshake {
		n := int(b[3])<<8 | int(b[4])
		if len(b) < 5+n {
			return nil, false, false
		}
		hs = append(hs, b[5:5+n]...)
		b = b[5+n:]
		if len(hs) >= 4 && len(hs) >= 4+(int(hs[1])<<16|int(hs[2])<<8|int(hs[3])) {
			break
		}
	}
	s := cryptobyte.String(hs)
	var typ uint8
	var body, sid, exts cryptobyte.String
	var vers uint16
	if !s.ReadUint8(&typ) || typ != serverHello || !s.ReadUint24LengthPrefixed(&body) ||
		!body.ReadUint16(&vers) || !body.Skip(32) || !body.ReadUint8LengthPrefixed(&sid) ||
		!body.Skip(3) { // cipher suite, compression method
		return nil, false, false
	}
	if body.Empty() {
		return sid, false, true
	}
	if !body.ReadUint16LengthPrefixed(&exts) {
		return nil, false, false
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return nil, false, false
		}
		ems = ems || typ == extEMS
	}
	return sid, ems, true
}
