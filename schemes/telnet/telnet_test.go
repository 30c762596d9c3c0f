package telnet

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// scripted runs script against the one connection a test makes and reports
// its outcome on the returned channel.
func scripted(t *testing.T, script func(c net.Conn, r *bufio.Reader) error) (*schemes.URL, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		done <- script(c, bufio.NewReader(c))
	}()
	addr := ln.Addr().(*net.TCPAddr)
	return &schemes.URL{Scheme: "telnet", Host: "127.0.0.1", Port: addr.Port, Telnet: &schemes.Telnet{}}, done
}

// expect reads exactly len(want) bytes and compares them.
func expect(r *bufio.Reader, want []byte) error {
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil {
		return fmt.Errorf("waiting for %q: got %q: %w", want, got, err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("client sent %q, want %q", got, want)
	}
	return nil
}

func iac(b ...byte) []byte { return append([]byte{cmdIAC}, b...) }

// connect fetches req with f and returns its session.
func connect(t *testing.T, f *Fetcher, req *schemes.Request) schemes.Session {
	t.Helper()
	if req.Dialer == nil {
		req.Dialer = &dial.Dialer{}
	}
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != schemes.KindSession || resp.Session == nil {
		t.Fatalf("kind %v", resp.Kind)
	}
	t.Cleanup(func() { resp.Close() })
	return resp.Session
}

// interact runs Interact and fails the test if it does not return in time.
func interact(t *testing.T, s schemes.Session, ctx context.Context, in io.Reader, out io.Writer) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- s.Interact(ctx, in, out) }()
	select {
	case err := <-res:
		return err
	case <-time.After(15 * time.Second):
		t.Fatal("Interact did not return")
		return nil
	}
}

func TestNegotiationStrippedFromOutput(t *testing.T) {
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		// Commands split across writes and mixed into the data.
		writes := [][]byte{
			append([]byte("hel"), iac(cmdDO, optTType)...),
			append(iac(cmdWILL, optEcho), []byte("lo\r")...),
			{'\n', cmdIAC},
			{cmdDO, optNAWS, 'w', cmdIAC, cmdSB, optTType, ttypeSEND, cmdIAC, cmdSE},
			append([]byte("orld\r\n"), iac(cmdWILL, 42)...),
			append(iac(cmdNOP), []byte("bare\r\x00cr\r\n")...),
		}
		for _, w := range writes {
			if _, err := c.Write(w); err != nil {
				return err
			}
		}
		// Answers in order: DONT for nothing asked, WONT TTYPE and NAWS
		// (no terminal), DO ECHO, DONT 42 (unknown option).
		want := bytes.Join([][]byte{iac(cmdWONT, optTType), iac(cmdDO, optEcho), iac(cmdWONT, optNAWS), iac(cmdDONT, 42)}, nil)
		return expect(r, want)
	})
	s := connect(t, &Fetcher{Linger: time.Minute}, &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	var out bytes.Buffer
	if err := interact(t, s, context.Background(), strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "hello\nworld\nbare\rcr\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if bytes.IndexByte(out.Bytes(), cmdIAC) >= 0 {
		t.Error("an IAC byte reached the output")
	}
}

