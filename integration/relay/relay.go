// Package relay is a latency instrument: a userspace TCP relay that puts a
// configurable round-trip time (and, if asked, a bandwidth cap) between a
// client and a server on loopback, where a round trip otherwise costs
// microseconds. This machine's kernel has no netem, so the delay is made
// here, in the relay, for every tool alike: gofer, curl, lftp and wget
// connect to the relay's address instead of the server's.
//
// The model of one connection, with d = RTT/2 the one-way delay:
//
//   - a TCP connection costs what its handshake costs on a real network:
//     the relay dials the server 1.5 RTT after it accepted the client
//     (SYN, SYN-ACK, ACK, each d), so a server that speaks first is heard
//     2 RTT after the client's connect, as on a real link;
//   - every byte is delivered d after the relay read it, in order, in each
//     direction; a direction holds at most Window bytes in flight (a TCP
//     window: throughput is at most Window per RTT);
//   - with Rate set, each direction also moves at most Rate bytes a second;
//   - a half-close is passed on, after d, like the data before it.
//
// FTP (RFC 959, RFC 2428): on a connection made FTP-aware, the relay reads
// the server's replies and rewrites 227 (PASV) and 229 (EPSV) so that the
// data connection also comes through the relay, on a listener it opens for
// that reply alone, with the same delays. Active mode (PORT) is not
// relayed.
//
// The relay counts, per listener, the connections it accepted and the
// client's turns: a turn is a send by the client after it has heard from
// the server (or its first send), the round trips a client waits for.
// Pipelined commands are one turn; a command sent only after the previous
// reply is one turn each.
//
// Faults (Config.Faults) make the link unreliable on purpose, for testing
// a client's recovery: a reset after every so many bytes forwarded, data
// connections that stall with their sockets left open, control
// connections dropped at accept or after a few commands. Which
// connections are hit is drawn from seeded generators, in the order the
// relay accepts them: with one seed, the n-th control connection is
// dropped (after the same number of commands) or not on every run, and
// the n-th data connection stalls or not. An FTP-aware listener's data
// connections are the data side (reset, stall) and its control
// connections the control side (drop); on any other listener every
// connection is both.
package relay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config is a relay's link.
type Config struct {
	RTT    time.Duration // round-trip time added to every connection
	Rate   int64         // bytes per second per direction; 0: no cap
	Window int           // bytes in flight per direction; 0: DefaultWindow
	Faults Faults        // faults to inject; the zero value injects none
	// Trace, if set, receives a line for every connection opened, every
	// read from the client and every write to it, as the client sees
	// them: milliseconds since the relay started, the connection (c1 a
	// control connection, d2 a data connection, n3 any other), the
	// direction (">" client to relay, "<" relay to client, "open" with
	// the listener's address, "end") and the bytes, quoted and cut at
	// 100. Lines are written one at a time, the last of them before
	// Close returns.
	Trace io.Writer
	// SplitLines forwards the client's bytes to the server one line at a
	// time, each line in a write (a TCP segment) of its own, LineGap
	// after the one before it: commands a client pipelines in one write
	// reach the server as they may on a real network, in separate
	// packets, the later ones perhaps while the server is busy with the
	// first.
	SplitLines bool
	LineGap    time.Duration
}

// Faults are the failures a relay injects. Each kind is off at its zero
// value.
type Faults struct {
	// Seed seeds the generators that pick which connections stall and
	// which are dropped.
	Seed int64
	// ResetEvery resets a data connection each time the bytes forwarded
	// from server to client over the listener's data connections, all
	// together, pass another multiple of ResetEvery: the bytes up to the
	// multiple are delivered, then client and server both get a TCP reset.
	ResetEvery int64
	// Stall is the fraction (0 to 1) of data connections that stop
	// forwarding from server to client after StallAfter bytes; their
	// sockets stay open, silent, for StallFor (0: until the relay or,
	// on FTP, the control connection closes), then both get a reset.
	// A client that resets its side ends the stall at once; one that
	// closes it cleanly cannot be told from a half-close, which a
	// client may send as soon as it connects.
	Stall      float64
	StallAfter int64
	StallFor   time.Duration
	// Drop is the fraction (0 to 1) of control connections the relay
	// closes, client and server side: each after a number of lines
	// (commands) from the client drawn from 0 (at accept, before the
	// server is dialled) to DropAfter.
	Drop      float64
	DropAfter int
	// Flip corrupts the first Flip data connections, in the order they
	// are accepted: the first byte each forwards from server to client
	// has its lowest bit flipped, as a faulty middlebox might, and the
	// connection goes on (a client learns of it only by a checksum).
	Flip int64
}

