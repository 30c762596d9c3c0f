package ftp

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeFTP is a scripted FTP server on 127.0.0.1:0 that records every line
// a client sends, byte for byte, and answers like vsftpd would.
type fakeFTP struct {
	t     testing.TB
	ln    net.Listener
	files map[string]string // absolute path → content
	dirs  map[string]bool   // absolute paths of directories
	users map[string]string // user → password; "anonymous" takes any
	// features are FEAT's lines; mlst adds MLST (the client then uses MLSD).
	mlst bool
	// noEPSV answers EPSV with 500 so that the client falls back to PASV.
	noEPSV bool
	// pasvHost, when set, is the h1,h2,h3,h4 a PASV reply names, and
	// pasvPort, when set, its port.
	pasvHost string
	pasvPort int
	// noREST refuses REST; noSIZE refuses SIZE.
	noREST, noSIZE bool
	// authTLS is the reply to AUTH TLS ("" → 500).
	authTLS string
	// cutAfter > 0 closes the data connection after that many bytes and
	// answers 426.
	cutAfter int
	// stall, when set, holds RETR's data until it is closed.
	stall chan struct{}
	// bigList > 0 makes LIST of /big generate that many entries.
	bigList int
	// listings are raw LIST/MLSD/NLST bodies by directory.
	listings map[string]string
	// lockStep makes the server mishandle pipelining as some do: it reads
	// one command per read and drops whatever else that read brought.
	lockStep bool
	// forgetPasv makes the server drop its passive listener before each
	// RETR, as one that gave up waiting would, and answer it 425.
	forgetPasv bool
	// waitFIN makes the server wait, as vsftpd does, for the client's end
	// of each data connection (up to 5 s) before it sends the data; fins
	// and noFins count the connections that had it and did not.
	waitFIN      bool
	finWait      time.Duration // how long waitFIN waits (0: 5 s)
	fins, noFins int
	// tls, when set, makes the server implicit FTPS (ftps://): the
	// control connection and every data connection are TLS from the
	// first byte, and PBSZ and PROT are answered 200.
	tls *tls.Config
	// requireReuse refuses, with vsftpd's 522, a passive TLS data
	// connection that does not resume the control connection's session.
	requireReuse bool
	// greeting is the text of the 220 ("" for "(fakeFTP 1.0)").
	greeting string
	// ascii makes TYPE A send LF as CR LF and refuse REST (ProFTPD).
	ascii bool
	// utf8 lists UTF8 in FEAT.
	utf8 bool
	// noFEAT answers FEAT with 500 (netkit ftpd), MDTM still works.
	noFEAT bool
	// epsv425 answers EPSV with 425.
	epsv425 bool
	// maxConns > 0 refuses sessions beyond it: with the 421 greeting
	// Pure-FTPd sends, or with limitAtUSER the 530 ProFTPD answers USER
	// with. refuseFirst refuses that many sessions whatever the count.
	maxConns    int
	limitAtUSER bool
	refuseFirst int
	// greetGate, when set, holds every session after the first before its
	// greeting until it is closed.
	greetGate chan struct{}
	sessions  int
	// failMidway answers a RETR, after the first bytes, with 550 and
	// leaves the data connection open (Twisted).
	failMidway bool
	// abortIfAhead aborts a transfer (426, the data cut after half) when
	// a command arrived with its RETR, as pyftpdlib does at an EPSV.
	abortIfAhead bool
	// noEPRT answers EPRT with 500 (a server older than RFC 2428);
	// intruder, on each EPRT or PORT, first connects to the address it
	// names from 127.0.0.2, and sends on intruded whether the client
	// closed that connection at once (a read met its end).
	noEPRT   bool
	intruder bool
	intruded chan bool
	// activeSilent never connects to the address EPRT or PORT named: the
	// transfer's command is answered 150, and 425 only when release is
	// closed.
	activeSilent bool
	release      chan struct{}
	// busyInTransfer answers every command that came with a transfer's
	// command, once the transfer has started, with 450 and does not run
	// it, as ProFTPD does with a command that arrives during a transfer;
	// busyRefused counts them.
	busyInTransfer bool
	busyRefused    int
	// dropAfterList ends the session after a listing's data, without its
	// 226 (a server that died, or a connection cut).
	dropAfterList bool
	// listEnd is the text of a listing's 226 ("" for "Directory send OK.").
	listEnd string
	// noPassword answers USER with 230 (no password needed), and PASS
	// after it with 503, as a server that lets a user in at once does.
	noPassword bool
	// passGate, when set, holds the first session's reply to PASS until
	// it is closed; accepted receives a value as each session starts.
	passGate chan struct{}
	accepted chan struct{}
	// slowPass delays the reply to PASS of every session after the first,
	// as a slow check of the password does.
	slowPass time.Duration
	// acceptEarly accepts each data connection as soon as it comes,
	// before the command that uses it, and sends on early whether it had
	// come before that command; the dropNth accepted (from 1) is closed at
	// once, with its listener, as by a server that gave up on a passive
	// port.
	acceptEarly bool
	early       chan bool
	dropNth     int
	nData       int

	// moreFeats are FEAT lines added to the usual ones (" HASH ...\r\n");
	// answer, when set, answers a verb the server does not know (its
	// reply line and true), as a server with extensions would.
	moreFeats string
	answer    func(verb, arg string) (string, bool)

	mu     sync.Mutex
	active int // sessions open now
	conns  []net.Conn
	lines  []string
	// batches are the lines as they arrived together: each entry holds
	// the lines one read of the client's bytes brought.
	batches []string
	logins  int
	wg      sync.WaitGroup
}

