package security

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

func ftpURL(user, pass string, segs ...string) *schemes.URL {
	return &schemes.URL{Scheme: "ftp", Host: "127.0.0.21", User: user, Password: pass,
		HasUser: user != "", HasPassword: pass != "", FTP: &schemes.FTP{Segments: segs}}
}

func gopherURL(sel, search, plus string) *schemes.URL {
	return &schemes.URL{Scheme: "gopher", Host: "127.0.0.70", Gopher: &schemes.Gopher{
		Type: '0', Selector: sel, Search: search, HasSearch: search != "", PlusString: plus, HasPlus: plus != ""}}
}

func httpURL(path, search string) *schemes.URL {
	return &schemes.URL{Scheme: "http", Host: "127.0.0.80", HTTP: &schemes.HTTP{Path: path, Search: search, HasSearch: search != ""}}
}

func geminiURL(path, search string) *schemes.URL {
	return &schemes.URL{Scheme: "gemini", Host: "127.0.0.1", HTTP: &schemes.HTTP{Path: path, Search: search, HasSearch: search != ""}}
}

func waisURL(db, search, wtype string) *schemes.URL {
	w := &schemes.WAIS{Database: db, Search: search, HasSearch: search != "", WType: wtype}
	if wtype != "" {
		w.WPath = "3=x;"
	}
	return &schemes.URL{Scheme: "wais", Host: "127.0.0.210", WAIS: w}
}

