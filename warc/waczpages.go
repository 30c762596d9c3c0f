package warc

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/nlnwa/gowarc"
	"golang.org/x/net/html"
)

// The pages of a WACZ (pages/pages.jsonl) are where a reader of the
// collection starts: every root a capture was asked for (a URL on the
// command line its warcinfo record names), every Gopher menu, FTP
// listing, 200 text/html HTTP response and text/gemini Gemini response.
// Each is listed once, at its first capture, with the WARC-Date of that
// capture as ts, the record's UUID as id and a title: the HTML <title>,
// the first gemtext heading, else the URL. Revisit records are not pages:
// the capture they repeat is.

// pageCandidate is what a record's kind says of it as a page.
type pageCandidate struct {
	page  bool
	title string
}

type pageList struct {
	roots map[string]bool
	seen  map[string]bool
	pages []Page
	// mainPage is the index in pages of the first root, -1 if none.
	mainPage int
}

func newPageList() *pageList {
	return &pageList{roots: map[string]bool{}, seen: map[string]bool{}, mainPage: -1}
}

// addRoots notes the URLs on the command line a warcinfo record names in
// its description field.
func (l *pageList) addRoots(rec gowarc.WarcRecord) {
	r, err := rec.Block().RawBytes()
	if err != nil {
		return
	}
	sc := bufio.NewScanner(io.LimitReader(r, 1<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || !strings.EqualFold(name, "description") {
			continue
		}
		for _, arg := range strings.Fields(value) {
			if k, ok := rootKey(arg); ok {
				l.roots[k] = true
			}
		}
	}
}

// rootKey is a URL in the form roots are compared in: scheme and host in
// lower case, an empty path as "/" (a Gopher root as "/1"), no fragment.
func rootKey(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if p == "/" && scheme == "gopher" {
		p = "/1" // RFC 4266 §2.1: the root menu, type 1 and no selector
	}
	k := scheme + "://" + strings.ToLower(u.Host) + p
	if u.RawQuery != "" {
		k += "?" + u.RawQuery
	}
	return k, true
}

// consider lists the record e as a page if it is one.
func (l *pageList) consider(e Entry, date string, c pageCandidate) {
	k, _ := rootKey(e.URI)
	root := k != "" && l.roots[k]
	if (!c.page && !root) || l.seen[e.URI] || date == "" {
		return
	}
	l.seen[e.URI] = true
	title := c.title
	if title == "" {
		title = e.URI
	}
	id := strings.TrimSuffix(strings.TrimPrefix(e.ID, "<urn:uuid:"), ">")
	id = strings.ReplaceAll(id, "-", "")
	if root && l.mainPage < 0 {
		l.mainPage = len(l.pages)
	}
	l.pages = append(l.pages, Page{ID: id, URL: e.URI, TS: date, Title: title})
}

// main returns the first root listed.
func (l *pageList) main() (Page, bool) {
	if l.mainPage < 0 {
		return Page{}, false
	}
	return l.pages[l.mainPage], true
}

// jsonl is pages.jsonl: the header line, then the pages in the order
// found.
func (l *pageList) jsonl() []byte {
	var b bytes.Buffer
	b.WriteString(`{"format":"json-pages-1.0","id":"pages","title":"All Pages"}` + "\n")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, p := range l.pages {
		enc.Encode(p)
	}
	return b.Bytes()
}

// decodedBody returns the body of resp with its content coding (gzip or
// deflate) undone; the transfer coding is undone by net/http.
func decodedBody(resp *http.Response) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "", "identity":
		return resp.Body, nil
	case "gzip", "x-gzip":
		return gzip.NewReader(resp.Body)
	case "deflate":
		return flate.NewReader(resp.Body), nil
	}
	return nil, errors.New("unknown content coding")
}

// htmlTitle returns the text of the first <title> element, its white
// space collapsed, "" when there is none.
func htmlTitle(r io.Reader) string {
	z := html.NewTokenizer(r)
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) != "title" {
				continue
			}
			var t strings.Builder
			for z.Next() == html.TextToken {
				t.Write(z.Text())
			}
			return oneSpace(t.String())
		}
	}
}

// gemtextTitle returns the text of the first heading line of a gemtext
// document ("# ", "## " or "### "), "" when there is none.
func gemtextTitle(r io.Reader) string {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	pre := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			pre = !pre
		case !pre && strings.HasPrefix(line, "#"):
			if t := oneSpace(strings.TrimLeft(line, "#")); t != "" {
				return t
			}
		}
	}
	return ""
}

func oneSpace(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}
