package telnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"golang.org/x/term"
)

// EscapeKey is the local key that ends a terminal session, as telnet(1)'s
// Ctrl-]. It is never sent to the server.
const EscapeKey = 0x1d

// loginWait is how long a piped session with auto-login holds back stdin
// while waiting for the login and password prompts; after it, stdin flows
// anyway, so that a server that never asks still gets its input.
const loginWait = 30 * time.Second

// loginQuiet is how long the server may stay silent after the password
// before stdin flows without a shell prompt having been seen.
const loginQuiet = 2 * time.Second

// Session is a telnet connection (RFC 854) ready to be connected to a person
// or a pipe. It implements schemes.Session.
type Session struct {
	conn         net.Conn
	user         string
	password     string
	hasUser      bool
	hasPassword  bool
	autoLogin    bool
	linger       time.Duration
	writeTimeout time.Duration
	transcript   io.Writer
	// rawTrace ends transcript lines with CR LF: a raw terminal does not
	// turn LF into a new line by itself.
	rawTrace bool

	wmu       sync.Mutex // one writer on the connection at a time
	traceMu   sync.Mutex
	closeOnce sync.Once
	closeErr  error
	closing   chan struct{}
	started   bool
	startMu   sync.Mutex
}

var _ schemes.Session = (*Session)(nil)

func (f *Fetcher) newSession(conn net.Conn, req *schemes.Request) *Session {
	linger := f.Linger
	if linger <= 0 {
		linger = DefaultLinger
	}
	u := req.URL
	return &Session{
		conn:         conn,
		user:         u.User,
		password:     u.Password,
		hasUser:      u.HasUser && u.User != "",
		hasPassword:  u.HasPassword,
		autoLogin:    f.AutoLogin,
		linger:       linger,
		writeTimeout: req.Idle(),
		transcript:   req.Transcript,
		closing:      make(chan struct{}),
	}
}

// Close ends the connection. It is safe to call more than once.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.closeErr = s.conn.Close()
	})
	return s.closeErr
}

// write sends bytes to the server; a server that stops reading fails the
// write after the idle timeout instead of hanging the session.
func (s *Session) write(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.conn.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	_, err := s.conn.Write(p)
	return err
}

func (s *Session) trace(format string, args ...any) {
	if s.transcript == nil {
		return
	}
	s.traceMu.Lock()
	defer s.traceMu.Unlock()
	end := "\n"
	if s.rawTrace {
		end = "\r\n"
	}
	fmt.Fprintf(s.transcript, format+end, args...)
}

type eventKind int

const (
	evServerClosed eventKind = iota
	evInputEOF
	evInputErr
	evEscape
)

type event struct {
	kind eventKind
	err  error
}

// Interact relays in to the server and the server to out until one side
// ends the session.
//
// When in is a terminal, it is put in raw mode (restored on every return,
// on a signal and on a panic), the escape key Ctrl-] ends the session, the
// window size is reported when the server asks (NAWS, RFC 1073) and the
// terminal type when it asks (TTYPE, RFC 1091). Otherwise in is read as
// lines, sent with CR LF ends, and the session ends when the server closes
// or the linger time after in ends. Either way out receives only the
// server's data: option negotiation never reaches it.
//
// A reader of in that cannot be interrupted (a pipe's read blocks until data
// or EOF) may stay blocked after Interact returns; it consumes at most one
// read's worth of input and sends nothing.
func (s *Session) Interact(ctx context.Context, in io.Reader, out io.Writer) error {
	if err := s.start(); err != nil {
		return err
	}
	defer s.Close()
	if in == nil {
		in = strings.NewReader("") // no input: the linger starts at once
	}
	local, err := takeTerminal(in)
	if err != nil {
		return err
	}
	defer local.release()
	s.rawTrace = local.isTerm
	neg, stopWindow := s.negotiate(local)
	defer stopWindow()
	writeOut := serialWriter(out)
	gate, login, stopGate := s.loginGate(local.isTerm)
	defer stopGate()
	events, stopRelays := s.relay(in, local, neg, login, gate, writeOut)
	defer stopRelays()
	return s.await(ctx, local.sigs, events, writeOut)
}

