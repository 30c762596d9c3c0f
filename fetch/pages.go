package fetch

import (
	"io"
	"mime"
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/gemini"
)

// PageReader returns how to read a document as a page of links, the
// reader a Response's Page holds: a text/gemini document fetched over
// gemini line by line, an HTML document (text/html or
// application/xhtml+xml; with no media type, a document of entry type
// html) link by link, its links resolved against pageURL. It is nil for
// any other document. A walker that kept a page's bytes reads them again
// with it.
func PageReader(scheme, mediaType, entryType, pageURL string) schemes.PageReader {
	return pageReader(scheme, mediaType, entryType, pageURL, 0, 0)
}

func pageReader(scheme, mediaType, entryType, pageURL string, maxLine, maxEntries int) schemes.PageReader {
	switch {
	case strings.EqualFold(scheme, "gemini") && gemini.IsGemtext(mediaType):
		return func(page io.Reader) schemes.Listing { return gemini.NewListing(page, pageURL, maxLine, maxEntries) }
	case isHTML(mediaType, entryType):
		return func(page io.Reader) schemes.Listing { return schemes.NewHTMLLinks(page, pageURL, maxEntries) }
	}
	return nil
}

// isHTML reports whether a document of this media type (or, with none,
// entry type) is an HTML page.
func isHTML(mediaType, entryType string) bool {
	if mediaType == "" {
		return entryType == schemes.TypeHTML
	}
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		mt, _, _ = strings.Cut(strings.ToLower(mediaType), ";")
		mt = strings.TrimSpace(mt)
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// withPage sets resp.Page for a document that is a page of links, bounded
// by req's limits; its links resolve against the URL the response names
// (where a redirect within the fetcher ended), else the one asked for.
func withPage(resp *Response, req *schemes.Request) *Response {
	if resp.Kind != schemes.KindFile || resp.Page != nil {
		return resp
	}
	u := resp.URL
	if u == nil {
		u = req.URL
	}
	resp.Page = pageReader(u.Scheme, resp.MediaType, resp.Type, u.String(), req.LineLimit(), req.EntryLimit())
	return resp
}
