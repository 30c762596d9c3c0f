package schemes

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *URL {
	t.Helper()
	u, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

func TestParseFTPSegmentsDecodedOnce(t *testing.T) {
	// RFC 1738 §3.2.2's three examples, and an encoded ';' before type=.
	cases := []struct {
		in   string
		segs []string
		code byte
	}{
		{"ftp://myname@host.dom/etc/motd", []string{"etc", "motd"}, 0},
		{"ftp://myname@host.dom//etc/motd", []string{"", "etc", "motd"}, 0},
		{"ftp://myname@host.dom/%2Fetc/motd", []string{"/etc", "motd"}, 0},
		{"ftp://h/a%3Btype=i", []string{"a;type=i"}, 0},
		{"ftp://h/a%3Btype=i;TYPE=I", []string{"a;type=i"}, 'i'},
		{"ftp://h/pub/;type=d", []string{"pub", ""}, 'd'},
		{"ftp://h/", []string{""}, 0},
		{"ftp://h", nil, 0},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if !reflect.DeepEqual(u.FTP.Segments, c.segs) || u.FTP.TypeCode != c.code {
			t.Errorf("%s: segments %q type %q, want %q %q", c.in, u.FTP.Segments, u.FTP.TypeCode, c.segs, c.code)
		}
	}
}

func TestParseLogin(t *testing.T) {
	// RFC 1738 §3.1: empty user vs no user vs empty password.
	cases := []struct {
		in               string
		user, pass       string
		hasUser, hasPass bool
		host             string
		port, effective  int
	}{
		{"ftp://@host.com/", "", "", true, false, "host.com", 0, 21},
		{"ftp://host.com/", "", "", false, false, "host.com", 0, 21},
		{"ftp://foo:@host.com/", "foo", "", true, true, "host.com", 0, 21},
		{"ftp://a%40b:p%3Aw@h:2121/", "a@b", "p:w", true, true, "h", 2121, 2121},
		{"http://[::1]:8080/", "", "", false, false, "::1", 8080, 8080},
		{"gopher://127.0.0.70", "", "", false, false, "127.0.0.70", 0, 70},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.User != c.user || u.Password != c.pass || u.HasUser != c.hasUser ||
			u.HasPassword != c.hasPass || u.Host != c.host || u.Port != c.port || u.EffectivePort() != c.effective {
			t.Errorf("%s: got %+v", c.in, u)
		}
	}
}

func TestParseWrappers(t *testing.T) {
	want := "ftp://info.cern.ch/pub/www/doc"
	for _, in := range []string{
		"<ftp://info.cern.ch/pub/www/doc>",
		"<URL:ftp://info.cern.ch/pub/www/doc>",
		"URL:ftp://info.cern.ch/pub/www/doc",
		"  <URL:ftp://info.cern.ch/pub/\n   www/doc>  ",
		"FTP://info.cern.ch/pub/www/doc",
	} {
		if got := mustParse(t, in).String(); got != want {
			t.Errorf("%q: got %s", in, got)
		}
	}
}

func TestParseErrorsNamePosition(t *testing.T) {
	cases := []struct {
		in  string
		pos int
		msg string
	}{
		// RFC 1630 §4.1.2 example 3: "%" must start an escape.
		{"news:12345667123%asdghfh@info.cern.ch", 17, `bad escape "%as"`},
		{"fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred", 37, `bad escape "%*."`},
		{"http://info.cern.ch/RDB/EMP?*%20where%20name%%3Ddobbins", 45, `bad escape "%%3"`},
		{"ftp://h/x%4", 10, `bad escape "%4"`},
		{"<URL:ftp://h/\n x%G1>", 17, `bad escape "%G1"`},
		{"ftp://h:99999/", 9, "port out of range"},
		{"ftp://h:2x/", 10, "invalid port"},
		{"ftp://h/x;type=q", 16, "FTP type code"},
		{"nntp://h/g/12x", 14, "article number"},
		{"telnet://h/x", 11, "takes no path"},
		{"ftp:///x", 7, "missing host"},
		{"/relative/path", 1, "missing scheme"},
		{"", 1, "empty URL"},
		{"http://h/a\x00b", 11, "control character"},
		{"news:", 6, "empty news URL"},
		// RFC 6874's zone, named in the error.
		{"ftp://[fe80::1%25eth0]/x", 15, `IPv6 zone "eth0" in host [fe80::1%25eth0]`},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: err %v, want *ParseError", c.in, err)
			continue
		}
		if pe.Pos != c.pos || !strings.Contains(pe.Error(), c.msg) || !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v (pos %d), want %q at %d", c.in, err, pe.Pos, c.msg, c.pos)
		}
	}
}

