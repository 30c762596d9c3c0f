package ftp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// tlsMode is how a control connection is protected.
type tlsMode int

const (
	tlsNone     tlsMode = iota
	tlsExplicit         // AUTH TLS on the plain port (RFC 4217 §4)
	tlsImplicit         // ftps://, TLS from the first byte (port 990)
)

// poolKey says which kept connections may serve a fetch: those made with
// every setting that decides what a connection is, or how it was made, the
// same as the fetch's own. One Fetcher may serve several fetch.Clients
// (Options.SetFetcher) whose settings differ; a connection made under one
// client's settings must never serve another's. So the key holds
//
//   - the server (host and port) and the login (user and password, the
//     URL's, a netrc's or the anonymous one): a session is logged in as
//     someone;
//   - the protection (none, explicit or implicit TLS) and, when there is
//     one, the Request.TLSConfig it was made with, by identity: a
//     tls.Config holds functions and certificate pools that cannot be
//     compared by value, and a different one may trust other roots,
//     present another client certificate or verify in another way;
//   - the Request.Dialer (dialerID): the dialer decides the route (a
//     proxy, a source address) and what counts the bytes, and the data
//     connections of a fetch go through the fetch's own dialer, which
//     must reach the server the same way as its control connection did. A
//     *dial.Dialer counts by its settings (two with the same settings make
//     the same connections); any other dialer by identity;
//   - the Request.IdleTimeout, which a control connection keeps from the
//     dial on (lineproto.Dial);
//   - whether names are in a charset other than UTF-8
//     (Request.RemoteCharset): the login asks for UTF-8 names (OPTS UTF8
//     ON) only when they are not.
//
// The rest of a Request (transcript, limits on lines and entries, capture)
// is installed on a kept connection for each fetch (conn.begin), and what
// the Fetcher itself says (Email, RequireTLS) is the same for every fetch
// it serves, or shows in the login or the protection.
type poolKey struct {
	host     string
	port     int
	user     string
	password string
	tls      tlsMode
	// tlsConfig is Request.TLSConfig when tls is not tlsNone.
	tlsConfig *tls.Config
	// dialer is Request.Dialer's identity (dialerID).
	dialer any
	idle   time.Duration
	// noUTF8: the names are in another charset than UTF-8
	// (Request.RemoteCharset), so the server is not asked for UTF-8 ones.
	noUTF8 bool
}

// unkeyed is the dialer identity of a dialer that cannot be compared (a
// struct holding a function, say): each fetch's is new, and a connection
// keyed with one is never kept (Fetcher.put).
type unkeyed struct{ _ byte }

// dialerID is what tells d apart from other dialers in a pool key, seen
// through the wrappers that say which dialer they wrap (an Unwrap method
// that returns it): a *dial.Dialer's Key (its settings); any other d
// itself when it can be compared without a panic (a pointer, or a
// comparable value); else a new *unkeyed, which matches no other fetch's
// key.
func dialerID(d schemes.Dialer) any {
	for {
		w, ok := d.(interface{ Unwrap() schemes.Dialer })
		if !ok {
			break
		}
		inner := w.Unwrap()
		if inner == nil {
			break
		}
		d = inner
	}
	if d == nil {
		return nil
	}
	if dd, ok := d.(*dial.Dialer); ok && dd != nil {
		return dd.Key()
	}
	if !reflect.ValueOf(d).Comparable() {
		return &unkeyed{}
	}
	return d
}

// keyFor is the pool key of a fetch of req as who, at port.
func (f *Fetcher) keyFor(req *schemes.Request, who login, port int) poolKey {
	u := req.URL
	key := poolKey{host: u.Host, port: port, user: who.user, password: who.password,
		dialer: dialerID(req.Dialer), idle: req.Idle(), noUTF8: req.RemoteCharset != ""}
	switch {
	case u.Scheme == "ftps":
		key.tls = tlsImplicit
	case f.RequireTLS:
		key.tls = tlsExplicit
	}
	if key.tls != tlsNone {
		key.tlsConfig = req.TLSConfig
	}
	if key.port == 0 {
		key.port = 21
	}
	return key
}

