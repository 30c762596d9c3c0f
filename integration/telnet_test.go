package integration_test

// gofer against the harness's inetutils-telnetd (integration/LAYOUT.md):
// piped sessions that log in and run a command, with and without
// --auto-login, a terminal session under a pseudo-terminal that reports its
// window size and is restored after the escape key, and the rlogin hand-off.

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/goferurl/gofer/integration/itest"
)

const telnetServer = itest.TelnetHost + ":23"

// screen collects what a process writes and lets a test wait for text in it.
type screen struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
	closed  bool
}

func newScreen(r io.Reader) *screen {
	s := &screen{changed: make(chan struct{}, 1)}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			s.mu.Lock()
			s.buf.Write(b[:n])
			if err != nil {
				s.closed = true
			}
			s.mu.Unlock()
			select {
			case s.changed <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until text appears after byte offset from, and returns the
// offset just past it.
func (s *screen) waitFor(t *testing.T, text string, from int) int {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		all := s.buf.String()
		closed := s.closed
		s.mu.Unlock()
		if from <= len(all) {
			if i := strings.Index(all[from:], text); i >= 0 {
				return from + i + len(text)
			}
		}
		if closed {
			t.Fatalf("output ended without %q:\n%s", text, all)
		}
		select {
		case <-s.changed:
		case <-deadline.C:
			t.Fatalf("no %q in the output after 30 s:\n%s", text, all)
		}
	}
}

func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("gofer: %v", err)
		}
		return 0
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("gofer did not exit")
		return -1
	}
}

// TestGoferTelnetPipedLogin types the login as a person would, each answer
// after its prompt, through a pipe.
func TestGoferTelnetPipedLogin(t *testing.T) {
	// Alone (no itest.Parallel): a login session's timing is the server's,
	// and the parallel tests' load has cost a typed-ahead command once.
	itest.Require(t, telnetServer)
	cmd := exec.CommandContext(itest.Context(t), itest.Gofer(t), "get", "telnet://"+itest.TelnetHost+"/")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	out := newScreen(stdout)

	at := out.waitFor(t, "login: ", 0)
	io.WriteString(stdin, itest.LocalUser+"\n")
	at = out.waitFor(t, "Password:", at)
	io.WriteString(stdin, itest.LocalPassword+"\n")
	at = out.waitFor(t, "$ ", at)
	io.WriteString(stdin, "echo MARK$((6*7))\n")
	out.waitFor(t, "MARK42", at)
	io.WriteString(stdin, "exit\n")
	// stdin stays open: the server's close ends the session.
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	all := out.String()
	if strings.IndexByte(all, 0xFF) >= 0 {
		t.Errorf("an IAC byte reached stdout:\n%q", all)
	}
	if strings.Contains(all, "\r\n") {
		t.Errorf("CR LF line ends on a pipe, want LF:\n%q", all)
	}
	if strings.Contains(all, itest.LocalPassword) {
		t.Error("the password shows in the output")
	}
}

// TestGoferTelnetAutoLogin gives all of stdin at once; --auto-login answers
// the prompts from the URL and holds stdin back until the login is done.
func TestGoferTelnetAutoLogin(t *testing.T) {
	// Alone (no itest.Parallel): a login session's timing is the server's,
	// and the parallel tests' load has cost a typed-ahead command once.
	itest.Require(t, telnetServer)
	u := "telnet://" + itest.LocalUser + ":" + itest.LocalPassword + "@" + itest.TelnetHost + "/"
	code, out, errOut := runCLI(t, t.TempDir(), []byte("echo MARK$((6*7))\nexit\n"), "get", "-v", "--auto-login", u)
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	// The command's output, not just its echo: "MARK42" on a line of its own.
	if !strings.Contains(out, "\nMARK42\n") {
		t.Errorf("no MARK42 line in the output:\n%s", out)
	}
	if strings.IndexByte(out, 0xFF) >= 0 {
		t.Errorf("an IAC byte reached stdout:\n%q", out)
	}
	if strings.Contains(out+errOut, itest.LocalPassword) {
		t.Errorf("the password shows:\nstdout %q\nstderr %q", out, errOut)
	}
	if !strings.Contains(errOut, `logging in as "gofer"`) || !strings.Contains(errOut, "> ****") {
		t.Errorf("stderr lacks the advisory login or the masked password:\n%s", errOut)
	}
}

