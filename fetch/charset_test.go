package fetch

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// charsetSamples are one name per charset, as UTF-8 text and as the bytes
// that charset spells it with.
var charsetSamples = []struct {
	names      []string
	text, wire string
}{
	{[]string{"latin1", "Latin-1", "ISO-8859-1", "iso_8859-1"}, "café über", "caf\xe9 \xfcber"},
	{[]string{"cp1252", "windows-1252"}, "€ café", "\x80 caf\xe9"},
	{[]string{"cp437", "IBM437"}, "café", "caf\x82"},
	{[]string{"cp850", "IBM850"}, "Ø", "\x9d"},
	{[]string{"koi8-r", "KOI8-R"}, "мир", "\xcd\xc9\xd2"},
	{[]string{"gbk", "GBK", "cp936"}, "中文", "\xd6\xd0\xce\xc4"},
	{[]string{"big5", "Big5"}, "中文", "\xa4\xa4\xa4\xe5"},
	{[]string{"euc-jp", "EUC-JP"}, "日本", "\xc6\xfc\xcb\xdc"},
	{[]string{"shift_jis", "Shift_JIS", "sjis"}, "日本", "\x93\xfa\x96{"},
	{[]string{"euc-kr", "EUC-KR"}, "한국", "\xc7\xd1\xb1\xb9"},
	// The IANA registry's other single-byte charsets.
	{[]string{"windows-1251"}, "мир", "\xec\xe8\xf0"},
	{[]string{"ISO-8859-2"}, "ł", "\xb3"},
}

func TestCharsetBothWays(t *testing.T) {
	for _, s := range charsetSamples {
		for _, name := range s.names {
			rc, err := newRemoteCharset(name)
			if err != nil || rc == nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := rc.decodeName(s.wire); got != s.text {
				t.Errorf("%s: decode %q = %q, want %q", name, s.wire, got, s.text)
			}
			got, err := rc.encodePart("", s.text)
			if err != nil || got != s.wire {
				t.Errorf("%s: encode %q = %q, %v; want %q", name, s.text, got, err, s.wire)
			}
			if got := rc.decodeName("dir/" + s.wire + "/x.txt"); got != "dir/"+s.text+"/x.txt" {
				t.Errorf("%s: decode of a selector = %q", name, got)
			}
		}
	}
}

func TestCharsetNames(t *testing.T) {
	for _, name := range []string{"", "utf-8", "UTF8"} {
		if rc, err := newRemoteCharset(name); rc != nil || err != nil {
			t.Errorf("%q: %v, %v; want no conversion", name, rc, err)
		}
	}
	// EBCDIC changes ASCII; UTF-16 and ISO-2022-JP are not one byte per
	// ASCII character: none keeps a name's '/' and the protocols' bytes.
	for _, name := range []string{"klingon", "IBM037", "UTF-16", "ISO-2022-JP", "latin"} {
		err := CheckCharset(name)
		if !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), `"`+name+`"`) {
			t.Errorf("%q: %v; want a usage error naming it", name, err)
		}
	}
}

func TestCharsetUnrepresentable(t *testing.T) {
	for _, c := range []struct{ charset, part, char string }{
		{"latin1", "日本.txt", "U+65E5"},
		{"shift_jis", "café", "U+00E9"},
		{"koi8-r", "ü", "U+00FC"},
		{"cp437", "€", "U+20AC"},
	} {
		rc, _ := newRemoteCharset(c.charset)
		_, err := rc.encodePart("", c.part)
		if !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), c.char) {
			t.Errorf("%s %q: %v; want a usage error naming %s", c.charset, c.part, err, c.char)
		}
	}
}