// TestInjectionRefusals asserts that each part bound for a line protocol is
// checked and that the refusal names that part and the byte.
func TestInjectionRefusals(t *testing.T) {
	tests := []struct {
		name string
		u    *schemes.URL
		part string
		b    byte
	}{
		{"ftp user CR", ftpURL("a\rb", "", "x"), "ftp user", '\r'},
		{"ftp password LF", ftpURL("me", "p\nQUIT", "x"), "ftp password", '\n'},
		{"ftp first segment", ftpURL("", "", "etc\r\nDELE x", "motd"), "ftp segment 1", '\r'},
		{"ftp name segment", ftpURL("", "", "etc", "mo\x00td"), "ftp segment 2", 0},
		{"ftp type code", &schemes.URL{Scheme: "ftp", Host: "127.0.0.21", FTP: &schemes.FTP{Segments: []string{"x"}, TypeCode: '\n'}}, "ftp type code", '\n'},
		{"gopher selector TAB", gopherURL("a\tb", "", ""), "gopher selector", '\t'},
		{"gopher selector CR", gopherURL("a\rb", "", ""), "gopher selector", '\r'},
		{"gopher search LF", gopherURL("s", "q\nx", ""), "gopher search", '\n'},
		{"gopher search TAB", gopherURL("s", "q\tx", ""), "gopher search", '\t'},
		{"gopher+ view with LF", gopherURL("s", "", "+text/plain\nx"), "gopher+ string", '\n'},
		{"gopher+ attrs with TAB", gopherURL("s", "", "!+ABSTRACT\t+VIEWS"), "gopher+ string", '\t'},
		{"gopher+ ask with NUL", gopherURL("s", "", "?\x00"), "gopher+ string", 0},
		{"news group", &schemes.URL{Scheme: "news", News: &schemes.News{Group: "comp.lang\r\nPOST"}}, "news group", '\r'},
		{"news message-id", &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: "a@b\nQUIT"}}, "news message-id", '\n'},
		{"nntp group", &schemes.URL{Scheme: "nntp", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "g\x00"}}, "nntp group", 0},
		{"telnet user IAC", &schemes.URL{Scheme: "telnet", Host: "127.0.0.23", User: "bob\xff\xf4", HasUser: true, Telnet: &schemes.Telnet{}}, "telnet user", 0xFF},
		{"telnet user CR", &schemes.URL{Scheme: "telnet", Host: "127.0.0.23", User: "bob\r", HasUser: true, Telnet: &schemes.Telnet{}}, "telnet user", '\r'},
		{"rlogin user LF", &schemes.URL{Scheme: "rlogin", Host: "127.0.0.1", User: "a\nb", HasUser: true, Telnet: &schemes.Telnet{}}, "rlogin user", '\n'},
		{"tn3270 password IAC", &schemes.URL{Scheme: "tn3270", Host: "127.0.0.1", User: "a", Password: "\xff", HasUser: true, HasPassword: true, Telnet: &schemes.Telnet{}}, "tn3270 password", 0xFF},
		{"http path encoded CRLF", httpURL("/a%0D%0AHost:%20x", ""), "http path", '\r'},
		{"http search encoded LF", httpURL("/", "q=%0aX"), "http search", '\n'},
		{"https path encoded NUL", &schemes.URL{Scheme: "https", Host: "127.0.0.1", HTTP: &schemes.HTTP{Path: "/%00"}}, "https path", 0},
		{"gemini path encoded CRLF", geminiURL("/a%0D%0A=> x", ""), "gemini path", '\r'},
		{"gemini path encoded NUL", geminiURL("/a%00b", ""), "gemini path", 0},
		{"gemini search encoded LF", geminiURL("/", "q%0Ax"), "gemini search", '\n'},
		{"gemini search encoded NUL", geminiURL("/", "%00"), "gemini search", 0},
		{"host with CR", &schemes.URL{Scheme: "http", Host: "a\rb", HTTP: &schemes.HTTP{}}, "http host", '\r'},
		{"wais database NUL", waisURL("te\x00st", "", ""), "wais database", 0},
		{"wais database US", waisURL("test\x1fother", "", ""), "wais database", 0x1F},
		{"wais database RS", waisURL("test\x1eother", "", ""), "wais database", 0x1E},
		{"wais search NUL", waisURL("test", "fox\x00", ""), "wais search", 0},
		{"wais type US", waisURL("test", "", "TEXT\x1f"), "wais type", 0x1F},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g Guard
			err := g.Check(tt.u)
			var ie *InjectionError
			if !errors.As(err, &ie) {
				t.Fatalf("Check = %v, want *InjectionError", err)
			}
			if !errors.Is(err, ErrInjection) {
				t.Errorf("errors.Is(err, ErrInjection) = false")
			}
			if ie.Part != tt.part || ie.Byte != tt.b {
				t.Errorf("refusal names %q byte %#x, want %q byte %#x", ie.Part, ie.Byte, tt.part, tt.b)
			}
			if !strings.Contains(err.Error(), tt.part) {
				t.Errorf("message %q does not name %q", err, tt.part)
			}
		})
	}
}

// TestCleanPartsPass asserts that ordinary URLs of each scheme pass silently.
func TestCleanPartsPass(t *testing.T) {
	tests := []*schemes.URL{
		ftpURL("myname", "", "", "etc", "motd"),
		ftpURL("", "", "/etc", "motd"),
		gopherURL("0/about", "", ""),
		gopherURL("7/search", "words and more", "+"),
		httpURL("/a%20b/c", "q=1&r=%41"),
		geminiURL("/a%20b/c.gmi", "an%20answer%09with%20a%20tab"),
		{Scheme: "news", News: &schemes.News{All: true}},
		{Scheme: "nntp", Host: "127.0.0.119", NNTP: &schemes.NNTP{Group: "comp.infosystems", Article: 42}},
		{Scheme: "telnet", Host: "127.0.0.23", User: "bob", HasUser: true, Telnet: &schemes.Telnet{}},
		{Scheme: "file", File: &schemes.File{Path: "/etc/motd"}},
		{Scheme: "mailto", Mailto: &schemes.Mailto{Addr: "a@b"}},
		{Scheme: "x-thing", Opaque: "a%0Db"},
		waisURL("test", "fox and hounds", ""),
		// A document id is binary: NUL (field 7 of freeWAIS ids), CR and LF pass.
		{Scheme: "wais", Host: "127.0.0.210", WAIS: &schemes.WAIS{Database: "test", WType: "TEXT", WPath: "3=a\r\nb;7=\x00;"}},
	}
	for _, u := range tests {
		var warned []string
		g := Guard{Warn: func(s string) { warned = append(warned, s) }}
		if err := g.Check(u); err != nil {
			t.Errorf("Check(%s %+v) = %v, want nil", u.Scheme, u, err)
		}
		if len(warned) != 0 {
			t.Errorf("Check(%s) warned %q, want silence", u.Scheme, warned)
		}
	}
}

