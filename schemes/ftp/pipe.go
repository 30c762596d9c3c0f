package ftp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// Pipelining. An RFC 959 server reads its commands in order and answers
// each in turn (§4.2: one reply per command, in the order sent), so
// commands whose replies do not decide what is sent next can go out in one
// write and be answered in one round trip: the CWDs of a path with the
// TYPE, SIZE, MDTM and passive command that follow them; MDTM with the
// RETR of a file in the directory the connection is already in; and, after
// a RETR or a listing, the passive command of the next transfer, whose
// reply comes with the reply that ends this one.
//
// What is never sent ahead of a reply it depends on: PASS (USER's reply
// decides whether it counts; it goes with USER only for an anonymous login,
// to a server that has read a pipelined login before, and on a spare), a
// RETR or a listing behind a CWD unless its data connection was asked for
// ahead (a refused CWD leaves the connection elsewhere, where the RETR would
// fetch another file: the CWDs' replies, which come first, are read before
// any of its data, and a transfer behind a refused one is closed unread), a
// RETR behind a passive command that has not yet worked on this connection
// (a refused EPSV would leave the RETR without a data connection), and a
// RETR whose sending depends on SIZE or MDTM (If-Modified-Since, a size
// limit, a resumed transfer).
//
// Every line still passes the guard's line check as it is written: a batch
// is one write through the control connection's guard, which refuses the
// whole write, before any byte of it leaves, when one line holds a CR, LF
// or NUL.
//
// A server that does not read pipelined commands in order shows it at
// login, where PWD and NOOP go out together: when the second reply does
// not come (the server dropped what followed the first line) or the server
// ends the connection, the connection is dropped and the server is spoken
// to one command at a time from then on.

// errNoPipeline is a login's finding that the server mishandles pipelined
// commands; the connection it was found on is closed.
var errNoPipeline = errors.New("ftp: the server does not read pipelined commands")

// probeGrace is how long, beyond twice the round trip PWD took, the reply
// to the NOOP sent with it may lag before the server is taken to have
// dropped it.
const probeGrace = time.Second

// step is one command of a batch and what to do with its reply.
type step struct {
	line string
	// then handles the reply; an error stops a lock-step batch and is the
	// batch's error (the first one) in a pipelined one.
	then func(code int, msg string) error
}

// batch sends steps' lines and reads one reply for each. On a connection
// that pipelines, the lines (and trailer, whose replies are read later) go
// out in one write; otherwise each waits for the reply before it and
// trailer must be empty. Every reply is read, so that the connection stays
// in step; the first handler error is returned with the index of its
// step. A failed read or write is returned with index -1: the connection
// is then out of step and must not be reused.
func (x *exchange) batch(steps []step, trailer ...string) (int, error) {
	if len(steps) == 0 && len(trailer) == 0 {
		return 0, nil
	}
	c := x.c
	if !c.pipe {
		for i, s := range steps {
			if err := x.write(s.line); err != nil {
				c.abort()
				return -1, err
			}
			code, msg, err := readReply(x.tp)
			if err != nil {
				c.abort()
				return -1, err
			}
			if err := s.then(code, msg); err != nil {
				return i, err
			}
		}
		return 0, nil
	}
	lines := make([]string, 0, len(steps)+len(trailer))
	for _, s := range steps {
		lines = append(lines, s.line)
	}
	if err := x.write(append(lines, trailer...)...); err != nil {
		c.abort()
		return -1, err
	}
	first, firstErr := 0, error(nil)
	for i, s := range steps {
		code, msg, err := readReply(x.tp)
		if err != nil {
			c.abort()
			return -1, err
		}
		if err := s.then(code, msg); err != nil && firstErr == nil {
			first, firstErr = i, err
		}
	}
	return first, firstErr
}

// write sends lines, each ended by CR LF, in one write.
func (x *exchange) write(lines ...string) error {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\r\n")
	}
	_, err := io.WriteString(x.c.top, b.String())
	return err
}

// replyErr is a reply that refused a command, as a *textproto.Error
// (classify and isReply tell it from a broken connection).
func replyErr(code int, msg string) error { return &textproto.Error{Code: code, Msg: msg} }

// want2xx is a step handler that accepts a completion reply only.
func want2xx(code int, msg string) error {
	if code/100 != 2 {
		return replyErr(code, msg)
	}
	return nil
}

