package relay

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

// The relay is an instrument: these tests check its reading. The delays
// are lower bounds by construction (the relay never delivers early), so
// each check asserts the configured time as a floor and allows a margin
// above it for a busy two-core machine.
const (
	rtt    = 60 * time.Millisecond
	margin = 25 * time.Millisecond
)

func within(t *testing.T, what string, got, want time.Duration) {
	t.Helper()
	if got < want-2*time.Millisecond || got > want+margin {
		t.Errorf("%s took %v, want %v (to +%v)", what, got.Round(time.Millisecond), want, margin)
	}
}

// withinRepeated is within for an exchange made several times: each must
// take the delay, and the fastest no more than the margin over it, so that
// a moment the loaded machine gave to other work fails no run.
func withinRepeated(t *testing.T, what string, runs []time.Duration, want time.Duration) {
	t.Helper()
	for _, got := range runs {
		if got < want-2*time.Millisecond {
			t.Errorf("%s took %v, less than the delay %v", what, got.Round(time.Millisecond), want)
		}
	}
	within(t, what+" (the fastest of "+strconv.Itoa(len(runs))+")", slices.Min(runs), want)
}

// greeter is a scripted server that speaks first, then echoes lines.
func greeter(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.WriteString(c, "220 hello\r\n")
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					io.WriteString(c, "200 "+line)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func start(t *testing.T, target string, ftp bool, cfg Config) *Relay {
	t.Helper()
	r, err := Listen("127.0.0.1:0", target, ftp, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// A connection costs what its handshake would: a server that speaks first
// is heard 2 RTT after connect; then every exchange costs one RTT.
func TestConnectAndRoundTrip(t *testing.T) {
	r := start(t, greeter(t), false, Config{RTT: rtt})
	// Three connections, the fastest measured, as for the exchanges below:
	// a moment the loaded machine gave to other work fails no run.
	var greets []time.Duration
	var c net.Conn
	var tp *textproto.Conn
	for range 3 {
		if c != nil {
			c.Close()
		}
		t0 := time.Now()
		var err error
		if c, err = net.Dial("tcp", r.Addr()); err != nil {
			t.Fatal(err)
		}
		tp = textproto.NewConn(c)
		if _, _, err := tp.ReadResponse(220); err != nil {
			t.Fatal(err)
		}
		greets = append(greets, time.Since(t0))
	}
	defer c.Close()
	withinRepeated(t, "connect to greeting", greets, 2*rtt)
	var runs []time.Duration
	for i := 0; i < 3; i++ {
		t1 := time.Now()
		if err := tp.PrintfLine("NOOP"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tp.ReadResponse(200); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, time.Since(t1))
	}
	withinRepeated(t, "NOOP round trip", runs, rtt)
	c.Close()
	r.Close()
	if got := r.Counts(); got.Conns != 3 || got.Turns != 3 {
		t.Errorf("counts %+v, want 3 connections and 3 turns", got)
	}
}

// Pipelined commands are one turn and one round trip.
func TestPipelinedTurns(t *testing.T) {
	r := start(t, greeter(t), false, Config{RTT: rtt})
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tp := textproto.NewConn(c)
	if _, _, err := tp.ReadResponse(220); err != nil {
		t.Fatal(err)
	}
	// Three batches: each must take the round trip, and the fastest no
	// more (a loaded machine may slow any one of them).
	var runs []time.Duration
	for range 3 {
		t0 := time.Now()
		io.WriteString(c, "A\r\nB\r\nC\r\n")
		for i := 0; i < 3; i++ {
			if _, _, err := tp.ReadResponse(200); err != nil {
				t.Fatal(err)
			}
		}
		runs = append(runs, time.Since(t0))
	}
	withinRepeated(t, "three pipelined commands", runs, rtt)
	c.Close()
	r.Close()
	if got := r.Counts(); got.Turns != 3 {
		t.Errorf("%d turns for three batches, want 3", got.Turns)
	}
}

// The trace shows a connection as its client sees it: opened, what it
// sent and what it was sent, each stamped no earlier than the link allows,
// then its end.
func TestTrace(t *testing.T) {
	// The relay writes its trace one line at a time, and Close waits for
	// every connection's last line.
	var trace bytes.Buffer
	r := start(t, greeter(t), false, Config{RTT: rtt, Trace: &trace})
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	tp := textproto.NewConn(c)
	if _, _, err := tp.ReadResponse(220); err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "NOOP\r\n")
	if _, _, err := tp.ReadResponse(200); err != nil {
		t.Fatal(err)
	}
	c.Close()
	r.Close()
	var events []string
	var at []float64
	for _, line := range strings.Split(strings.TrimSpace(trace.String()), "\n") {
		ms, rest, _ := strings.Cut(line, " ")
		f, err := strconv.ParseFloat(ms, 64)
		if err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		events, at = append(events, rest), append(at, f)
	}
	want := []string{"n1 open " + r.Addr(), `n1 < "220 hello\r\n"`, `n1 > "NOOP\r\n"`, `n1 < "200 NOOP\r\n"`, "n1 end"}
	if strings.Join(events, "|") != strings.Join(want, "|") {
		t.Fatalf("trace:\n%s\nwant:\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
	ms := float64(rtt.Milliseconds())
	if at[1]-at[0] < 2*ms-2 || at[3]-at[2] < ms-2 {
		t.Errorf("greeting %.1f ms after the open and reply %.1f ms after the command, want at least %v and %v", at[1]-at[0], at[3]-at[2], 2*rtt, rtt)
	}
}

// With a rate cap, 1 MiB at 4 MiB/s takes a quarter second beyond the
// delay; the bytes arrive intact.
func TestRateAndIntegrity(t *testing.T) {
	payload := make([]byte, 1<<20)
	rand.Read(payload)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.Write(payload)
		c.Close()
	}()
	r := start(t, ln.Addr().String(), false, Config{RTT: rtt, Rate: 4 << 20})
	t0 := time.Now()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, payload) {
		t.Fatalf("relayed %d bytes that differ from the %d sent", len(got), len(payload))
	}
	within(t, "1 MiB at 4 MiB/s", time.Since(t0), 2*rtt+250*time.Millisecond)
}

// Against the harness's vsftpd: an FTP NOOP through the relay costs one
// RTT, a passive-mode download comes through the relay byte for byte, and
// curl, lftp and gofer all pay the delay (each waits at least the round
// trips its exchange needs, and the relay counts them).
func TestFTPThroughRelay(t *testing.T) {
	if !itest.Enabled() {
		t.Skip("GOFER_INTEGRATION=1 runs this against the harness servers")
	}
	itest.Require(t, itest.FTPHost+":21")
	r := start(t, itest.FTPHost+":21", true, Config{RTT: rtt})

	c, err := textproto.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := c.ReadResponse(220); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []struct {
		line string
		code int
	}{{"USER anonymous", 331}, {"PASS gofer@", 230}} {
		id, err := c.Cmd("%s", cmd.line)
		if err != nil {
			t.Fatal(err)
		}
		c.StartResponse(id)
		_, _, err = c.ReadResponse(cmd.code)
		c.EndResponse(id)
		if err != nil {
			t.Fatal(err)
		}
	}
	var runs []time.Duration
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		id, err := c.Cmd("NOOP")
		if err != nil {
			t.Fatal(err)
		}
		c.StartResponse(id)
		_, _, err = c.ReadResponse(200)
		c.EndResponse(id)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, time.Since(t0))
	}
	withinRepeated(t, "FTP NOOP", runs, rtt)
	c.Close()

	want := readArchive(t, "text/plain.txt")
	host, port := splitAddr(r.Addr())
	url := fmt.Sprintf("ftp://%s:%d/archive/text/plain.txt", host, port)
	tools := map[string][]string{
		"gofer": {itest.Gofer(t), "get", "--allow-port", strconv.Itoa(port), url},
		"curl":  {"curl", "-sS", "--ftp-pasv", url},
		"lftp":  {"lftp", "-c", fmt.Sprintf("set ftp:passive-mode on; set ftp:prefer-epsv no; set net:max-retries 1; cat %s", url)},
	}
	for name, argv := range tools {
		if _, err := exec.LookPath(argv[0]); err != nil {
			t.Errorf("%s is not installed", argv[0])
			continue
		}
		r.Reset()
		t0 := time.Now()
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		took := time.Since(t0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(out, want) {
			t.Errorf("%s: %d bytes through the relay, want the file's %d", name, len(out), len(want))
		}
		cnt := r.Counts()
		// A control and a data connection, each 2 RTT to first byte at
		// least, and one RTT per turn on the control connection.
		floor := time.Duration(cnt.Turns)*rtt + 2*rtt
		if cnt.Conns < 2 || cnt.Turns < 3 || took < floor {
			t.Errorf("%s: %v with %+v; want 2 connections, 3 turns or more, at least %v", name, took.Round(time.Millisecond), cnt, floor)
		}
		t.Logf("%s: %v, %d connections, %d turns", name, took.Round(time.Millisecond), cnt.Conns, cnt.Turns)
	}
}

func readArchive(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), rel))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || strings.TrimSpace(string(b)) == "" {
		t.Fatalf("%s is empty", rel)
	}
	return b
}

