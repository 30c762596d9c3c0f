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

// page mirrors one HTTP or Gemini link: a file is saved; an HTML or
// text/gemini page is saved and read for links under the starting path. A directory's page (URL ending
// in '/') that the server generates (it has no Last-Modified, as autoindex
// pages have none) is the directory's listing: read, not saved. A second
// run asks with If-Modified-Since and reads the links of an unchanged page
// from the local copy.
func (e *engine) page(ctx context.Context, j job, pre *fetch.Response) {
	if j.Root {
		e.visit("u:" + j.URL)
	}
	u, err := url.Parse(j.URL)
	if err != nil {
		e.fail(j.URL, j.Path, err)
		return
	}
	dir := strings.HasSuffix(u.EscapedPath(), "/")
	if j.Root && !dir {
		// The starting URL names a page or file: it keeps its own name.
		p, _, err := httpPath(e.site.prefix, u.EscapedPath())
		if err != nil {
			if pre != nil {
				pre.Close()
			}
			e.refuse(u.EscapedPath(), j.URL, err)
			return
		}
		j.Path = p
	}
	target := j.Path
	if dir {
		target = join(j.Path, e.site.dirIndex())
	}
	rec, had := e.st.getFile(target)
	complete := had && rec.Kind == kindFile && !rec.Partial && e.held(target, rec)
	resp := pre
	if resp == nil {
		req := &fetch.Request{URL: j.URL}
		if complete && !rec.Modified.IsZero() {
			req.IfModifiedSince = rec.Modified
		}
		if resp, err = e.get(ctx, nil, req); err != nil {
			// Whatever it was, this run reached it: a page that fails
			// proves none of its links gone.
			e.seenListing(pageKey(dir, j.Path, target), j)
			var in *schemes.InputError
			if errors.As(err, &in) {
				// A form, not a document: there is nothing to copy.
				e.count(&e.sum.Recorded)
				e.logf("recorded %s (asks for input: %s)", j.URL, schemes.Printable(in.Prompt))
				return
			}
			e.fail(j.URL, j.Path, err)
			e.listingFailed()
			return
		}
	}
	// After a redirect the page is where it ended up.
	if final := httpURL(resp.URL); final != nil && final.String() != u.String() {
		final.Fragment = ""
		p, d, err := httpPath(e.site.prefix, final.EscapedPath())
		if !e.site.sameHTTP(final) || err != nil {
			resp.Close()
			e.count(&e.sum.Recorded)
			e.logf("recorded %s (redirected out of the mirror to %s)", j.URL, final)
			return
		}
		if !e.visit("u:" + final.String()) {
			resp.Close()
			return
		}
		u, dir, j.Path, j.URL = final, d, p, final.String()
		target = j.Path
		if dir {
			target = join(j.Path, e.site.dirIndex())
		}
		rec, had = e.st.getFile(target)
		complete = had && rec.Kind == kindFile && !rec.Partial && e.held(target, rec)
	}
	if resp.Kind == schemes.KindListing {
		e.listDir(ctx, job{Op: opList, URL: j.URL, Path: j.Path, From: j.From, Depth: j.Depth}, resp)
		return
	}
	read := resp.Page
	if read == nil && resp.NotModified && rec.HTML {
		// Unchanged: the links are read again from the local copy.
		read = fetch.PageReader(u.Scheme, "", schemes.TypeHTML, u.String())
	}
	deeper := e.opts.Depth == 0 || j.Depth+1 <= e.opts.Depth
	key := pageKey(dir, j.Path, target)
	if read == nil {
		if !dir {
			e.filesTotal.Add(1)
		}
		e.pageFile(j, target, resp, rec, complete)
		return
	}
	lr := e.seenListing(key, j)
	links := func(r io.Reader) {
		if !deeper {
			return
		}
		// The reader is the caller's to close, not the listing's.
		l := schemes.Links(read(struct{ io.Reader }{r}))
		for {
			ent, err := l.Next()
			if err != nil {
				break
			}
			if ref, err := url.Parse(ent.URL); err == nil {
				e.link(j, key, ref)
			}
		}
		l.Close()
	}
	// A directory's page that the server generates (it has no time, as
	// autoindex pages have none) is read, not saved. Gemini gives no
	// time for any page, and a capsule's directory pages are often
	// written by hand: they are all saved.
	generated := dir && resp.Modified.IsZero() && !resp.NotModified && e.site.scheme != "gemini"
	switch {
	case e.opts.DryRun || generated:
		// A generated directory page, or a dry run: read, never saved.
		if !e.opts.DryRun {
			if err := e.ensureDir(j.Path); err != nil {
				resp.Close()
				e.fail(j.URL, j.Path, err)
				e.listingFailed()
				return
			}
		}
		if resp.Body != nil {
			links(resp.Body)
		}
		resp.Close()
	default:
		e.filesTotal.Add(1)
		pj := j
		pj.Path = target
		if !e.pageFile(pj, target, resp, rec, complete) {
			e.listingFailed()
			return
		}
		f, err := e.root.Open(target)
		if err != nil {
			e.fail(j.URL, target, err)
			e.listingFailed()
			return
		}
		links(f)
		f.Close()
	}
	lr.Listed = e.run
	e.st.putListing(key, lr)
}

// pageKey is the listing key of a page: its directory's, or its own file's.
func pageKey(dir bool, path, target string) string {
	if dir {
		return dirKey(path)
	}
	return "f:" + target
}

// pageFile saves an HTTP response as the file target.
func (e *engine) pageFile(j job, target string, resp *fetch.Response, rec record, complete bool) bool {
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
