package schemes

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
)

// samplePage is an autoindex-like page with every kind of link a walker
// meets: a parent, names to escape, a directory, a fragment, a query,
// another host, an escaped climb, an escaped slash and an image.
const samplePage = `<html><body>
<a href="../">parent</a>
<a href="a.txt">a</a> <a href="/archive/b%20c.bin">b c</a>
<a href="sub/">sub</a> <a href="page.html#top">page</a>
<a href="a.txt?C=N;O=D">sort</a> <a href="http://127.0.0.9/archive/x">other host</a>
<a href="%2e%2e/secret">climb</a> <a href="x%2Fy">slash</a>
<img src="img/logo.png">
</body></html>`

// links reads every entry of l.
func links(t *testing.T, l Listing) []Entry {
	t.Helper()
	defer l.Close()
	var out []Entry
	for {
		e, err := l.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

func urls(es []Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.URL)
	}
	return strings.Join(s, "|")
}

func TestHTMLLinks(t *testing.T) {
	got := links(t, NewHTMLLinks(strings.NewReader(samplePage), "http://127.0.0.1/archive/", 0))
	want := "http://127.0.0.1/|http://127.0.0.1/archive/a.txt|http://127.0.0.1/archive/b%20c.bin|http://127.0.0.1/archive/sub/|http://127.0.0.1/archive/page.html#top|http://127.0.0.1/archive/a.txt?C=N;O=D|http://127.0.0.9/archive/x|http://127.0.0.1/archive/%2e%2e/secret|http://127.0.0.1/archive/x%2Fy|http://127.0.0.1/archive/img/logo.png"
	if urls(got) != want {
		t.Errorf("links\n%s\nwant\n%s", urls(got), want)
	}
	last := got[len(got)-1]
	if last.Name != "img/logo.png" || last.Type != TypeLink || last.HTML == nil || *last.HTML != (HTMLLink{Element: "img", Attr: "src"}) {
		t.Errorf("image link %+v %+v", last, last.HTML)
	}
	if a := got[1]; a.HTML == nil || a.HTML.Element != "a" || a.HTML.Attr != "href" || a.Size != -1 {
		t.Errorf("anchor %+v", a)
	}
}

// A <base href> changes how the links after it resolve, not those before.
func TestHTMLLinksBase(t *testing.T) {
	page := `<a href="x">x</a><base href="/other/"><a href="y">y</a><a href="%zz">bad</a><a name="n">no link</a>`
	got := urls(links(t, NewHTMLLinks(strings.NewReader(page), "http://127.0.0.1/dir/", 0)))
	if want := "http://127.0.0.1/dir/x|http://127.0.0.1/other/y"; got != want {
		t.Errorf("links %s, want %s", got, want)
	}
}

func TestHTMLLinksLimit(t *testing.T) {
	l := NewHTMLLinks(strings.NewReader(strings.Repeat(`<a href="x">`, 5)), "http://h/", 3)
	defer l.Close()
	for range 3 {
		if _, err := l.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Next(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("fourth link: %v, want ErrTooLarge", err)
	}
}

// Closing the listing closes the page it reads.
func TestHTMLLinksClosesPage(t *testing.T) {
	c := &closeCounter{Reader: strings.NewReader(`<a href="x">`)}
	NewHTMLLinks(c, "http://h/", 0).Close()
	if c.closed != 1 {
		t.Errorf("page closed %d times, want once", c.closed)
	}
}

type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

// Links passes over the entries that are no link (a gemtext page's text
// lines) and keeps the order of the rest.
func TestLinksOnly(t *testing.T) {
	l := &sliceListing{entries: []Entry{{Name: "# title"}, {Name: "a", URL: "gemini://h/a"}, {Name: "text"}, {Name: "b", URL: "gemini://h/b"}}, end: io.EOF}
	if got := urls(links(t, Links(l))); got != "gemini://h/a|gemini://h/b" {
		t.Errorf("links %s", got)
	}
	if l.closes != 1 {
		t.Errorf("closing Links closed the listing %d times, want once", l.closes)
	}
}

// FuzzHTMLLinks: HTML link extraction never panics, yields only absolute
// URLs (everything is resolved against the page), and gives the same links
// whether the page arrives whole or a byte at a time (it streams).
func FuzzHTMLLinks(f *testing.F) {
	for _, s := range []string{
		`<a href="a.txt">a</a><img src="i.png"><base href="http://127.0.0.1/other/"><a href="b">`,
		`<a href="%2e%2e/x">`, `<a href="javascript:alert(1)">`, `<a href=//127.0.0.9/x>`,
		`<area href="../../../etc/passwd"><link href="?q=1#f"><iframe src=""></iframe>`,
		`<a href="http://[::1]:80/">`, `<a hr`, `<base href="%zz"><a href="y">`,
		samplePage,
	} {
		f.Add(s)
	}
	read := func(r io.Reader) ([]string, error) {
		l := NewHTMLLinks(r, "http://127.0.0.1/archive/", 0)
		defer l.Close()
		var out []string
		for {
			e, err := l.Next()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			out = append(out, e.URL)
		}
	}
	f.Fuzz(func(t *testing.T, page string) {
		whole, err := read(strings.NewReader(page))
		if err != nil {
			t.Fatalf("reading %q: %v", page, err)
		}
		for _, raw := range whole {
			if u, err := url.Parse(raw); err != nil || !u.IsAbs() {
				t.Errorf("link %q from %q is not an absolute URL (%v)", raw, page, err)
			}
		}
		bytewise, _ := read(iotest.OneByteReader(strings.NewReader(page)))
		if strings.Join(whole, "\n") != strings.Join(bytewise, "\n") {
			t.Errorf("streamed links differ:\n%q\n%q", whole, bytewise)
		}
	})
}