func newFake(t testing.TB) *fakeFTP { return newFakeWith(t, nil) }

// newFakeWith is newFake with setup applied before the server starts: for
// what a session reads before the client has sent anything (the greeting,
// lockStep).
func newFakeWith(t testing.TB, setup func(*fakeFTP)) *fakeFTP {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeFTP{
		t: t, ln: ln,
		files:    map[string]string{},
		dirs:     map[string]bool{"/": true},
		users:    map[string]string{"anonymous": ""},
		listings: map[string]string{},
	}
	if setup != nil {
		setup(f)
	}
	if f.tls != nil {
		f.ln = tls.NewListener(ln, f.tls)
	}
	f.wg.Add(1)
	go f.serve()
	t.Cleanup(func() {
		ln.Close()
		// A test may leave a connection in a Fetcher's pool: end it here.
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

// endWith closes fetcher and the server, waits for every session to end,
// and returns the logins the server saw.
func (f *fakeFTP) endWith(fetcher *Fetcher) int {
	fetcher.Close()
	f.ln.Close()
	f.wg.Wait()
	return f.logins
}

func (f *fakeFTP) port() int { return f.ln.Addr().(*net.TCPAddr).Port }

// addFile adds a file and every directory above it.
func (f *fakeFTP) addFile(p, content string) {
	f.files[p] = content
	for d := path.Dir(p); ; d = path.Dir(d) {
		f.dirs[d] = true
		if d == "/" {
			break
		}
	}
}

// dropAll ends every session, as a server does with idle ones.
func (f *fakeFTP) dropAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		c.Close()
	}
}

// sentBatches returns what clients sent, one entry for the lines that
// came in one read, each line with its CR LF.
func (f *fakeFTP) sentBatches() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.batches...)
}

// wantBatches fails the test unless clients sent exactly want, one entry
// per batch (sentBatches).
func (f *fakeFTP) wantBatches(t *testing.T, want []string) {
	t.Helper()
	if b := f.sentBatches(); strings.Join(b, "|") != strings.Join(want, "|") {
		t.Errorf("batches:\n got %q\nwant %q", b, want)
	}
}

// sent returns what clients sent, one line each with its CR LF.
func (f *fakeFTP) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

