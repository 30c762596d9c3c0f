package integration_test

// FTP through proxies that resolve names themselves (socks5h): every
// connection, data connections included, goes through the proxy, to the
// host the URL names, never to the proxy's own address.

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
)

// TestFTPThroughSOCKS5h: with socks5h:// the proxy resolves the URL's
// host name, and gofer never learns the server's address: the passive
// replies cannot be compared with it. Each data connection goes through
// the proxy to the URL's host with the reply's port. The server is
// vsftpd behind a relay on 127.0.0.1 (so that "localhost", the one name
// tests may resolve, reaches it); microsocks's log shows every
// connection, control and data, made to localhost and none to the
// proxy's own address.
func TestFTPThroughSOCKS5h(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	itest.Require(t, itest.SOCKSProxy)
	manifest := itest.Manifest(t)
	r, err := relay.Listen("127.0.0.1:0", ftpServer, true, relay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, port, _ := net.SplitHostPort(r.Addr())
	base := "ftp://localhost:" + port + "/archive"
	proxy := []string{"--proxy", "socks5h://" + itest.SOCKSProxy, "--allow-port", port}
	since := itest.LogSince(t, itest.ProxyLogSOCKS)
	dir := t.TempDir()
	out := filepath.Join(dir, "random-64k.bin")
	res := itest.RunIn(t, dir, nil, noProxyEnv(), append(append([]string{"get"}, proxy...), "-o", out, base+"/binary/random-64k.bin")...)
	if res.Code != 0 {
		t.Fatalf("get: exit %d: %s", res.Code, res.Stderr)
	}
	if got := sha256File(t, out); got != manifest["binary/random-64k.bin"] {
		t.Errorf("get: sha256 %s", got)
	}
	mdir := filepath.Join(dir, "m")
	res = itest.RunIn(t, dir, nil, noProxyEnv(), append(append([]string{"mirror"}, proxy...), "-j", "2", base+"/text/", mdir)...)
	if res.Code != 0 {
		t.Fatalf("mirror: exit %d: %s", res.Code, res.Stderr)
	}
	if d := itest.DiffSubtree(t, mdir, "text/", ".gofer"); len(d) != 0 {
		t.Errorf("mirror differs from the archive: %q", d)
	}
	log := since()
	targets := regexp.MustCompile(`: connected to (\S+)\n`).FindAllStringSubmatch(log, -1)
	control, data := 0, 0
	for _, m := range targets {
		host, p, _ := net.SplitHostPort(m[1])
		switch {
		case host != "localhost":
			t.Errorf("the proxy connected to %s: every connection must go to the URL's host", m[1])
		case p == port:
			control++
		default:
			data++
		}
	}
	// One file, one listing and the text/ files: a data connection each.
	if control < 2 || data < 2+len(listDir(t, "text")) {
		t.Errorf("the proxy made %d control and %d data connections, want 2 or more and one per transfer:\n%s", control, data, log)
	}
	if strings.Contains(log, "connected to "+itest.SOCKSProxy) {
		t.Errorf("a connection went to the proxy's own address:\n%s", log)
	}
}

// listDir lists the archive directory dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for p := range itest.Manifest(t) {
		if rest, ok := strings.CutPrefix(p, dir+"/"); ok && !strings.Contains(rest, "/") {
			names = append(names, rest)
		}
	}
	return names
}

