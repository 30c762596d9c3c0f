package schemes

import (
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// PageReader reads a page of links from its bytes: what Response.Page
// holds for a document that is also a page of links (a text/gemini page,
// an HTML page). It yields the page's entries as they stream past, its
// links resolved against the page's URL: an entry with a URL is a link,
// one without is the page's text (a gemtext line other than a link). The
// Listing closes page when it is closed, if page is an io.Closer.
type PageReader func(page io.Reader) Listing

// Kinds of a line of a text/gemini page, the GeminiLine.Kind of each entry
// a gemtext page yields.
const (
	GeminiText    = "text"
	GeminiLink    = "link"
	GeminiHeading = "heading" // "#", "##" or "###": GeminiLine.Level says which
	GeminiList    = "list"    // "* "
	GeminiQuote   = "quote"   // ">"
	GeminiPreOpen = "pre-open"
	GeminiPre     = "pre" // a line of a preformatted block, verbatim
	GeminiPreEnd  = "pre-close"
)

// HTMLLink is what an HTML page says of one of its links: the element and
// attribute that hold it. A page's <a href> are the pages and files it
// names; <img src>, <script src> and the like are what it needs to show.
type HTMLLink struct {
	Element string // "a", "area", "link", "img", "frame", "iframe", "script", "embed", "source"
	Attr    string // "href" or "src"
}

// linkAttr is the attribute of an element that holds a link, "" when the
// element holds none ("base" for <base href>, which sets the base URL).
func linkAttr(element string) string {
	switch element {
	case "a", "area", "link":
		return "href"
	case "img", "frame", "iframe", "script", "embed", "source":
		return "src"
	case "base":
		return "base"
	}
	return ""
}

// NewHTMLLinks reads the HTML document page, the page at pageURL, as a
// Listing of its links, one Entry each, in document order: URL is the
// link resolved against pageURL (or against the document's <base href>,
// from where it stands on), Name the link as written, Type TypeLink, and
// HTML the element and attribute that held it. A link that does not parse
// as a URL is left out. maxEntries bounds the number of links (0:
// DefaultMaxEntries). It streams: memory does not grow with the page.
func NewHTMLLinks(page io.Reader, pageURL string, maxEntries int) Listing {
	base, err := url.Parse(pageURL)
	if err != nil {
		base = &url.URL{}
	}
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	l := &htmlLinks{z: html.NewTokenizer(page), base: base, limit: maxEntries}
	if c, ok := page.(io.Closer); ok {
		l.body = c
	}
	return l
}

type htmlLinks struct {
	z     *html.Tokenizer
	base  *url.URL
	body  io.Closer
	limit int
	n     int
}

func (l *htmlLinks) Next() (Entry, error) {
	for {
		switch l.z.Next() {
		case html.ErrorToken:
			if err := l.z.Err(); err != io.EOF {
				return Entry{}, err
			}
			return Entry{}, io.EOF
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := l.z.TagName()
			element := string(name)
			want := linkAttr(element)
			// An element's first attribute of the link's name is the
			// link, as browsers take it.
			for want != "" && hasAttr {
				var k, v []byte
				k, v, hasAttr = l.z.TagAttr()
				attr := string(k)
				if want == "base" {
					if attr == "href" {
						if b, err := l.base.Parse(strings.TrimSpace(string(v))); err == nil {
							l.base = b
						}
						break
					}
					continue
				}
				if attr != want {
					continue
				}
				raw := strings.TrimSpace(string(v))
				u, err := l.base.Parse(raw)
				if err != nil {
					break
				}
				// A URL that does not parse back as an absolute URL is no link
				// ("A:/.//[" resolves to a path that writes as "a://[").
				ref := u.String()
				if back, err := url.Parse(ref); err != nil || !back.IsAbs() {
					break
				}
				if l.n++; l.n > l.limit {
					return Entry{}, Errorf(ErrTooLarge, "HTML page of more than %d links", l.limit)
				}
				return Entry{Name: raw, Type: TypeLink, URL: ref, Size: -1,
					HTML: &HTMLLink{Element: element, Attr: attr}}, nil
			}
		}
	}
}

func (l *htmlLinks) Close() error {
	if l.body != nil {
		return l.body.Close()
	}
	return nil
}

// Links yields the entries of l that are links (those with a URL), as a
// walker wants them: a gemtext page's text lines are passed over.
func Links(l Listing) Listing { return linksOnly{l} }

type linksOnly struct{ Listing }

func (l linksOnly) Next() (Entry, error) {
	for {
		e, err := l.Listing.Next()
		if err != nil || e.URL != "" {
			return e, err
		}
	}
}
