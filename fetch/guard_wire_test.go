package fetch

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes/nntp"
	"github.com/goferurl/gofer/security"
)

// injectionCorpus are URLs (HOST stands for a listener's address) that try
// to smuggle a protocol delimiter through every URL part bound for a line
// protocol, percent-encoded, alone and in combination.
var injectionCorpus = []string{
	"ftp://HOST/%0D%0ADELE%20x",
	"ftp://HOST/etc%0Amotd",
	"ftp://HOST/a/b%0D/c",
	"ftp://HOST/a%00b",
	"ftp://HOST/dir%0D%0APORT%201,2,3,4,0,25/file",
	"ftp://u%0D%0ASITE%20x@HOST/file",
	"ftp://u:p%0AQUIT@HOST/file",
	"ftp://u:p%00@HOST/file",
	"ftp://HOST/%0D%0A;type=i",
	"ftp://HOST//%0A",
	"ftps://HOST/a%0Db",
	"ftps://u%0A@HOST/a",
	"gopher://HOST/0a%0D%0Ab",
	"gopher://HOST/0a%0Ab",
	"gopher://HOST/0a%00b",
	"gopher://HOST/1%0D%0A",
	"gopher://HOST/7search%09q%0D%0Ax",
	"gopher://HOST/7search%09q%00",
	"gopher://HOST/7search%09q%0Ax%09+",
	"gopher://HOST/0sel%09%09+%0D%0AQUIT",
	"gopher://HOST/0sel%09%09!%0A",
	"gopher://HOST/0sel%09%09$%09",
	"gopher://HOST/0sel%09%09+%091%0D%0A+-1%0D%0Aa%0Ab%0D%0A.%0D%0A",
	"gopher://HOST/0sel%09%09+%091%0D%0A+-1%0D%0Aa%0D%0A.%0D%0AEXTRA",
	"gopher://HOST/0sel%09%09+%091%0D%0A+-2%0D%0Aa%0D%0A.%0D%0A",
	"gopher://HOST/0sel%09%09+%092%0D%0A+-1%0D%0Aa%0D%0A.%0D%0A",
	"gopher://HOST/0sel%09%09+%091%0D%0A+-1%0D%0A.%0D%0AMAIL%20FROM%0D%0A.%0D%0A",
	"gopher://HOST/0sel%09%09?%0D%0A",
	"http://HOST/%0D%0AHost:%20evil",
	"http://HOST/a%0Ab",
	"http://HOST/a%00b",
	"http://HOST/?q=%0D%0AX-Injected:%201",
	"http://HOST/p?%0A",
	"http://HOST/p?a=1&b=%00",
	"https://HOST/%0D%0A",
	"https://HOST/?%0A",
	"nntp://HOST/comp.lang%0D%0APOST",
	"nntp://HOST/a%0Ab",
	"nntp://HOST/a%00b/12",
	"nntps://HOST/g%0D%0AQUIT",
	"news:comp.lang%0D%0APOST",
	"news:group%0A",
	"news:a%00b",
	"news:id%0D%0AQUIT@HOST",
	"news:x@y%0A",
	"telnet://bob%FF%F4@HOST/",
	"telnet://bob%0D%0A@HOST/",
	"telnet://bob%00@HOST/",
	"telnet://bob:pw%FF@HOST/",
	"telnet://bob:pw%0A@HOST/",
	"rlogin://bob%0A@HOST/",
	"rlogin://bob%FF@HOST/",
	"tn3270://bob%0D@HOST/",
	"tn3270://bob%FF%FB%01@HOST/",
}

// TestInjectionNeverConnects runs the corpus through the shipped fetchers
// with a listener on the target address: every URL is refused as an
// injection and the listener is never connected to.
func TestInjectionNeverConnects(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()
	opts := Options{ConnectTimeout: time.Second, IdleTimeout: time.Second}
	opts.SetFetcher(&nntp.Fetcher{Server: addr}, nntp.Schemes()...)
	c := NewClient(opts)
	defer c.Close()
	for _, tmpl := range injectionCorpus {
		raw := strings.ReplaceAll(tmpl, "HOST", addr)
		_, err := c.Get(context.Background(), raw)
		var ie *security.InjectionError
		if !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an injection refusal", raw, err)
		}
	}
	// A connection made by any of those would wait in the accept queue.
	if n := queued(t, l); n != 0 {
		t.Fatalf("refused URLs made %d connections to their target", n)
	}
}

// TestPortsRefusedPerScheme: for every shipped scheme with a port, each
// other scheme's default port and a sample of the bad ports is refused
// before any dial; --allow-port lifts exactly the port it names.
func TestPortsRefusedPerScheme(t *testing.T) {
	d := &recordingDialer{}
	c := NewClient(Options{Dialer: d})
	defer c.Close()
	schemesWithPort := map[string]string{
		"ftp": "/x", "ftps": "/x", "http": "/", "https": "/", "gopher": "/", "nntp": "/g",
		"nntps": "/g", "telnet": "/", "rlogin": "/", "tn3270": "/",
	}
	ports := []int{21, 23, 25, 70, 80, 119, 210, 443, 513, 563, 990, 1525, 6667, 10080}
	for scheme, path := range schemesWithPort {
		for _, port := range ports {
			raw := scheme + "://127.0.0.1:" + strconv.Itoa(port) + path
			before := len(d.addrs)
			_, err := c.Get(context.Background(), raw)
			if portFamilyOf(scheme, port) {
				continue // its own or its TLS twin's port: warned, not refused
			}
			if !errors.Is(err, security.ErrPort) {
				t.Errorf("%s: %v, want a port refusal", raw, err)
			}
			if len(d.addrs) != before {
				t.Errorf("%s was refused but dialed", raw)
			}
		}
	}
	allow := NewClient(Options{Dialer: d, AllowPorts: []int{25}})
	defer allow.Close()
	if _, err := allow.Get(context.Background(), "gopher://127.0.0.1:25/"); errors.Is(err, security.ErrPort) {
		t.Errorf("allowed port 25 refused: %v", err)
	}
	if _, err := allow.Get(context.Background(), "gopher://127.0.0.1:21/"); !errors.Is(err, security.ErrPort) {
		t.Errorf("port 21 with only 25 allowed: %v", err)
	}
}

// portFamilyOf reports whether port is scheme's own default or its TLS
// twin's, which the policy warns about instead of refusing.
func portFamilyOf(scheme string, port int) bool {
	own := map[string][]int{
		"ftp": {21, 990}, "ftps": {21, 990}, "http": {80, 443}, "https": {80, 443},
		"gopher": {70}, "nntp": {119, 563}, "nntps": {119, 563},
		"telnet": {23}, "tn3270": {23}, "rlogin": {513},
	}
	for _, p := range own[scheme] {
		if p == port {
			return true
		}
	}
	return false
}