// TestCharsetKeepsServerBytes: a part that is not UTF-8 is the server's
// bytes already and goes as it is; a name not valid in the charset keeps
// its bytes when read.
func TestCharsetKeepsServerBytes(t *testing.T) {
	rc, _ := newRemoteCharset("shift_jis")
	if got, err := rc.encodePart("", "caf\xe9"); err != nil || got != "caf\xe9" {
		t.Errorf("encode of server bytes = %q, %v", got, err)
	}
	// 0x81 alone is half a Shift_JIS character.
	if got := rc.decodeName("a\x81.txt"); got != "a\x81.txt" {
		t.Errorf("decode of a name invalid in the charset = %q", got)
	}
	if got := rc.decodeName("\x93\xfa/a\x81"); got != "日/a\x81" {
		t.Errorf("decode of a selector with one invalid segment = %q", got)
	}
}

func TestCharsetToRemoteViews(t *testing.T) {
	rc, _ := newRemoteCharset("latin1")
	for _, c := range []struct{ in, want string }{
		{"ftp://h/pub/caf%C3%A9.txt", "ftp://h/pub/caf%E9.txt"},
		// One segment typed as the server's bytes, one as text.
		{"ftp://h/latin1-%E9-dir/%C3%BCber", "ftp://h/latin1-%E9-dir/%FCber"},
		{"gopher://h/0/caf%C3%A9%09%C3%BC", "gopher://h/0/caf%E9%09%FC"},
		{"news:de.caf%C3%A9", "news:de.caf%E9"},
		{"nntp://h/de.caf%C3%A9/12", "nntp://h/de.caf%E9/12"},
		{"ftp://h/pub/plain.txt", "ftp://h/pub/plain.txt"},
		// HTTP keeps its escapes: its path is not a name sent as bytes.
		{"http://h/caf%C3%A9", "http://h/caf%C3%A9"},
	} {
		u, err := schemes.Parse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		before := u.String()
		got, err := rc.toRemote(u)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got.String() != c.want {
			t.Errorf("%s sent as %s, want %s", c.in, got, c.want)
		}
		if u.String() != before {
			t.Errorf("%s: the caller's URL changed to %s", c.in, u)
		}
	}
}

// sliceListing yields its entries, then io.EOF.
type sliceListing struct{ entries []schemes.Entry }

func (l *sliceListing) Next() (schemes.Entry, error) {
	if len(l.entries) == 0 {
		return schemes.Entry{}, io.EOF
	}
	e := l.entries[0]
	l.entries = l.entries[1:]
	return e, nil
}

func (l *sliceListing) Close() error { return nil }

// TestClientRemoteCharset: through Do, a listing's names are read in the
// charset while its URLs keep the server's bytes; each entry URL fetches
// the server's name, even one whose bytes are valid UTF-8 (a UTF-8 name on
// a Latin-1 server); a URL typed in UTF-8 is sent in the charset.
func TestClientRemoteCharset(t *testing.T) {
	c, f := testClient(Options{RemoteCharset: "latin1"})
	ctx := context.Background()
	f.routes["ftp://h/pub/"] = func(req *schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{URL: req.URL, Kind: schemes.KindListing, Size: -1, Listing: &sliceListing{[]schemes.Entry{
			{Name: "caf\xe9.txt", Type: "file", URL: "ftp://h/pub/caf%E9.txt", Size: -1},
			{Name: "caf\xc3\xa9.txt", Type: "file", URL: "ftp://h/pub/caf%C3%A9.txt", Size: -1},
		}}}, nil
	}
	f.body("ftp://h/pub/caf%E9.txt", "latin-1 name")
	f.body("ftp://h/pub/caf%C3%A9.txt", "utf-8 name")

	resp, err := c.Get(ctx, "ftp://h/pub/")
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	for {
		e, err := resp.Listing.Next()
		if err != nil {
			break
		}
		got = append(got, e)
	}
	resp.Close()
	if len(got) != 2 || got[0].Name != "café.txt" || got[0].URL != "ftp://h/pub/caf%E9.txt" ||
		got[1].Name != "cafÃ©.txt" || got[1].URL != "ftp://h/pub/caf%C3%A9.txt" {
		t.Fatalf("entries %+v", got)
	}
	for i, want := range []string{"latin-1 name", "utf-8 name"} {
		resp, err := c.Get(ctx, got[i].URL)
		if err != nil {
			t.Fatalf("%s: %v", got[i].URL, err)
		}
		if body := readAll(t, resp); body != want {
			t.Errorf("%s fetched %q, want %q", got[i].URL, body, want)
		}
	}

	// Typed in UTF-8 on another server, where no listing named it: text.
	f.body("ftp://g/caf%E9.txt", "typed")
	resp, err = c.Get(ctx, "ftp://g/caf%C3%A9.txt")
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); body != "typed" {
		t.Errorf("typed URL fetched %q", body)
	}
	if resp.Name != "" {
		t.Errorf("Name %q", resp.Name)
	}

	// A character Latin-1 lacks: a usage error, and nothing reaches the fetcher.
	n := len(f.calls())
	if _, err := c.Get(ctx, "ftp://h/pub/%E6%97%A5.txt"); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("unrepresentable name: %v", err)
	}
	if len(f.calls()) != n {
		t.Errorf("the fetcher was called: %v", f.calls()[n:])
	}
}