func TestPipedInputLineEnds(t *testing.T) {
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		// NVT line ends: LF and CR LF become CR LF, a bare CR is CR NUL,
		// a data byte 255 is doubled.
		return expect(r, []byte("echo one\r\nline two\r\nx\r\x00y\xff\xffz\r\n"))
		// Returning closes the connection: the session must end.
	})
	s := connect(t, &Fetcher{Linger: time.Minute}, &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	pr, pw := io.Pipe()
	go func() {
		for _, part := range []string{"echo one\n", "line two\r", "\nx\r", "y\xffz\n"} {
			pw.Write([]byte(part))
		}
		// stdin stays open: only the server's close can end the session.
	}()
	t.Cleanup(func() { pw.Close() })
	var out bytes.Buffer
	if err := interact(t, s, context.Background(), pr, &out); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestLingerAfterStdinEnds(t *testing.T) {
	serverSaw := make(chan error, 1)
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		if err := expect(r, []byte("last\r\n")); err != nil {
			return err
		}
		c.Write([]byte("still here\r\n"))
		// The server never closes: the client must, after the linger.
		_, err := r.ReadByte()
		serverSaw <- err
		return nil
	})
	const linger = 300 * time.Millisecond
	s := connect(t, &Fetcher{Linger: linger}, &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	var out syncBuffer
	start := time.Now()
	if err := interact(t, s, context.Background(), strings.NewReader("last\n"), &out); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < linger {
		t.Errorf("session ended after %v, before the linger of %v", elapsed, linger)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-serverSaw; err != io.EOF {
		t.Errorf("server read %v after the linger, want EOF (client closed)", err)
	}
	if !strings.Contains(out.String(), "still here\n") {
		t.Errorf("output %q", out.String())
	}
}

// nothingFor fails if the client sends anything within d.
func nothingFor(c net.Conn, r *bufio.Reader, d time.Duration) error {
	c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := r.ReadByte()
	if err == nil {
		rest, _ := r.Peek(r.Buffered())
		return fmt.Errorf("client sent %q before the shell prompt", append([]byte{b}, rest...))
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return nil
	}
	return err
}

func TestAutoLoginRefused(t *testing.T) {
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		c.Write([]byte("host login: "))
		if err := expect(r, []byte("gofer\r\n")); err != nil {
			return err
		}
		c.Write([]byte("Password: "))
		if err := expect(r, []byte("wrong\r\n")); err != nil {
			return err
		}
		c.Write([]byte("\r\nLogin incorrect\r\nhost login: "))
		// Nothing more: neither stdin nor the user name a second time.
		if b, err := io.ReadAll(r); len(b) != 0 {
			return fmt.Errorf("client sent %q after the refusal (%v)", b, err)
		}
		return nil
	})
	u.User, u.HasUser = "gofer", true
	u.Password, u.HasPassword = "wrong", true
	s := connect(t, &Fetcher{AutoLogin: true, Linger: time.Minute}, &schemes.Request{URL: u, Warn: func(string) {}, Settings: &schemes.Settings{}})
	err := interact(t, s, context.Background(), strings.NewReader("echo hi\n"), io.Discard)
	if !errors.Is(err, schemes.ErrAuth) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("err %v, want an authentication error", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestAutoLogin(t *testing.T) {
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		c.Write([]byte("Debian GNU/Linux\r\nhost login: "))
		// Stdin is ready from the start; it must wait for the login, or
		// "echo hi" would arrive here as the user name.
		if err := expect(r, []byte("gofer\r\n")); err != nil {
			return err
		}
		c.Write([]byte("Password: "))
		if err := expect(r, []byte("gofer-\xff\xffsecret\r\n")); err != nil {
			return err
		}
		// Output after the password is not yet the shell: login discards
		// what is typed ahead of it, so stdin waits for the prompt.
		c.Write([]byte("\r\n"))
		c.Write([]byte("Last login: Sun Nov 22 09:19:35 UTC 2026 from localhost on pts/0\r\n"))
		if err := nothingFor(c, r, 300*time.Millisecond); err != nil {
			return err
		}
		c.Write([]byte("$ "))
		if err := expect(r, []byte("echo hi\r\n")); err != nil {
			return err
		}
		c.Write([]byte("hi\r\n"))
		return nil
	})
	u.User, u.HasUser = "gofer", true
	u.Password, u.HasPassword = "gofer-\xffsecret", true
	var warnings []string
	var transcript bytes.Buffer
	req := &schemes.Request{
		URL:      u,
		Warn:     func(m string) { warnings = append(warnings, m) },
		Settings: &schemes.Settings{Transcript: &transcript},
	}
	s := connect(t, &Fetcher{AutoLogin: true, Linger: time.Minute}, req)
	var out bytes.Buffer
	if err := interact(t, s, context.Background(), strings.NewReader("echo hi\n"), &out); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "$ hi\n") {
		t.Errorf("output %q", out.String())
	}
	all := out.String() + strings.Join(warnings, "\n") + transcript.String()
	if strings.Contains(all, "secret") {
		t.Errorf("the password was shown: %q", all)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `"gofer"`) {
		t.Errorf("warnings %q", warnings)
	}
	if !strings.Contains(transcript.String(), "> ****") {
		t.Errorf("transcript %q lacks the masked password", transcript.String())
	}
}

