package integration_test

// FTP over the paths an old server may sit behind: a link that delivers
// pipelined commands in separate packets, and active mode (PORT/EPRT),
// against vsftpd and ProFTPD, plain and with TLS.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
)

// TestFTPPipelinedSplitProFTPD: mirrors from ProFTPD through a relay
// that forwards every command line in a write of its own, a millisecond
// apart. ProFTPD reads the EPSV (and MDTM) gofer sends behind a RETR
// while the transfer runs, answers "450 EPSV: data transfer in progress"
// and drops it; gofer takes that for the answer it is and goes on in
// step: every file comes whole, none is tried again, exit 0. Whether a
// command lands during a transfer is up to the scheduler: directories of
// 300 files are mirrored until one has (three at most).
func TestFTPPipelinedSplitProFTPD(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.ProFTPDHost+":21")
	refused := 0
	for _, sub := range []string{"tree/d01", "tree/d02", "tree/d03"} {
		var trace lockedBuffer
		r, err := relay.Listen("127.0.0.1:0", itest.ProFTPDHost+":21", true,
			relay.Config{SplitLines: true, LineGap: time.Millisecond, Trace: &trace})
		if err != nil {
			t.Fatal(err)
		}
		port := r.Addr()[strings.LastIndexByte(r.Addr(), ':')+1:]
		dir := t.TempDir()
		res := itest.Run(t, nil, nil, "mirror", "--json", "-j", "2", "--allow-port", port, "ftp://"+r.Addr()+"/archive/"+sub+"/", dir)
		r.Close()
		if res.Code != 0 {
			t.Fatalf("%s: exit %d: %s", sub, res.Code, res.Stderr)
		}
		var sum struct {
			Failed  int64 `json:"failed"`
			Retries int64 `json:"retries"`
		}
		if err := json.Unmarshal([]byte(res.Stdout), &sum); err != nil {
			t.Fatalf("--json: %v: %s", err, res.Stdout)
		}
		if sum.Failed != 0 || sum.Retries != 0 {
			t.Errorf("%s: %d files failed, %d retried: a refusal during a transfer must leave the transfer whole, with nothing to try again", sub, sum.Failed, sum.Retries)
		}
		if d := itest.DiffSubtree(t, dir, sub+"/", ".gofer"); len(d) != 0 {
			t.Fatalf("%s: mirror differs from the archive (%d): %q", sub, len(d), d[:min(len(d), 10)])
		}
		n := strings.Count(trace.String(), "data transfer in progress")
		t.Logf("%s: ProFTPD refused %d commands during transfers", sub, n)
		if refused += n; refused > 0 {
			break
		}
	}
	if refused == 0 {
		t.Errorf("ProFTPD never answered a command during a transfer: the relay did not deliver the pipelined commands as a real link may")
	}
}

// lockedBuffer is a bytes.Buffer safe for the relay's trace and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// activeServers are the servers active mode is tested against, with the
// CA of their certificates.
var activeServers = []struct {
	name, host, ca string
}{
	{"vsftpd", itest.FTPHost, itest.CertPath()},
	{"proftpd", itest.ProFTPDHost, itest.FTPMoreCertPath()},
}

var passiveCommand = regexp.MustCompile(`(?m)^> (EPSV|PASV)\b`)