// passiveLine is the command that opens a passive data connection on c.
func (c *conn) passiveLine() string {
	switch {
	case c.active != nil && c.noEPRT:
		return "PORT"
	case c.active != nil:
		return "EPRT"
	case c.noEPSV:
		return "PASV"
	}
	return "EPSV"
}

// passiveAddr reads a reply to passiveLine: the address to dial, or "" when
// the server refused (an EPSV refused means PASV from then on). A reply
// that claims success but names no address is an error.
func (c *conn) passiveAddr(code int, msg string) (string, error) {
	switch code {
	case 229:
		// "229 Entering Extended Passive Mode (|||port|)": the host is the
		// control connection's (RFC 2428 §3).
		i := strings.Index(msg, "(|||")
		j := strings.LastIndex(msg, "|)")
		port, perr := 0, error(nil)
		if i >= 0 && j > i+4 {
			port, perr = strconv.Atoi(msg[i+4 : j])
		}
		if i < 0 || j <= i+4 || perr != nil || port <= 0 || port > 65535 {
			return "", schemes.Errorf(schemes.ErrRefused, "ftp: malformed EPSV reply: %d %s", code, lineproto.ServerText(msg))
		}
		return net.JoinHostPort(c.peerHost(), strconv.Itoa(port)), nil
	case 227:
		// "227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)"; some servers
		// leave out the parentheses, so take the six numbers after the code.
		addr, ok := pasvAddr(msg)
		if !ok {
			return "", schemes.Errorf(schemes.ErrRefused, "ftp: malformed PASV reply: %d %s", code, lineproto.ServerText(msg))
		}
		return addr, nil
	}
	if !c.noEPSV && (code/100 == 4 || code/100 == 5) {
		// An EPSV refused, for good (5yz) or for now (425 "can't open
		// passive connection"): PASV from then on.
		c.noEPSV = true
	}
	return "", nil
}

// passiveStep is the step that opens a data connection into *data.
func (c *conn) passiveStep(ctx context.Context, req *schemes.Request, data *net.Conn) step {
	if c.active != nil {
		return c.activeStep(ctx, req, data)
	}
	line := c.passiveLine()
	return step{line: line, then: func(code int, msg string) error {
		addr, err := c.passiveAddr(code, msg)
		if err != nil {
			return err
		}
		if addr == "" {
			return replyErr(code, msg)
		}
		c.pasvOK = true
		d, err := c.openData(ctx, req, "tcp", addr)
		if err != nil {
			return err
		}
		*data = d
		return nil
	}}
}

// passiveNextStep is a step that asks for a data connection for the
// transfer to come and keeps its address in c.next, to be dialled when the
// transfer's command goes out. A refused EPSV is not an error here: the
// transfer asks again (with PASV).
func (c *conn) passiveNextStep() step {
	return step{line: c.passiveLine(), then: func(code int, msg string) error {
		addr, err := c.passiveAddr(code, msg)
		if err != nil {
			return err
		}
		if addr != "" {
			c.pasvOK = true
		}
		c.noteNext(addr)
		return nil
	}}
}

// openNext opens the data connection to the address a passive reply read
// ahead gave, if there is one: the one dialled ahead (dataahead.go), else
// a dial now. nil when there is none or it cannot be used (the server may
// have given up waiting), and the caller asks for another.
func (c *conn) openNext(ctx context.Context, req *schemes.Request) net.Conn {
	addr := c.next
	c.next = ""
	if addr == "" {
		c.dropAhead()
		return nil
	}
	if d, tried := c.takeAhead(ctx); d != nil {
		return c.useData(d, addr)
	} else if tried {
		return nil
	}
	d, err := c.openData(ctx, req, "tcp", addr)
	if err != nil {
		return nil
	}
	return d
}

// afterWindow is how long the MDTM sent behind a RETR answers an
// If-Modified-Since fetch of the same file.
const afterWindow = 5 * time.Second

// afterMDTM is a file's time as an MDTM behind its RETR found it.
type afterMDTM struct {
	mod time.Time
	at  time.Time
}

// afterKey names a file of a server for the after-transfer times.
func afterKey(key poolKey, dirs []string, name string) string {
	return key.server() + "\x00" + key.user + "\x00" + strings.Join(dirs, "\x00") + "\x00" + name
}

// noteAfter keeps the time an MDTM behind a completed transfer gave.
func (f *Fetcher) noteAfter(k string, mod time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.after == nil {
		f.after = map[string]afterMDTM{}
	}
	now := time.Now()
	for old, a := range f.after {
		if now.Sub(a.at) > afterWindow {
			delete(f.after, old)
		}
	}
	f.after[k] = afterMDTM{mod: mod, at: now}
}