// keepable reports whether a connection made under k may be kept for reuse.
func (k poolKey) keepable() bool {
	_, unique := k.dialer.(*unkeyed)
	return !unique
}

// server is the host and port of key.
func (k poolKey) server() string { return net.JoinHostPort(k.host, strconv.Itoa(k.port)) }

// login is who a fetch logs in as.
type login struct {
	user, password string
	anonymous      bool
}

// conn is one logged-in control connection.
type conn struct {
	key  poolKey
	ctrl *lineproto.Conn // the TCP control connection, closed to abort
	peer net.IP          // the control connection's peer: the only data address allowed
	log  *wireLog
	// tlsData is the configuration of TLS data connections (PROT P), nil
	// for plain ones.
	tlsData *tls.Config
	// tlsVersion is the control connection's TLS version, 0 for none.
	tlsVersion uint16
	// resumeID is the session ID a TLS data connection's ClientHello
	// carries to resume the control connection's TLS 1.2 session by ID,
	// nil when it resumes from a ticket or not at all (resume.go).
	resumeID []byte
	// home is the login directory (PWD right after login), "" when the
	// server did not say; moved reports a CWD since login, and at the
	// segments whose CWDs, all accepted, lead from home to where the
	// connection is (nil when unknown).
	home  string
	moved bool
	at    []string
	// curType is the TYPE in effect (0: unknown).
	curType byte
	used    time.Time

	// top is the control connection every command is written to and
	// every reply read from (through x): the TLS connection when there is
	// one, seen through the wire log and the guard (ctrlConn).
	top net.Conn
	// mlsd: the server has MLSD (RFC 3659 §7); mdtm: it has MDTM (RFC 3659
	// §3); noEPSV: it refused EPSV.
	mlsd, mdtm, noEPSV bool
	// hashes: the checksums FEAT offered (hash.go).
	hashes hashFeatures
	// x reads the control connection after the greeting (and AUTH TLS):
	// every command, from the login on, is sent and answered through it
	// (pipe.go).
	x *exchange
	// pipe: commands may be pipelined on c; pasvOK: a passive command
	// worked on c; afterMDTM, ahead: an MDTM of the file, a passive command,
	// went out after the last transfer's command and its reply is still to
	// be read; next: the data address such a reply gave, for the next
	// transfer ("" none).
	pipe, pasvOK, afterMDTM, ahead bool
	next                           string
	// active, when set, makes every data connection an active one
	// (active.go); noEPRT: the server refused EPRT (PORT is sent);
	// eprtKnown: whether it takes EPRT is known; eprtOK and portOnly
	// record what was found on the Fetcher, for the server's other
	// connections.
	active            *activeSpec
	noEPRT, eprtKnown bool
	eprtOK, portOnly  func()
	// behindRefused counts the commands sent behind the last transfer's
	// command that the server refused while the transfer ran (readEnd);
	// readAhead takes them as answered.
	behindRefused int
	// endCode and endMsg are the reply that ended the last transfer
	// (readEnd): a server that refused it for TLS session reuse may end
	// the session at once, and that refusal, not the end, is the error.
	endCode int
	endMsg  string
	// dialAhead, set during a fetch and a login, starts dialling a data
	// address read ahead (dataahead.go); nextConn is that dial, under mu.
	dialAhead func(addr string) *aheadConn
	// served counts the fetches c has served.
	served int
	// halfClose: data connections are half-closed once open (vsftpd).
	halfClose bool
	// sendAhead: commands may go out behind a transfer's command, to be
	// read once it ends (aheadLines): not to servers that take a command
	// during a transfer for the end of it (pyftpdlib aborts the transfer
	// at the next EPSV) or that stall on a passive command left unused
	// (Twisted), nor to one seen to mishandle it (Fetcher.noAhead).
	sendAhead bool
	// release gives back the connection's slot (limit.go), once.
	release     func()
	releaseOnce sync.Once

	mu       sync.Mutex
	data     *lineproto.Conn // the TCP data connection in use, closed to abort
	nextConn *aheadConn
	broken   bool
}

