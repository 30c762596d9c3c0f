package integration_test

// Prospero against the harness's scripted server (127.0.0.15:1525, UDP),
// whose catalogue resolves to files on vsftpd (127.0.0.21) and items on
// gophernicus (127.0.0.71), as integration/LAYOUT.md lists it: through the
// gofer command and through the library (fetch.Client follows the
// resolution with its own ftp and gopher fetchers).

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

const prosperoAddr = itest.ProsperoHost + ":1525"

// requireProspero skips t unless integration tests are enabled, and fails
// it unless the scripted Prospero server answers an ARDP request (UDP has
// no connection to probe) and the servers it resolves to are up.
func requireProspero(t *testing.T) {
	t.Helper()
	itest.Require(t, itest.FTPHost+":21")
	itest.Require(t, itest.GopherHost+":70")
	c, err := net.Dial("udp", prosperoAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// ARDP v0: 9-octet header, connection 1, packet 1 of 1.
	msg := append([]byte{9, 0, 1, 0, 1, 0, 1, 0, 0}, "VERSION 5 probe\nGET-OBJECT-INFO #ALL ASCII /ftp/README.txt 0\n"...)
	buf := make([]byte, 2048)
	for try := 0; try < 3; try++ {
		c.Write(msg)
		c.SetReadDeadline(time.Now().Add(time.Second))
		if n, err := c.Read(buf); err == nil && n > 9 {
			c.Write([]byte{9, 0, 1, 0, 0, 0, 0, 0, 1}) // acknowledge
			return
		}
	}
	t.Fatalf("the Prospero server on udp %s does not answer (start it with integration/up prospero)", prosperoAddr)
}

// resolutions: prospero objects and the archive files they resolve to.
var resolutions = []struct{ hsoname, file string }{
	{"/ftp/README.txt", "README.txt"},
	{"/ftp/all-bytes.bin", "binary/all-bytes.bin"},
	{"/ftp/name%20with%20space.txt", "names/with space.txt"},
	{"/gopher/plain.txt", "text/plain.txt"},
	{"/gopher/random-64k.bin", "binary/random-64k.bin"},
	{"/multi", "binary/random-64k.bin"},
	{"/lossy", "text/plain.txt"},
}

// TestProsperoCLI: gofer get resolves each object and fetches the file it
// names, byte for byte as the manifest has it; -v shows the ARDP exchange
// and the resolved URL.
func TestProsperoCLI(t *testing.T) {
	itest.Parallel(t)
	requireProspero(t)
	manifest := itest.Manifest(t)
	for _, r := range resolutions {
		raw := "prospero://" + itest.ProsperoHost + "/" + r.hsoname
		res := itest.Run(t, nil, nil, "get", "-v", "--idle-timeout", "5s", raw)
		if res.Code != 0 {
			t.Errorf("%s: exit %d: %s", raw, res.Code, res.Reason())
			continue
		}
		if got := sha([]byte(res.Stdout)); got != manifest[r.file] {
			t.Errorf("%s: sha256 %s, want %s (%s)", raw, got, manifest[r.file], r.file)
		}
		for _, want := range []string{"> GET-OBJECT-INFO #ALL ASCII ", "< [ARDP packet 1/", "* prospero: resolved " + raw + " to "} {
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("%s: -v lacks %q:\n%s", raw, want, res.Stderr)
			}
		}
	}
}

// TestProsperoLibrary: the same through fetch.Client.
func TestProsperoLibrary(t *testing.T) {
	itest.Parallel(t)
	requireProspero(t)
	manifest := itest.Manifest(t)
	c := fetch.NewClient(fetch.Options{IdleTimeout: 5 * time.Second})
	defer c.Close()
	for _, r := range resolutions {
		raw := "prospero://" + itest.ProsperoHost + "/" + r.hsoname
		resp, err := c.Get(context.Background(), raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Close()
		if err != nil {
			t.Errorf("%s: %v", raw, err)
		}
		if got := sha(b); got != manifest[r.file] {
			t.Errorf("%s: sha256 %s, want %s (%s)", raw, got, manifest[r.file], r.file)
		}
		if resp.URL.Scheme == "prospero" {
			t.Errorf("%s: the response names %s, not the resolved URL", raw, resp.URL)
		}
	}
}

// TestProsperoRefusedPort: an object whose access method names port 25 on
// the FTP host: exit 3, and nothing connects to that port.
func TestProsperoRefusedPort(t *testing.T) {
	itest.Parallel(t)
	requireProspero(t)
	ln, err := net.Listen("tcp", itest.FTPHost+":25")
	if err != nil {
		t.Fatalf("listening on %s:25 to watch for connections: %v", itest.FTPHost, err)
	}
	defer ln.Close()
	conns := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- c
		}
	}()
	res := itest.Run(t, nil, nil, "get", "prospero://"+itest.ProsperoHost+"//badport")
	if res.Code != 3 || !strings.Contains(res.Reason(), "port 25") {
		t.Errorf("exit %d (%s), want 3 naming port 25", res.Code, res.Reason())
	}
	c := fetch.NewClient(fetch.Options{})
	_, err = c.Get(context.Background(), "prospero://"+itest.ProsperoHost+"//badport")
	c.Close()
	if !errors.Is(err, security.ErrPort) {
		t.Errorf("library: %v, want security.ErrPort", err)
	}
	// Both fetches are over; a connection they made would be queued by now.
	ln.Close()
	for c := range conns {
		c.Close()
		t.Errorf("a connection reached port 25 from %s", c.RemoteAddr())
	}
}