// TestFTPProxyDown: a proxy that is not there is exit 4, and the error
// names the proxy.
func TestFTPProxyDown(t *testing.T) {
	itest.Parallel(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	for _, scheme := range []string{"socks5h", "socks5", "http"} {
		res := itest.Run(t, nil, noProxyEnv(), "get", "--proxy", scheme+"://"+addr, "ftp://"+itest.FTPHost+"/archive/README.txt")
		if res.Code != 4 || !strings.Contains(res.Reason(), addr) {
			t.Errorf("%s: exit %d, %q: want 4 and the proxy named", scheme, res.Code, res.Reason())
		}
	}
}

// squidProxy is the harness's squid (integration/lib/proxy.sh), an HTTP
// proxy that fetches ftp:// URLs itself.
const squidProxy = "127.0.0.89:3128"

// TestFTPThroughSquid: with an http:// proxy and no --proxy-tunnel, gofer
// asks the proxy for the ftp:// URL (GET ftp://...), as curl does: squid
// speaks FTP to vsftpd. A file comes byte-exact, a directory's HTML page
// is read as a listing, and a mirror walks those listings; squid's access
// log has a GET of each URL.
func TestFTPThroughSquid(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	itest.Require(t, squidProxy)
	manifest := itest.Manifest(t)
	since := itest.LogSince(t, "squid-access.log")
	proxy := []string{"--proxy", "http://" + squidProxy}
	base := "ftp://" + itest.FTPHost + "/archive"
	dir := t.TempDir()
	out := filepath.Join(dir, "random-1m.bin")
	res := itest.RunIn(t, dir, nil, noProxyEnv(), append(append([]string{"get"}, proxy...), "-o", out, base+"/binary/random-1m.bin")...)
	if res.Code != 0 {
		t.Fatalf("get: exit %d: %s", res.Code, res.Stderr)
	}
	if got := sha256File(t, out); got != manifest["binary/random-1m.bin"] {
		t.Errorf("get: sha256 %s", got)
	}
	res = itest.RunIn(t, dir, nil, noProxyEnv(), append(append([]string{"get", "--json"}, proxy...), base+"/text/")...)
	if res.Code != 0 {
		t.Fatalf("listing: exit %d: %s", res.Code, res.Stderr)
	}
	for _, name := range listDir(t, "text") {
		if !strings.Contains(res.Stdout, `"url":"`+base+"/text/"+name+`"`) {
			t.Errorf("listing: no entry for %s in %s", name, res.Stdout)
		}
	}
	mdir := filepath.Join(dir, "m")
	res = itest.RunIn(t, dir, nil, noProxyEnv(), append(append([]string{"mirror"}, proxy...), "-j", "2", base+"/text/", mdir)...)
	if res.Code != 0 {
		t.Fatalf("mirror: exit %d: %s", res.Code, res.Stderr)
	}
	if d := itest.DiffSubtree(t, mdir, "text/", ".gofer"); len(d) != 0 {
		t.Errorf("mirror differs from the archive: %q", d)
	}
	log := since()
	for _, p := range append([]string{"binary/random-1m.bin", "text/"}, prefixed("text/", listDir(t, "text"))...) {
		if !regexp.MustCompile(`GET ` + regexp.QuoteMeta(base+"/"+p) + `(;type=i)? `).MatchString(log) {
			t.Errorf("squid's log has no GET of %s:\n%s", p, log)
		}
	}
	// A missing file is the server's refusal, as squid reports it.
	res = itest.RunIn(t, dir, nil, noProxyEnv(), append(append([]string{"get"}, proxy...), base+"/no-such-file")...)
	if res.Code != 5 || !strings.Contains(res.Reason(), squidProxy) {
		t.Errorf("missing file: exit %d, %q: want 5, the proxy named", res.Code, res.Reason())
	}
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// TestFTPSOCKSDropsData: a SOCKS5 proxy that lets the control connection
// through but closes every data connection as soon as it is made. The
// transfer fails at once, as an interrupted one (exit 8), with nothing
// left at the output path, and no hang.
func TestFTPSOCKSDropsData(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go droppingSOCKS(c)
		}
	}()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	res := itest.RunIn(t, dir, nil, noProxyEnv(), "get", "--proxy", "socks5://"+ln.Addr().String(), "-o", out,
		"ftp://"+itest.FTPHost+"/archive/binary/random-64k.bin")
	t.Logf("exit %d: %s", res.Code, res.Reason())
	if res.Code != 8 {
		t.Errorf("exit %d (%s), want 8", res.Code, res.Reason())
	}
	if fi, err := os.Stat(out); err == nil && fi.Size() == 64<<10 {
		t.Errorf("the whole file arrived through a proxy that drops data connections")
	}
}

// droppingSOCKS serves one SOCKS5 client (RFC 1928, no authentication,
// CONNECT to an IPv4 address): port 21 is relayed, any other target
// connected to and then closed at once, both sides.
func droppingSOCKS(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 262)
	if _, err := io.ReadFull(c, buf[:2]); err != nil {
		return
	}
	if _, err := io.ReadFull(c, buf[:buf[1]]); err != nil {
		return
	}
	c.Write([]byte{5, 0})
	if _, err := io.ReadFull(c, buf[:10]); err != nil || buf[3] != 1 {
		return
	}
	target := net.JoinHostPort(net.IP(buf[4:8]).String(), strconv.Itoa(int(buf[8])<<8|int(buf[9])))
	s, err := net.Dial("tcp", target)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer s.Close()
	c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	if buf[8] != 0 || buf[9] != 21 {
		return // a data connection: dropped
	}
	go io.Copy(s, c)
	io.Copy(c, s)
}

// danteTargets reads dante's log lines for the connections it made for a
// client ("tcp/connect [: CLIENT PROXY -> OUT TARGET", addresses written
// ADDR.PORT) and returns each target as host and port.
func danteTargets(log string) [][2]string {
	var out [][2]string
	for _, m := range regexp.MustCompile(`tcp/connect \[: \S+ \S+ -> \S+ (\S+)\n`).FindAllStringSubmatch(log, -1) {
		i := strings.LastIndexByte(m[1], '.')
		out = append(out, [2]string{m[1][:i], m[1][i+1:]})
	}
	return out
}