func TestParseErrorHidesPassword(t *testing.T) {
	cases := []struct {
		in, input string
		at        byte // the byte at Pos in Input
	}{
		{"ftp://user:s3cret@h:0/", "ftp://user:****@h:0/", '0'},
		// A fault inside the password is shown at the mask.
		{"ftp://user:s3%zz@h/", "ftp://user:****@h/", '*'},
		{"ftp://user:p@ss@h:0/", "ftp://user:****@h:0/", '0'},
		// Nothing to mask: no password, an empty one, no login.
		{"ftp://user@h:0/", "ftp://user@h:0/", '0'},
		{"ftp://user:@h:0/", "ftp://user:@h:0/", '0'},
		{"ftp://h:0/x@y:z", "ftp://h:0/x@y:z", '0'},
	}
	for _, c := range cases {
		_, err := Parse(c.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: err %v, want *ParseError", c.in, err)
			continue
		}
		if strings.Contains(err.Error(), "s3") || pe.Input != c.input || pe.Pos < 1 || pe.Pos > len(pe.Input) || pe.Input[pe.Pos-1] != c.at {
			t.Errorf("%q: Input %q, Pos %d (%v), want Input %q with %q at Pos", c.in, pe.Input, pe.Pos, err, c.input, c.at)
		}
	}
}

func TestRedacted(t *testing.T) {
	u := mustParse(t, "ftp://user:s3cret@h/x")
	if got := u.Redacted(); got != "ftp://user:****@h/x" {
		t.Errorf("Redacted: %s", got)
	}
	if got := mustParse(t, "ftp://user:@h/x").Redacted(); got != "ftp://user:@h/x" {
		t.Errorf("Redacted empty password: %s", got)
	}
}

func TestParseGopher(t *testing.T) {
	cases := []struct {
		in        string
		typ       byte
		sel, srch string
		plus      string
		hasS      bool
		hasP      bool
	}{
		{"gopher://h", '1', "", "", "", false, false},
		{"gopher://h/", '1', "", "", "", false, false},
		{"gopher://h/00/Information", '0', "0/Information", "", "", false, false},
		{"gopher://h/7a_gopher_selector%09foobar", '7', "a_gopher_selector", "foobar", "", true, false},
		{"gopher://h/0a_gopher_selector%09%09!", '0', "a_gopher_selector", "", "!", true, true},
		{"gopher://h/0sel%09%09!+ABSTRACT%20+SMELL", '0', "sel", "", "!+ABSTRACT +SMELL", true, true},
		{"gopher://h/1a%2509b", '1', "a%09b", "", "", false, false},
		{"gopher://h/0s%09q%09+%091%0D%0A+-1%0D%0Av%0D%0A.%0D%0A", '0', "s", "q", "+\t1\r\n+-1\r\nv\r\n.\r\n", true, true},
		{"gopher://h/%3Fs", '?', "s", "", "", false, false},
		{"gopher://h/1a/b?c", '1', "a/b?c", "", "", false, false},
		// gophers: the same syntax, over TLS.
		{"gophers://h", '1', "", "", "", false, false},
		{"GOPHERS://h/0sel%09%09!", '0', "sel", "", "!", true, true},
	}
	for _, c := range cases {
		g := mustParse(t, c.in).Gopher
		want := Gopher{Type: c.typ, Selector: c.sel, Search: c.srch, HasSearch: c.hasS, PlusString: c.plus, HasPlus: c.hasP}
		if *g != want {
			t.Errorf("%s: got %+v, want %+v", c.in, *g, want)
		}
	}
}

func TestGophersDefaults(t *testing.T) {
	u := mustParse(t, "gophers://h/0/a.txt")
	if u.Scheme != "gophers" || u.EffectivePort() != 70 || u.String() != "gophers://h/0/a.txt" {
		t.Errorf("scheme %q port %d string %q", u.Scheme, u.EffectivePort(), u.String())
	}
	if got := FindInText("see gophers://h/0/a.txt, or <URL:gophers://h/1/>."); len(got) != 2 || got[0] != "gophers://h/0/a.txt" || got[1] != "gophers://h/1/" {
		t.Errorf("FindInText: %+v", got)
	}
}