// TestPortPolicy is the port table: default silent, another protocol's port
// refused naming scheme, port and protocol, any other port warned.
func TestPortPolicy(t *testing.T) {
	tests := []struct {
		scheme  string
		port    int
		allow   []int
		refused string // protocol named in the refusal, "" when allowed
		warns   bool
	}{
		{"gopher", 70, nil, "", false},
		{"gopher", 0, nil, "", false},
		{"gopher", 25, nil, "smtp", false},
		{"gopher", 21, nil, "ftp", false},
		{"gopher", 80, nil, "http", false},
		{"gopher", 7070, nil, "", true},
		{"gopher", 25, []int{25}, "", true},
		{"gophers", 70, nil, "", false}, // TLS on gopher's own port, as curl does it
		{"gophers", 0, nil, "", false},
		{"gophers", 7070, nil, "", true},
		{"gophers", 443, nil, "https", false},
		{"gophers", 25, nil, "smtp", false},
		{"ftp", 21, nil, "", false},
		{"ftp", 2121, nil, "", true},
		{"ftp", 119, nil, "nntp", false},
		{"ftp", 990, nil, "", true}, // ftps: the same protocol
		{"ftp", 20, nil, "ftp-data", false},
		{"http", 80, nil, "", false},
		{"http", 8080, nil, "", true},
		{"http", 443, nil, "", true},
		{"http", 70, nil, "gopher", false},
		{"http", 6667, nil, "irc", false},
		{"http", 10080, nil, "amanda", false},
		{"https", 443, nil, "", false},
		{"https", 993, nil, "imaps", false},
		{"nntp", 119, nil, "", false},
		{"nntp", 563, nil, "nntps", false}, // in the clear on the TLS port
		{"nntp", 563, []int{563}, "", true},
		{"nntp", 23, nil, "telnet", false},
		{"nntps", 563, nil, "", false},
		{"telnet", 23, nil, "", false},
		{"telnet", 2323, nil, "", true},
		{"telnet", 22, nil, "ssh", false},
		{"tn3270", 23, nil, "", false},
		{"rlogin", 513, nil, "", false},
		{"rlogin", 23, nil, "telnet", false},
		{"wais", 210, nil, "", false},
		{"wais", 1525, nil, "prospero", false},
		{"prospero", 1525, nil, "", false},
		{"prospero", 210, nil, "wais", false},
		{"gemini", 1965, nil, "", false},
		{"gemini", 0, nil, "", false},
		{"gemini", 1966, nil, "", true},
		{"gemini", 70, nil, "gopher", false},
		{"gemini", 443, nil, "https", false},
		{"gemini", 70, []int{70}, "", true},
		{"gopher", 1965, nil, "gemini", false},
		{"https", 1965, nil, "gemini", false},
		{"news", 119, nil, "", false},
		{"news", 443, nil, "https", false},
		{"x-thing", 25, nil, "smtp", false},
		{"x-thing", 9999, nil, "", true},
		{"file", 25, nil, "", false},
	}
	for _, tt := range tests {
		var warned []string
		g := Guard{AllowPorts: tt.allow, Warn: func(s string) { warned = append(warned, s) }}
		u := &schemes.URL{Scheme: tt.scheme, Host: "127.0.0.1", Port: tt.port}
		err := g.Check(u)
		if tt.refused != "" {
			var pe *PortError
			if !errors.As(err, &pe) || !errors.Is(err, ErrPort) {
				t.Errorf("%s port %d: Check = %v, want a *PortError", tt.scheme, tt.port, err)
				continue
			}
			msg := err.Error()
			for _, want := range []string{tt.scheme, " " + strconv.Itoa(tt.port), tt.refused} {
				if !strings.Contains(msg, want) {
					t.Errorf("%s port %d: message %q does not name %q", tt.scheme, tt.port, msg, want)
				}
			}
			if pe.Protocol != tt.refused {
				t.Errorf("%s port %d: protocol %q, want %q", tt.scheme, tt.port, pe.Protocol, tt.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s port %d: Check = %v, want nil", tt.scheme, tt.port, err)
		}
		if got := len(warned) == 1; got != tt.warns {
			t.Errorf("%s port %d: warnings %q, want warned=%v", tt.scheme, tt.port, warned, tt.warns)
		}
		if tt.warns && (!strings.Contains(warned[0], tt.scheme) || !strings.Contains(warned[0], strconv.Itoa(tt.port))) {
			t.Errorf("%s port %d: warning %q does not name scheme and port", tt.scheme, tt.port, warned[0])
		}
		if tt.warns && schemes.DefaultPort(tt.scheme) != 0 && !strings.Contains(warned[0], strconv.Itoa(schemes.DefaultPort(tt.scheme))) {
			t.Errorf("%s port %d: warning %q does not name the default", tt.scheme, tt.port, warned[0])
		}
	}
}

// TestBadPortsComplete asserts that every port of the WHATWG Fetch bad port
// list and every default port of RFC 1738 and RFC 1630 is in the refusal table.
func TestBadPortsComplete(t *testing.T) {
	fetchBad := []int{1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95,
		101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427,
		465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
		995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669,
		6679, 6697, 10080}
	spec := []int{21, 80, 70, 119, 23, 210, 1525, 513, 443, 563, 990, 1965}
	for _, p := range append(fetchBad, spec...) {
		if PortProtocol(p) == "" {
			t.Errorf("port %d is missing from the refusal table", p)
		}
	}
	if got := PortProtocol(8080); got != "" {
		t.Errorf("PortProtocol(8080) = %q, want none", got)
	}
}

func TestPasswordWarning(t *testing.T) {
	var warned []string
	g := Guard{Warn: func(s string) { warned = append(warned, s) }}
	if err := g.Check(ftpURL("me", "s3cr3t", "x")); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.HasPrefix(warned[0], "a password in a URL is unwise") {
		t.Fatalf("warnings %q, want the password warning", warned)
	}
	if strings.Contains(warned[0], "s3cr3t") {
		t.Errorf("warning %q shows the password", warned[0])
	}
}

func TestNilGuard(t *testing.T) {
	var g *Guard
	if err := g.Check(&schemes.URL{Scheme: "gopher", Host: "127.0.0.1", Port: 25}); !errors.Is(err, ErrPort) {
		t.Errorf("nil guard: %v, want ErrPort", err)
	}
	if err := g.Check(&schemes.URL{Scheme: "gopher", Host: "127.0.0.1", Port: 7070, Password: "x", HasPassword: true}); err != nil {
		t.Errorf("nil guard: %v", err)
	}
}

func TestCheckRaw(t *testing.T) {
	for _, raw := range []string{"ftp://h/a\r\nDELE x", "gopher://h/0a\nb", "news:a\x00b@c", "<URL:ftp://h/a\x00>"} {
		if err := CheckRaw(raw); !errors.Is(err, ErrInjection) {
			t.Errorf("CheckRaw(%q) = %v, want an injection refusal", raw, err)
		}
	}
	for _, raw := range []string{"ftp://h/a%0D%0A", "<URL:ftp://h/pub/\n   file.txt>", "http://h/a b"} {
		if err := CheckRaw(raw); err != nil {
			t.Errorf("CheckRaw(%q) = %v", raw, err)
		}
	}
}
