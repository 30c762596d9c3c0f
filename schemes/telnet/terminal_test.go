//go:build linux

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
	"reflect"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/goferurl/gofer/schemes"
)

func openPTY(t *testing.T, cols, rows uint16) (ptm, pts *os.File) {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptm.Close(); pts.Close() })
	if err := pty.Setsize(ptm, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		t.Fatal(err)
	}
	return ptm, pts
}

// termios reads f's settings without f.Fd(), which would put f in blocking
// mode and take away the read deadline Interact uses to stop its reader.
func termios(t *testing.T, f *os.File) *unix.Termios {
	t.Helper()
	tio, err := getTermios(f)
	if err != nil {
		t.Fatal(err)
	}
	return tio
}

func getTermios(f *os.File) (*unix.Termios, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var tio *unix.Termios
	cerr := rc.Control(func(fd uintptr) { tio, err = unix.IoctlGetTermios(int(fd), unix.TCGETS) })
	if cerr != nil {
		return nil, cerr
	}
	return tio, err
}

func naws(w, h int) []byte {
	return []byte{cmdIAC, cmdSB, optNAWS, byte(w >> 8), byte(w), byte(h >> 8), byte(h), cmdIAC, cmdSE}
}

// TestTerminalSession drives a session whose stdin is a pseudo-terminal:
// raw mode while it runs, NAWS and TTYPE answered, typed keys sent as NVT
// data, the escape key ending it, and the terminal restored afterwards.
func TestTerminalSession(t *testing.T) {
	ptm, pts := openPTY(t, 101, 33)
	t.Setenv("TERM", "xterm-256color")
	before := termios(t, pts)

	typeNow := make(chan string)
	rawDuring := make(chan *unix.Termios, 1)
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		c.Write(bytes.Join([][]byte{iac(cmdDO, optNAWS), iac(cmdDO, optTType), iac(cmdWILL, optEcho),
			iac(cmdSB, optTType, ttypeSEND, cmdIAC, cmdSE)}, nil))
		want := bytes.Join([][]byte{iac(cmdWILL, optNAWS), naws(101, 33), iac(cmdWILL, optTType), iac(cmdDO, optEcho),
			iac(cmdSB, optTType, ttypeIS), []byte("XTERM-256COLOR"), iac(cmdSE)}, nil)
		if err := expect(r, want); err != nil {
			return err
		}
		tio, err := getTermios(pts)
		if err != nil {
			return err
		}
		rawDuring <- tio
		c.Write([]byte("ready\r\n"))

		typeNow <- "ab\r"
		if err := expect(r, []byte("ab\r\x00")); err != nil {
			return err
		}
		// A new window size is reported on SIGWINCH (RFC 1073).
		typeNow <- "resize"
		if err := expect(r, naws(120, 40)); err != nil {
			return err
		}
		typeNow <- "\x1d"
		rest, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if len(rest) != 0 {
			return fmt.Errorf("after the escape key the client sent %q", rest)
		}
		return nil
	})
	s := connect(t, New(), &schemes.Request{URL: u, Settings: &schemes.Settings{}})

	go func() {
		for keys := range typeNow {
			if keys == "resize" {
				pty.Setsize(ptm, &pty.Winsize{Cols: 120, Rows: 40})
				syscall.Kill(os.Getpid(), syscall.SIGWINCH)
				continue
			}
			ptm.Write([]byte(keys))
		}
	}()
	var out syncBuffer
	err := interact(t, s, context.Background(), pts, &out)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	tio := <-rawDuring
	if tio.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("terminal not raw during the session: lflag %#x", tio.Lflag)
	}
	if after := termios(t, pts); !reflect.DeepEqual(before, after) {
		t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", before, after)
	}
	if got := out.String(); !bytes.Contains([]byte(got), []byte("ready\r\n")) || bytes.Contains([]byte(got), []byte("ab")) {
		// The server echoes (WILL ECHO): the client must not echo too.
		t.Errorf("output %q", got)
	}
}

// TestTerminalRestoredOnCancel: an interrupted session leaves the terminal
// as it found it.
func TestTerminalRestoredOnCancel(t *testing.T) {
	_, pts := openPTY(t, 80, 24)
	before := termios(t, pts)
	ctx, cancel := context.WithCancel(context.Background())
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		c.Write([]byte("hello\r\n"))
		_, err := r.ReadByte()
		if err != io.EOF {
			return fmt.Errorf("read %v, want EOF", err)
		}
		return nil
	})
	s := connect(t, New(), &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	out := &notifyWriter{wrote: make(chan struct{}, 1)}
	go func() {
		<-out.wrote
		cancel()
	}()
	err := interact(t, s, ctx, pts, out)
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Errorf("err %v, want ErrInterrupted", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if after := termios(t, pts); !reflect.DeepEqual(before, after) {
		t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", before, after)
	}
}

// TestTerminalLocalEcho: when the server does not echo, a raw terminal
// would show nothing, so the client echoes typed keys itself.
func TestTerminalLocalEcho(t *testing.T) {
	ptm, pts := openPTY(t, 80, 24)
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		c.Write([]byte("> "))
		return expect(r, []byte("hi\r\x00"))
	})
	s := connect(t, New(), &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	out := &notifyWriter{wrote: make(chan struct{}, 1)}
	go func() {
		<-out.wrote // the prompt is shown: type
		ptm.Write([]byte("hi\r"))
	}()
	if err := interact(t, s, context.Background(), pts, out); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "> hi\r\n" {
		t.Errorf("output %q, want the prompt and the local echo", got)
	}
}

// TestTerminalRestoredOnSignal: a SIGINT from outside (the keyboard's ^C is
// data in raw mode) ends the session as interrupted, terminal restored.
func TestTerminalRestoredOnSignal(t *testing.T) {
	_, pts := openPTY(t, 80, 24)
	before := termios(t, pts)
	u, done := scripted(t, func(c net.Conn, r *bufio.Reader) error {
		c.Write(iac(cmdDO, optSGA))
		// The answer proves the session runs, so its signal handler is in
		// place before the signal is sent.
		if err := expect(r, iac(cmdWILL, optSGA)); err != nil {
			return err
		}
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			return err
		}
		if _, err := r.ReadByte(); err != io.EOF {
			return fmt.Errorf("read %v, want EOF", err)
		}
		return nil
	})
	s := connect(t, New(), &schemes.Request{URL: u, Settings: &schemes.Settings{}})
	err := interact(t, s, context.Background(), pts, io.Discard)
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Errorf("err %v, want ErrInterrupted", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if after := termios(t, pts); !reflect.DeepEqual(before, after) {
		t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", before, after)
	}
}