func TestParseOtherSchemes(t *testing.T) {
	cases := []struct {
		in   string
		want URL
	}{
		{"news:*", URL{Scheme: "news", News: &News{All: true}}},
		{"news:comp.infosystems.www.misc", URL{Scheme: "news", News: &News{Group: "comp.infosystems.www.misc"}}},
		{"news:<1234@host.dom>", URL{Scheme: "news", News: &News{MessageID: "1234@host.dom"}}},
		{"news:%2A", URL{Scheme: "news", News: &News{Group: "*"}}},
		{"nntp://h/alt.test/7", URL{Scheme: "nntp", Host: "h", NNTP: &NNTP{Group: "alt.test", Article: 7}}},
		{"mailto:a%25b@c.dom", URL{Scheme: "mailto", Mailto: &Mailto{Addr: "a%b@c.dom"}}},
		{"wais://h:210/db/TEXT/doc%2Fid", URL{Scheme: "wais", Host: "h", Port: 210, WAIS: &WAIS{Database: "db", WType: "TEXT", WPath: "doc/id", RawWPath: "doc%2Fid"}}},
		{"wais://h/db?a+b", URL{Scheme: "wais", Host: "h", WAIS: &WAIS{Database: "db", Search: "a+b", RawSearch: "a+b", HasSearch: true}}},
		{"file://localhost/etc/motd", URL{Scheme: "file", Host: "localhost", File: &File{Path: "/etc/motd"}}},
		{"file:///tmp/a%20b", URL{Scheme: "file", File: &File{Path: "/tmp/a b"}}},
		{"prospero://host.dom//pros/name", URL{Scheme: "prospero", Host: "host.dom", Prospero: &Prospero{HSOName: "/pros/name"}}},
		{"prospero://h/n%007;a=b;c=d=e", URL{Scheme: "prospero", Host: "h", Prospero: &Prospero{HSOName: "n", Version: "7", HasVersion: true, Fields: []Field{{"a", "b"}, {"c", "d=e"}}}}},
		{"telnet://u:p@h/", URL{Scheme: "telnet", User: "u", Password: "p", HasUser: true, HasPassword: true, Host: "h", Telnet: &Telnet{}}},
		{"TN3270://h", URL{Scheme: "tn3270", Host: "h", Telnet: &Telnet{}}},
		{"urn:/iana/dns/ch/cern/cn/techdoc/94/1642-3", URL{Scheme: "urn", Opaque: "/iana/dns/ch/cern/cn/techdoc/94/1642-3"}},
		{"x-Foo:a b", URL{Scheme: "x-foo", Opaque: "a%20b"}},
		{"http://www.myu.edu/org/admin/people#andy", URL{Scheme: "http", Host: "www.myu.edu", HTTP: &HTTP{Path: "/org/admin/people"}, Fragment: "andy", HasFragment: true}},
		{"http://h?x", URL{Scheme: "http", Host: "h", HTTP: &HTTP{Search: "x", HasSearch: true}}},
	}
	for _, c := range cases {
		if got := mustParse(t, c.in); !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.in, *got, c.want)
		}
	}
}

// TestRoundTrip checks Parse(u.String()) == u on the corpus and that String
// is a fixed point.
func TestRoundTrip(t *testing.T) {
	for _, c := range loadCorpus(t) {
		if c.Error != "" {
			continue
		}
		checkRoundTrip(t, c.URL)
	}
}

func checkRoundTrip(t *testing.T, in string) {
	t.Helper()
	u, err := Parse(in)
	if err != nil {
		return
	}
	s := u.String()
	v, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q) ok, Parse(String()=%q): %v", in, s, err)
	}
	if !reflect.DeepEqual(u, v) {
		t.Fatalf("round trip of %q via %q:\n got %+v\nwant %+v", in, s, v, u)
	}
	if s2 := v.String(); s2 != s {
		t.Fatalf("String not canonical: %q then %q", s, s2)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"ftp://myname@host.dom/%2Fetc/motd", "gopher://h/0s%09q%09+%091%0D%0A.%0D%0A",
		"news:<a@b>", "nntp://h/g/1", "wais://h/d/t/p", "prospero://h/n%001;a=b",
		"file:/x", "http://[::1]:80/a?b#c", "mailto:a@b", "x-y:z", "<URL:telnet://u:p@h/>",
		"ftp://h/a;type=i", "gopher://h/%3F", "news:*", "news:%2A",
	} {
		f.Add(s)
	}
	for _, c := range loadCorpus(f) {
		f.Add(c.URL)
	}
	f.Fuzz(checkRoundTrip)
}

func TestEscapeUnescape(t *testing.T) {
	if got := Escape("a b/c;d%é"); got != "a%20b%2Fc%3Bd%25%C3%A9" {
		t.Errorf("Escape: %s", got)
	}
	if got, err := Unescape("a%20b%2Fc"); err != nil || got != "a b/c" {
		t.Errorf("Unescape: %q %v", got, err)
	}
	if _, err := Unescape("a%2"); !errors.Is(err, ErrUsage) {
		t.Errorf("Unescape bad escape: %v", err)
	}
}

