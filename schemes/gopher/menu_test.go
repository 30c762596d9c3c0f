package gopher

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

func TestParseItem(t *testing.T) {
	tests := []struct {
		line string
		want schemes.Entry
	}{
		{"0About this hole\t/about.txt\t127.0.0.71\t70",
			schemes.Entry{Name: "About this hole", Type: "text", Gopher: &schemes.GopherItem{Type: "0", Selector: "/about.txt", Host: "127.0.0.71", Port: 70},
				URL: "gopher://127.0.0.71/0/about.txt"}},
		{"1Some new directory\tbar selector\thost1\t7070\t+",
			schemes.Entry{Name: "Some new directory", Type: "dir", Gopher: &schemes.GopherItem{Type: "1", Selector: "bar selector", Host: "host1", Port: 7070, Plus: "+"},
				URL: "gopher://host1:7070/1bar%20selector"}},
		{"0A form\tform sel\thost\t70\t?",
			schemes.Entry{Name: "A form", Type: "ask", Gopher: &schemes.GopherItem{Type: "0", Selector: "form sel", Host: "host", Port: 70, Plus: "?"},
				URL: "gopher://host/0form%20sel%09%09?"}},
		{"iJust text\t\terror.host\t1",
			schemes.Entry{Name: "Just text", Type: "info", Gopher: &schemes.GopherItem{Type: "i"}}},
		{"iNo fields at all",
			schemes.Entry{Name: "No fields at all", Type: "info", Gopher: &schemes.GopherItem{Type: "i"}}},
		{"A line that is no menu line",
			schemes.Entry{Name: "A line that is no menu line", Type: "info", Gopher: &schemes.GopherItem{Type: "i"}}},
		{"9Missing host and port\t/bin",
			schemes.Entry{Name: "Missing host and port", Type: "binary", Gopher: &schemes.GopherItem{Type: "9", Selector: "/bin", Host: "menuhost", Port: 7000},
				URL: "gopher://menuhost:7000/9/bin"}},
		{"gBad port\t/x.gif\th\tseventy",
			schemes.Entry{Name: "Bad port", Type: "image", Gopher: &schemes.GopherItem{Type: "g", Selector: "/x.gif", Host: "h", Port: 7000},
				URL: "gopher://h:7000/g/x.gif"}},
		{"hA web link\tURL:http://127.0.0.80/\th\t70",
			schemes.Entry{Name: "A web link", Type: "html", Gopher: &schemes.GopherItem{Type: "h", Selector: "URL:http://127.0.0.80/", Host: "h", Port: 70},
				URL: "http://127.0.0.80/"}},
		{"hOld style link\t/URL:ftp://127.0.0.21/pub/\th\t70",
			schemes.Entry{Name: "Old style link", Type: "html", Gopher: &schemes.GopherItem{Type: "h", Selector: "/URL:ftp://127.0.0.21/pub/", Host: "h", Port: 70},
				URL: "ftp://127.0.0.21/pub/"}},
		{"hA local page\t/page.html\th\t70",
			schemes.Entry{Name: "A local page", Type: "html", Gopher: &schemes.GopherItem{Type: "h", Selector: "/page.html", Host: "h", Port: 70},
				URL: "gopher://h/h/page.html"}},
		{"8A telnet link\tgofer\t127.0.0.23\t23",
			schemes.Entry{Name: "A telnet link", Type: "telnet", Gopher: &schemes.GopherItem{Type: "8", Selector: "gofer", Host: "127.0.0.23", Port: 23},
				URL: "telnet://gofer@127.0.0.23/"}},
		{"8Telnet, other port\t\t127.0.0.23\t2323",
			schemes.Entry{Name: "Telnet, other port", Type: "telnet", Gopher: &schemes.GopherItem{Type: "8", Host: "127.0.0.23", Port: 2323},
				URL: "telnet://127.0.0.23:2323/"}},
		{"TA 3270 session\t\t127.0.0.24\t23",
			schemes.Entry{Name: "A 3270 session", Type: "tn3270", Gopher: &schemes.GopherItem{Type: "T", Host: "127.0.0.24", Port: 23},
				URL: "tn3270://127.0.0.24/"}},
		{"7Search\t/search\th\t70",
			schemes.Entry{Name: "Search", Type: "search", Gopher: &schemes.GopherItem{Type: "7", Selector: "/search", Host: "h", Port: 70},
				URL: "gopher://h/7/search"}},
		{"3Not found\t\terror.host\t1",
			schemes.Entry{Name: "Not found", Type: "error", Gopher: &schemes.GopherItem{Type: "3", Host: "error.host", Port: 1}}},
		{"0Extra fields\t/x\th\t70\t+\tmore\tstuff",
			schemes.Entry{Name: "Extra fields", Type: "text", Gopher: &schemes.GopherItem{Type: "0", Selector: "/x", Host: "h", Port: 70, Plus: "+"},
				URL: "gopher://h/0/x"}},
		{"0Spaces around port\t/x\t h \t 71 ",
			schemes.Entry{Name: "Spaces around port", Type: "text", Gopher: &schemes.GopherItem{Type: "0", Selector: "/x", Host: "h", Port: 71},
				URL: "gopher://h:71/0/x"}},
		{"", schemes.Entry{Type: "info", Gopher: &schemes.GopherItem{Type: "i"}}},
		// IPv6 hosts: the field holds the address alone; the URL brackets it.
		{"0On IPv6\t/a.txt\t::1\t70",
			schemes.Entry{Name: "On IPv6", Type: "text", Gopher: &schemes.GopherItem{Type: "0", Selector: "/a.txt", Host: "::1", Port: 70},
				URL: "gopher://[::1]/0/a.txt"}},
		{"1IPv6, other port\t/m\t2001:db8::7\t7070",
			schemes.Entry{Name: "IPv6, other port", Type: "dir", Gopher: &schemes.GopherItem{Type: "1", Selector: "/m", Host: "2001:db8::7", Port: 7070},
				URL: "gopher://[2001:db8::7]:7070/1/m"}},
		{"0IPv6 in brackets\t/b.txt\t[::1]\t70",
			schemes.Entry{Name: "IPv6 in brackets", Type: "text", Gopher: &schemes.GopherItem{Type: "0", Selector: "/b.txt", Host: "::1", Port: 70},
				URL: "gopher://[::1]/0/b.txt"}},
		{"8Telnet on IPv6\t\t::1\t2323",
			schemes.Entry{Name: "Telnet on IPv6", Type: "telnet", Gopher: &schemes.GopherItem{Type: "8", Host: "::1", Port: 2323},
				URL: "telnet://[::1]:2323/"}},
		// Brackets around no IPv6 address, and a zone (no URL can name
		// it without RFC 6874's escape): kept as written, with no URL.
		{"0Brackets, no address\t/c\t[host]\t70",
			schemes.Entry{Name: "Brackets, no address", Type: "text", Gopher: &schemes.GopherItem{Type: "0", Selector: "/c", Host: "[host]", Port: 70}}},
		{"0A zone\t/d\tfe80::1%eth0\t70",
			schemes.Entry{Name: "A zone", Type: "text", Gopher: &schemes.GopherItem{Type: "0", Selector: "/d", Host: "fe80::1%eth0", Port: 70}}},
	}
	for _, tt := range tests {
		got := ParseItem(tt.line, "menuhost", 7000)
		want := tt.want
		want.Size = -1
		// The URL is what fetches the item: it must parse back to the same item.
		if got.URL != want.URL {
			t.Errorf("%q: URL %q, want %q", tt.line, got.URL, want.URL)
		}
		got.URL, want.URL = "", ""
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v %+v\nwant %+v %+v", tt.line, got, got.Gopher, want, want.Gopher)
		}
	}
}