func (f *fakeFTP) serve() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.session(c)
		}()
	}
}

type fakeSession struct {
	f    *fakeFTP
	c    net.Conn
	w    *bufio.Writer
	cwd  string
	user string
	rest int
	typ  string
	// overLimit: USER is answered with ProFTPD's per-host refusal.
	overLimit bool
	// loggedIn: USER let the user in (noPassword).
	loggedIn bool
	dataLn   net.Listener
	// activeAddr is the address the last EPRT or PORT named ("" none).
	activeAddr string
	// midway holds the data connections failMidway left open.
	midway []net.Conn
	// r reads the control connection.
	r *bufio.Reader
	// n numbers the session, from 1, in the order they started.
	n int
	// data receives the data connection acceptEarly accepted.
	data chan net.Conn
	// cmdSeen is set once a command that uses the data connection has
	// come, for acceptEarly's report.
	cmdSeen chan struct{}
}

func (f *fakeFTP) session(c net.Conn) {
	defer c.Close()
	s := &fakeSession{f: f, c: c, w: bufio.NewWriter(c), cwd: "/"}
	defer func() {
		if s.dataLn != nil {
			s.dataLn.Close()
		}
		for _, d := range s.midway {
			d.Close()
		}
	}()
	r := bufio.NewReader(c)
	s.r = r
	if f.accepted != nil {
		f.accepted <- struct{}{}
	}
	f.mu.Lock()
	f.active++
	f.sessions++
	s.n = f.sessions
	gate := f.greetGate
	if f.sessions == 1 {
		gate = nil
	}
	over := (f.maxConns > 0 && f.active > f.maxConns) || f.refuseFirst > 0
	if f.refuseFirst > 0 {
		f.refuseFirst--
	}
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	defer func() {
		f.mu.Lock()
		f.active--
		f.mu.Unlock()
	}()
	if over && !f.limitAtUSER {
		s.reply("421 Too many connections (%d) from this IP", f.maxConns)
		return
	}
	s.overLimit = over
	if f.greeting != "" {
		s.reply("220 %s", f.greeting)
	} else {
		s.reply("220 (fakeFTP 1.0)")
	}
	batch := ""
	for {
		if f.lockStep && r.Buffered() > 0 {
			r.Discard(r.Buffered())
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		batch += line
		f.mu.Lock()
		f.lines = append(f.lines, line)
		if r.Buffered() == 0 || f.lockStep {
			f.batches = append(f.batches, batch)
			batch = ""
		}
		f.mu.Unlock()
		cmd := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		verb, arg, _ := strings.Cut(cmd, " ")
		if !s.handle(strings.ToUpper(verb), arg) {
			return
		}
	}
}

func (s *fakeSession) reply(format string, args ...any) {
	fmt.Fprintf(s.w, format+"\r\n", args...)
	s.w.Flush()
}

func (s *fakeSession) abs(arg string) string {
	if arg == "" {
		return s.cwd
	}
	if strings.HasPrefix(arg, "/") {
		return path.Clean(arg)
	}
	return path.Join(s.cwd, arg)
}

func (s *fakeSession) handle(verb, arg string) bool {
	f := s.f
	switch verb {
	case "PBSZ", "PROT":
		if f.tls == nil {
			s.reply("500 Unknown command.")
		} else {
			s.reply("200 %s ok.", verb)
		}
	case "AUTH":
		if f.authTLS == "" {
			s.reply("500 Unknown command.")
		} else {
			s.reply("%s", f.authTLS)
		}
	case "USER":
		s.user = arg
		if s.overLimit {
			s.reply("530 Sorry, max %d clients per host", f.maxConns)
			return true
		}
		if _, ok := f.users[arg]; ok && f.noPassword {
			f.mu.Lock()
			f.logins++
			f.mu.Unlock()
			s.loggedIn = true
			s.reply("230 Login successful.")
		} else if ok {
			s.reply("331 Please specify the password.")
		} else {
			s.reply("530 This FTP server is anonymous only.")
		}
	case "PASS":
		if s.n == 1 && f.passGate != nil {
			<-f.passGate
		}
		if s.n > 1 {
			time.Sleep(f.slowPass)
		}
		want, ok := f.users[s.user]
		if s.loggedIn || s.overLimit {
			s.reply("503 Login with USER first.")
		} else if ok && (s.user == "anonymous" || want == arg) {
			f.mu.Lock()
			f.logins++
			f.mu.Unlock()
			s.reply("230 Login successful.")
		} else {
			s.reply("530 Login incorrect.")
		}
	case "FEAT":
		if f.noFEAT {
			s.reply("500 'FEAT': command not understood.")
			return true
		}
		feats := " EPSV\r\n MDTM\r\n PASV\r\n REST STREAM\r\n SIZE\r\n"
		if f.mlst {
			feats += " MLST type*;size*;modify*;\r\n"
		}
		if f.utf8 {
			feats += " UTF8\r\n"
		}
		feats += f.moreFeats
		fmt.Fprintf(s.w, "211-Features:\r\n%s211 End\r\n", feats)
		s.w.Flush()
	case "TYPE":
		s.typ = arg
		s.reply("200 Switching to %s mode.", arg)
	case "PWD":
		s.reply("257 \"%s\" is the current directory", s.cwd)
	case "CWD":
		p := s.abs(arg)
		if f.dirs[p] {
			s.cwd = p
			s.reply("250 Directory successfully changed.")
		} else {
			s.reply("550 Failed to change directory.")
		}
	case "SIZE":
		if c, ok := f.files[s.abs(arg)]; ok && !f.noSIZE {
			s.reply("213 %d", len(c))
		} else {
			s.reply("550 Could not get file size.")
		}
	case "MDTM":
		if _, ok := f.files[s.abs(arg)]; ok {
			s.reply("213 20240102030405")
		} else {
			s.reply("550 Could not get file modification time.")
		}
	case "EPSV":
		if f.epsv425 {
			s.reply("425 Can't open passive connection.")
			return true
		}
		if f.noEPSV {
			s.reply("500 Unknown command.")
			return true
		}
		s.listenData()
		s.reply("229 Entering Extended Passive Mode (|||%d|)", s.dataLn.Addr().(*net.TCPAddr).Port)
	case "PASV":
		s.listenData()
		host, port := "127,0,0,1", s.dataLn.Addr().(*net.TCPAddr).Port
		if f.pasvHost != "" {
			host = f.pasvHost
		}
		if f.pasvPort != 0 {
			port = f.pasvPort
		}
		s.reply("227 Entering Passive Mode (%s,%d,%d).", host, port>>8, port&0xff)
	case "EPRT", "PORT":
		if verb == "EPRT" && f.noEPRT {
			s.reply("500 Unknown command.")
			return true
		}
		addr, ok := activeTarget(verb, arg)
		if !ok {
			s.reply("501 Illegal %s command.", verb)
			return true
		}
		s.closeData()
		if f.intruder {
			s.intrude(addr)
		}
		s.activeAddr = addr
		s.reply("200 %s command successful. Consider using EPSV.", verb)
	case "REST":
		if f.noREST {
			s.reply("502 REST not implemented.")
			return true
		}
		if f.ascii && s.typ == "A" {
			s.reply("501 REST not allowed in ASCII mode")
			return true
		}
		s.rest, _ = strconv.Atoi(arg)
		s.reply("350 Restart position accepted (%d).", s.rest)
	case "RETR":
		f.mu.Lock()
		forget := f.forgetPasv
		f.forgetPasv = false
		f.mu.Unlock()
		if forget {
			s.closeData()
		}
		if s.dataLn == nil && s.activeAddr == "" {
			// vsftpd refuses a transfer with no passive listener first.
			s.reply("425 Use PORT or PASV first.")
			return true
		}
		content, ok := f.files[s.abs(arg)]
		rest := s.rest
		s.rest = 0
		if !ok {
			s.closeData()
			s.reply("550 Failed to open file.")
			return true
		}
		s.reply("150 Opening BINARY mode data connection for %s (%d bytes).", arg, len(content))
		d := s.acceptData()
		if d == nil {
			return true
		}
		s.busy()
		if f.stall != nil {
			<-f.stall
		}
		data := content[min(rest, len(content)):]
		if f.ascii && s.typ == "A" {
			data = strings.ReplaceAll(data, "\n", "\r\n")
		}
		if f.abortIfAhead && s.r.Buffered() > 0 {
			d.Write([]byte(data[:len(data)/2]))
			d.Close()
			s.reply("426 Connection closed; transfer aborted.")
			return true
		}
		if f.failMidway {
			d.Write([]byte(data[:len(data)/2]))
			s.reply("550 %s: Permission denied.", arg)
			s.f.mu.Lock()
			s.midway = append(s.midway, d)
			s.f.mu.Unlock()
			return true
		}
		if f.cutAfter > 0 && f.cutAfter < len(data) {
			d.Write([]byte(data[:f.cutAfter]))
			d.Close()
			s.reply("426 Failure writing network stream.")
			return true
		}
		_, err := d.Write([]byte(data))
		d.Close()
		if err != nil {
			s.reply("426 Failure writing network stream.")
		} else {
			s.reply("226 Transfer complete.")
		}
	case "LIST", "MLSD", "NLST":
		dir := s.cwd
		if verb == "NLST" && arg != "" {
			dir = s.abs(arg)
		}
		body, ok := f.listings[verb+" "+dir]
		if !ok && verb == "NLST" {
			// Like many servers, answer "NLST dir" with "dir/name" lines.
			prefix := ""
			if arg != "" {
				prefix = arg + "/"
			}
			for p := range f.files {
				if path.Dir(p) == dir {
					body += prefix + path.Base(p) + "\r\n"
				}
			}
		}
		if !ok && !f.dirs[dir] {
			s.closeData()
			s.reply("550 Failed to open directory.")
			return true
		}
		s.reply("150 Here comes the directory listing.")
		d := s.acceptData()
		if d == nil {
			return true
		}
		s.busy()
		if dir == "/big" && f.bigList > 0 {
			w := bufio.NewWriter(d)
			for i := 0; i < f.bigList; i++ {
				fmt.Fprintf(w, "-rw-r--r--    1 0 0 %7d Dec 20  1994 file-%07d.txt\r\n", i, i)
			}
			w.Flush()
		}
		d.Write([]byte(body))
		d.Close()
		if f.dropAfterList {
			return false
		}
		if f.listEnd != "" {
			s.reply("226 %s", f.listEnd)
		} else {
			s.reply("226 Directory send OK.")
		}
	case "NOOP":
		s.reply("200 NOOP ok.")
	case "QUIT":
		s.reply("221 Goodbye.")
		return false
	default:
		if f.answer != nil {
			if line, ok := f.answer(verb, arg); ok {
				s.reply("%s", line)
				return true
			}
		}
		s.reply("500 Unknown command.")
	}
	return true
}

// busy refuses the commands already read behind a transfer's command
// (busyInTransfer).
func (s *fakeSession) busy() {
	if !s.f.busyInTransfer {
		return
	}
	for s.r.Buffered() > 0 {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return
		}
		s.f.mu.Lock()
		s.f.lines = append(s.f.lines, line)
		s.f.busyRefused++
		s.f.mu.Unlock()
		verb, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		s.reply("450 %s: data transfer in progress", strings.ToUpper(verb))
	}
}