// DefaultWindow is the bytes in flight per direction when Config.Window is
// 0: a TCP window of 4 MiB, which at 50 ms RTT allows 80 MiB/s.
const DefaultWindow = 4 << 20

// Counts is what one listener saw.
type Counts struct {
	Conns int64 // connections accepted (data connections included)
	Turns int64 // client turns, over every connection
	Up    int64 // bytes client to server
	Down  int64 // bytes server to client
	// Faults injected: data connections reset, data connections stalled,
	// control connections dropped.
	Resets int64
	Stalls int64
	Drops  int64
	Flips  int64 // data connections whose first byte was flipped
}

// Relay forwards every connection to its listener to one server.
type Relay struct {
	cfg    Config
	ln     net.Listener
	target string
	ftp    bool
	parent *Relay // for an FTP data listener: the control relay it counts into
	single bool   // accept one connection only (an FTP data listener)

	conns, turns, up, down atomic.Int64
	resets, stalls, drops  atomic.Int64
	flips                  atomic.Int64 // data connections corrupted, for Faults.Flip
	forwarded              atomic.Int64 // data bytes server to client, for Faults.ResetEvery
	ids                    atomic.Int64 // connections numbered for Config.Trace
	born                   time.Time
	traceMu                sync.Mutex

	// Faults.Seed's generators, on the listener clients connect to: one
	// for drops, drawn in the order control connections are accepted, one
	// for stalls, in the order data connections are, so that neither
	// order disturbs the other's draws.
	rngMu             sync.Mutex
	dropRNG, stallRNG *rand.Rand

	mu     sync.Mutex
	closed bool
	done   chan struct{} // closed by Close
	open   map[net.Conn]bool
	wg     sync.WaitGroup
}

// Listen starts a relay on listen (host:port, port 0 for any) to target.
// With ftp set, the server's PASV and EPSV replies are rewritten so that
// data connections come through the relay too.
func Listen(listen, target string, ftp bool, cfg Config) (*Relay, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	r := newRelay(ln, target, ftp, cfg, nil)
	r.start()
	return r, nil
}

func newRelay(ln net.Listener, target string, ftp bool, cfg Config, parent *Relay) *Relay {
	if cfg.Window <= 0 {
		cfg.Window = DefaultWindow
	}
	r := &Relay{cfg: cfg, ln: ln, target: target, ftp: ftp, parent: parent, done: make(chan struct{}), open: map[net.Conn]bool{}, born: time.Now()}
	if parent == nil {
		r.dropRNG = rand.New(rand.NewSource(cfg.Faults.Seed))
		r.stallRNG = rand.New(rand.NewSource(^cfg.Faults.Seed))
	}
	return r
}

// Addr is where clients connect.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// Counts returns what the relay saw so far.
func (r *Relay) Counts() Counts {
	return Counts{Conns: r.conns.Load(), Turns: r.turns.Load(), Up: r.up.Load(), Down: r.down.Load(),
		Resets: r.resets.Load(), Stalls: r.stalls.Load(), Drops: r.drops.Load(),
		Flips: min(r.flips.Load(), r.cfg.Faults.Flip)}
}

// Reset sets the counts back to zero.
func (r *Relay) Reset() {
	r.conns.Store(0)
	r.turns.Store(0)
	r.up.Store(0)
	r.down.Store(0)
	r.resets.Store(0)
	r.stalls.Store(0)
	r.drops.Store(0)
}

// Close stops the listener and every connection, and waits for them.
func (r *Relay) Close() error {
	err := r.ln.Close()
	r.mu.Lock()
	if !r.closed {
		close(r.done)
	}
	r.closed = true
	conns := make([]net.Conn, 0, len(r.open))
	for c := range r.open {
		conns = append(conns, c)
	}
	r.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	r.wg.Wait()
	return err
}

