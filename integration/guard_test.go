package integration_test

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

// These tests need no real server: they prove that the guard refuses before
// anything reaches the wire. Each URL points at a listener of the test's
// own; the listener must see no connection at all.

// wireRecorder is a listener that records every connection and byte it gets.
type wireRecorder struct {
	ln net.Listener
}

func listenRecorder(t *testing.T, addr string) *wireRecorder {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	return &wireRecorder{ln: ln}
}

// received returns what connections reached the listener so far, reading
// each for what it sent. gofer has exited when this is called, so any
// connection it made is already complete and waiting in the accept queue.
func (r *wireRecorder) received(t *testing.T) []string {
	t.Helper()
	var got []string
	for {
		r.ln.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Millisecond))
		c, err := r.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return got
			}
			t.Fatalf("accept: %v", err)
		}
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		buf := make([]byte, 4096)
		n, _ := c.Read(buf)
		c.Close()
		got = append(got, fmt.Sprintf("%q", buf[:n]))
	}
}

// injectionCorpus: URLs that try to smuggle CR, LF, NUL, TAB (Gopher), IAC
// (telnet) or whole extra commands through every URL part, percent-encoded
// and raw, alone and in combination. ADDR is replaced by the listener's
// address; "part" is what the one-line reason must name.
var injectionCorpus = []struct {
	url  string
	part string
	args []string
}{
	// FTP: user, password, directory segments, file name.
	{"ftp://us%0D%0Aer@ADDR/f", "user", nil},
	{"ftp://user%00@ADDR/f", "user", nil},
	{"ftp://u:pa%0D%0ADELE%20x@ADDR/f", "password", nil},
	{"ftp://u:pa%0Ass@ADDR/f", "password", nil},
	{"ftp://u:p%00@ADDR/f", "password", nil},
	{"ftp://ADDR/etc%0D%0ADELE%20motd/motd", "segment", nil},
	{"ftp://ADDR/a/b%0Ac/d", "segment", nil},
	{"ftp://ADDR/a%00/d", "segment", nil},
	{"ftp://ADDR/pub/motd%0D%0AQUIT", "segment", nil},
	{"ftp://ADDR/pub/motd%0A", "segment", nil},
	{"ftp://ADDR/pub/mo%00td;type=i", "segment", nil},
	{"ftp://ADDR/pub/%0D%0ASITE%20EXEC%20x/;type=d", "segment", nil},
	{"ftp://ADDR/%2Fetc%0D/passwd", "segment", nil},
	{"ftp://u%0D:p%0A@ADDR/a%00/b%0D%0A", "", nil},
	{"ftps://ADDR/pub/f%0D%0AQUIT", "segment", nil},
	// HTTP: path and search part.
	{"http://ADDR/a%0D%0AHost:%20evil", "path", nil},
	{"http://ADDR/a%0Ab", "path", nil},
	{"http://ADDR/a%00b", "path", nil},
	{"http://ADDR/a?q=%0D%0ASet-Cookie:%20x", "search", nil},
	{"http://ADDR/a?%00", "search", nil},
	{"https://ADDR/x%0D%0A%0D%0AGET%20/y", "path", nil},
	// Gopher: selector, search, Gopher+ string, malformed +ASK blocks.
	{"gopher://ADDR/0sel%0D%0Aector", "selector", nil},
	{"gopher://ADDR/0sel%0Aector", "selector", nil},
	{"gopher://ADDR/0sel%00", "selector", nil},
	{"gopher://ADDR/1%0D%0A", "selector", nil},
	{"gopher://ADDR/7search%09te%0D%0Arm", "search", nil},
	{"gopher://ADDR/7search%09te%00rm", "search", nil},
	{"gopher://ADDR/7s%09a%09b%09c", "", nil},
	{"gopher://ADDR/0x%09%09+%0D%0Ax", "", nil},
	{"gopher://ADDR/0x%09%09!%0A+ABSTRACT", "", nil},
	{"gopher://ADDR/0x%09%09$%00", "", nil},
	{"gopher://ADDR/0x%09%09+%091%0D%0A+-1%0D%0Aa%0D%0AQUIT", "", nil},
	{"gopher://ADDR/0x%09%09+%091%0D%0A+-1%0D%0Aa%0Ab%0D%0A.%0D%0A", "", nil},
	{"gopher://ADDR/0x%09%09+%091%0D%0A+-1%0D%0Aa%09b%0D%0A.%0D%0A", "", nil},
	{"gopher://ADDR/0x%09%09+%092%0D%0A+-1%0D%0A.%0D%0Aextra", "", nil},
	{"gopher://ADDR/7s%0D%0A%09q%0D%0A", "", nil},
	// News and NNTP: message-id, group.
	{"news:abc%0D%0AQUIT@example.org", "message", []string{"--nntp-server", "ADDR"}},
	{"news:abc%00@example.org", "message", []string{"--nntp-server", "ADDR"}},
	{"news:a%0Ab@c", "message", []string{"--nntp-server", "ADDR"}},
	{"news:comp.lang%0D%0APOST", "group", []string{"--nntp-server", "ADDR"}},
	{"news:alt.x%00", "group", []string{"--nntp-server", "ADDR"}},
	{"nntp://ADDR/gr%0D%0AQUIT/1", "group", nil},
	{"nntp://ADDR/gr%00oup", "group", nil},
	{"nntp://ADDR/gr%0Aoup/12", "group", nil},
	// Telnet, rlogin, tn3270: the user (CR, LF, NUL, IAC); the password
	// when auto-login would type it.
	{"telnet://us%0D%0Aer@ADDR/", "user", nil},
	{"telnet://us%0Aer@ADDR/", "user", nil},
	{"telnet://us%00er@ADDR/", "user", nil},
	{"telnet://us%FFer@ADDR/", "user", nil},
	{"telnet://%FF%FD%18@ADDR", "user", nil},
	{"telnet://user:pa%0D%0Als@ADDR/", "password", []string{"--auto-login"}},
	{"rlogin://us%0Aer@ADDR/", "user", nil},
	{"tn3270://us%FFer@ADDR/", "user", nil},
	// Raw control characters: never allowed on the wire either.
	{"ftp://ADDR/pub/motd\r\nDELE x", "", nil},
	{"gopher://ADDR/0sel\r\nector", "", nil},
	{"http://ADDR/a\r\nHost: x", "", nil},
	{"news:a\nb@c", "", []string{"--nntp-server", "ADDR"}},
}