// landing is where a new connection goes as part of its login, on a
// connection that pipelines: the directories of the fetch that opens it
// (their CWDs go out with the login's commands), and whether that fetch
// transfers, when the passive command of its transfer goes too.
//
// greeted, if set, is called once the server has greeted the connection:
// it has then taken the connection in, and connections opened from then
// on cannot take its place under a limit of the server's (vsftpd and
// Pure-FTPd count connections when they accept them, ProFTPD logins when
// PASS is answered, and this connection's PASS goes first).
//
// userPass sends PASS with USER, without waiting for USER's reply
// (Fetcher.landing says where).
type landing struct {
	dirs     []string
	passive  bool
	greeted  func()
	userPass bool
	// active is the Fetcher's active mode (nil: passive).
	active *activeSpec
}

// open connects to the server of req, protects the connection as mode says,
// and logs in, going where to says.
//
// With pipe set the connection pipelines commands once the server has
// shown at login that it reads them in order; errNoPipeline says it did
// not (and the connection is closed).
func open(ctx context.Context, req *schemes.Request, key poolKey, who login, pipe bool, to landing) (*conn, error) {
	addr := net.JoinHostPort(key.host, strconv.Itoa(key.port))
	// Ctrl-C or a deadline on ctx ends a connection stuck anywhere in the
	// greeting, the TLS handshake or the login: the connection watches ctx
	// until the fetch's own watch (begin) replaces it.
	raw, err := lineproto.Dial(ctx, req, "tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &conn{
		key:    key,
		ctrl:   raw,
		active: to.active,
		log:    &wireLog{w: req.Transcript, limit: req.LineLimit(), ack: quickAck(raw.Raw())},
	}
	if ta, ok := raw.RemoteAddr().(*net.TCPAddr); ok {
		c.peer = ta.IP
	}

	ctrl, err := c.protect(ctx, req, raw, addr)
	if err != nil {
		raw.Close()
		return nil, c.fail(ctx, err, "connect to "+addr)
	}

	c.top = ctrl
	if to.greeted != nil {
		to.greeted()
	}
	c.pipe = pipe
	c.dialAhead = c.aheadDialer(ctx, req)
	err = c.login(who, to)
	c.dialAhead = nil
	if err != nil {
		c.close()
		if errors.Is(err, errNoPipeline) {
			return nil, err
		}
		return nil, c.fail(ctx, err, "login")
	}
	return c, nil
}

// protocols are the WARC-Protocol values of what the connection carries:
// "ftp", and the TLS version when it is protected.
func (c *conn) protocols() []string {
	if v := schemes.TLSProtocol(c.tlsVersion); v != "" {
		return []string{"ftp", v}
	}
	return []string{"ftp"}
}

// protect applies the key's TLS mode to the control connection, reads the
// greeting (and, for explicit TLS, sends AUTH TLS and reads its reply), and
// returns the connection every later command goes over.
func (c *conn) protect(ctx context.Context, req *schemes.Request, plain net.Conn, addr string) (net.Conn, error) {
	var top net.Conn
	switch c.key.tls {
	case tlsNone:
		top = newCtrlConn(plain, c.log)
	case tlsImplicit:
		c.tlsData = tlsConfig(req, c.key.host)
		tc, err := c.handshake(ctx, plain, addr)
		if err != nil {
			return nil, err
		}
		top = newCtrlConn(tc, c.log)
	case tlsExplicit:
		c.tlsData = tlsConfig(req, c.key.host)
		top = newCtrlConn(plain, c.log)
	}

	// A first line that is no reply ("SSH-2.0-...") is refused at once
	// (readReply). The reader is as small as bufio allows: the server
	// sends nothing after the greeting (or AUTH TLS's reply) until it has
	// a command, so nothing it buffers is lost when x takes over.
	tp := textproto.NewReader(bufio.NewReaderSize(top, 16))
	code, msg, err := readReply(tp)
	if err != nil {
		return nil, err
	}
	for i := 0; code/100 == 1 && i < 3; i++ {
		// RFC 959 §5.4: 120 "service ready in nnn minutes", then 220.
		if code, msg, err = readReply(tp); err != nil {
			return nil, err
		}
	}
	if code/100 != 2 {
		if isBusyReply(code, msg) {
			return nil, busyError(code, msg)
		}
		return nil, replyError(schemes.ErrRefused, code, "%d %s", code, lineproto.ServerText(msg))
	}
	c.sendAhead = !aheadBreaks.MatchString(msg)
	// vsftpd waits for the client's end of a data connection before its
	// 226, and reads nothing on a data connection it sends on: its data
	// connections are half-closed at once (openData).
	c.halfClose = strings.Contains(msg, "(vsFTPd ")

	if c.key.tls == tlsExplicit {
		// RFC 4217 §4: AUTH TLS goes in plain text and is answered here, so
		// that the transcript shows it and a refusal is an error, never a
		// fall back to plain text.
		if _, err := fmt.Fprintf(top, "AUTH TLS\r\n"); err != nil {
			return nil, err
		}
		acode, amsg, err := readReply(tp)
		if err != nil {
			return nil, err
		}
		if acode != 234 {
			return nil, schemes.Errorf(schemes.ErrRefused, "%d %s (the server refused AUTH TLS; gofer does not fall back to plain text)", acode, lineproto.ServerText(amsg))
		}
		tc, err := c.handshake(ctx, plain, addr)
		if err != nil {
			return nil, err
		}
		top = newCtrlConn(tc, c.log)
	}
	return top, nil
}