// counter is the relay whose counts a connection adds to.
func (r *Relay) counter() *Relay {
	if r.parent != nil {
		return r.parent
	}
	return r
}

// track registers c to be closed by Close; it reports false when the relay
// is already closed.
func (r *Relay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.open[c] = true
	return true
}

func (r *Relay) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.open, c)
	r.mu.Unlock()
}

func (r *Relay) start() {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := r.ln.Accept()
			if err != nil {
				return
			}
			if !r.track(c) {
				c.Close()
				return
			}
			if r.single {
				r.ln.Close()
			}
			r.counter().conns.Add(1)
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				defer r.untrack(c)
				defer c.Close()
				r.serve(c, time.Now())
			}()
		}
	}()
}

// serve relays one accepted connection.
func (r *Relay) serve(client net.Conn, accepted time.Time) {
	d := r.cfg.RTT / 2
	// The client's bytes start on their way now; the server is dialled
	// when the handshake would have reached it.
	up := newLink(r.cfg, d)
	up.split = r.cfg.SplitLines
	down := newLink(r.cfg, d)
	cnt := r.counter()
	s := &session{client: client, up: up, down: down, killed: make(chan struct{})}
	plan := r.plan()
	tr := r.tracer()
	tr("open "+r.Addr(), nil)
	defer tr("end", nil)
	down.delivered = func(b []byte) { tr("<", b) }
	if plan.drop && plan.dropAfter == 0 {
		cnt.drops.Add(1) // before the deferred close
		return
	}
	lines := 0
	var sawServer atomic.Bool
	sawServer.Store(true) // the client's first send is a turn
	readDone := make(chan struct{})
	clientFailed := make(chan struct{}) // the client's side ended other than by a FIN
	go func() {
		defer close(readDone)
		err := up.read(client, func(b []byte) {
			cnt.up.Add(int64(len(b)))
			tr(">", b)
			if sawServer.Swap(false) {
				cnt.turns.Add(1)
			}
			if plan.drop {
				lines += bytes.Count(b, []byte("\n"))
				if lines >= plan.dropAfter {
					s.kill(false, &cnt.drops)
				}
			}
		})
		if err != nil && !errors.Is(err, io.EOF) {
			close(clientFailed)
		}
	}()
	time.Sleep(time.Until(accepted.Add(3 * d)))
	select {
	case <-s.killed:
		// Dropped before the server was dialled.
		<-readDone
		return
	default:
	}
	server, err := net.Dial("tcp", r.target)
	if err != nil {
		up.abort()
		<-readDone
		return
	}
	if !r.track(server) {
		server.Close()
		up.abort()
		<-readDone
		return
	}
	defer r.untrack(server)
	defer server.Close()
	if !s.setServer(server) {
		<-readDone
		return
	}

	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); up.write(server, nil) }()
	var src io.Reader = server
	var rw *ftpRewriter
	if r.ftp {
		rw = &ftpRewriter{r: r, serverHost: hostOf(r.target)}
		defer rw.close()
	}
	go func() {
		defer wg.Done()
		down.read(src, func(b []byte) {
			cnt.down.Add(int64(len(b)))
			sawServer.Store(true)
		})
	}()
	go func() {
		defer wg.Done()
		if rw != nil {
			down.writeFTP(client, rw)
			return
		}
		var f *downFaults
		flip := r.dataSide() && r.cfg.Faults.Flip > 0 && cnt.flips.Add(1) <= r.cfg.Faults.Flip
		if r.dataSide() && (r.cfg.Faults.ResetEvery > 0 || plan.stall || flip) {
			f = &downFaults{root: cnt, s: s, stall: plan.stall, stallAfter: r.cfg.Faults.StallAfter,
				stallFor: r.cfg.Faults.StallFor, clientFailed: clientFailed, relayClosed: r.done, flip: flip}
		}
		down.write(client, f)
	}()
	<-readDone
	wg.Wait()
}

// dataSide reports whether r's connections are data connections for
// Faults: an FTP data listener's, or any on a listener not FTP-aware.
func (r *Relay) dataSide() bool { return r.parent != nil || !r.ftp }