// sender is a scripted server that sends payload over and over on every
// connection until a write fails, and then reports that write's error on
// ended: the moment the connection ended for the server.
func sender(t *testing.T, payload []byte) (addr string, ended <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan error, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for {
					if _, err := c.Write(payload); err != nil {
						ch <- err
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), ch
}

// A reset comes after every ResetEvery bytes the listener forwarded, all
// connections together: the bytes before it arrive intact, then both
// sides see the connection fail.
func TestFaultReset(t *testing.T) {
	payload := make([]byte, 1<<20)
	rand.Read(payload)
	const every = 300_000
	addr, ended := sender(t, payload)
	r := start(t, addr, false, Config{Faults: Faults{ResetEvery: every}})
	for i := 0; i < 3; i++ {
		var got []byte
		c, err := net.Dial("tcp", r.Addr())
		if err == nil {
			got, err = io.ReadAll(c)
			c.Close()
		} else if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatal(err)
		}
		// On loopback the reset may come before the dial has checked its
		// socket: then the dial itself reports it.
		if err == nil {
			t.Errorf("connection %d: %d bytes and a clean end, want a reset", i, len(got))
		}
		if len(got) > every || !bytes.Equal(got, payload[:len(got)]) {
			t.Errorf("connection %d: %d bytes, want at most %d, a prefix of the payload", i, len(got), every)
		}
		<-ended
	}
	if got := r.Counts(); got.Resets != 3 || got.Down < 3*every {
		t.Errorf("counts %+v, want 3 resets after %d bytes down or more", got, 3*every)
	}
	if got := r.forwarded.Load(); got != 3*every {
		t.Errorf("forwarded %d bytes, want exactly %d", got, 3*every)
	}
}