func TestNoAutoLoginSendsNothing(t *testing.T) {
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		c.Write([]byte("login: "))
		// Without --auto-login the first thing the client sends is stdin.
		return expect(r, []byte("typed\r\n"))
	})
	u.User, u.HasUser = "gofer", true
	u.Password, u.HasPassword = "pw", true
	var warnings []string
	s := connect(t, &Fetcher{Linger: time.Minute}, &schemes.Request{URL: u, Warn: func(m string) { warnings = append(warnings, m) }, Settings: &schemes.Settings{}})
	var out bytes.Buffer
	if err := interact(t, s, context.Background(), strings.NewReader("typed\n"), &out); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `logging in as "gofer"`) || strings.Contains(warnings[0], "pw") {
		t.Errorf("warnings %q", warnings)
	}
}

func TestCancelEndsSession(t *testing.T) {
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		c.Write([]byte("hello\r\n"))
		_, err := r.ReadByte()
		if err != io.EOF {
			return fmt.Errorf("read %v, want EOF", err)
		}
		return nil
	})
	s := connect(t, &Fetcher{Linger: time.Minute}, &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	ctx, cancel := context.WithCancel(context.Background())
	out := &notifyWriter{wrote: make(chan struct{}, 1)}
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	go func() {
		<-out.wrote
		cancel()
	}()
	err := interact(t, s, ctx, pr, out)
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Errorf("cancelled session: %v, want ErrInterrupted", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestUserWithIACRefusedBeforeDialing(t *testing.T) {
	var dialed atomic.Bool
	d := dialerFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed.Store(true)
		return nil, errors.New("no")
	})
	for _, user := range []string{"a\xffb", "a\r\nb", "a\x00"} {
		u := &schemes.URL{Scheme: "telnet", Host: "127.0.0.1", User: user, HasUser: true, Telnet: &schemes.Telnet{}}
		_, err := New().Fetch(context.Background(), &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: d}})
		if !errors.Is(err, security.ErrInjection) {
			t.Errorf("user %q: %v, want ErrInjection", user, err)
		}
	}
	if dialed.Load() {
		t.Error("dialed despite the refusal")
	}
}

