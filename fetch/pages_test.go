package fetch

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// pageEntries reads every entry of a page through resp.Page.
func pageEntries(t *testing.T, resp *Response) []Entry {
	t.Helper()
	if resp.Page == nil {
		t.Fatalf("%v (%s) has no Page", resp.URL, resp.MediaType)
	}
	return listed(t, resp.Page(resp.Body))
}

// listed reads l to its end and closes it.
func listed(t *testing.T, l schemes.Listing) []Entry {
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

// TestResponsePage: the client marks a document that is a page of links
// whatever fetched it: HTML over any scheme (by media type, or by entry
// type when there is none), gemtext over gemini; other documents, and
// gemtext over another scheme, are no page.
func TestResponsePage(t *testing.T) {
	c, f := testClient(Options{})
	gem := newFake()
	c.Register("gemini", gem)
	doc := func(fk *fakeFetcher, at, mediaType, typ, text string) {
		fk.routes[at] = func(*schemes.Request) (*schemes.Response, error) {
			return &schemes.Response{Kind: schemes.KindFile, MediaType: mediaType, Type: typ, Size: -1,
				Body: io.NopCloser(strings.NewReader(text))}, nil
		}
	}
	doc(f, "http://h/dir/", "text/html; charset=utf-8", "", `<a href="a.txt">a</a><img src="i.png">`)
	doc(f, "ftp://h/pub/index.html", "", schemes.TypeHTML, `<a href="../up/">up</a>`)
	doc(f, "http://h/plain.txt", "text/plain", "", `<a href="a.txt">not a page</a>`)
	doc(f, "http://h/x.gmi", "text/gemini", "", "=> a.gmi\n")
	doc(gem, "gemini://h/cap/", "text/gemini; lang=en", "", "# Title\n=> sub/ Sub\ntext\n")
	ctx := context.Background()
	get := func(u string) *Response {
		t.Helper()
		resp, err := c.Do(ctx, &Request{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Close() })
		return resp
	}

	es := pageEntries(t, get("http://h/dir/"))
	if len(es) != 2 || es[0].URL != "http://h/dir/a.txt" || es[0].HTML.Element != "a" || es[1].URL != "http://h/dir/i.png" {
		t.Errorf("HTML page entries %+v", es)
	}
	if es := pageEntries(t, get("ftp://h/pub/index.html")); len(es) != 1 || es[0].URL != "ftp://h/up/" {
		t.Errorf("HTML file over FTP: %+v", es)
	}
	for _, u := range []string{"http://h/plain.txt", "http://h/x.gmi"} {
		if r := get(u); r.Page != nil {
			t.Errorf("%s (%s) has a Page", u, r.MediaType)
		}
	}
	es = pageEntries(t, get("gemini://h/cap/"))
	if len(es) != 3 || es[0].Gemini.Kind != schemes.GeminiHeading || es[1].URL != "gemini://h/cap/sub/" || es[2].URL != "" {
		t.Errorf("gemtext entries %+v", es)
	}
	if r := PageReader("gemini", "text/gemini", "", "gemini://h/"); r == nil {
		t.Error("PageReader has no reader for gemtext over gemini")
	}
	if r := PageReader("http", "", schemes.TypeHTML, "http://h/"); r == nil {
		t.Error("PageReader has no reader for an HTML entry")
	}
}