// controlSide reports whether r's connections are control connections for
// Faults.Drop: those of the listener clients connect to.
func (r *Relay) controlSide() bool { return r.parent == nil }

// connPlan is what Faults hold in store for one connection.
type connPlan struct {
	drop      bool
	dropAfter int // client lines before the drop; 0: at accept
	stall     bool
}

// plan draws one accepted connection's faults from the seeded generator.
func (r *Relay) plan() connPlan {
	f := r.cfg.Faults
	root := r.counter()
	root.rngMu.Lock()
	defer root.rngMu.Unlock()
	var p connPlan
	if r.controlSide() && f.Drop > 0 && root.dropRNG.Float64() < f.Drop {
		p.drop = true
		if f.DropAfter > 0 {
			p.dropAfter = root.dropRNG.Intn(f.DropAfter + 1)
		}
	}
	if r.dataSide() && f.Stall > 0 && root.stallRNG.Float64() < f.Stall {
		p.stall = true
	}
	return p
}

// session is one relayed connection's pair of sockets, which a fault
// closes together.
type session struct {
	client   net.Conn
	up, down *link

	mu     sync.Mutex
	server net.Conn
	killed chan struct{}
	dead   bool
}

// setServer records the server's socket; false when the session was
// killed before it was dialled.
func (s *session) setServer(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return false
	}
	s.server = c
	return true
}

// kill closes both sockets, with a TCP reset when reset is set, and stops
// both directions; the first kill adds one to count (if set) before either
// side can see it.
func (s *session) kill(reset bool, count *atomic.Int64) {
	s.mu.Lock()
	if s.dead {
		s.mu.Unlock()
		return
	}
	s.dead = true
	if count != nil {
		count.Add(1)
	}
	close(s.killed)
	conns := []net.Conn{s.client, s.server}
	s.mu.Unlock()
	for _, c := range conns {
		if c == nil {
			continue
		}
		if tc, ok := c.(*net.TCPConn); reset && ok {
			tc.SetLinger(0) // close sends RST
		}
		c.Close()
	}
	s.up.abort()
	s.down.abort()
}

// downFaults are the faults on a data connection's server-to-client
// direction.
type downFaults struct {
	root       *Relay // holds the listener's forwarded count
	s          *session
	stall      bool
	stallAfter int64
	written    int64
	stallFor   time.Duration
	// clientFailed is closed when the client's side ended other than by
	// a FIN, which a client may send at once (a half-close) and which
	// says nothing about its going away.
	clientFailed <-chan struct{}
	relayClosed  <-chan struct{}
	// flip: the first byte forwarded is to have a bit flipped (Faults.Flip).
	flip bool
}

// cut returns how many of the next n bytes may be delivered before a
// fault, and the fault: "" when all n may go.
func (f *downFaults) cut(n int) (int, string) {
	allowed, fault := n, ""
	if f.stall && f.written+int64(n) > f.stallAfter {
		allowed, fault = int(max(f.stallAfter-f.written, 0)), "stall"
	}
	if every := f.root.cfg.Faults.ResetEvery; every > 0 {
		for {
			before := f.root.forwarded.Load()
			keep := int64(allowed) // up to the next multiple, which resets
			if next := (before/every + 1) * every; before+keep >= next {
				keep = next - before
			}
			if f.root.forwarded.CompareAndSwap(before, before+keep) {
				if keep > 0 && (before+keep)%every == 0 {
					allowed, fault = int(keep), "reset"
				}
				break
			}
		}
	}
	f.written += int64(allowed)
	return allowed, fault
}

// apply injects fault after the bytes before it were delivered.
func (f *downFaults) apply(fault string) {
	switch fault {
	case "reset":
		f.s.kill(true, &f.root.resets)
	case "stall":
		f.root.stalls.Add(1)
		var end <-chan time.Time
		if f.stallFor > 0 {
			t := time.NewTimer(f.stallFor)
			defer t.Stop()
			end = t.C
		}
		select {
		case <-f.clientFailed:
		case <-f.relayClosed:
		case <-f.s.killed:
		case <-end:
		}
		f.s.kill(true, nil)
	}
}

func hostOf(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return h
}