// TestProsperoFaults: a malformed reply is exit 5 with the reason; a silent
// server and no server at all are exit 7 within the idle timeout.
func TestProsperoFaults(t *testing.T) {
	requireProspero(t)
	host := "prospero://" + itest.ProsperoHost
	tests := []struct {
		url    string
		code   int
		reason string
	}{
		{host + "//malformed", 5, "malformed reply: ARDP header claims 63 octets"},
		{host + "//garbage", 5, "not a Prospero reply line"},
		{host + "//missing", 5, "FAILURE NOT-FOUND /missing"},
		{host + "//silent", 7, "no answer after 4 tries"},
		{host + "//cut", 7, "reply stopped after packet 1 of"},
		// Nothing listens on 127.0.0.14.
		{"prospero://127.0.0.14//x", 7, "no answer after 4 tries"},
	}
	for _, tt := range tests {
		start := time.Now()
		res := itest.Run(t, nil, nil, "get", "--idle-timeout", "1500ms", tt.url)
		d := time.Since(start)
		if res.Code != tt.code || !strings.Contains(res.Reason(), tt.reason) {
			t.Errorf("%s: exit %d (%s), want %d saying %q", tt.url, res.Code, res.Reason(), tt.code, tt.reason)
		}
		if d > 5*time.Second {
			t.Errorf("%s: took %s with a 1.5 s idle timeout", tt.url, d)
		}
	}
}

// TestProsperoDirectory: a directory object lists its links as prospero
// URLs (an external link as its own URL), and an entry's URL fetches.
func TestProsperoDirectory(t *testing.T) {
	itest.Parallel(t)
	requireProspero(t)
	res := itest.Run(t, nil, nil, "get", "--json", "prospero://"+itest.ProsperoHost+"//dir")
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Reason())
	}
	for _, want := range []string{
		`"url":"prospero://127.0.0.15//ftp/README.txt"`,
		`"url":"prospero://127.0.0.15//dir/sub"`,
		`"url":"http://127.0.0.80/archive/README.txt"`,
	} {
		if !strings.Contains(strings.ReplaceAll(res.Stdout, " ", ""), want) {
			t.Errorf("listing lacks %s:\n%s", want, res.Stdout)
		}
	}
	c := fetch.NewClient(fetch.Options{})
	defer c.Close()
	resp, err := c.Get(context.Background(), "prospero://"+itest.ProsperoHost+"//dir/sub")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	e, err := resp.Listing.Next()
	if err != nil || e.Name != "random-64k.bin" || e.Type != schemes.TypeFile {
		t.Fatalf("first entry %+v, %v", e, err)
	}
	file, err := c.Get(context.Background(), e.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(file.Body)
	file.Close()
	if sha(b) != itest.Manifest(t)["binary/random-64k.bin"] {
		t.Errorf("%s: not the archive's random-64k.bin", e.URL)
	}
}

// TestProsperoProxy: a proxy cannot carry UDP: the fetch says so (exit 2)
// instead of going around the proxy.
func TestProsperoProxy(t *testing.T) {
	itest.Parallel(t)
	requireProspero(t)
	res := itest.Run(t, nil, []string{"ALL_PROXY=socks5://" + itest.SOCKSProxy}, "get", "prospero://"+itest.ProsperoHost+"//ftp/README.txt")
	if res.Code != 2 || !strings.Contains(res.Reason(), "cannot carry UDP") {
		t.Errorf("exit %d (%s), want 2 saying the proxy cannot carry UDP", res.Code, res.Reason())
	}
}
