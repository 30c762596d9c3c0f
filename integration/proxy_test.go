package integration_test

// Fetches through the harness's real proxies (integration/up proxy):
// microsocks for SOCKS5 with and without a password, tinyproxy for HTTP
// CONNECT. Every fetch is checked twice: the bytes are right, and the
// proxy's own log names the target, so a fetch that went around the proxy
// fails. A proxy's log is read only by that proxy's subtest, which runs its
// fetches one after another.

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// testProxy is one of the harness's proxies.
type testProxy struct {
	name string
	addr string // host:port
	url  string // as gofer takes it
	log  string // its log file in itest.LogDir
	// saw matches the log line of a connection the proxy made to a target
	// (a regular expression for host:port).
	saw func(target string) *regexp.Regexp
}

var testProxies = []testProxy{
	{"socks5", itest.SOCKSProxy, "socks5://" + itest.SOCKSProxy, itest.ProxyLogSOCKS, microsocksSaw},
	{"socks5-auth", itest.SOCKSAuthProxy, "socks5://" + itest.ProxyUser + ":" + itest.ProxyPassword + "@" + itest.SOCKSAuthProxy, itest.ProxyLogSOCKSAuth, microsocksSaw},
	{"connect", itest.ConnectProxy, "http://" + itest.ConnectProxy, itest.ProxyLogConnect, tinyproxySaw},
}

func microsocksSaw(target string) *regexp.Regexp {
	return regexp.MustCompile(`: connected to ` + target + `\n`)
}

func tinyproxySaw(target string) *regexp.Regexp {
	return regexp.MustCompile(`: CONNECT ` + target + ` HTTP/1\.1\n`)
}

// proxyCase is one fetch through a proxy.
type proxyCase struct {
	name   string
	scheme string // picks <scheme>_proxy
	args   []string
	stdin  string
	// targets are the host:port patterns the proxy must have connected to.
	targets []string
	check   func(t *testing.T, stdout string)
}

// ftpDataPort matches the passive data ports of the vsftpd on FTPHost.
const ftpDataPort = `127\.0\.0\.21:4[0-4][0-9]{3}`

func proxyCases(t *testing.T) []proxyCase {
	m := itest.Manifest(t)
	sha := func(path string) func(*testing.T, string) {
		return func(t *testing.T, out string) {
			t.Helper()
			sum := sha256.Sum256([]byte(out))
			if got := hex.EncodeToString(sum[:]); got != m[path] {
				t.Errorf("sha256 %s (%d bytes), want %s (archive %s)", got, len(out), m[path], path)
			}
		}
	}
	contains := func(want ...string) func(*testing.T, string) {
		return func(t *testing.T, out string) {
			t.Helper()
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		}
	}
	telnetURL := "telnet://" + itest.LocalUser + ":" + itest.LocalPassword + "@" + itest.TelnetHost + "/"
	return []proxyCase{
		{
			name: "ftp-file", scheme: "ftp",
			args:    []string{"ftp://" + itest.FTPHost + "/archive/binary/random-64k.bin"},
			targets: []string{`127\.0\.0\.21:21`, ftpDataPort},
			check:   sha("binary/random-64k.bin"),
		},
		{
			name: "ftp-listing", scheme: "ftp",
			args:    []string{"ftp://" + itest.FTPHost + "/archive/text/"},
			targets: []string{`127\.0\.0\.21:21`, ftpDataPort},
			check:   contains("dots.txt  ftp://127.0.0.21/archive/text/dots.txt", "long-line.txt"),
		},
		{
			name: "gopher-item", scheme: "gopher",
			args:    []string{"gopher://" + itest.GopherHost + "/9/binary.bin"},
			targets: []string{`127\.0\.0\.71:70`},
			check:   sha("binary/all-bytes.bin"),
		},
		{
			name: "news-article", scheme: "news",
			args:    []string{"--nntp-server", itest.NNTPHost, "news:gofer-test-13@gofer.test"},
			targets: []string{`127\.0\.0\.119:119`},
			check: func(t *testing.T, out string) {
				if want := newsServed(t, "gofer-test-13"); out != want {
					t.Errorf("article:\n%s\nwant\n%s", out, want)
				}
			},
		},
		{
			name: "http-file", scheme: "http",
			args:    []string{"http://" + itest.HTTPHost + "/archive/binary/random-64k.bin"},
			targets: []string{`127\.0\.0\.80:80`},
			check:   sha("binary/random-64k.bin"),
		},
		{
			name: "https-file", scheme: "https",
			args:    []string{"--cacert", itest.CertPath(), "https://" + itest.HTTPHost + "/archive/binary/random-1m.bin"},
			targets: []string{`127\.0\.0\.80:443`},
			check:   sha("binary/random-1m.bin"),
		},
		{
			name: "telnet-session", scheme: "telnet",
			args:    []string{"--auto-login", telnetURL},
			stdin:   "echo MARK$((6*7))\nexit\n",
			targets: []string{`127\.0\.0\.23:23`},
			check:   contains("\nMARK42\n"),
		},
	}
}

// noProxyEnv clears every proxy variable gofer reads, so only what a test
// sets names a proxy.
func noProxyEnv() []string {
	env := []string{"ALL_PROXY=", "all_proxy=", "NO_PROXY=", "no_proxy="}
	for _, s := range []string{"ftp", "gopher", "news", "nntp", "http", "https", "telnet"} {
		env = append(env, s+"_proxy=", strings.ToUpper(s)+"_PROXY=")
	}
	return env
}