// handshake makes the control connection's TLS over plain, and readies
// its data connections to resume its session: from a ticket, or by ID
// where the server gave none (resume.go).
func (c *conn) handshake(ctx context.Context, plain net.Conn, addr string) (*tls.Conn, error) {
	var w watchedHandshake
	cfg, nc := w.watch(c.tlsData, plain)
	tc, err := lineproto.Handshake(ctx, nc, cfg, "TLS handshake with "+addr)
	if err != nil {
		return nil, err
	}
	cs := tc.ConnectionState()
	c.tlsVersion = cs.Version
	c.resumeID = w.resumeByID(c.tlsData, cs)
	return tc, nil
}

// readReply reads one reply (RFC 959 §4.2), refusing what is not one.
func readReply(tp *textproto.Reader) (int, string, error) {
	line, err := tp.ReadLine()
	if err != nil {
		return 0, "", err
	}
	code, cont, ok := parseCode(line)
	if !ok {
		if len(line) > 80 {
			line = line[:80] + "..."
		}
		return 0, "", schemes.Errorf(schemes.ErrRefused, "ftp: the server's reply is not an FTP reply: %q", line)
	}
	msg := []string{line[4:]}
	for cont {
		if line, err = tp.ReadLine(); err != nil {
			return 0, "", err
		}
		if c, more, ok := parseCode(line); ok && c == code && !more {
			cont = false
			line = line[4:]
		}
		msg = append(msg, line)
	}
	return code, strings.Join(msg, "\n"), nil
}

// parseCode reads the code of a reply line: "ddd " ends a reply, "ddd-"
// starts a multi-line one.
func parseCode(line string) (code int, cont, ok bool) {
	if len(line) < 4 || (line[3] != ' ' && line[3] != '-') {
		return 0, false, len(line) == 3 && parseDigits(line) > 0
	}
	code = parseDigits(line[:3])
	return code, line[3] == '-', code >= 100
}

