package ftp

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// FTP through an HTTP proxy that speaks ftp:// itself (squid, and the
// web proxies of many networks): the URL goes to the proxy in an HTTP/1.1
// request (RFC 9112 §3.2.2, the absolute form) and the proxy speaks FTP
// to the server. This is what curl does with an HTTP proxy and an ftp://
// URL, unless it is told to tunnel (Fetcher.ProxyTunnel: every
// connection, data connections included, through CONNECT). A file is the
// response's body; a directory comes back as the proxy's HTML page of
// the listing, which is read as a listing (squid's: a table whose rows of
// class "entry" each link one name).

// httpProxyFor is the HTTP proxy addr's connections go through when the
// request's dialer names one ("http://host:port"), else "".
func httpProxyFor(req *schemes.Request, addr string) (string, error) {
	p, err := proxyFor(req, addr)
	if err != nil || !strings.HasPrefix(p, "http://") {
		return "", err
	}
	return p, nil
}

// proxyFor is the proxy addr's connections go through under the
// request's dialer (unwrapped to gofer's own), "" for none.
func proxyFor(req *schemes.Request, addr string) (string, error) {
	d := req.Dialer
	for {
		w, ok := d.(interface{ Unwrap() schemes.Dialer })
		if !ok || w.Unwrap() == nil {
			break
		}
		d = w.Unwrap()
	}
	dd, ok := dial.Default(d).(*dial.Dialer)
	if !ok || dd == nil {
		return "", nil
	}
	return dd.ProxyFor(addr)
}

// viaHTTPProxy fetches req.URL through the HTTP proxy (its URL): GET
// with the ftp:// URL, as the proxy's own client.
func (f *Fetcher) viaHTTPProxy(ctx context.Context, req *schemes.Request, proxy string, v *schemes.FTP) (*schemes.Response, error) {
	u := req.URL
	pu, err := url.Parse(proxy)
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "ftp: proxy %q: %v", proxy, err)
	}
	direct := req.WithSettings(func(st *schemes.Settings) { st.Dialer = &dial.Dialer{} })
	conn, err := lineproto.Dial(ctx, direct, "tcp", pu.Host)
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrConnect, "ftp: proxy %s: %w", proxy, err)
	}
	target := *u
	target.Fragment, target.HasFragment = "", false
	if u.User == "" && !u.HasPassword {
		target.User = ""
	}
	line := "GET " + target.String() + " HTTP/1.1\r\nHost: " + u.Host
	if p := u.EffectivePort(); p != 0 && p != 21 {
		line += ":" + strconv.Itoa(p)
	}
	line += "\r\nUser-Agent: gofer\r\nAccept: */*\r\n"
	if req.Offset > 0 {
		line += "Range: bytes=" + strconv.FormatInt(req.Offset, 10) + "-\r\n"
	}
	if !req.IfModifiedSince.IsZero() {
		line += "If-Modified-Since: " + req.IfModifiedSince.UTC().Format(http.TimeFormat) + "\r\n"
	}
	line += "\r\n"
	if req.Transcript != nil {
		fmt.Fprintf(req.Transcript, "> GET %s HTTP/1.1 (to the proxy %s)\n", target.Redacted(), proxy)
	}
	if _, err := io.WriteString(conn, line); err != nil {
		conn.Close()
		return nil, conn.Classify(err, "send the request to the proxy "+proxy)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		conn.Close()
		return nil, schemes.Errorf(schemes.ErrConnect, "ftp: proxy %s: reading its response: %v", proxy, conn.Classify(err, "read the proxy's response"))
	}
	if req.Transcript != nil {
		fmt.Fprintf(req.Transcript, "< %s %s\n", resp.Proto, resp.Status)
	}
	body := &proxyBody{ReadCloser: resp.Body, conn: conn}
	modified, _ := http.ParseTime(resp.Header.Get("Last-Modified"))
	name := v.Name()
	if !req.IfModifiedSince.IsZero() && (resp.StatusCode == http.StatusNotModified ||
		(resp.StatusCode == http.StatusOK && !modified.IsZero() && !modified.After(req.IfModifiedSince))) {
		// The proxy answered the condition, or its Last-Modified does:
		// the body is not read.
		body.Close()
		return &schemes.Response{URL: u, Kind: schemes.KindFile, Body: emptyBody{}, Size: -1,
			Name: name, Type: typeWord(v), Modified: modified, NotModified: true}, nil
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent {
		body.Close()
		return nil, proxyStatusError(proxy, resp)
	}
	isDir := v.TypeCode == 'd' || name == ""
	ct := resp.Header.Get("Content-Type")
	if isDir && strings.HasPrefix(ct, "text/html") {
		l, err := readProxyListing(body, u, v.Dirs(), req.EntryLimit())
		body.Close()
		if err != nil {
			return nil, err
		}
		return &schemes.Response{URL: u, Kind: schemes.KindListing, Listing: l, Size: -1, Name: name, Type: schemes.TypeDir}, nil
	}
	r := &schemes.Response{URL: u, Kind: schemes.KindFile, Body: body, Size: -1, Name: name, Type: typeWord(v)}
	if resp.StatusCode == http.StatusPartialContent {
		r.Offset = req.Offset
	} else if req.Offset > 0 {
		req.Warnf(fmt.Sprintf("ftp: the proxy %s did not resume at byte %d; fetching %s from its start", proxy, req.Offset, name))
	}
	if resp.ContentLength >= 0 {
		r.Size = r.Offset + resp.ContentLength
	}
	r.Modified = modified
	return r, nil
}