// start marks the session as connected; a second Interact is an error.
func (s *Session) start() error {
	s.startMu.Lock()
	defer s.startMu.Unlock()
	if s.started {
		return errors.New("telnet session: Interact called twice")
	}
	s.started = true
	return nil
}

// localSide is the person's end of a session: whether in is a terminal
// and, when it is, what puts it back.
type localSide struct {
	fd     int
	isTerm bool
	// restore leaves raw mode; it is safe to call more than once, and from
	// a goroutine that panics.
	restore func()
	// sigs delivers the signals that end a raw session; nil otherwise.
	sigs        <-chan os.Signal
	stopSignals func()
}

// takeTerminal puts in in raw mode when it is a terminal, and catches the
// signals that would otherwise end the program with the terminal raw.
func takeTerminal(in io.Reader) (*localSide, error) {
	l := &localSide{restore: func() {}, stopSignals: func() {}}
	l.fd, l.isTerm = terminalOf(in)
	if !l.isTerm {
		return l, nil
	}
	old, err := term.MakeRaw(l.fd)
	if err != nil {
		return nil, fmt.Errorf("telnet session: raw mode: %w", err)
	}
	var once sync.Once
	l.restore = func() { once.Do(func() { term.Restore(l.fd, old) }) }
	l.sigs, l.stopSignals = notifyInterrupt()
	return l, nil
}

// release stops catching signals and restores the terminal.
func (l *localSide) release() {
	l.stopSignals()
	l.restore()
}

// negotiate makes the option negotiator: on a terminal it reports the
// window size (NAWS, RFC 1073), again whenever the window changes, and the
// terminal type (TTYPE, RFC 1091). stop ends the watch on the window.
func (s *Session) negotiate(local *localSide) (neg *negotiator, stop func()) {
	neg = &negotiator{
		trace: func(dir string, seq []byte) { s.trace("%s %s", dir, describe(seq)) },
	}
	if !local.isTerm {
		return neg, func() {}
	}
	neg.size = func() (int, int, bool) {
		w, h, err := term.GetSize(local.fd)
		return w, h, err == nil
	}
	neg.termType = strings.ToUpper(os.Getenv("TERM"))
	stop = watchWindow(func() {
		if err := s.write(neg.naws()); err != nil {
			s.Close()
		}
	})
	return neg, stop
}

// serialWriter writes to out one caller at a time: the server's data and
// the local echo come from two goroutines.
func serialWriter(out io.Writer) func([]byte) error {
	var mu sync.Mutex
	return func(p []byte) error {
		if len(p) == 0 {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		_, err := out.Write(p)
		return err
	}
}

// loginGate decides when input may flow. With auto-login on a pipe, stdin
// waits until the login is done (the login program discards typed-ahead
// input when it asks for a password), or loginWait at most; otherwise the
// gate is open at once. login is nil without auto-login.
func (s *Session) loginGate(isTerm bool) (gate <-chan struct{}, login *loginWatcher, stop func()) {
	g := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(g) }) }
	if s.autoLogin && s.hasUser {
		login = &loginWatcher{s: s, done: open}
	}
	if login == nil || isTerm {
		open()
		return g, login, func() {}
	}
	t := time.AfterFunc(loginWait, open)
	return g, login, func() { t.Stop() }
}

// relay starts the two relays, the server to out and in to the server,
// which report how they end on events. stop closes the connection, which
// unblocks the reader and an input relay held at the gate, and waits for
// them, so that out is never written after Interact returns.
func (s *Session) relay(in io.Reader, local *localSide, neg *negotiator, login *loginWatcher, gate <-chan struct{}, writeOut func([]byte) error) (events <-chan event, stop func()) {
	ev := make(chan event, 4)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer repanic(local.restore)
		s.readLoop(neg, login, local.isTerm, writeOut, ev)
	}()
	inputDone := make(chan struct{})
	go func() {
		defer close(inputDone)
		defer repanic(local.restore)
		s.inputLoop(in, local.isTerm, neg, gate, writeOut, ev)
	}()
	return ev, func() {
		s.Close()
		stopInput(in, inputDone)
		<-readDone
	}
}