func parseDigits(s string) int {
	if len(s) != 3 {
		return 0
	}
	n := 0
	for i := 0; i < 3; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// tlsConfig is req's TLS configuration for host, with a session cache so
// that data connections can resume the control connection's session, which
// servers such as vsftpd may require (RFC 4217 §10.2).
func tlsConfig(req *schemes.Request, host string) *tls.Config {
	cfg := dial.TLSConfig(req.TLSConfig, host)
	if cfg.ClientSessionCache == nil {
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	}
	return cfg
}

// done is how many of the CWDs of dirs c has already made: all of its own
// when c is at or above where dirs lead; -1 when c must first
// return to its login directory.
func (c *conn) done(dirs []string) int {
	switch {
	case !c.moved:
		return 0
	case c.at != nil && len(c.at) <= len(dirs) && slices.Equal(c.at, dirs[:len(c.at)]):
		return len(c.at)
	}
	return -1
}

// cwds is how many commands take c to where dirs lead.
func (c *conn) cwds(dirs []string) int {
	if n := c.done(dirs); n >= 0 {
		return len(dirs) - n
	}
	return 1 + len(dirs)
}

// begin readies c for one fetch: its transcript, its dialler of data
// addresses read ahead, and an abort on ctx. The returned function undoes
// the abort hook.
func (c *conn) begin(ctx context.Context, req *schemes.Request) (stop func() bool) {
	c.log.w = req.Transcript
	c.log.limit = req.LineLimit()
	c.dialAhead = c.aheadDialer(ctx, req)
	return c.ctrl.Watch(ctx)
}

// end detaches c from the fetch it served.
func (c *conn) end() {
	c.log.w = nil
	c.dialAhead = nil
	c.used = time.Now()
	c.served++
}

// openData dials a data connection for a passive reply's addr. The
// address of a PASV or EPSV reply is dialled only when it is the
// control connection's peer (the FTP bounce attack, RFC 2577 §3): the
// address the control connection reached, or the URL's host when that is
// an address literal. The connection goes to the URL's host, so that
// through a proxy it reaches the server, not the proxy. Through a proxy
// that tells only the target (socks5h resolves the name itself), the
// server's address is not known: the reply's address is then not
// compared and not used, only its port.
func (c *conn) openData(ctx context.Context, req *schemes.Request, network, addr string) (net.Conn, error) {
	data, err := c.dialData(ctx, req, network, addr)
	if err != nil {
		return nil, err
	}
	return c.useData(data, addr), nil
}

// dialData is openData's dial, to an address it has checked.
func (c *conn) dialData(ctx context.Context, req *schemes.Request, network, addr string) (*lineproto.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrRefused, "ftp: bad passive address %q", addr)
	}
	if c.peer == nil {
		// Through a proxy that resolved the name (socks5h) or reports
		// only the target, the server's address is not known here: the
		// passive reply's cannot be compared, and is not used. The data
		// connection goes, through the proxy, to the host the control
		// connection went to, with the reply's port.
		return lineproto.Dial(ctx, req, network, net.JoinHostPort(c.key.host, port))
	}
	ip := net.ParseIP(host)
	urlIP := net.ParseIP(c.key.host)
	if ip == nil || !(ip.Equal(c.peer) || ip.Equal(urlIP)) {
		return nil, schemes.Errorf(schemes.ErrRefused,
			"ftp: refused to open a data connection to %s: the server's passive reply names an address other than its own (%s)", addr, c.key.host)
	}
	return lineproto.Dial(ctx, req, network, net.JoinHostPort(c.key.host, port))
}

// peerHost is the host an EPSV reply's port is on (RFC 2428 §3: the
// control connection's): its peer's address, or the URL's host when the
// peer's address is not known (through a proxy).
func (c *conn) peerHost() string {
	if c.peer == nil {
		return c.key.host
	}
	return c.peer.String()
}

// useData makes data, dialled for the passive address addr, the
// transfer's data connection, as the transfer reads it.
func (c *conn) useData(data *lineproto.Conn, addr string) net.Conn {
	host, port, _ := net.SplitHostPort(addr)
	c.mu.Lock()
	c.data = data
	c.mu.Unlock()
	var nc net.Conn = data
	if c.tlsData != nil {
		// The handshake happens on the first read, under the idle deadline.
		cfg := c.tlsData
		if c.resumeID != nil {
			cfg = dataConfig(cfg, c.resumeID)
		}
		nc = tls.Client(nc, cfg)
	} else if hc, ok := data.Raw().(interface{ CloseWrite() error }); ok && c.halfClose && reaches(data.Raw(), net.ParseIP(host), port) {
		// gofer only ever reads a data connection (RETR, LIST, MLSD,
		// NLST). vsftpd waits for the client's end of it before it
		// answers 226: ended at once, the 226 comes as soon as the data
		// is sent, a round trip sooner than when the client closes after
		// reading the end. (Only for vsftpd: a server that watched the
		// data connection for the client going away would take the
		// half-close for an abort. Never through a proxy, which may end
		// the whole tunnel when one side of it ends.)
		hc.CloseWrite()
	}
	return nc
}