// chunk is bytes read at one moment, due at another; a nil data is the
// end of the direction (err says how it ended).
type chunk struct {
	data []byte
	due  time.Time
	err  error
}

// link is one direction of a connection: what was read, queued with the
// moment it is due on the other side.
type link struct {
	cfg    Config
	delay  time.Duration
	q      chan chunk
	window chan struct{} // one token per byte-block in flight
	rateAt time.Time     // when the rate cap lets the next byte leave
	stop   chan struct{}
	once   sync.Once
	// delivered, if set, is called with what is about to be written to
	// dst.
	delivered func([]byte)
	// split writes each line on its own (Config.SplitLines).
	split bool
}

// block is the unit of the in-flight window.
const block = 16 << 10

func newLink(cfg Config, delay time.Duration) *link {
	n := cfg.Window / block
	if n < 1 {
		n = 1
	}
	return &link{cfg: cfg, delay: delay, q: make(chan chunk, n+1), window: make(chan struct{}, n), stop: make(chan struct{})}
}

// abort ends a link whose other side never came.
func (l *link) abort() { l.once.Do(func() { close(l.stop) }) }

// read moves src's bytes into the queue, each due delay after it came,
// and calls seen with every read's bytes. It returns how src ended: nil
// when the link stopped first.
func (l *link) read(src io.Reader, seen func([]byte)) error {
	for {
		select {
		case l.window <- struct{}{}:
		case <-l.stop:
			return nil
		}
		buf := make([]byte, block)
		n, err := src.Read(buf)
		now := time.Now()
		if n > 0 {
			seen(buf[:n])
			due := now.Add(l.delay)
			if l.cfg.Rate > 0 {
				if l.rateAt.Before(now) {
					l.rateAt = now
				}
				l.rateAt = l.rateAt.Add(time.Duration(int64(n) * int64(time.Second) / l.cfg.Rate))
				if at := l.rateAt.Add(l.delay); at.After(due) {
					due = at
				}
			}
			select {
			case l.q <- chunk{data: buf[:n], due: due}:
			case <-l.stop:
				return nil
			}
		} else {
			<-l.window
		}
		if err != nil {
			select {
			case l.q <- chunk{due: now.Add(l.delay), err: err}:
			case <-l.stop:
			}
			return err
		}
	}
}

// next returns the next chunk once it is due, or false when the link
// stopped.
func (l *link) next() (chunk, bool) {
	select {
	case c := <-l.q:
		if wait := time.Until(c.due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-l.stop:
				t.Stop()
				return chunk{}, false
			}
		}
		if c.data != nil {
			<-l.window
		}
		return c, true
	case <-l.stop:
		return chunk{}, false
	}
}

// write delivers the queue to dst; at the end it half-closes dst (or
// closes it when the source failed) and stops the link. f, if set, injects
// faults on the way.
func (l *link) write(dst net.Conn, f *downFaults) {
	defer l.abort()
	for {
		c, ok := l.next()
		if !ok {
			return
		}
		if c.data == nil {
			endWrite(dst, c.err)
			return
		}
		data, fault := c.data, ""
		if f != nil {
			var n int
			n, fault = f.cut(len(data))
			data = data[:n]
			if f.flip && len(data) > 0 {
				data = append([]byte(nil), data...)
				data[0] ^= 1
				f.flip = false
			}
		}
		if len(data) > 0 {
			l.deliver(data)
			if err := l.send(dst, data); err != nil {
				dst.Close()
				return
			}
		}
		if fault != "" {
			f.apply(fault)
			return
		}
	}
}

// writeFTP is write for a server's FTP control replies: each complete
// line passes through rw, which may rewrite a PASV or EPSV reply.
func (l *link) writeFTP(dst net.Conn, rw *ftpRewriter) {
	defer l.abort()
	var pending []byte
	for {
		c, ok := l.next()
		if !ok {
			return
		}
		if c.data == nil {
			if len(pending) > 0 {
				dst.Write(pending)
			}
			endWrite(dst, c.err)
			return
		}
		pending = append(pending, c.data...)
		var out []byte
		for {
			i := bytes.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			out = append(out, rw.line(pending[:i+1])...)
			pending = pending[i+1:]
		}
		if len(out) > 0 {
			l.deliver(out)
			if _, err := dst.Write(out); err != nil {
				dst.Close()
				return
			}
		}
		pending = append([]byte(nil), pending...)
	}
}