// await waits for the end of the session: the context done, a signal, the
// server closing, an input error, the escape key, or the linger time after
// the end of input.
func (s *Session) await(ctx context.Context, sigs <-chan os.Signal, events <-chan event, writeOut func([]byte) error) error {
	var lingerC <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return schemes.Errorf(schemes.ErrInterrupted, "telnet session: %v", ctx.Err())
		case sig := <-sigs:
			return schemes.Errorf(schemes.ErrInterrupted, "telnet session ended by %v", sig)
		case <-lingerC:
			return nil
		case ev := <-events:
			switch ev.kind {
			case evServerClosed, evInputErr:
				return ev.err
			case evEscape:
				writeOut([]byte("\r\n"))
				return nil
			case evInputEOF:
				t := time.NewTimer(s.linger)
				defer t.Stop()
				lingerC = t.C
			}
		}
	}
}

// readLoop relays the server to out and answers its option negotiation.
func (s *Session) readLoop(neg *negotiator, login *loginWatcher, isTerm bool, writeOut func([]byte) error, events chan<- event) {
	var ps parser
	dec := outputDecoder{terminal: isTerm}
	buf := make([]byte, 32<<10)
	var data, reply, text []byte
	for {
		n, err := s.conn.Read(buf)
		if n > 0 {
			data, reply = ps.feed(neg, buf[:n], data[:0], reply[:0])
			if werr := s.write(reply); werr != nil {
				events <- event{evServerClosed, dial.Classify(werr, "telnet: write to server")}
				return
			}
			text = dec.decode(text[:0], data)
			if werr := writeOut(text); werr != nil {
				events <- event{evServerClosed, fmt.Errorf("telnet session: writing output: %w", werr)}
				return
			}
			if login != nil {
				if werr := login.see(text); werr != nil {
					events <- event{evServerClosed, dial.Classify(werr, "telnet: auto-login")}
					return
				}
			}
		}
		if err != nil {
			writeOut(dec.finish(nil))
			select {
			case <-s.closing:
				// We closed the connection: not the server's doing.
				err = nil
			default:
				if errors.Is(err, io.EOF) {
					err = nil
				} else {
					err = dial.Classify(err, "telnet: read from server")
				}
			}
			events <- event{evServerClosed, err}
			return
		}
	}
}

// inputLoop relays in to the server.
func (s *Session) inputLoop(in io.Reader, isTerm bool, neg *negotiator, gate <-chan struct{}, writeOut func([]byte) error, events chan<- event) {
	var enc inputEncoder
	buf := make([]byte, 4096)
	var wire, echo []byte
	for {
		n, err := in.Read(buf)
		select {
		case <-gate:
		case <-s.closing:
			return
		}
		if n > 0 {
			chunk := buf[:n]
			escaped := false
			if isTerm {
				if i := bytes.IndexByte(chunk, EscapeKey); i >= 0 {
					chunk, escaped = chunk[:i], true
				}
			}
			wire = enc.encode(wire[:0], chunk, isTerm)
			if werr := s.write(wire); werr != nil {
				events <- event{evInputErr, dial.Classify(werr, "telnet: write to server")}
				return
			}
			if isTerm && !neg.serverEchoes() {
				// The server does not echo (RFC 857): a raw terminal shows
				// nothing unless the client echoes locally.
				echo = echo[:0]
				for _, c := range chunk {
					if c == '\r' {
						echo = append(echo, '\r', '\n')
					} else {
						echo = append(echo, c)
					}
				}
				writeOut(echo)
			}
			if escaped {
				events <- event{evEscape, nil}
				return
			}
		}
		if err == io.EOF {
			if werr := s.write(enc.finish(wire[:0])); werr != nil {
				events <- event{evInputErr, dial.Classify(werr, "telnet: write to server")}
				return
			}
			events <- event{evInputEOF, nil}
			return
		}
		if err != nil {
			select {
			case <-s.closing:
			default:
				events <- event{evInputErr, fmt.Errorf("telnet session: reading input: %w", err)}
			}
			return
		}
	}
}