// A stalled connection delivers StallAfter bytes, then nothing, with both
// sockets open, for StallFor: a half-close from the client (gofer sends
// one to vsftpd as soon as it connects) does not end it. Then both sides
// are reset.
func TestFaultStall(t *testing.T) {
	payload := make([]byte, 1<<20)
	rand.Read(payload)
	const after, stallFor = 100_000, 500 * time.Millisecond
	addr, ended := sender(t, payload)
	r := start(t, addr, false, Config{Faults: Faults{Stall: 1, StallAfter: after, StallFor: stallFor}})
	dialled := time.Now() // the stall starts after this
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).CloseWrite()
	got := make([]byte, after)
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, payload[:after]) {
		t.Fatal("the bytes before the stall differ from the payload's")
	}
	// Nothing more comes, and the connection stays open: the read ends
	// by its deadline, not by an EOF or a reset.
	c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	n, err := c.Read(make([]byte, 1))
	if ne, ok := err.(net.Error); n != 0 || !ok || !ne.Timeout() {
		t.Fatalf("read after the stall: %d bytes, %v; want a timeout", n, err)
	}
	select {
	case err := <-ended:
		t.Fatalf("the server's connection ended during the stall: %v", err)
	default:
	}
	c.SetReadDeadline(time.Time{})
	n, err = c.Read(make([]byte, 1))
	if took := time.Since(dialled); n != 0 || !errors.Is(err, syscall.ECONNRESET) || took < stallFor {
		t.Errorf("the stall ended after %v with %d bytes, %v; want a reset after %v", took, n, err, stallFor)
	}
	<-ended
	if got := r.Counts(); got.Stalls != 1 {
		t.Errorf("counts %+v, want 1 stall", got)
	}
}

// A client that resets a stalled connection ends the stall at once, even
// one with no end of its own: the server's side is closed too.
func TestFaultStallClientReset(t *testing.T) {
	payload := make([]byte, 1<<20)
	addr, ended := sender(t, payload)
	r := start(t, addr, false, Config{Faults: Faults{Stall: 1, StallAfter: 1000}})
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetLinger(0)
	c.Close() // with bytes unread: a reset
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's connection outlived the client's reset by 10s")
	}
}