// takeAfter returns, once, the time an MDTM behind the transfer of the file
// named k found, if that transfer ended within afterWindow.
func (f *Fetcher) takeAfter(k string) (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.after[k]
	delete(f.after, k)
	if !ok || time.Since(a.at) > afterWindow {
		return time.Time{}, false
	}
	return a.mod, true
}

// aheadLines is the trailer of a batch that starts a transfer: the passive
// command of the next one, when c pipelines, a passive command has worked
// on it, and it has served a fetch before (a connection that serves one
// fetch only, a single get, asks for no data connection it will not use).
func (c *conn) aheadLines() []string {
	if !c.pipe || !c.sendAhead || !c.pasvOK || c.served == 0 || c.active != nil {
		return nil
	}
	return []string{c.passiveLine()}
}

// sentBehind reports whether commands went out behind the transfer in
// progress whose replies are still to come.
func (c *conn) sentBehind() bool { return c.ahead || c.afterMDTM }

// behindPending is how many commands went out behind the transfer in
// progress whose replies are still to come.
func (c *conn) behindPending() int {
	n := 0
	if c.afterMDTM {
		n++
	}
	if c.ahead {
		n++
	}
	return n
}

// distrustAhead is called when a transfer with commands sent behind it
// failed: a server that takes a command during a transfer for its end
// (pyftpdlib aborts it at the next EPSV) shows it so, whatever its
// greeting. Such a server gets nothing behind a transfer from then on; the
// failure itself is transient, and a mirror tries the file again.
func (f *Fetcher) distrustAhead(c *conn, err error) {
	if errors.Is(err, schemes.ErrTooLarge) || c.ctrl.Cancelled() {
		return // gofer's own limit or the caller's end, not the server's doing
	}
	f.noSendAhead(c.key)
}

// readAhead reads the replies to what was sent behind the last transfer's
// command: the MDTM of the file (its time once the transfer was over, the
// zero time when refused) and the passive command of the next transfer,
// whose address it keeps. Those the server refused while the transfer ran
// (behindRefused, counted by readEnd) were answered already, in the order
// they were sent: the next transfer asks for its data connection again.
func (c *conn) readAhead() (after time.Time, err error) {
	defer func() {
		if tls := c.tlsData != nil; err != nil && reuseRefusal(c.endCode, c.endMsg, tls) {
			// vsftpd ends the session after its 522: that is the error.
			err = endError(c.endCode, c.endMsg, tls)
		}
	}()
	x := c.exchange()
	refused := c.behindRefused
	c.behindRefused = 0
	if c.afterMDTM && refused > 0 {
		c.afterMDTM = false
		refused--
	}
	if c.ahead && refused > 0 {
		c.ahead = false
		c.noteNext("")
	}
	if c.afterMDTM {
		c.afterMDTM = false
		code, msg, err := readReply(x.tp)
		if err != nil {
			c.ahead = false
			return after, err
		}
		if m, ok := parseMDTM(msg); code == 213 && ok {
			after = m
		}
	}
	if !c.ahead {
		return after, nil
	}
	c.ahead = false
	code, msg, err := readReply(x.tp)
	if err != nil {
		return after, err
	}
	addr, err := c.passiveAddr(code, msg)
	if err != nil {
		// A malformed reply is the server's; the next transfer asks again.
		addr = ""
	}
	c.noteNext(addr)
	return after, nil
}

