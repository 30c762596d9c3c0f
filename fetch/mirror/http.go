package mirror

import (
	"context"
	"errors"
	"io"
	"net/url"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// pageWalker walks documents that are pages of links, whatever their
// scheme: HTTP and HTTPS pages (HTML, a server's directory index) and
// Gemini's text/gemini pages, each read through the page reader the
// contract gives (fetch.Response.Page), over the engine's core. Gemini
// and HTTP share it: the contract reads their links alike.
type pageWalker struct{ *engine }

// page mirrors one HTTP or Gemini link: a file is saved; an HTML or
// text/gemini page is saved and read for links under the starting path. A
// directory's page (URL ending in '/') that the server generates (it has
// no Last-Modified, as autoindex pages have none) is the directory's
// listing: read, not saved. A second run asks with If-Modified-Since and
// reads the links of an unchanged page from the local copy.
func (e *pageWalker) page(ctx context.Context, j job, pre *fetch.Response) {
	p, ok := e.webPageOf(j, pre)
	if !ok {
		return
	}
	resp := pre
	if resp == nil {
		if resp, ok = e.getPage(ctx, p); !ok {
			return
		}
	}
	if !e.followRedirect(p, resp) {
		return
	}
	if resp.Kind == schemes.KindListing {
		e.ftp.listDir(ctx, job{Op: opList, URL: p.j.URL, Path: p.j.Path, From: p.j.From, Depth: p.j.Depth}, resp)
		return
	}
	read := resp.Page
	if read == nil && resp.NotModified && p.rec.HTML {
		// Unchanged: the links are read again from the local copy.
		read = fetch.PageReader(p.u.Scheme, "", schemes.TypeHTML, p.u.String())
	}
	if read == nil {
		if !p.dir {
			e.filesTotal.Add(1)
		}
		e.pageFile(p.j, p.target, resp, p.rec, p.complete)
		return
	}
	e.readPage(p, resp, read)
}

// webPage is one page of an HTTP or Gemini mirror as page handles it.
type webPage struct {
	j   job
	u   *url.URL
	dir bool // the URL ends in '/': a directory's page
	// target is the local file: the page's own path, or its directory's
	// index file.
	target string
	// rec is what the state holds of target; complete says it is a whole
	// file still held as recorded.
	rec      record
	complete bool
}

// webPageOf is j's page, or false when j was failed or refused.
func (e *pageWalker) webPageOf(j job, pre *fetch.Response) (*webPage, bool) {
	if j.Root {
		e.visit("u:" + j.URL)
	}
	u, err := url.Parse(j.URL)
	if err != nil {
		e.fail(j.URL, j.Path, err)
		return nil, false
	}
	dir := strings.HasSuffix(u.EscapedPath(), "/")
	if j.Root && !dir {
		// The starting URL names a page or file: it keeps its own name.
		path, _, err := httpPath(e.site.prefix, u.EscapedPath())
		if err != nil {
			if pre != nil {
				pre.Close()
			}
			e.refuse(u.EscapedPath(), j.URL, err)
			return nil, false
		}
		j.Path = path
	}
	p := &webPage{j: j}
	e.moveWebPage(p, u, dir, j.Path, j.URL)
	return p, true
}

// moveWebPage makes p the page of u (spelt ref), at path.
func (e *pageWalker) moveWebPage(p *webPage, u *url.URL, dir bool, path, ref string) {
	p.u, p.dir, p.j.Path, p.j.URL = u, dir, path, ref
	p.target = path
	if dir {
		p.target = join(path, e.site.dirIndex())
	}
	var had bool
	p.rec, had = e.st.getFile(p.target)
	p.complete = had && p.rec.Kind == kindFile && !p.rec.Partial && e.held(p.target, p.rec)
}

// getPage fetches p, asking only for a change since the copy it has;
// false when it failed or asks for input, said either way.
func (e *pageWalker) getPage(ctx context.Context, p *webPage) (*fetch.Response, bool) {
	req := &fetch.Request{URL: p.j.URL}
	if p.complete && !p.rec.Modified.IsZero() {
		req.IfModifiedSince = p.rec.Modified
	}
	resp, err := e.get(ctx, nil, req)
	if err == nil {
		return resp, true
	}
	// Whatever it was, this run reached it: a page that fails proves
	// none of its links gone.
	e.seenListing(pageKey(p.dir, p.j.Path, p.target), p.j)
	var in *schemes.InputError
	if errors.As(err, &in) {
		// A form, not a document: there is nothing to copy.
		e.count(&e.sum.Recorded)
		e.logf("recorded %s (asks for input: %s)", p.j.URL, schemes.Printable(in.Prompt))
		return nil, false
	}
	e.fail(p.j.URL, p.j.Path, err)
	e.listingFailed()
	return nil, false
}

// followRedirect makes p the page a redirect ended at; false, with resp
// closed, when that is out of the mirror or already seen.
func (e *pageWalker) followRedirect(p *webPage, resp *fetch.Response) bool {
	final := httpURL(resp.URL)
	if final == nil || final.String() == p.u.String() {
		return true
	}
	final.Fragment = ""
	path, dir, err := httpPath(e.site.prefix, final.EscapedPath())
	if !e.site.sameHTTP(final) || err != nil {
		resp.Close()
		e.count(&e.sum.Recorded)
		e.logf("recorded %s (redirected out of the mirror to %s)", p.j.URL, final)
		return false
	}
	if !e.visit("u:" + final.String()) {
		resp.Close()
		return false
	}
	e.moveWebPage(p, final, dir, path, final.String())
	return true
}

// readPage reads a page of links, read, for the links under the starting
// path: a page the server generates for a directory (it has no time, as
// autoindex pages have none) is only read; any other is saved and read
// from its copy. Gemini gives no time for any page, and a capsule's
// directory pages are often written by hand: they are all saved.
func (e *pageWalker) readPage(p *webPage, resp *fetch.Response, read func(io.Reader) schemes.Listing) {
	key := pageKey(p.dir, p.j.Path, p.target)
	lr := e.seenListing(key, p.j)
	generated := p.dir && resp.Modified.IsZero() && !resp.NotModified && e.site.scheme != "gemini"
	if e.opts.DryRun || generated {
		if !e.opts.DryRun {
			if err := e.ensureDir(p.j.Path); err != nil {
				resp.Close()
				e.fail(p.j.URL, p.j.Path, err)
				e.listingFailed()
				return
			}
		}
		if resp.Body != nil {
			e.pageLinks(p.j, key, read, resp.Body)
		}
		resp.Close()
	} else {
		e.filesTotal.Add(1)
		pj := p.j
		pj.Path = p.target
		if !e.pageFile(pj, p.target, resp, p.rec, p.complete) {
			e.listingFailed()
			return
		}
		f, err := e.root.Open(p.target)
		if err != nil {
			e.fail(p.j.URL, p.target, err)
			e.listingFailed()
			return
		}
		e.pageLinks(p.j, key, read, f)
		f.Close()
	}
	lr.Listed = e.run
	e.st.putListing(key, lr)
}

// pageLinks queues the links read finds in r, when the page's depth
// allows one more level.
func (e *pageWalker) pageLinks(j job, key string, read func(io.Reader) schemes.Listing, r io.Reader) {
	if e.opts.Depth != 0 && j.Depth+1 > e.opts.Depth {
		return
	}
	// The reader is the caller's to close, not the listing's.
	l := schemes.Links(read(struct{ io.Reader }{r}))
	defer l.Close()
	for {
		ent, err := l.Next()
		if err != nil {
			return
		}
		if ref, err := url.Parse(ent.URL); err == nil {
			e.link(j, key, ref)
		}
	}
}

// pageKey is the listing key of a page: its directory's, or its own file's.
func pageKey(dir bool, path, target string) string {
	if dir {
		return dirKey(path)
	}
	return "f:" + target
}

// pageFile saves an HTTP response as the file target.
func (e *pageWalker) pageFile(j job, target string, resp *fetch.Response, rec record, complete bool) bool {
	defer e.filesDone.Add(1)
	j.Path, j.track = target, e.track()
	if target == "" {
		resp.Close()
		e.fail(j.URL, target, schemes.Errorf(schemes.ErrRefused, "%s names no file", j.URL))
		return false
	}
	if e.opts.DryRun {
		resp.Close()
		if !resp.NotModified {
			e.plan(planAction(e.exists(target)), j.URL, target)
		}
		return true
	}
	if err := e.save(j, resp, rec, complete, tmpName(target), 0, nil); err != nil {
		e.failed(j, err)
		return false
	}
	return true
}

// link queues one link found on a page, if it lies under the starting path
// on the same server.
func (e *engine) link(j job, key string, l *url.URL) {
	l.Fragment, l.RawFragment = "", ""
	if l.RawQuery != "" || l.ForceQuery || !e.site.sameHTTP(l) {
		return // queries name no file; other servers are out of scope
	}
	if !strings.HasPrefix(l.EscapedPath(), e.site.prefix) {
		return
	}
	ref := l.String()
	if !e.visit("u:" + ref) {
		return
	}
	if e.robotsDisallow(l.EscapedPath()) {
		e.count(&e.sum.Skipped)
		e.logf("skipped %s (robots.txt)", ref)
		return
	}
	p, _, err := httpPath(e.site.prefix, l.EscapedPath())
	if err != nil {
		e.refuse(l.EscapedPath(), ref, err)
		return
	}
	// A link that ends in '/' names a directory.
	if p != "" && e.excluded(p, ref, strings.HasSuffix(l.EscapedPath(), "/")) {
		return
	}
	e.q.push(job{Op: opPage, URL: ref, Path: p, From: key, Depth: j.Depth + 1, Size: -1})
}

// httpURL is the response's URL as a net/url URL (nil if it has none).
func httpURL(u *schemes.URL) *url.URL {
	if u == nil || u.HTTP == nil {
		return nil
	}
	ref := u.Scheme + "://" + hostPort(u) + u.HTTP.Path
	if u.HTTP.Path == "" {
		ref += "/"
	}
	if u.HTTP.HasSearch {
		ref += "?" + u.HTTP.Search
	}
	p, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	return p
}