func TestStringCanonical(t *testing.T) {
	cases := map[string]string{
		"gopher://h":                       "gopher://h/1",
		"GOPHER://H:70/":                   "gopher://H:70/1",
		"URL:ftp://u:p@h/a b/c%3bd;TYPE=A": "ftp://u:p@h/a%20b/c%3Bd;type=a",
		"ftp://a%40b@h/":                   "ftp://a%40b@h/",
		"gopher://h/0sel%09%09+application/postscript%20Es_ES": "gopher://h/0sel%09%09+application/postscript%20Es_ES",
		"gopher://h/0a%09b":    "gopher://h/0a%09b",
		"http://h/a b?c d#e f": "http://h/a%20b?c%20d#e%20f",
		"news:<a@b>":           "news:a@b",
		"nntp://h/":            "nntp://h",
		"telnet://h":           "telnet://h/",
		"file:/etc/motd":       "file:///etc/motd",
		"prospero://h/a;b=c":   "prospero://h/a;b=c",
		"wais://h/db/t":        "wais://h/db/t/",
		"http://[::1]/":        "http://[::1]/",
		"mailto:a%25b@c":       "mailto:a%25b@c",
		"X-Y:a#b":              "x-y:a#b",
	}
	for in, want := range cases {
		if got := mustParse(t, in).String(); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStringOfLiterals: URLs that scheme packages build as struct literals
// (menu items, listing entries) print so that Parse gives them back.
func TestStringOfLiterals(t *testing.T) {
	for _, u := range []*URL{
		{Scheme: "gopher", Host: "127.0.0.70", Gopher: &Gopher{Type: '0', Selector: "/a dir/file\x7f;#?"}},
		{Scheme: "gopher", Host: "h", Port: 7070, Gopher: &Gopher{Type: '7', Selector: "s", Search: "a b", HasSearch: true}},
		{Scheme: "ftp", Host: "h", User: "u", HasUser: true, FTP: &FTP{Segments: []string{"pub", "a/b;type=i", "x%y"}, TypeCode: 'i'}},
		{Scheme: "nntp", Host: "h", NNTP: &NNTP{Group: "alt.test", Article: 12}},
		{Scheme: "news", News: &News{MessageID: "a.b@c"}},
		{Scheme: "file", File: &File{Path: "/tmp/a b#c"}},
	} {
		v, err := Parse(u.String())
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if !reflect.DeepEqual(u, v) {
			t.Errorf("%s:\n got %+v\nwant %+v", u, v, u)
		}
	}
}

func TestDefaultPorts(t *testing.T) {
	// RFC 1738's and RFC 1630's default ports, plus the TLS variants.
	want := map[string]int{"ftp": 21, "http": 80, "gopher": 70, "nntp": 119, "telnet": 23,
		"wais": 210, "prospero": 1525, "rlogin": 513, "tn3270": 23,
		"https": 443, "ftps": 990, "nntps": 563, "news": 0, "mailto": 0, "file": 0}
	for s, p := range want {
		if got := DefaultPort(s); got != p {
			t.Errorf("DefaultPort(%s) = %d, want %d", s, got, p)
		}
	}
	if got := mustParse(t, "nntp://h/g").EffectivePort(); got != 119 {
		t.Errorf("EffectivePort = %d", got)
	}
}

// TestParseMailtoHeaders: RFC 6068 hfields are split on the raw '?', '&'
// and '=' before decoding, so encoded delimiters stay data.
func TestParseMailtoHeaders(t *testing.T) {
	u := mustParse(t, "mailto:a@b,c%3Fd@e?subject=x%26y%3Dz&cc=f@g&body=l1%0D%0Al2&flag")
	want := &Mailto{Addr: "a@b,c?d@e", Headers: []Header{
		{"subject", "x&y=z"}, {"cc", "f@g"}, {"body", "l1\r\nl2"}, {"flag", ""},
	}}
	if !reflect.DeepEqual(u.Mailto, want) {
		t.Fatalf("got %+v\nwant %+v", u.Mailto, want)
	}
	if s := u.String(); s != "mailto:a@b,c%3Fd@e?subject=x%26y%3Dz&cc=f@g&body=l1%0D%0Al2&flag=" {
		t.Errorf("String: %s", s)
	}
	checkRoundTrip(t, "mailto:?to=a@b&subject=%23hash")
	if u := mustParse(t, "mailto:?to=a@b"); u.Mailto.Addr != "" || len(u.Mailto.Headers) != 1 {
		t.Errorf("empty address with a to header: %+v", u.Mailto)
	}
	for _, bad := range []string{"mailto:", "mailto:?", "mailto:?&&"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	b, _ := json.Marshal(mustParse(t, "mailto:a@b?subject=hi"))
	if !strings.Contains(string(b), `"headers":[{"name":"subject","value":"hi"}]`) {
		t.Errorf("JSON %s", b)
	}
}