// A menu streams entry by entry and takes real-world mess.
func TestMenuListing(t *testing.T) {
	menu := "iWelcome\t\terror.host\t1\r\n" +
		"0About\t/about.txt\t127.0.0.1\t70\r\n" +
		"\r\n" + // stray empty line
		"1Sub\t/sub\t127.0.0.1\t70\t+\n" + // LF only
		"9Bin\t/b\n" +
		".\r\n" +
		"0After the end\t/x\th\t70\r\n"
	s := newScripted(t, func(int, string) string { return menu })
	resp, err := New().Fetch(context.Background(), newRequest(s.url(schemes.Gopher{Type: '1'})))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if resp.Kind != schemes.KindListing || resp.Type != "dir" {
		t.Fatalf("Kind %v Type %q", resp.Kind, resp.Type)
	}
	var names []string
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Type+":"+e.Name)
	}
	want := "info:Welcome|text:About|dir:Sub|binary:Bin"
	if strings.Join(names, "|") != want {
		t.Fatalf("entries %q, want %q", names, want)
	}
}

func TestMenuWithoutFinalDot(t *testing.T) {
	// pygopherd closes the connection instead of sending "."; the last
	// line may even lack its line end.
	s := newScripted(t, func(int, string) string { return "0A\t/a\th\t70\r\n0B\t/b\th\t70" })
	resp, err := New().Fetch(context.Background(), newRequest(s.url(schemes.Gopher{Type: '1'})))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	var n int
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 2 && e.Gopher.Selector != "/b" {
			t.Fatalf("second entry %+v", e)
		}
	}
	if n != 2 {
		t.Fatalf("%d entries, want 2", n)
	}
}