func TestClientRemoteCharsetResponseName(t *testing.T) {
	c, f := testClient(Options{RemoteCharset: "cp437"})
	f.routes["ftp://h/caf%82"] = func(req *schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Size: -1, Name: req.URL.FTP.Name(),
			Body: io.NopCloser(strings.NewReader("x"))}, nil
	}
	resp, err := c.Get(context.Background(), "ftp://h/caf%C3%A9")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if resp.Name != "café" {
		t.Errorf("Name %q, want café", resp.Name)
	}
	wire, err := c.RemoteURL(resp.URL)
	if err != nil || wire.String() != "ftp://h/caf%82" {
		t.Errorf("RemoteURL = %v, %v", wire, err)
	}
	if got := c.DecodeName("caf\x82"); got != "café" {
		t.Errorf("DecodeName = %q", got)
	}
}

func TestClientUnknownCharset(t *testing.T) {
	c, f := testClient(Options{RemoteCharset: "klingon"})
	f.body("ftp://h/a", "a")
	_, err := c.Get(context.Background(), "ftp://h/a")
	if !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), `"klingon"`) {
		t.Errorf("Do: %v", err)
	}
	if _, err := c.Plan(&Request{URL: "ftp://h/a"}); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("Plan: %v", err)
	}
	if len(f.calls()) != 0 {
		t.Errorf("fetcher called: %v", f.calls())
	}
}

// TestPlanRemoteCharset: gofer parse shows the lines a fetch would send,
// names in the remote charset.
func TestPlanRemoteCharset(t *testing.T) {
	c := NewClient(Options{RemoteCharset: "latin1"})
	p, err := c.Plan(&Request{URL: "ftp://127.0.0.1/pub/caf%C3%A9.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(p.Requests, "\n"), "RETR caf\xe9.txt") {
		t.Errorf("requests %q", p.Requests)
	}
	if p.URL.FTP.Name() != "café.txt" {
		t.Errorf("the plan's URL is %s, want it as given", p.URL)
	}
}

// A fetcher learns of a charset only when names are converted: UTF-8, or
// none, reach it as "".
func TestRequestRemoteCharset(t *testing.T) {
	for opt, want := range map[string]string{"": "", "utf-8": "", "UTF_8": "", "latin1": "latin1"} {
		c, f := testClient(Options{RemoteCharset: opt})
		got := "unset"
		f.routes["ftp://h/a"] = func(req *schemes.Request) (*schemes.Response, error) {
			got = req.RemoteCharset
			return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Body: io.NopCloser(strings.NewReader("")), Size: 0}, nil
		}
		resp, err := c.Get(context.Background(), "ftp://h/a")
		if err != nil {
			t.Fatalf("%q: %v", opt, err)
		}
		resp.Close()
		if got != want {
			t.Errorf("--remote-charset %q: the fetcher got %q, want %q", opt, got, want)
		}
	}
}