// TestFTPActiveMode: --ftp-port against vsftpd and ProFTPD, plain and
// over AUTH TLS (PROT P): a 1 MiB file byte-exact, the same file resumed
// (-C, REST), a listing, and a mirror of a tree; every data connection
// named with EPRT and no passive command sent.
func TestFTPActiveMode(t *testing.T) {
	manifest := itest.Manifest(t)
	for _, srv := range activeServers {
		for _, tls := range []bool{false, true} {
			name := srv.name
			if tls {
				name += "-tls"
			}
			t.Run(name, func(t *testing.T) {
				itest.Parallel(t)
				itest.Require(t, srv.host+":21")
				flags := []string{"-v", "--ftp-port", "-"}
				if tls {
					flags = append(flags, "--ftp-ssl", "--cacert", srv.ca)
				}
				cmd := func(name string, args ...string) []string {
					return append(append([]string{name}, flags...), args...)
				}
				dir := t.TempDir()
				check := func(what string, res itest.Result) {
					t.Helper()
					if res.Code != 0 {
						t.Fatalf("%s: exit %d: %s", what, res.Code, res.Reason())
					}
					if m := passiveCommand.FindString(res.Stderr); m != "" {
						t.Errorf("%s: a passive command went out in active mode: %q", what, m)
					}
					if !strings.Contains(res.Stderr, "> EPRT |1|127.0.0.1|") {
						t.Errorf("%s: no EPRT naming the control connection's own address in the transcript", what)
					}
					if tls && !strings.Contains(res.Stderr, "> PROT P") {
						t.Errorf("%s: no PROT P", what)
					}
				}
				base := "ftp://" + srv.host + "/archive"
				out := filepath.Join(dir, "random-1m.bin")
				check("get", itest.RunIn(t, dir, nil, nil, cmd("get", "-o", out, base+"/binary/random-1m.bin")...))
				if got := sha256File(t, out); got != manifest["binary/random-1m.bin"] {
					t.Errorf("get: sha256 %s", got)
				}
				// Resume from half way.
				if err := os.Truncate(out, 1<<19); err != nil {
					t.Fatal(err)
				}
				res := itest.RunIn(t, dir, nil, nil, cmd("get", "-C", "-o", out, base+"/binary/random-1m.bin")...)
				check("get -C", res)
				if !strings.Contains(res.Stderr, "> REST 524288") {
					t.Errorf("get -C: no REST 524288")
				}
				if got := sha256File(t, out); got != manifest["binary/random-1m.bin"] {
					t.Errorf("get -C: sha256 %s", got)
				}
				res = itest.RunIn(t, dir, nil, nil, cmd("get", base+"/binary/")...)
				check("listing", res)
				if !strings.Contains(res.Stdout, "random-64k.bin") {
					t.Errorf("listing: no random-64k.bin in %q", res.Stdout)
				}
				mdir := filepath.Join(dir, "m")
				check("mirror", itest.RunIn(t, dir, nil, nil, cmd("mirror", "-j", "2", base+"/tree/d01/", mdir)...))
				if d := itest.DiffSubtree(t, mdir, "tree/d01/", ".gofer"); len(d) != 0 {
					t.Errorf("mirror differs from the archive (%d): %q", len(d), d[:min(len(d), 10)])
				}
			})
		}
	}
}

// TestFTPActiveIntruder: a third party connects to gofer's PORT listener
// before vsftpd does. gofer closes that connection at once, says so, and
// takes vsftpd's: the file comes whole. The third party is a forwarder
// of the control connection on vsftpd's own address (gofer's peer): it
// connects from 127.0.0.1 to the address each EPRT names, sees gofer end
// that connection, and only then passes the EPRT on.
func TestFTPActiveIntruder(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	manifest := itest.Manifest(t)
	ln, err := net.Listen("tcp", itest.FTPHost+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	intrusions := make(chan bool, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go intrudingForwarder(c, ftpServer, intrusions)
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	res := itest.RunIn(t, dir, nil, nil, "get", "--ftp-port", "-", "--allow-port", strconv.Itoa(port), "-o", out,
		"ftp://"+ln.Addr().String()+"/archive/binary/random-64k.bin")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if got := sha256File(t, out); got != manifest["binary/random-64k.bin"] {
		t.Errorf("sha256 %s", got)
	}
	select {
	case closed := <-intrusions:
		if !closed {
			t.Errorf("gofer left the third party's connection open")
		}
	default:
		t.Fatalf("no EPRT went through the forwarder")
	}
	if !strings.Contains(res.Stderr, "refused a data connection from 127.0.0.1:") {
		t.Errorf("no warning of the refused connection: %s", res.Stderr)
	}
}

// eprtArg reads the address of an EPRT line (RFC 2428 §2).
var eprtArg = regexp.MustCompile(`^EPRT \|[12]\|([^|]+)\|(\d+)\|`)

// intrudingForwarder passes client's bytes to server and back; before
// each EPRT line it connects from 127.0.0.1 to the address named and
// sends on intrusions whether the client closed that connection.
func intrudingForwarder(client net.Conn, server string, intrusions chan<- bool) {
	defer client.Close()
	s, err := net.Dial("tcp", server)
	if err != nil {
		return
	}
	defer s.Close()
	go io.Copy(client, s)
	br := bufio.NewReader(client)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		if m := eprtArg.FindStringSubmatch(line); m != nil {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}
			if ic, err := d.Dial("tcp", net.JoinHostPort(m[1], m[2])); err == nil {
				_, rerr := ic.Read(make([]byte, 1))
				ic.Close()
				intrusions <- rerr != nil
			}
		}
		if _, err := io.WriteString(s, line); err != nil {
			return
		}
	}
}