// stopInput unblocks the input reader when in supports read deadlines (a
// terminal opened by path does) and waits for it, then clears the deadline
// so in is usable again. A file in blocking mode accepts a deadline without
// honouring it, so the wait is bounded.
func stopInput(in io.Reader, done <-chan struct{}) {
	d, ok := in.(interface{ SetReadDeadline(time.Time) error })
	if !ok || d.SetReadDeadline(time.Now()) != nil {
		return
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	d.SetReadDeadline(time.Time{})
}

// repanic restores the terminal before a panic in a session goroutine ends
// the program, which would otherwise leave the terminal raw.
func repanic(restore func()) {
	if r := recover(); r != nil {
		restore()
		panic(r)
	}
}

// terminalOf reports whether in is a terminal, and its file descriptor.
// The descriptor comes through SyscallConn rather than Fd, because Fd puts
// the file in blocking mode and read deadlines would stop working on it.
func terminalOf(in io.Reader) (fd int, ok bool) {
	f, isFile := in.(*os.File)
	if !isFile {
		return -1, false
	}
	fd = -1
	if rc, err := f.SyscallConn(); err == nil {
		rc.Control(func(d uintptr) { fd = int(d) })
	}
	if fd < 0 || !term.IsTerminal(fd) {
		return -1, false
	}
	return fd, true
}

// loginWatcher answers the server's login and password prompts with the
// URL's user and password, once each, then holds stdin back until the shell
// is reading: the login program discards input typed ahead of the shell
// (as Debian's login does after a successful password), so stdin flows only
// once a shell prompt ends the output, or the server has been quiet for
// loginQuiet. A second "login:" after the password means the server refused
// the user or password.
type loginWatcher struct {
	s     *Session
	stage int // 0: await "login:", 1: await "password:", 2: await the shell, 3: done
	tail  []byte
	done  func()
	quiet *time.Timer
}

func (l *loginWatcher) see(text []byte) error {
	if l.stage == 3 || len(text) == 0 {
		return nil
	}
	l.tail = append(l.tail, text...)
	if len(l.tail) > 64 {
		l.tail = append(l.tail[:0], l.tail[len(l.tail)-64:]...)
	}
	prompt := strings.ToLower(strings.TrimRight(string(l.tail), " \t"))
	switch {
	case l.stage == 0 && strings.HasSuffix(prompt, "login:"):
		l.tail = l.tail[:0]
		l.s.trace("> %s (auto-login)", l.s.user)
		if err := l.s.write(appendEscaped(nil, []byte(l.s.user+"\r\n"))); err != nil {
			return err
		}
		if !l.s.hasPassword {
			// The person types the password; nothing more to wait for.
			l.finish()
			return nil
		}
		l.stage = 1
	case l.stage == 1 && strings.HasSuffix(prompt, "password:"):
		l.tail = l.tail[:0]
		l.s.trace("> **** (auto-login)")
		if err := l.s.write(appendEscaped(nil, []byte(l.s.password+"\r\n"))); err != nil {
			return err
		}
		l.stage = 2
		l.quiet = time.AfterFunc(loginQuiet, l.done)
	case l.stage == 2 && loginAgain(prompt):
		// The session ends here: stdin must not reach the login prompt.
		l.quiet.Stop()
		l.stage = 3
		return schemes.Errorf(schemes.ErrAuth, "telnet: the server asked for the login again: it refused the URL's user %q or its password", l.s.user)
	case l.stage == 2 && shellPrompt(prompt):
		l.finish()
	case l.stage == 2:
		l.quiet.Reset(loginQuiet)
	}
	return nil
}

// finish ends the watch and lets stdin flow.
func (l *loginWatcher) finish() {
	if l.quiet != nil {
		l.quiet.Stop()
	}
	l.stage = 3
	l.tail = nil
	l.done()
}

// loginAgain reports whether output ends in a fresh login prompt, not in
// the "Last login:" line of a successful one.
func loginAgain(s string) bool {
	line := s[strings.LastIndexAny(s, "\r\n")+1:]
	return strings.HasSuffix(line, "login:") && !strings.Contains(line, "last login")
}

// shellPrompt reports whether output ends the way a shell prompt does: with
// $, #, % or > (and the space after it, already trimmed), not a line end.
func shellPrompt(s string) bool {
	if s == "" {
		return false
	}
	return strings.ContainsRune("$#%>", rune(s[len(s)-1]))
}