// login logs in as who and readies the connection (RFC 959 §5.4, RFC 2389,
// RFC 4217 §9). USER goes alone, and its reply decides whether PASS
// follows, except where Fetcher.landing sends them together (userSteps).
// Everything after it goes in one batch on a connection that is to
// pipeline: PASS; FEAT; TYPE I; PBSZ 0 and PROT P for TLS data connections;
// PWD, the login directory (RFC 1738 §3.2.2: a kept connection goes back to
// it); and NOOP. After a refused PASS the commands behind it are refused
// too, which changes nothing. The replies after the first must come, in
// order, within a little more than twice the round trip the first took,
// or the server is taken not to read pipelined commands (errNoPipeline).
// A server that lists UTF8 in FEAT gets OPTS UTF8 ON after it, unless the
// names are known to be in another charset (Request.RemoteCharset). On a
// connection that pipelines, the CWDs of to follow NOOP, and then, for a
// transfer, the passive command whose address the transfer dials: the
// first fetch on the connection starts one round trip sooner. After a CWD
// refused there, the fetch returns to the login directory and meets the
// refusal itself.
func (c *conn) login(who login, to landing) error {
	x := c.exchange()
	steps, err := c.userSteps(who, to.userPass)
	if err != nil {
		return err
	}
	utf8 := false
	steps = append(steps, step{line: "FEAT", then: func(code int, msg string) error {
		if code != 211 {
			// No FEAT (RFC 2389 came in 1998): MDTM is tried all the
			// same, since servers older than FEAT have it (netkit and
			// BSD ftpd); a 500 or 502 to it ends that (mdtmReply).
			c.mdtm = true
			return nil
		}
		for _, l := range strings.Split(msg, "\n")[1:] {
			if f := strings.Fields(l); len(f) > 0 {
				switch strings.ToUpper(f[0]) {
				case "MLST":
					c.mlsd = true
				case "MDTM":
					c.mdtm = true
				case "UTF8":
					utf8 = true
				default:
					c.hashes.note(f)
				}
			}
		}
		return nil
	}}, step{line: "TYPE I", then: func(code int, msg string) error {
		if code/100 != 2 {
			return refusedReply(code, msg)
		}
		c.curType = 'I'
		return nil
	}})
	if c.tlsData != nil {
		steps = append(steps, step{line: "PBSZ 0", then: want2xxRefused}, step{line: "PROT P", then: want2xxRefused})
	}
	steps = append(steps, step{line: "PWD", then: func(code int, msg string) error {
		if code == 257 {
			c.home = pwdDir(msg)
		}
		return nil
	}})
	if !c.pipe {
		if _, err := x.batch(steps); err != nil {
			return err
		}
	} else {
		steps = append(steps, step{line: "NOOP", then: func(int, string) error { return nil }})
		cwdErr := false
		for _, d := range to.dirs {
			steps = append(steps, step{line: "CWD " + d, then: func(code int, msg string) error {
				if code/100 != 2 {
					cwdErr = true
				}
				return nil
			}})
		}
		if to.passive && c.sendAhead && c.active == nil {
			next := c.passiveNextStep()
			steps = append(steps, step{line: next.line, then: func(code int, msg string) error {
				next.then(code, msg) // a malformed reply: the transfer asks again
				return nil
			}})
		}
		if err := c.probeBatch(steps); err != nil {
			return err
		}
		if len(to.dirs) > 0 {
			c.moved, c.at = true, slices.Clone(to.dirs)
		}
		if cwdErr {
			// Where the connection is is not known: the fetch returns to
			// the login directory and says what its own CWDs meet. Without
			// one to return to, the connection is of no use.
			c.at = nil
			if c.home == "" {
				return schemes.Errorf(schemes.ErrRefused, "ftp: a CWD of %q failed and the server gave no login directory to return to", strings.Join(to.dirs, "/"))
			}
		}
	}
	if utf8 && !c.key.noUTF8 {
		if _, _, err := c.lockStep("OPTS UTF8 ON"); err != nil {
			return err
		}
	}
	return nil
}

// userSteps are the login's first steps: USER, and PASS when USER's reply
// asks for it (331; 230 needs none). Sent alone, USER is answered before
// the steps are returned; with userPass (Fetcher.landing) it is the first
// step, with PASS behind it, whose reply counts only when USER's asked for
// a password.
func (c *conn) userSteps(who login, userPass bool) ([]step, error) {
	pass := func(code int, msg string) error { return loginReply(who, code, msg) }
	if userPass && c.pipe {
		userCode := 0
		return []step{
			{line: "USER " + who.user, then: func(code int, msg string) error {
				userCode = code
				if code == 230 || code == 331 {
					return nil
				}
				return loginReply(who, code, msg)
			}},
			{line: "PASS " + who.password, then: func(code int, msg string) error {
				if userCode != 331 {
					return nil // USER's reply decided
				}
				return pass(code, msg)
			}},
		}, nil
	}
	code, msg, err := c.lockStep("USER " + who.user)
	switch {
	case err != nil:
		return nil, err
	case code == 230:
		return nil, nil
	case code == 331:
		return []step{{line: "PASS " + who.password, then: pass}}, nil
	}
	return nil, loginReply(who, code, msg)
}

// lockStep sends one command and reads its reply; a failure leaves the
// connection out of step.
func (c *conn) lockStep(line string) (int, string, error) {
	x := c.exchange()
	if err := x.write(line); err != nil {
		c.abort()
		return 0, "", err
	}
	code, msg, err := readReply(x.tp)
	if err != nil {
		c.abort()
	}
	return code, msg, err
}