// A Gopher+ menu ("+" on a directory) is framed, and still a listing.
func TestGopherPlusMenu(t *testing.T) {
	s := newScripted(t, func(int, string) string {
		return "+-1\r\n1Dir\t/d\t127.0.0.1\t70\t+\r\n0Form\t/f\t127.0.0.1\t70\t?\r\n.\r\n"
	})
	resp, err := New().Fetch(context.Background(), newRequest(s.url(plus('1', "+"))))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if resp.Kind != schemes.KindListing {
		t.Fatalf("Kind %v", resp.Kind)
	}
	e1, _ := resp.Listing.Next()
	e2, _ := resp.Listing.Next()
	_, err = resp.Listing.Next()
	if e1.Gopher.Plus != "+" || e2.Gopher.Plus != "?" || e2.Type != "ask" || err != io.EOF {
		t.Fatalf("entries %+v %+v, end %v", e1, e2, err)
	}
}

// Menus are bounded by MaxEntries and MaxLineLength.
func TestMenuLimits(t *testing.T) {
	s := newScripted(t, func(int, string) string {
		return strings.Repeat("0x\t/x\th\t70\r\n", 50) + ".\r\n"
	})
	req := newRequest(s.url(schemes.Gopher{Type: '1'}))
	req.MaxEntries = 10
	resp, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for ; ; n++ {
		if _, err = resp.Listing.Next(); err != nil {
			break
		}
	}
	resp.Close()
	if n != 10 || !errors.Is(err, schemes.ErrTooLarge) || !strings.Contains(err.Error(), "more than 10 entries") {
		t.Fatalf("%d entries then %v", n, err)
	}

	s2 := newScripted(t, func(int, string) string { return "0" + strings.Repeat("y", 5000) + "\t/x\th\t70\r\n.\r\n" })
	req = newRequest(s2.url(schemes.Gopher{Type: '1'}))
	req.MaxLineLength = 1024
	resp, err = New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if _, err := resp.Listing.Next(); !errors.Is(err, schemes.ErrTooLarge) || err.Error() != "menu line longer than 1024 bytes" {
		t.Fatalf("long line: err = %v, want ErrTooLarge", err)
	}
}

// An entry's URL parses back to the item it came from.
func TestItemURLRoundTrip(t *testing.T) {
	for _, line := range []string{
		"0Odd selector\t/a b/%41?x#y\th\t70",
		"1Port\t/\th\t7070\t+",
		"0Ask\t/form\th\t70\t?",
		"9Type in selector\t9/x\th\t70",
	} {
		e := ParseItem(line, "", 0)
		u, err := schemes.Parse(e.URL)
		if err != nil {
			t.Fatalf("%q: %v", e.URL, err)
		}
		g := u.Gopher
		if string(g.Type) != e.Gopher.Type || g.Selector != e.Gopher.Selector || u.Host != e.Gopher.Host || u.EffectivePort() != e.Gopher.Port {
			t.Errorf("%q -> %q -> %+v", line, e.URL, g)
		}
		if (e.Gopher.Plus == "?") != (g.PlusString == "?") {
			t.Errorf("%q: ask marker lost in %q", line, e.URL)
		}
	}
}