func TestInjectionNeverReachesTheWire(t *testing.T) {
	itest.Parallel(t)
	if len(injectionCorpus) < 50 {
		t.Fatalf("corpus has %d URLs, want at least 50", len(injectionCorpus))
	}
	rec := listenRecorder(t, "127.0.0.1:0")
	addr := rec.ln.Addr().String()
	for _, c := range injectionCorpus {
		url := strings.ReplaceAll(c.url, "ADDR", addr)
		args := []string{"get"}
		for _, a := range c.args {
			args = append(args, strings.ReplaceAll(a, "ADDR", addr))
		}
		r := itest.Run(t, nil, nil, append(args, url)...)
		code, out, errOut := r.Code, r.Stdout, r.Stderr
		if code != 3 {
			t.Errorf("%q: exit %d, want 3 (stderr %q)", url, code, errOut)
		}
		if out != "" {
			t.Errorf("%q: wrote %q to stdout", url, out)
		}
		reason := r.Reason()
		if c.part != "" && !strings.Contains(strings.ToLower(reason), c.part) {
			t.Errorf("%q: reason %q does not name the %s", url, reason, c.part)
		}
		if got := rec.received(t); len(got) > 0 {
			t.Errorf("%q: the listener received %v", url, got)
		}
	}
}

// badPorts is the WHATWG Fetch "bad port" list; otherDefaults the default
// ports of RFC 1738 and RFC 1630 and gofer's TLS defaults. Kept here, apart from the
// guard's own table, so the test is an independent check of it.
var badPorts = []int{1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79,
	87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161,
	179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601,
	636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566,
	6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080}

var otherDefaults = []int{21, 80, 70, 119, 23, 210, 1525, 513, 443, 563, 990}

// sameProtocol lists, per scheme, the ports that belong to its own
// protocol: its default and its TLS twin's, which draw only a warning
// (except nntp on 563, refused: TestNNTPOnTLSPort).
var sameProtocol = map[string][]int{
	"ftp":    {21, 990},
	"http":   {80, 443},
	"gopher": {70},
	"nntp":   {119},
	"telnet": {23},
}

