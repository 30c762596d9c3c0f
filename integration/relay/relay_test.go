package relay

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	t0 := time.Now()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tp := textproto.NewConn(c)
	if _, _, err := tp.ReadResponse(220); err != nil {
		t.Fatal(err)
	}
	within(t, "connect to greeting", time.Since(t0), 2*rtt)
	for i := 0; i < 3; i++ {
		t1 := time.Now()
		if err := tp.PrintfLine("NOOP"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tp.ReadResponse(200); err != nil {
			t.Fatal(err)
		}
		within(t, "NOOP round trip", time.Since(t1), rtt)
	}
	c.Close()
	r.Close()
	if got := r.Counts(); got.Conns != 1 || got.Turns != 3 {
		t.Errorf("counts %+v, want 1 connection and 3 turns", got)
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
	t0 := time.Now()
	io.WriteString(c, "A\r\nB\r\nC\r\n")
	for i := 0; i < 3; i++ {
		if _, _, err := tp.ReadResponse(200); err != nil {
			t.Fatal(err)
		}
	}
	within(t, "three pipelined commands", time.Since(t0), rtt)
	c.Close()
	r.Close()
	if got := r.Counts(); got.Turns != 1 {
		t.Errorf("%d turns, want 1", got.Turns)
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
		within(t, "FTP NOOP", time.Since(t0), rtt)
	}
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