// probeBatch is batch for the login's pipelined commands, with the
// deadline that tells a server that drops them (login).
func (c *conn) probeBatch(steps []step) error {
	x := c.exchange()
	lines := make([]string, len(steps))
	for i, s := range steps {
		lines[i] = s.line
	}
	t0 := time.Now()
	if err := x.write(lines...); err != nil {
		return err
	}
	var firstErr error
	handle := func(s step, code int, msg string) {
		if err := s.then(code, msg); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	code, msg, err := readReply(x.tp)
	if err != nil {
		return c.probeError(err)
	}
	handle(steps[0], code, msg)
	wait := 2*time.Since(t0) + probeGrace
	raw := c.ctrl.Raw()
	fired := make(chan struct{})
	timer := time.AfterFunc(wait, func() {
		raw.SetReadDeadline(time.Now())
		close(fired)
	})
	for _, s := range steps[1:] {
		if code, msg, err = readReply(x.tp); err != nil {
			break
		}
		handle(s, code, msg)
	}
	if !timer.Stop() {
		// The deadline came with the replies: it must not outlive them (a
		// connection without an idle timeout sets no other).
		<-fired
		raw.SetReadDeadline(time.Time{})
	}
	if err != nil {
		if firstErr != nil {
			// A refused login (a busy server's 421) may end the
			// connection before the replies to what followed it.
			return firstErr
		}
		return c.probeError(err)
	}
	return firstErr
}

// loginReply is the error of a reply to USER or PASS: none for 230 (or
// 202, "superfluous"); an authentication failure for 530, 331 or 332 (RFC
// 959 §5.4: refused, or a password or account still wanted), with the
// server's text; anything else the server refusing.
func loginReply(who login, code int, msg string) error {
	if isBusyReply(code, msg) {
		return busyError(code, msg)
	}
	switch code {
	case 230, 202:
		return nil
	case 530, 331, 332:
		return schemes.Errorf(schemes.ErrAuth, "%d %s", code, lineproto.ServerText(msg))
	}
	return replyError(schemes.ErrRefused, code, "ftp: login as %s: %d %s", who.user, code, lineproto.ServerText(msg))
}

// refusedReply is the server refusing a command of the login.
func refusedReply(code int, msg string) error {
	return replyError(schemes.ErrRefused, code, "%d %s", code, lineproto.ServerText(msg))
}

func want2xxRefused(code int, msg string) error {
	if code/100 != 2 {
		return refusedReply(code, msg)
	}
	return nil
}

// probeError is what a failed read of the probe's replies means: on a
// connection that pipelines, a lost or late reply or an ended connection is
// the server mishandling pipelined commands; a refusal of gofer's own (a
// reply over a limit, a reply that is no FTP reply) stays what it is.
func (c *conn) probeError(err error) error {
	var ke *schemes.KindError
	if !c.pipe || errors.As(err, &ke) {
		return err
	}
	return errNoPipeline
}

// pwdDir is the directory of a 257 reply: the text between its first and
// last double quote, with doubled quotes undone (RFC 959 §7); "" when
// there is none.
func pwdDir(msg string) string {
	i := strings.Index(msg, `"`)
	j := strings.LastIndex(msg, `"`)
	if i < 0 || j <= i {
		return ""
	}
	return strings.ReplaceAll(msg[i+1:j], `""`, `"`)
}

// mdtmReply handles a reply to MDTM: the time when it gave one; a 500 or
// 502 says the server has no MDTM, which it is then not asked again.
func (c *conn) mdtmReply(code int, msg string) (time.Time, bool) {
	if code == 500 || code == 502 {
		c.mdtm = false
	}
	if code != 213 {
		return time.Time{}, false
	}
	return parseMDTM(msg)
}

// parseMDTM reads an MDTM reply (RFC 3659 §3: YYYYMMDDHHMMSS[.sss], UTC).
func parseMDTM(msg string) (time.Time, bool) {
	s, frac, _ := strings.Cut(strings.TrimSpace(msg), ".")
	t, err := time.ParseInLocation("20060102150405", s, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	if frac != "" {
		if n, err := strconv.Atoi(frac); err == nil && len(frac) <= 9 {
			for i := len(frac); i < 9; i++ {
				n *= 10
			}
			t = t.Add(time.Duration(n))
		}
	}
	return t, true
}