func TestPlanShowsUserNotPassword(t *testing.T) {
	u := &schemes.URL{Scheme: "telnet", Host: "127.0.0.23", User: "gofer", HasUser: true,
		Password: "gofer-secret", HasPassword: true, Telnet: &schemes.Telnet{}}
	plan, err := New().Plan(&schemes.Request{URL: u, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Requests) != 0 || plan.Notes["login"] != "gofer (advisory)" {
		t.Errorf("plan %+v", plan)
	}
	if strings.Contains(fmt.Sprint(plan), "secret") {
		t.Errorf("plan shows the password: %+v", plan)
	}
}

func TestHandoff(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	rl := &schemes.URL{Scheme: "rlogin", Host: "127.0.0.1", Port: 1513, User: "gofer", HasUser: true, Telnet: &schemes.Telnet{}}
	tn := &schemes.URL{Scheme: "tn3270", Host: "127.0.0.1", Telnet: &schemes.Telnet{}}

	// Nothing installed: an ErrMissingProgram error naming the package.
	for _, c := range []struct {
		u   *schemes.URL
		pkg string
	}{{rl, "rsh-client"}, {tn, "c3270"}} {
		_, err := New().Fetch(context.Background(), &schemes.Request{URL: c.u, Settings: &schemes.Settings{}})
		if err == nil || !strings.Contains(err.Error(), "install the Debian package "+c.pkg) {
			t.Errorf("%s without a program: %v", c.u.Scheme, err)
		}
		if !errors.Is(err, schemes.ErrMissingProgram) {
			t.Errorf("%s: %v; want the missing-program kind (exit 1)", c.u.Scheme, err)
		}
	}

	for _, prog := range []string{"rlogin", "x3270"} {
		if err := os.WriteFile(filepath.Join(dir, prog), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := New().Fetch(context.Background(), &schemes.Request{URL: rl, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "rlogin"), "-l", "gofer", "-p", "1513", "127.0.0.1"}
	if resp.Kind != schemes.KindHandoff || !reflect.DeepEqual(resp.Command, want) {
		t.Errorf("rlogin: kind %v command %q, want %q", resp.Kind, resp.Command, want)
	}
	resp, err = New().Fetch(context.Background(), &schemes.Request{URL: tn, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{filepath.Join(dir, "x3270"), "127.0.0.1:23"}
	if !reflect.DeepEqual(resp.Command, want) || resp.Type != schemes.TypeTN3270 {
		t.Errorf("tn3270: command %q type %q, want %q", resp.Command, resp.Type, want)
	}
	// c3270 is preferred when both are there.
	if err := os.WriteFile(filepath.Join(dir, "c3270"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	resp, _ = New().Fetch(context.Background(), &schemes.Request{URL: tn, Settings: &schemes.Settings{}})
	if resp == nil || resp.Command[0] != filepath.Join(dir, "c3270") {
		t.Errorf("tn3270 with c3270 installed: %v", resp)
	}

	bad := &schemes.URL{Scheme: "rlogin", Host: "-oProxyCommand=x", Telnet: &schemes.Telnet{}}
	if _, err := New().Fetch(context.Background(), &schemes.Request{URL: bad, Settings: &schemes.Settings{}}); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("host that looks like an option: %v, want ErrUsage", err)
	}
}

func TestParserSplitAnywhere(t *testing.T) {
	stream := bytes.Join([][]byte{
		[]byte("a"), iac(cmdWILL, optEcho), []byte("b"), iac(cmdIAC), []byte("c"),
		iac(cmdSB, optNAWS, 1, cmdIAC, cmdIAC, 2, cmdIAC, cmdSE), []byte("d"), iac(cmdGA), []byte("e"),
	}, nil)
	for split := 0; split <= len(stream); split++ {
		var ps parser
		n := &negotiator{}
		data, reply := ps.feed(n, stream[:split], nil, nil)
		data, reply = ps.feed(n, stream[split:], data, reply)
		if string(data) != "ab\xffcde" {
			t.Errorf("split at %d: data %q", split, data)
		}
		if !bytes.Equal(reply, iac(cmdDO, optEcho)) {
			t.Errorf("split at %d: reply %q", split, reply)
		}
	}
}

func TestNegotiatorNoLoops(t *testing.T) {
	n := &negotiator{}
	if got := n.command(cmdWILL, optSGA); !bytes.Equal(got, iac(cmdDO, optSGA)) {
		t.Errorf("first WILL SGA: %q", got)
	}
	// RFC 854: a request to enter a mode already in is not answered.
	if got := n.command(cmdWILL, optSGA); len(got) != 0 {
		t.Errorf("second WILL SGA answered %q", got)
	}
	if got := n.command(cmdWONT, optSGA); !bytes.Equal(got, iac(cmdDONT, optSGA)) {
		t.Errorf("WONT SGA: %q", got)
	}
	if got := n.command(cmdDONT, optNAWS); len(got) != 0 {
		t.Errorf("DONT for an option never on answered %q", got)
	}
}

type dialerFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (f dialerFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// notifyWriter signals its first write.
type notifyWriter struct {
	syncBuffer
	wrote chan struct{}
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return n, err
}