// TestFTPThroughDante: dante (danted), a second SOCKS5 server beside
// microsocks, carries a get and a mirror with socks5:// (gofer resolves;
// vsftpd directly behind it) and with socks5h:// (dante resolves
// "localhost", a relay on 127.0.0.1 in front of vsftpd): danted's log
// shows one connection for each control and each data connection, to the
// server and never to the proxy's own address, vsftpd's log that every
// transfer's data connection came from dante's address, and the files are
// byte-exact. Active mode through SOCKS5 is refused before anything is
// sent, with an error that says why.
func TestFTPThroughDante(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	itest.Require(t, itest.DanteProxy)
	manifest := itest.Manifest(t)
	danteHost, _, _ := net.SplitHostPort(itest.DanteProxy)
	files := len(listDir(t, "text"))

	r, err := relay.Listen("127.0.0.1:0", ftpServer, true, relay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, relayPort, _ := net.SplitHostPort(r.Addr())

	for _, tc := range []struct {
		scheme, base, host, port string
	}{
		{"socks5", "ftp://" + itest.FTPHost + "/archive", itest.FTPHost, "21"},
		{"socks5h", "ftp://localhost:" + relayPort + "/archive", "127.0.0.1", relayPort},
	} {
		proxy := []string{"--proxy", tc.scheme + "://" + itest.DanteProxy}
		if tc.port != "21" {
			proxy = append(proxy, "--allow-port", tc.port)
		}
		since := itest.LogSince(t, itest.ProxyLogDante)
		server := itest.LogSince(t, "vsftpd.log")
		dir := t.TempDir()
		out := filepath.Join(dir, "random-64k.bin")
		res := itest.RunIn(t, dir, nil, noProxyEnv(), append(append([]string{"get"}, proxy...), "-o", out, tc.base+"/binary/random-64k.bin")...)
		if res.Code != 0 {
			t.Fatalf("%s: get: exit %d: %s", tc.scheme, res.Code, res.Reason())
		}
		if got := sha256File(t, out); got != manifest["binary/random-64k.bin"] {
			t.Errorf("%s: get: sha256 %s", tc.scheme, got)
		}
		mdir := filepath.Join(dir, "m")
		res = itest.RunIn(t, dir, nil, noProxyEnv(), append(append([]string{"mirror"}, proxy...), "-j", "2", tc.base+"/text/", mdir)...)
		if res.Code != 0 {
			t.Fatalf("%s: mirror: exit %d: %s", tc.scheme, res.Code, res.Reason())
		}
		if d := itest.DiffSubtree(t, mdir, "text/", ".gofer"); len(d) != 0 {
			t.Errorf("%s: mirror differs from the archive: %q", tc.scheme, d)
		}
		log := since()
		control, data := 0, 0
		for _, hp := range danteTargets(log) {
			switch {
			case hp[0]+":"+hp[1] == itest.DanteProxy:
				t.Errorf("%s: dante connected to its own address", tc.scheme)
			case hp[0] != tc.host:
				t.Errorf("%s: dante connected to %s port %s, want %s", tc.scheme, hp[0], hp[1], tc.host)
			case hp[1] == tc.port:
				control++
			default:
				data++
			}
		}
		// The get's file, the mirror's listing and each of its files: a
		// data connection each, all through dante.
		if control < 2 || data < 2+files {
			t.Errorf("%s: dante made %d control and %d data connections, want 2 or more and %d or more:\n%s", tc.scheme, control, data, 2+files, log)
		}
		t.Logf("%s: dante carried %d control and %d data connections", tc.scheme, control, data)
		if tc.scheme == "socks5" {
			// Every transfer (the get's file, the listing and each file)
			// was dante's client's, whose data connections vsftpd takes
			// from the control connection's peer only, dante's address;
			// dante made a data connection for each, and no more than
			// vsftpd answered EPSVs (gofer asks for the next one while a
			// transfer ends, and may quit before using it).
			slog := server()
			epsv := strings.Count(slog, `Client "`+danteHost+`", "229 `)
			transfers := strings.Count(slog, `Client "`+danteHost+`", "150 `)
			if transfers != 2+files || data < transfers || data > epsv {
				t.Errorf("vsftpd answered %d EPSV and opened %d transfers for %s, want %d; dante made %d data connections",
					epsv, transfers, danteHost, 2+files, data)
			}
		}
	}

	since := itest.LogSince(t, itest.ProxyLogDante)
	for _, scheme := range []string{"socks5", "socks5h"} {
		res := itest.Run(t, nil, noProxyEnv(), "get", "--ftp-port", "-", "--proxy", scheme+"://"+itest.DanteProxy,
			"-o", filepath.Join(t.TempDir(), "x"), "ftp://"+itest.FTPHost+"/archive/README.txt")
		if res.Code != 2 || !strings.Contains(res.Reason(), "active mode cannot go through the proxy "+scheme+"://"+itest.DanteProxy) {
			t.Errorf("%s with --ftp-port: exit %d, %q: want 2 and active mode refused, the proxy named", scheme, res.Code, res.Reason())
		}
	}
	if n := len(danteTargets(since())); n != 0 {
		t.Errorf("active mode refused, yet dante made %d connections", n)
	}
}
