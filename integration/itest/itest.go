// Package itest is what gofer's integration tests share: the addresses of the
// real servers the harness in integration/ starts on loopback, their
// credentials, the sample archive, and the built gofer binary.
//
// Integration tests call Require first. Without GOFER_INTEGRATION=1 in the
// environment they skip with a message saying how to run them; with it, a
// server that is not up is a failure, never a silent skip.
package itest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Where the harness puts each real server: the protocol's default port on
// its own loopback address, so no port warning fires.
const (
	FTPHost         = "127.0.0.21"  // vsftpd: anonymous read-only, local user, AUTH TLS on 21
	FTPSHost        = "127.0.0.22"  // vsftpd: implicit TLS on 990
	GopherPlusHost  = "127.0.0.70"  // pygopherd (Gopher+) on 70
	GopherHost      = "127.0.0.71"  // gophernicus on 70
	GophersHost     = "127.0.0.72"  // stunnel4 (TLS from the first byte) on 70, in front of gophernicus
	SmallGopherHost = "127.0.0.74"  // the scripted small server (integration/cmd/smallgopherd) on 70
	NNTPHost        = "127.0.0.119" // INN on 119
	SNHost          = "127.0.0.120" // sn's snntpd behind socat on 119 (group gofer.sn)
	TelnetHost      = "127.0.0.23"  // inetutils-telnetd behind socat on 23
	HTTPHost        = "127.0.0.80"  // nginx on 80 and 443 (self-signed)
	WAISHost        = "127.0.0.210" // the scripted WAIS server (schemes/wais/waistest) on 210
	ProsperoHost    = "127.0.0.15"  // scripted Prospero server (integration/cmd/prosperod), UDP 1525
	NATSHost        = "127.0.0.42"  // nats-server with JetStream on 4222 (mirror --cluster)
	GeminiHost      = "127.0.0.196" // molly-brown in its own network namespace, relayed on GeminiPort
	GeminiPort      = 1965          // Gemini's default port

	// LocalUser and LocalPassword log in to vsftpd and telnetd.
	LocalUser     = "gofer"
	LocalPassword = "gofer-secret"
	// NewsUser and NewsPassword unlock INN's authenticated group.
	NewsUser     = "reader"
	NewsPassword = "reader-secret"
)

// StateDir is where the harness keeps configs, logs, pids and served trees.
func StateDir() string {
	if d := os.Getenv("GOFER_IT_STATE"); d != "" {
		return d
	}
	return "/tmp/gofer-it"
}

// ArchiveDir is the generated sample archive served by every server. Its
// manifest lies outside the tree, at ManifestPath().
func ArchiveDir() string { return filepath.Join(StateDir(), "archive") }

// Enabled reports whether integration tests should run.
func Enabled() bool { return os.Getenv("GOFER_INTEGRATION") == "1" }

// Require skips t unless integration tests are enabled, and fails it if the
// server at hostport does not accept a connection.
func Require(t testing.TB, hostport string) {
	t.Helper()
	if !Enabled() {
		t.Skip("integration test: run `integration/test` (or start servers with `integration/up` and set GOFER_INTEGRATION=1)")
	}
	// Generous: a forking server on a loaded machine accepts slowly.
	c, err := net.DialTimeout("tcp", hostport, 30*time.Second)
	if err != nil {
		t.Fatalf("integration server %s is not up: %v (start it with integration/up)", hostport, err)
	}
	c.Close()
}

var (
	buildMu sync.Mutex
	builds  = map[string]*build{}
)

type build struct {
	once sync.Once
	path string
	err  error
}

// Gofer builds cmd/gofer once per test binary and returns its path.
func Gofer(t testing.TB) string { return program(t, "./cmd/gofer") }

// program builds the main package pkg (relative to the module root) once
// per test binary and returns the binary's path.
func program(t testing.TB, pkg string) string {
	t.Helper()
	buildMu.Lock()
	b := builds[pkg]
	if b == nil {
		b = &build{}
		builds[pkg] = b
	}
	buildMu.Unlock()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "gofer-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, filepath.Base(pkg))
		cmd := exec.Command("go", "build", "-o", b.path, pkg)
		cmd.Dir = moduleRoot()
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = &buildError{out: string(out), err: err}
		}
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", pkg, b.err)
	}
	return b.path
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// moduleRoot is the repository root, found from this file's location.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