// send writes data to dst: in one write, or with split a line a write,
// Config.LineGap apart.
func (l *link) send(dst net.Conn, data []byte) error {
	if !l.split {
		_, err := dst.Write(data)
		return err
	}
	for len(data) > 0 {
		n := bytes.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		if _, err := dst.Write(data[:n]); err != nil {
			return err
		}
		data = data[n:]
		if len(data) > 0 && l.cfg.LineGap > 0 {
			select {
			case <-time.After(l.cfg.LineGap):
			case <-l.stop:
				return net.ErrClosed
			}
		}
	}
	return nil
}

func (l *link) deliver(b []byte) {
	if l.delivered != nil {
		l.delivered(b)
	}
}

// tracer returns the function that writes one connection's events to
// Config.Trace; it does nothing when there is no trace.
func (r *Relay) tracer() func(event string, b []byte) {
	root := r.counter()
	if root.cfg.Trace == nil {
		return func(string, []byte) {}
	}
	kind := "n"
	switch {
	case r.parent != nil:
		kind = "d"
	case r.ftp:
		kind = "c"
	}
	id := root.ids.Add(1)
	return func(event string, b []byte) {
		ms := float64(time.Since(root.born).Microseconds()) / 1000
		if len(b) > 100 {
			b = b[:100]
		}
		root.traceMu.Lock()
		defer root.traceMu.Unlock()
		if b == nil {
			fmt.Fprintf(root.cfg.Trace, "%.1f %s%d %s\n", ms, kind, id, event)
			return
		}
		fmt.Fprintf(root.cfg.Trace, "%.1f %s%d %s %q\n", ms, kind, id, event, b)
	}
}

// endWrite passes the end of a direction on: a half-close after a clean
// end, a close after a failure.
func endWrite(c net.Conn, err error) {
	if errors.Is(err, io.EOF) {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.CloseWrite()
			return
		}
	}
	c.Close()
}

// ftpRewriter rewrites a control connection's passive-mode replies.
type ftpRewriter struct {
	r          *Relay
	serverHost string
	data       []*Relay
}

var (
	pasvReply = regexp.MustCompile(`^227 .*?\(?(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)?`)
	epsvReply = regexp.MustCompile(`^229 .*\(\|\|\|(\d+)\|\)`)
)

// line returns the line to deliver for one line of the server's.
func (f *ftpRewriter) line(l []byte) []byte {
	s := string(l)
	if m := pasvReply.FindStringSubmatch(s); m != nil {
		p1, _ := strconv.Atoi(m[5])
		p2, _ := strconv.Atoi(m[6])
		target := net.JoinHostPort(strings.Join(m[1:5], "."), strconv.Itoa(p1*256+p2))
		dr, err := f.dataRelay(target)
		if err != nil {
			return []byte("425 relay: " + err.Error() + "\r\n")
		}
		host, port := splitAddr(dr.Addr())
		return []byte(fmt.Sprintf("227 Entering Passive Mode (%s,%d,%d).\r\n", strings.ReplaceAll(host, ".", ","), port/256, port%256))
	}
	if m := epsvReply.FindStringSubmatch(s); m != nil {
		dr, err := f.dataRelay(net.JoinHostPort(f.serverHost, m[1]))
		if err != nil {
			return []byte("425 relay: " + err.Error() + "\r\n")
		}
		_, port := splitAddr(dr.Addr())
		return []byte(fmt.Sprintf("229 Entering Extended Passive Mode (|||%d|)\r\n", port))
	}
	return l
}

// dataRelay opens a relay for one data connection, on the control
// listener's address and a free port.
func (f *ftpRewriter) dataRelay(target string) (*Relay, error) {
	host, _ := splitAddr(f.r.Addr())
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	dr := newRelay(ln, target, false, f.r.cfg, f.r.counter())
	dr.single = true
	dr.start()
	f.data = append(f.data, dr)
	return dr, nil
}

func (f *ftpRewriter) close() {
	for _, d := range f.data {
		d.Close()
	}
}

func splitAddr(addr string) (string, int) {
	h, p, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	return h, n
}