func (s *fakeSession) listenData() {
	s.closeData()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.f.t.Error(err)
		return
	}
	if s.f.tls != nil {
		ln = tls.NewListener(ln, s.f.tls)
	}
	s.dataLn = ln
	if !s.f.acceptEarly {
		return
	}
	data, seen := make(chan net.Conn, 1), make(chan struct{})
	s.data, s.cmdSeen = data, seen
	go func() {
		defer close(data)
		d, err := ln.Accept()
		if err != nil {
			return
		}
		before := true
		select {
		case <-seen:
			before = false
		default:
		}
		s.f.mu.Lock()
		s.f.nData++
		drop := s.f.nData == s.f.dropNth
		s.f.mu.Unlock()
		if drop {
			d.Close()
			ln.Close()
		} else {
			data <- d
		}
		if s.f.early != nil {
			s.f.early <- before
		}
	}()
}

func (s *fakeSession) closeData() {
	if s.dataLn != nil {
		s.dataLn.Close()
		s.dataLn = nil
	}
	if s.data != nil {
		if d, ok := <-s.data; ok {
			d.Close()
		}
		s.data, s.cmdSeen = nil, nil
	}
}

// activeTarget reads the address of an EPRT (RFC 2428 §2) or PORT (RFC
// 959 §4.1.2) argument.
func activeTarget(verb, arg string) (string, bool) {
	if verb == "EPRT" {
		f := strings.Split(arg, "|")
		if len(f) != 5 || (f[1] != "1" && f[1] != "2") || net.ParseIP(f[2]) == nil {
			return "", false
		}
		return net.JoinHostPort(f[2], f[3]), true
	}
	n := strings.Split(arg, ",")
	if len(n) != 6 {
		return "", false
	}
	p1, _ := strconv.Atoi(n[4])
	p2, _ := strconv.Atoi(n[5])
	return net.JoinHostPort(strings.Join(n[:4], "."), strconv.Itoa(p1*256+p2)), true
}