// TestGoferTelnetNoAutoLoginIsAdvisory: without --auto-login the URL's
// login is only suggested; nothing is typed for the person.
func TestGoferTelnetNoAutoLoginIsAdvisory(t *testing.T) {
	// Alone (no itest.Parallel): a login session's timing is the server's,
	// and the parallel tests' load has cost a typed-ahead command once.
	itest.Require(t, telnetServer)
	u := "telnet://" + itest.LocalUser + ":" + itest.LocalPassword + "@" + itest.TelnetHost + "/"
	code, out, errOut := runCLI(t, t.TempDir(), nil, "get", "--linger", "2s", u)
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, `logging in as "gofer"`) || strings.Contains(errOut, itest.LocalPassword) {
		t.Errorf("stderr %q", errOut)
	}
	// The session ended by the linger at the login prompt, nobody logged in.
	if !strings.HasSuffix(out, "login: ") || strings.Contains(out, "$ ") {
		t.Errorf("stdout %q", out)
	}
}

func termiosOf(t *testing.T, f *os.File) *unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio
}

// TestGoferTelnetTerminal runs gofer on a pseudo-terminal: the terminal is
// raw during the session, the server learns its size (NAWS: `stty size` on
// the server), Ctrl-] ends the session with exit 0, and the terminal's
// settings afterwards equal those before.
func TestGoferTelnetTerminal(t *testing.T) {
	// Alone (no itest.Parallel): a login session's timing is the server's,
	// and the parallel tests' load has cost a typed-ahead command once.
	itest.Require(t, telnetServer)
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	if err := pty.Setsize(ptm, &pty.Winsize{Rows: 33, Cols: 101}); err != nil {
		t.Fatal(err)
	}
	before := termiosOf(t, pts)

	cmd := exec.CommandContext(itest.Context(t), itest.Gofer(t), "get", "telnet://"+itest.TelnetHost+"/")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "TERM=xterm"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	screen := newScreen(ptm)

	at := screen.waitFor(t, "login: ", 0)
	if tio := termiosOf(t, pts); tio.Lflag&(unix.ICANON|unix.ECHO) != 0 {
		t.Errorf("terminal not raw during the session: lflag %#x", tio.Lflag)
	}
	ptm.Write([]byte(itest.LocalUser + "\r"))
	at = screen.waitFor(t, "Password:", at)
	ptm.Write([]byte(itest.LocalPassword + "\r"))
	at = screen.waitFor(t, "$ ", at)
	ptm.Write([]byte("stty size\r"))
	at = screen.waitFor(t, "33 101", at)
	screen.waitFor(t, "$ ", at)
	ptm.Write([]byte{0x1d}) // Ctrl-]
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit %d after the escape key:\n%s", code, screen.String())
	}
	if after := termiosOf(t, pts); !reflect.DeepEqual(before, after) {
		t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", before, after)
	}
	if strings.Contains(screen.String(), itest.LocalPassword) {
		t.Error("the password was echoed")
	}
}

// TestGoferRloginHandoff: rlogin URLs run the installed rlogin, each part a
// separate argument, never through a shell; without one, exit 1 naming the
// package to install.
func TestGoferRloginHandoff(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	bin := t.TempDir()
	cmd := exec.CommandContext(itest.Context(t), itest.Gofer(t), "get", "rlogin://gofer@127.0.0.1/")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "rsh-client") {
		t.Errorf("no rlogin installed: %v, stderr %q; want exit 1 naming rsh-client", err, stderr.String())
	}

	// A stand-in rlogin that prints its arguments one a line.
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done\n"
	if err := os.WriteFile(filepath.Join(bin, "rlogin"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.CommandContext(itest.Context(t), itest.Gofer(t), "get", "rlogin://gofer%20x;id@127.0.0.1/")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir()}
	stdout.Reset()
	stderr.Reset()
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v, stderr %q", err, stderr.String())
	}
	if got, want := stdout.String(), "[-l]\n[gofer x;id]\n[127.0.0.1]\n"; got != want {
		t.Errorf("rlogin got arguments %q, want %q", got, want)
	}
}

// TestGoferParseTelnet: parse names the advisory login, never the password,
// and sends nothing.
func TestGoferParseTelnet(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	code, out, errOut := runCLI(t, t.TempDir(), nil, "parse", "telnet://gofer:gofer-secret@127.0.0.23/")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if !strings.Contains(out, "gofer (advisory)") || strings.Contains(out+errOut, "gofer-secret") {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
}