// TestProxies fetches from every TCP scheme through every proxy, naming
// the proxy with --proxy, ALL_PROXY and <scheme>_proxy in turn.
//
// It runs in the serial phase (its proxies run side by side within it):
// among the parallel tests, the telnet session through tinyproxy lost its
// command once in five full runs (the shell's prompt came, the session
// ended, and neither the command's echo nor its output arrived).
func TestProxies(t *testing.T) {
	for _, hp := range []string{ftpServer, itest.GopherHost + ":70", newsServer, httpServer, httpsServer, telnetServer} {
		itest.Require(t, hp)
	}
	cases := proxyCases(t)
	readme := itest.Manifest(t)["README.txt"]
	for _, p := range testProxies {
		t.Run(p.name, func(t *testing.T) {
			itest.Require(t, p.addr)
			t.Parallel()
			for _, c := range cases {
				ways := []struct {
					name string
					args []string
					env  []string
				}{
					{"flag", []string{"--proxy", p.url}, nil},
					{"ALL_PROXY", nil, []string{"ALL_PROXY=" + p.url}},
					{c.scheme + "_proxy", nil, []string{c.scheme + "_proxy=" + p.url}},
				}
				for _, w := range ways {
					t.Run(c.name+"/"+w.name, func(t *testing.T) {
						since := itest.LogSince(t, p.log)
						args := append(append([]string{"get", "-q"}, w.args...), c.args...)
						if p.name == "connect" && c.scheme == "ftp" {
							// An http:// proxy is asked for an ftp:// URL
							// itself (GET) unless told to tunnel.
							args = append([]string{"get", "-q", "--proxy-tunnel"}, args[2:]...)
						}
						r := itest.Run(t, strings.NewReader(c.stdin), append(noProxyEnv(), w.env...), args...)
						if r.Code != 0 {
							t.Fatalf("exit %d: %s", r.Code, r.Stderr)
						}
						c.check(t, r.Stdout)
						log := since()
						for _, target := range c.targets {
							if !p.saw(target).MatchString(log) {
								t.Errorf("the proxy's log shows no connection to %s; it has:\n%s", target, log)
							}
						}
					})
				}
			}
			t.Run("NO_PROXY", func(t *testing.T) {
				since := itest.LogSince(t, p.log)
				// NO_PROXY names the target: direct, whatever else names a proxy.
				for _, env := range [][]string{
					{"ALL_PROXY=" + p.url, "NO_PROXY=" + itest.HTTPHost},
					{"http_proxy=" + p.url, "no_proxy=127.0.0.0/8"},
				} {
					r := itest.Run(t, nil, append(noProxyEnv(), env...), "get", "-q", "http://"+itest.HTTPHost+"/archive/README.txt")
					if sum := sha256.Sum256([]byte(r.Stdout)); r.Code != 0 || hex.EncodeToString(sum[:]) != readme {
						t.Errorf("%q: exit %d, %d bytes, not README.txt: %s", env, r.Code, len(r.Stdout), r.Stderr)
					}
				}
				if p.saw(`127\.0\.0\.80:80`).MatchString(since()) {
					t.Errorf("a host NO_PROXY names went through the proxy:\n%s", since())
				}
				// A NO_PROXY for another host leaves this one proxied.
				r := itest.Run(t, nil, append(noProxyEnv(), "ALL_PROXY="+p.url, "NO_PROXY=127.0.0.21,localhost"), "get", "-q", "http://"+itest.HTTPHost+"/archive/README.txt")
				if r.Code != 0 || !p.saw(`127\.0\.0\.80:80`).MatchString(since()) {
					t.Errorf("NO_PROXY of other hosts: exit %d (%s), yet not proxied:\n%s", r.Code, r.Stderr, since())
				}
			})
			t.Run("guard-before-proxy", func(t *testing.T) {
				since := itest.LogSince(t, p.log)
				// Port 25 is SMTP's: refused for gopher, whichever way the
				// proxy is named, and the proxy hears nothing.
				for _, run := range []struct {
					args []string
					env  []string
				}{
					{[]string{"--proxy", p.url}, nil},
					{nil, []string{"ALL_PROXY=" + p.url}},
					{nil, []string{"gopher_proxy=" + p.url}},
				} {
					args := append(append([]string{"get"}, run.args...), "gopher://"+itest.GopherHost+":25/1")
					r := itest.Run(t, nil, append(noProxyEnv(), run.env...), args...)
					if r.Code != 3 {
						t.Errorf("%q %q: exit %d, want 3: %s", run.args, run.env, r.Code, r.Stderr)
					}
				}
				if log := since(); log != "" {
					t.Errorf("the proxy was contacted for refused URLs:\n%s", log)
				}
			})
		})
	}
}

// TestProxySOCKSWrongPassword: the SOCKS5 proxy refuses the credentials,
// which is an authentication failure (exit 6), and it connects nowhere.
func TestProxySOCKSWrongPassword(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.SOCKSAuthProxy)
	itest.Require(t, ftpServer)
	since := itest.LogSince(t, itest.ProxyLogSOCKSAuth)
	for _, u := range []string{
		"socks5://" + itest.ProxyUser + ":wrong-secret@" + itest.SOCKSAuthProxy,
		"socks5://" + itest.SOCKSAuthProxy, // none at all
	} {
		r := itest.Run(t, nil, noProxyEnv(), "get", "--proxy", u, "ftp://"+itest.FTPHost+"/archive/README.txt")
		if r.Code != 6 || r.Stdout != "" {
			t.Errorf("--proxy %s: exit %d, stdout %q, want 6 and nothing: %s", u, r.Code, r.Stdout, r.Stderr)
		}
		if strings.Contains(r.Stderr, "wrong-secret") {
			t.Errorf("the proxy password shows: %s", r.Stderr)
		}
	}
	if microsocksSaw(`127\.0\.0\.21:21`).MatchString(since()) {
		t.Errorf("the proxy connected to the target anyway:\n%s", since())
	}
}