// intrude connects to addr from 127.0.0.2 before the server does and
// reports on f.intruded whether the client closed it.
func (s *fakeSession) intrude(addr string) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		s.f.t.Errorf("intruder: %v", err)
		return
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Read(make([]byte, 1))
	s.f.intruded <- err == io.EOF || errors.Is(err, syscall.ECONNRESET)
}

func (s *fakeSession) acceptData() net.Conn {
	if s.activeAddr != "" && s.f.activeSilent {
		s.activeAddr = ""
		<-s.f.release
		s.reply("425 Failed to establish connection.")
		return nil
	}
	if s.activeAddr != "" {
		addr := s.activeAddr
		s.activeAddr = ""
		d, err := net.Dial("tcp", addr)
		if err != nil {
			s.reply("425 Failed to establish connection.")
			return nil
		}
		if s.f.tls != nil {
			d = tls.Server(d, s.f.tls)
		}
		return d
	}
	if s.dataLn == nil {
		s.reply("425 Use PORT or PASV first.")
		return nil
	}
	var d net.Conn
	var err error
	if s.data != nil {
		close(s.cmdSeen)
		var ok bool
		if d, ok = <-s.data; !ok {
			err = net.ErrClosed
		}
		s.data = nil
	} else {
		d, err = s.dataLn.Accept()
	}
	s.closeData()
	if err != nil {
		s.reply("425 Failed to establish connection.")
		return nil
	}
	if tc, ok := d.(*tls.Conn); ok && s.f.requireReuse {
		tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil || !tc.ConnectionState().DidResume {
			d.Close()
			s.reply("522 SSL connection failed: session reuse required")
			return nil
		}
		tc.SetDeadline(time.Time{})
	}
	if s.f.waitFIN {
		wait := s.f.finWait
		if wait == 0 {
			wait = 5 * time.Second
		}
		d.SetReadDeadline(time.Now().Add(wait))
		n, err := d.Read(make([]byte, 1))
		d.SetReadDeadline(time.Time{})
		s.f.mu.Lock()
		if n == 0 && err == io.EOF {
			s.f.fins++
		} else {
			s.f.noFins++
		}
		s.f.mu.Unlock()
	}
	return d
}
