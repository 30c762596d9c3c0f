package gateway

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// Captured HTML (an HTTP capture's page, a Gopher h item) is served as it
// was captured, with the links of its elements leading to the archive:
// each URL an element names (href, src, action, srcset and the like)
// resolved against the page's URL, or its <base href>, and written as the
// gateway's path of that URL at the page's own capture time, which
// answers with the capture nearest it, or says that none was made with
// the live link beside it. Everything else passes byte for byte; the page
// streams, and is served under the sandbox policy of every file from a
// server, so that its scripts never run in the gateway's origin.

// linkAttrs are the attributes that hold a URL, of whatever element.
var linkAttrs = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true, "poster": true,
	"background": true, "lowsrc": true, "longdesc": true, "cite": true,
}

// maxTag bounds the bytes of one token the rewriting reads whole; past it
// (a text or a tag of a gigabyte) the rest of the page passes unchanged.
const maxTag = 1 << 20

// isHTML reports whether a file is an HTML document.
func isHTML(resp *fetch.Response) bool {
	mt, _, err := mime.ParseMediaType(contentType(resp))
	return err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
}

// capturedHTML serves a captured HTML page, its links made by l, the
// capture's banner b set at the top of its body.
func (g *Gateway) capturedHTML(w http.ResponseWriter, u *schemes.URL, resp *fetch.Response, l linker, b *banner) {
	h := w.Header()
	h.Set("Content-Type", contentType(resp))
	h.Set("Content-Security-Policy", sandboxCSP)
	w.WriteHeader(http.StatusOK)
	var top bytes.Buffer
	if b != nil {
		pages.ExecuteTemplate(&top, "capture-banner", b)
	}
	if err := rewriteHTML(w, resp.Body, u.String(), l, top.Bytes()); err != nil {
		panic(http.ErrAbortHandler)
	}
}

// rewriteHTML copies the HTML page at pageURL from r to w, every link of
// its elements made by l, and top written after its <body> tag.
func rewriteHTML(w io.Writer, r io.Reader, pageURL string, l linker, top []byte) error {
	base, err := url.Parse(pageURL)
	if err != nil {
		base = &url.URL{}
	}
	z := html.NewTokenizer(r)
	z.SetMaxBuf(maxTag)
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			switch err := z.Err(); {
			case err == io.EOF:
				return nil
			case errors.Is(err, html.ErrBufferExceeded):
				// A token too long to hold: the rest passes as it is.
				if _, err := w.Write(z.Raw()); err != nil {
					return err
				}
				if _, err := w.Write(z.Buffered()); err != nil {
					return err
				}
				_, err := io.Copy(w, r)
				return err
			default:
				return err
			}
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			if _, err := w.Write(z.Raw()); err != nil {
				return err
			}
			continue
		}
		raw := bytes.Clone(z.Raw())
		tok := z.Token()
		changed := false
		refresh := tok.Data == "meta" && slices.ContainsFunc(tok.Attr, func(a html.Attribute) bool {
			return a.Key == "http-equiv" && strings.EqualFold(strings.TrimSpace(a.Val), "refresh")
		})
		for i, a := range tok.Attr {
			if a.Namespace != "" {
				continue
			}
			var to string
			switch {
			case a.Key == "srcset":
				to = rewriteSrcset(base, a.Val, l)
			case a.Key == "content" && refresh:
				to = rewriteRefresh(base, a.Val, l)
			case linkAttrs[a.Key] || a.Key == "data" && tok.Data == "object":
				to = rewriteLink(base, a.Val, l)
			default:
				continue
			}
			if tok.Data == "base" && a.Key == "href" {
				if b, err := base.Parse(strings.TrimSpace(a.Val)); err == nil {
					base = b
				}
			}
			if to != a.Val {
				tok.Attr[i].Val, changed = to, true
			}
		}
		if changed {
			raw = []byte(tok.String())
		}
		if _, err := w.Write(raw); err != nil {
			return err
		}
		if tok.Data == "body" && top != nil {
			if _, err := w.Write(top); err != nil {
				return err
			}
			top = nil
		}
	}
}

// rewriteLink is the gateway's path of the link v resolved against base,
// v itself when the gateway does not lead there (a fragment of the page,
// another scheme, a link that does not read).
func rewriteLink(base *url.URL, v string, l linker) string {
	s := strings.TrimSpace(v)
	if s == "" || strings.HasPrefix(s, "#") {
		return v
	}
	u, err := base.Parse(s)
	if err != nil {
		return v
	}
	if to := l.to(u.String()); to != "" {
		return to
	}
	return v
}

// rewriteRefresh rewrites the URL of a <meta http-equiv=refresh>
// content ("5; url=URL"), which would otherwise take the browser out of
// the archive.
func rewriteRefresh(base *url.URL, v string, l linker) string {
	delay, rest, ok := strings.Cut(v, ";")
	if !ok {
		return v
	}
	rest = strings.TrimSpace(rest)
	if len(rest) < 4 || !strings.EqualFold(rest[:4], "url=") {
		return v
	}
	target := strings.Trim(strings.TrimSpace(rest[4:]), `'"`)
	return delay + "; url=" + rewriteLink(base, target, l)
}

// rewriteSrcset rewrites each URL of a srcset ("URL [descriptor], ...");
// one it cannot read as that simple form is left as it is.
func rewriteSrcset(base *url.URL, v string, l linker) string {
	if strings.Contains(v, "data:") {
		return v // a data: URL holds commas of its own
	}
	var out []string
	for _, cand := range strings.Split(v, ",") {
		f := strings.Fields(cand)
		if len(f) == 0 || len(f) > 2 {
			return v
		}
		f[0] = rewriteLink(base, f[0], l)
		out = append(out, strings.Join(f, " "))
	}
	return strings.Join(out, ", ")
}