// reaches reports whether nc is a plain TCP connection to ip and port
// itself, not a tunnel through a proxy (which reports the target as its
// peer) or a connection some other Dialer wrapped.
func reaches(nc net.Conn, ip net.IP, port string) bool {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return false
	}
	ra, ok := tc.RemoteAddr().(*net.TCPAddr)
	return ok && ra.IP.Equal(ip) && strconv.Itoa(ra.Port) == port
}

// aheadBreaks matches the greetings of servers that mishandle a command
// sent while a transfer runs (conn.sendAhead).
var aheadBreaks = regexp.MustCompile(`(?i)pyftpdlib|twisted`)

// abort ends the control and data connections at once (Ctrl-C, deadline).
func (c *conn) abort() {
	c.mu.Lock()
	c.broken = true
	d := c.data
	c.mu.Unlock()
	c.ctrl.Close()
	if d != nil {
		d.Close()
	}
	c.dropAhead()
	c.ended()
}

// ended gives back c's slot, once.
func (c *conn) ended() {
	if c.release != nil {
		c.releaseOnce.Do(c.release)
	}
}

// isBroken reports whether c may not serve again: aborted, closed, closed
// by the end of a fetch's context, or out of step after a reply over a
// limit.
func (c *conn) isBroken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken || c.ctrl.Cancelled() || c.log.err != nil
}

// close ends c politely (QUIT) and for good.
func (c *conn) close() {
	c.mu.Lock()
	c.broken = true
	c.mu.Unlock()
	if c.top != nil {
		// RFC 959 §4.1.1: QUIT ends the session; its reply is not waited
		// for, as the connection is closed at once.
		io.WriteString(c.top, "QUIT\r\n")
	}
	c.ctrl.Close()
	c.dropAhead()
	c.ended()
}

// fail turns an error met while doing what into an error of gofer's kinds:
// a server reply keeps the server's own text (exit 5), everything else is
// classified as a network failure, and a cancelled ctx wins over both.
func (c *conn) fail(ctx context.Context, err error, what string) error {
	if ctx.Err() != nil {
		return dial.Classify(ctx.Err(), what)
	}
	return c.classify(err, what)
}

// dataError is fail for a failed read of the data connection, after the
// fetch has returned: the end of the fetch's context, which closed the
// data connection, is the cause when it was one.
func (c *conn) dataError(err error, what string) error {
	c.mu.Lock()
	d := c.data
	c.mu.Unlock()
	if d != nil {
		err = d.Classify(err, what)
	}
	return c.classify(err, what)
}

// classify is fail without the context: the control connection knows
// whether the end of the context closed it.
func (c *conn) classify(err error, what string) error {
	var ke *schemes.KindError
	if errors.As(err, &ke) {
		return ke
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		// RFC 959 §4.2: 550 "file unavailable (e.g., file not found,
		// no access)": taken as not found, which is a refusal too.
		kind := schemes.ErrRefused
		if te.Code == 550 {
			kind = schemes.ErrNotFound
		}
		return replyError(kind, te.Code, "%d %s", te.Code, lineproto.ServerText(te.Msg))
	}
	var pe textproto.ProtocolError
	if errors.As(err, &pe) {
		return schemes.Errorf(schemes.ErrRefused, "%s: %v", what, pe)
	}
	return c.ctrl.Classify(err, what)
}

// replyError is an error of kind that carries the server's reply code:
// 4yz is transient (RFC 959 §4.2), worth another try.
func replyError(kind error, code int, format string, args ...any) error {
	return schemes.ReplyErrorf(kind, &schemes.ReplyError{Code: code, Transient: code/100 == 4}, format, args...)
}

// isReply reports whether err is the server's reply (the connection is
// still in step), as opposed to a broken connection.
func isReply(err error) bool {
	var te *textproto.Error
	return errors.As(err, &te)
}
