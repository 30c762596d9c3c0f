package gateway

import (
	"strings"
	"testing"
)

const capturedPage = `<!DOCTYPE html>
<html><head><title>A page</title><base href="http://127.0.0.1/base/">
<meta http-equiv="Refresh" content="30; URL='later.html'">
<link rel="stylesheet" href="s.css"></head>
<BODY background="bg.gif">
<a href="other.html">Other</a> <a href='/gone'>Gone</a> <a href="#top">Top</a>
<a href="javascript:alert(1)">js</a> <a href="mailto:a@b.example">mail</a>
<img src="http://127.0.0.1/i.png" srcset="a.png 1x, b.png 2x" alt="x &amp; y">
<form action="/cgi/q"><input name=q></form>
<script>var s = "<a href='x.html'>";</script>
<p>Text &amp; more <a href="gopher://127.0.0.1/1/">a menu</a></p>
</body></html>
`

// htmlArchive holds an HTTP capture of an HTML page, a later capture of
// one of the pages it links to, a Gopher h item and the menu.
func htmlArchive(t *testing.T) *Gateway {
	t.Helper()
	recs := []record{
		{"http://127.0.0.1/dir/page.html", "application/http;msgtype=response", first,
			"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + capturedPage},
		{"http://127.0.0.1/base/other.html", "application/http;msgtype=response", second,
			"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>the other page</p>"},
		{"gopher://127.0.0.1/h/doc.html", "text/html", first, `<body><a href="gopher://127.0.0.1/0/t.txt">t</a></body>`},
		{"gopher://127.0.0.1/0/t.txt", "text/plain", first, "the text\r\n.\r\n"},
		{"gemini://127.0.0.1/", "application/gemini;msgtype=response", first,
			"20 text/gemini\r\n=> gemini://127.0.0.1/a.gmi A page\n=> never.gmi Never captured\n"},
		{"gemini://127.0.0.1/a.gmi", "application/gemini;msgtype=response", first, "20 text/gemini\r\nA\n"},
	}
	return New(Config{Archive: writeArchive(t, "gofer get --warc a http://127.0.0.1/dir/page.html", recs)})
}

// A captured HTML page is served as captured but for its links, which lead
// to the archive at the page's time (resolved against its <base href>),
// under the sandbox policy and a banner; fragments, javascript: and
// mailto: links, script text and the rest pass unchanged.
func TestCapturedHTMLLinksStayInTheArchive(t *testing.T) {
	f := &fake{routes: nil}
	srv := newGateway(t, f, Config{Archive: htmlArchive(t).cfg.Archive})
	resp, page := get(t, srv, "/web/20250304050607/http://127.0.0.1/dir/page.html")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		resp.Header.Get("Content-Security-Policy") != sandboxCSP {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	ts := "/web/20250304050607/"
	for _, want := range []string{
		`<base href="` + ts + `http://127.0.0.1/base/">`,
		`<link rel="stylesheet" href="` + ts + `http://127.0.0.1/base/s.css">`,
		`<meta http-equiv="Refresh" content="30; url=` + ts + `http://127.0.0.1/base/later.html">`,
		`<body background="` + ts + `http://127.0.0.1/base/bg.gif">`,
		`<a href="` + ts + `http://127.0.0.1/base/other.html">Other</a>`,
		`<a href="` + ts + `http://127.0.0.1/gone">Gone</a>`,
		`<a href="#top">Top</a>`,
		`<a href="javascript:alert(1)">js</a> <a href="mailto:a@b.example">mail</a>`,
		`<img src="` + ts + `http://127.0.0.1/i.png" srcset="` + ts + `http://127.0.0.1/base/a.png 1x, ` + ts + `http://127.0.0.1/base/b.png 2x" alt="x &amp; y">`,
		`<form action="` + ts + `http://127.0.0.1/cgi/q"><input name=q></form>`,
		`<script>var s = "<a href='x.html'>";</script>`,
		`<p>Text &amp; more <a href="` + ts + `gopher://127.0.0.1/1/">a menu</a></p>`,
		"gofer: captured 2025-03-04 05:06:07 UTC.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
	if strings.Index(page, "gofer: captured") < strings.Index(page, "<body") {
		t.Errorf("the banner is not in the body:\n%s", page)
	}
	// A link followed: the capture nearest the page's time, another's.
	if resp, _ := get(t, srv, ts+"http://127.0.0.1/base/other.html"); resp.StatusCode != 302 ||
		resp.Header.Get("Location") != "/web/20261127120000/http://127.0.0.1/base/other.html" {
		t.Errorf("other.html: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A link to what was never captured says so, the live link beside it.
	if resp, page := get(t, srv, ts+"http://127.0.0.1/gone"); resp.StatusCode != 404 || !strings.Contains(page, "no capture of http://127.0.0.1/gone") ||
		!strings.Contains(page, `<a href="/live/http://127.0.0.1/gone">`) {
		t.Errorf("never captured: %d\n%s", resp.StatusCode, page)
	}
	// The bytes as captured, unchanged.
	if _, body := get(t, srv, "/web/20250304050607id_/http://127.0.0.1/dir/page.html"); body != capturedPage {
		t.Errorf("identity:\n%s", body)
	}
	// A Gopher h item is captured HTML too.
	if resp, page := get(t, srv, ts+"gopher://127.0.0.1/h/doc.html"); resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != sandboxCSP ||
		!strings.Contains(page, `<a href="`+ts+`gopher://127.0.0.1/0/t.txt">t</a>`) {
		t.Errorf("h item: %d\n%s", resp.StatusCode, page)
	}
	// A captured gemtext page says which of its links were never
	// captured, the live link beside.
	if _, page := get(t, srv, ts+"gemini://127.0.0.1/"); !strings.Contains(page, `<p><a href="`+ts+`gemini://127.0.0.1/a.gmi">A page</a></p>`) ||
		!strings.Contains(page, `<a href="`+ts+`gemini://127.0.0.1/never.gmi">Never captured</a> <span class="type">(not captured: <a href="/live/gemini://127.0.0.1/never.gmi">live</a>)</span>`) {
		t.Errorf("gemtext capture:\n%s", page)
	}
	if len(f.calls()) != 0 {
		t.Errorf("the archive's pages fetched live: %q", f.calls())
	}
}

// A token longer than the rewriting holds ends it: the rest of the page
// passes unchanged, whole.
func TestRewriteHTMLLongToken(t *testing.T) {
	long := strings.Repeat("x", maxTag+10)
	in := `<a href="a.html">a</a>` + long + `<a href="b.html">b</a>`
	var out strings.Builder
	if err := rewriteHTML(&out, strings.NewReader(in), "http://h/", linker("/web/1/"), nil); err != nil {
		t.Fatal(err)
	}
	want := `<a href="/web/1/http://h/a.html">a</a>` + long + `<a href="b.html">b</a>`
	if out.String() != want {
		t.Errorf("got %d bytes, want %d; head %.80q tail %.80q", out.Len(), len(want), out.String(), out.String()[max(0, out.Len()-80):])
	}
}