// proxyStatusError is the error of a proxy's response other than 200:
// the FTP server's refusal as the proxy tells it (its status, and
// squid's X-Squid-Error), the proxy named.
func proxyStatusError(proxy string, resp *http.Response) error {
	kind := schemes.ErrRefused
	switch resp.StatusCode {
	case http.StatusNotFound:
		kind = schemes.ErrNotFound
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
		kind = schemes.ErrAuth
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if strings.HasPrefix(resp.Header.Get("X-Squid-Error"), "ERR_CONNECT_FAIL") || strings.HasPrefix(resp.Header.Get("X-Squid-Error"), "ERR_DNS_FAIL") {
			kind = schemes.ErrConnect
		}
	}
	why := resp.Status
	if e := resp.Header.Get("X-Squid-Error"); e != "" {
		why += " (" + e + ")"
	}
	return schemes.Errorf(kind, "ftp: the proxy %s answered %s", proxy, lineproto.ServerText(why))
}

// proxyBody is a response body that ends its connection when closed.
type proxyBody struct {
	io.ReadCloser
	conn io.Closer
}

func (b *proxyBody) Close() error {
	b.ReadCloser.Close()
	return b.conn.Close()
}

// proxyListing is a listing read whole from the proxy's page.
type proxyListing struct {
	entries []schemes.Entry
}

func (l *proxyListing) Next() (schemes.Entry, error) {
	if len(l.entries) == 0 {
		return schemes.Entry{}, io.EOF
	}
	e := l.entries[0]
	l.entries = l.entries[1:]
	return e, nil
}

func (l *proxyListing) Close() error { l.entries = nil; return nil }

// readProxyListing reads a proxy's HTML listing of the directory dirs of
// base: each row of class "entry" is one entry, named by the link of its
// "filename" cell, a directory when the link ends in '/', a symbolic link
// when its icon says [LINK], dated by its "date" cell (to the day or the
// minute, as LIST shows it).
func readProxyListing(r io.Reader, base *schemes.URL, dirs []string, max int) (*proxyListing, error) {
	z := html.NewTokenizer(io.LimitReader(r, 64<<20))
	l := &proxyListing{}
	var e *schemes.Entry
	cell := ""
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				return l, nil
			}
			return nil, schemes.Errorf(schemes.ErrInterrupted, "ftp: reading the proxy's listing: %v", z.Err())
		case html.StartTagToken, html.SelfClosingTagToken:
			tn, _ := z.TagName()
			attrs := tagAttrs(z)
			switch string(tn) {
			case "tr":
				e = nil
				if attrs["class"] == "entry" {
					e = &schemes.Entry{Size: -1, Type: schemes.TypeFile}
				}
			case "td":
				cell = attrs["class"]
			case "img":
				if e != nil && attrs["alt"] == "[LINK]" {
					e.Type = schemes.TypeLink
				}
			case "a":
				href, ok := attrs["href"]
				if e == nil || cell != "filename" || !ok || e.Name != "" {
					break
				}
				isDir := strings.HasSuffix(href, "/")
				name, err := url.PathUnescape(strings.TrimSuffix(href, "/"))
				if err != nil || name == "" || strings.Contains(name, "/") {
					e = nil
					break
				}
				e.Name = name
				if isDir {
					e.Type = schemes.TypeDir
				}
			}
		case html.TextToken:
			if e != nil && cell == "date" {
				text := strings.Join(strings.Fields(string(z.Text())), " ")
				if t, err := time.Parse("Jan 2 2006", text); err == nil {
					e.Modified, e.Precision = t, schemes.PrecisionDay
				}
			}
		case html.EndTagToken:
			tn, _ := z.TagName()
			switch string(tn) {
			case "td":
				cell = ""
			case "tr":
				if e != nil && e.Name != "" {
					if len(l.entries) >= max {
						return nil, schemes.Errorf(schemes.ErrTooLarge, "ftp: listing has more than %d entries", max)
					}
					e.URL = entryURL(base, dirs, e.Name, e.Type == schemes.TypeDir)
					l.entries = append(l.entries, *e)
				}
				e = nil
			}
		}
	}
}

// tagAttrs is the current tag's attributes.
func tagAttrs(z *html.Tokenizer) map[string]string {
	attrs := map[string]string{}
	for {
		k, v, more := z.TagAttr()
		if len(k) > 0 {
			attrs[string(k)] = string(v)
		}
		if !more {
			return attrs
		}
	}
}