// Drop with DropAfter 0 closes connections at accept: which ones is drawn
// from the seed, the same for the same seed.
func TestFaultDropAtAccept(t *testing.T) {
	target := greeter(t)
	pattern := func(seed int64) string {
		r := start(t, target, false, Config{Faults: Faults{Seed: seed, Drop: 0.5}})
		var b strings.Builder
		for i := 0; i < 20; i++ {
			c, err := net.Dial("tcp", r.Addr())
			if err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			switch {
			case err == nil && line == "220 hello\r\n":
				b.WriteByte('.')
			case err != nil && line == "":
				b.WriteByte('x')
			default:
				t.Fatalf("connection %d: %q, %v", i, line, err)
			}
		}
		if got, want := r.Counts().Drops, int64(strings.Count(b.String(), "x")); got != want {
			t.Errorf("%d drops counted, %d seen", got, want)
		}
		return b.String()
	}
	a, b := pattern(7), pattern(7)
	if a != b {
		t.Errorf("seed 7 dropped %s, then %s", a, b)
	}
	if !strings.Contains(a, "x") || !strings.Contains(a, ".") {
		t.Errorf("seed 7 at 0.5 dropped %s: want some and not all", a)
	}
}

// Drop with DropAfter N closes a connection once the client has sent a
// number of lines drawn from 0 to N: the reply to the last is never heard.
func TestFaultDropMidSession(t *testing.T) {
	const after = 4
	r := start(t, greeter(t), false, Config{Faults: Faults{Seed: 1, Drop: 1, DropAfter: after}})
	midSession := 0
	for i := 0; i < 10; i++ {
		c, err := net.Dial("tcp", r.Addr())
		if err != nil {
			t.Fatal(err)
		}
		tp := textproto.NewConn(c)
		replies := 0
		if _, _, err := tp.ReadResponse(220); err == nil {
			for ; replies <= after; replies++ {
				if err := tp.PrintfLine("NOOP"); err != nil {
					break
				}
				if _, _, err := tp.ReadResponse(200); err != nil {
					break
				}
			}
			midSession++
		}
		tp.Close()
		if replies >= after {
			t.Errorf("connection %d: %d replies, want the drop before the reply to command %d", i, replies, after)
		}
	}
	if midSession == 0 {
		t.Error("every connection was dropped at accept; want some dropped mid-session")
	}
	if got := r.Counts(); got.Drops != 10 {
		t.Errorf("counts %+v, want 10 drops", got)
	}
}

// On an FTP-aware listener the data connections are the data side: a
// reset breaks the passive-mode download, and the control connection
// goes on.
func TestFaultResetFTPDataOnly(t *testing.T) {
	if !itest.Enabled() {
		t.Skip("GOFER_INTEGRATION=1 runs this against the harness servers")
	}
	itest.Require(t, itest.FTPHost+":21")
	const every = 100_000
	r := start(t, itest.FTPHost+":21", true, Config{Faults: Faults{ResetEvery: every}})
	c, err := textproto.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cmd := func(code int, format string, args ...any) string {
		t.Helper()
		id, err := c.Cmd(format, args...)
		if err != nil {
			t.Fatal(err)
		}
		c.StartResponse(id)
		defer c.EndResponse(id)
		_, msg, err := c.ReadResponse(code)
		if err != nil {
			t.Fatalf("%s: %v", fmt.Sprintf(format, args...), err)
		}
		return msg
	}
	if _, _, err := c.ReadResponse(220); err != nil {
		t.Fatal(err)
	}
	cmd(331, "USER anonymous")
	cmd(230, "PASS gofer@")
	cmd(200, "TYPE I")
	msg := cmd(229, "EPSV")
	port := msg[strings.Index(msg, "|||")+3 : strings.LastIndex(msg, "|")]
	host, _ := splitAddr(r.Addr())
	data, err := net.Dial("tcp", net.JoinHostPort(host, port))
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	cmd(150, "RETR archive/binary/random-1m.bin")
	got, err := io.ReadAll(data)
	want := readArchive(t, "binary/random-1m.bin")
	if err == nil || len(got) > every || !bytes.Equal(got, want[:len(got)]) {
		t.Errorf("download: %d bytes, %v; want a reset after at most %d bytes of the file", len(got), err, every)
	}
	// vsftpd says how the transfer ended (426, or 226 when all was
	// already written); the control connection is intact.
	if code, msg, err := c.ReadResponse(0); err != nil || (code != 426 && code != 226) {
		t.Errorf("after the reset: %d %s, %v", code, msg, err)
	}
	cmd(200, "NOOP")
	if got := r.Counts(); got.Resets != 1 || got.Drops != 0 {
		t.Errorf("counts %+v, want 1 reset", got)
	}
}