func TestPortRefusals(t *testing.T) {
	itest.Parallel(t)
	const host = "127.0.0.250"
	ports := map[int]bool{}
	for _, p := range append(append([]int{}, badPorts...), otherDefaults...) {
		ports[p] = true
	}
	recs := map[int]*wireRecorder{}
	for p := range ports {
		recs[p] = listenRecorder(t, fmt.Sprintf("%s:%d", host, p))
	}
	urls := map[string]string{
		"ftp":    "ftp://%s:%d/pub/file",
		"http":   "http://%s:%d/file",
		"gopher": "gopher://%s:%d/0file",
		"nntp":   "nntp://%s:%d/gofer.test/1",
		"telnet": "telnet://%s:%d/",
	}
	for scheme, tmpl := range urls {
		for p := range ports {
			if containsPort(sameProtocol[scheme], p) {
				continue
			}
			url := fmt.Sprintf(tmpl, host, p)
			r := itest.Run(t, nil, nil, "get", "--timeout", "2s", url)
			if r.Code != 3 {
				t.Errorf("%s: exit %d, want 3 (%q)", url, r.Code, r.Stderr)
			} else if !strings.Contains(r.Reason(), fmt.Sprint(p)) {
				t.Errorf("%s: reason %q does not name the port", url, r.Reason())
			}
		}
	}
	for p, r := range recs {
		if got := r.received(t); len(got) > 0 {
			t.Errorf("port %d received %v", p, got)
		}
	}

	// --allow-port lifts the refusal for that port: gofer then connects,
	// with the non-default port warning.
	for scheme, p := range map[string]int{"gopher": 25, "ftp": 119, "http": 6667, "nntp": 80, "telnet": 21} {
		url := fmt.Sprintf(urls[scheme], host, p)
		r := itest.Run(t, nil, nil, "get", "--timeout", "2s", "--allow-port", fmt.Sprint(p), url)
		code, errOut := r.Code, r.Stderr
		if code == 3 {
			t.Errorf("%s with --allow-port: still refused: %q", url, errOut)
		}
		if !strings.Contains(errOut, "warning") {
			t.Errorf("%s with --allow-port: no warning in %q", url, errOut)
		}
		if got := recs[p].received(t); len(got) == 0 {
			t.Errorf("%s with --allow-port: no connection reached the listener", url)
		}
	}
}

// nntp:// on 563 would start a session in the clear with a server that
// expects a TLS handshake: refused (exit 3, nothing sent) unless
// --allow-port 563 says it is meant.
func TestNNTPOnTLSPort(t *testing.T) {
	itest.Parallel(t)
	rec := listenRecorder(t, "127.0.0.251:563")
	url := "nntp://127.0.0.251:563/gofer.test/1"
	r := itest.Run(t, nil, nil, "get", "--timeout", "2s", url)
	if r.Code != 3 {
		t.Fatalf("%s: exit %d, want 3 (%q)", url, r.Code, r.Stderr)
	}
	for _, want := range []string{"563", "nntps"} {
		if !strings.Contains(r.Reason(), want) {
			t.Errorf("%s: reason %q does not name %s", url, r.Reason(), want)
		}
	}
	if got := rec.received(t); len(got) > 0 {
		t.Fatalf("%s: the listener received %v", url, got)
	}
	r = itest.Run(t, nil, nil, "get", "--timeout", "2s", "--allow-port", "563", url)
	if r.Code == 3 || !strings.Contains(r.Stderr, "warning") {
		t.Errorf("%s --allow-port 563: exit %d, %q; want a warning and a connection", url, r.Code, r.Stderr)
	}
	if got := rec.received(t); len(got) == 0 {
		t.Errorf("%s --allow-port 563: no connection reached the listener", url)
	}
}

// A non-default port that no other protocol owns draws a warning and
// nothing more: the connection is made.
func TestNonDefaultPortWarns(t *testing.T) {
	itest.Parallel(t)
	rec := listenRecorder(t, "127.0.0.250:7070")
	r := itest.Run(t, nil, nil, "get", "--timeout", "2s", "gopher://127.0.0.250:7070/0file")
	code, errOut := r.Code, r.Stderr
	if code == 3 {
		t.Fatalf("refused: %q", errOut)
	}
	if !strings.Contains(errOut, "warning") || !strings.Contains(errOut, "7070") {
		t.Errorf("no port warning in %q", errOut)
	}
	if got := rec.received(t); len(got) != 1 || !strings.Contains(got[0], `file\r\n`) {
		t.Errorf("listener received %v, want one request for the selector", got)
	}
}

func containsPort(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
