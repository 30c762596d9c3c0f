package mirror

import (
	"bufio"
	"context"
	"fmt"
	"html"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// gopherWalker walks Gopher menus: it queues a menu's items, saves the
// menu raw and readable, and dates items by their Gopher+ Mod-Dates,
// over the engine's core.
type gopherWalker struct{ *engine }

// menu walks one Gopher menu: items on the same host and port are queued
// (each menu and each item once per run, however many menus link it),
// everything else is recorded. The menu is saved raw as gophermap in its
// selector's directory, with a readable gophermap.html beside it.
// A Gopher+ menu is also asked for its items' Mod-Dates.
func (e *gopherWalker) menu(ctx context.Context, j job, pre *fetch.Response) {
	key := j.dir()
	if j.Root {
		e.visit("m:" + j.Sel)
	}
	lr := e.seenListing(key, j)
	resp := e.openListing(ctx, j, pre, "menu")
	if resp == nil {
		return
	}
	defer resp.Close()

	var idx *index
	if !e.opts.DryRun {
		if err := e.ensureDir(j.Path); err != nil {
			e.fail(j.URL, j.Path, err)
			e.listingFailed()
			return
		}
		var err error
		if idx, err = e.newIndex(j); err != nil {
			e.fail(j.URL, j.Path, err)
			e.listingFailed()
			return
		}
		defer idx.abandon()
	}
	var modDates map[string]time.Time
	if j.Plus == "+" || j.Root {
		modDates = e.modDates(ctx, j)
	}
	deeper := e.opts.Depth == 0 || j.Depth+1 < e.opts.Depth
	partial := false
	for {
		ent, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			e.fail(j.URL, j.Path, err)
			e.listingFailed()
			return
		}
		if ent.Type == schemes.TypeUnparsed {
			// Counted and listed; the menu then proves no item gone.
			e.unparsed(j, ent.Name)
			partial = true
			continue
		}
		local := e.menuItem(j, key, ent, deeper, modDates)
		idx.add(j.Path, ent, local)
	}
	resp.Close()
	if !partial {
		lr.Listed = e.run
		e.st.putListing(key, lr)
	}
	if e.opts.DryRun {
		return
	}
	e.saveMenu(ctx, j, key, idx)
}

// menuItem queues or records one menu item and returns the local path the
// readable index links to ("" when it links to the remote URL or nothing).
func (e *gopherWalker) menuItem(j job, key string, ent schemes.Entry, deeper bool, modDates map[string]time.Time) string {
	g := gopherOf(ent)
	switch g.Type {
	case "i", "3":
		return "" // info and error lines live on in the menu files
	case "7", "8", "T", "2", "+":
		// Searches, telnet sessions, CSO phone books and mirrors of this
		// menu are recorded in the menu files, never fetched.
		e.count(&e.sum.Recorded)
		return ""
	}
	if g.Plus == "?" || ent.Type == schemes.TypeAsk || strings.HasPrefix(g.Selector, "URL:") ||
		strings.HasPrefix(g.Selector, "/URL:") {
		e.count(&e.sum.Recorded)
		return ""
	}
	if !sameHost(g.Host, e.site.host) || gopherPort(e.site.scheme, g.Port) != e.site.port {
		e.count(&e.sum.Recorded)
		return ""
	}
	if e.opts.NoParent && !underSelector(e.site.selector, g.Selector) {
		return ""
	}
	menu := g.Type == "1"
	if e.robotsDisallow(g.Selector) {
		e.count(&e.sum.Skipped)
		e.logf("skipped %q (robots.txt)", g.Selector)
		return ""
	}
	if menu {
		p, err := gopherPath(e.c.DecodeName(g.Selector))
		if err != nil {
			e.refuse(g.Selector, ent.URL, err)
			return ""
		}
		if e.filteredItem(p, ent, true) {
			return ""
		}
		if deeper && e.visit("m:"+g.Selector) {
			e.q.push(job{Op: opMenu, URL: ent.URL, Path: p, From: key, Depth: j.Depth + 1, Name: ent.Name,
				Sel: g.Selector, Host: g.Host, Port: g.Port, Plus: g.Plus, Size: -1})
		}
		return join(p, indexFile)
	}
	p, err := gopherItemPath(e.c.DecodeName(g.Selector))
	if err != nil {
		e.refuse(g.Selector, ent.URL, err)
		return ""
	}
	if e.filteredItem(p, ent, false) {
		return ""
	}
	if e.visit("f:" + g.Selector) {
		e.filesTotal.Add(1)
		mod := ent.Modified
		if d, ok := modDates[g.Selector]; ok && mod.IsZero() {
			mod = d
		}
		e.q.push(job{Op: opFile, URL: itemURL(e.site.scheme, ent), Path: p, From: key, Depth: j.Depth + 1,
			Name: ent.Name, Size: ent.Size, Mod: mod, Sel: g.Selector, Host: g.Host, Port: g.Port, Plus: g.Plus})
	}
	return p
}

// itemURL is the URL that fetches a menu item's exact bytes: a Gopher+
// item with "+" (its reply is framed by length, so no byte is taken for a
// terminator), any other item as its type says (text and menus lose the
// dot-stuffing and the final "." line RFC 1436 adds on the wire, other
// types are read to the close).
func itemURL(scheme string, ent schemes.Entry) string {
	g := gopherOf(ent)
	typ := byte('9')
	if g.Type != "" {
		typ = g.Type[0]
	}
	plus := ""
	if g.Plus == "+" {
		plus = "+"
	}
	return gopherURL(scheme, g.Host, g.Port, typ, g.Selector, plus)
}

// gopherOf is an entry's Gopher view, empty for an entry that has none
// (which then lives on no server and names no selector).
func gopherOf(ent schemes.Entry) *schemes.GopherItem {
	if ent.Gopher == nil {
		return &schemes.GopherItem{}
	}
	return ent.Gopher
}

// maxModDates bounds the Mod-Date table kept for one menu.
const maxModDates = 1 << 16

// modDates asks a Gopher+ menu for its items' attributes ("$") and returns
// their +ADMIN Mod-Dates by selector, so that unchanged items are not
// fetched again. A server that does not answer gives none.
func (e *gopherWalker) modDates(ctx context.Context, j job) map[string]time.Time {
	ref := gopherURL(e.site.scheme, j.Host, j.Port, '1', j.Sel, "$")
	resp, err := e.paced(ctx, &fetch.Request{URL: ref})
	if err != nil {
		return nil
	}
	defer resp.Close()
	items, ok := resp.Info.(schemes.EntriesInfo)
	if !ok || items == nil {
		return nil
	}
	out := map[string]time.Time{}
	for _, it := range items.Entries() {
		if len(out) >= maxModDates {
			break
		}
		if !it.Modified.IsZero() {
			out[gopherOf(it).Selector] = it.Modified
		}
	}
	return out
}

// underSelector reports whether sel lies under the starting selector.
func underSelector(start, sel string) bool {
	if start == "" || sel == start {
		return true
	}
	dir := start
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	return strings.HasPrefix(sel, dir)
}

// saveMenu fetches the menu's raw bytes (as type 9, so nothing is
// reinterpreted) into gophermap and installs the readable index.
func (e *gopherWalker) saveMenu(ctx context.Context, j job, key string, idx *index) {
	if err := idx.finish(); err != nil {
		e.fail(j.URL, join(j.Path, indexFile), err)
	} else {
		e.installMenuFile(j, key, idx.tmp, join(j.Path, indexFile), idx.size, idx.sum)
	}
	raw := gopherURL(e.site.scheme, j.Host, j.Port, '9', j.Sel, "")
	resp, err := e.get(ctx, nil, &fetch.Request{URL: raw})
	if err != nil {
		e.fail(raw, join(j.Path, menuFile), err)
		return
	}
	defer resp.Close()
	if resp.Kind != schemes.KindFile || resp.Body == nil {
		e.fail(raw, join(j.Path, menuFile), schemes.Errorf(schemes.ErrRefused, "%s gave no raw menu", raw))
		return
	}
	path := join(j.Path, menuFile)
	tmp := tmpName(path)
	size, sum, err := e.receive(resp, tmp, 0, false, nil, nil)
	if err != nil {
		e.root.Remove(e.tmpPath(tmp))
		e.fail(raw, path, err)
		return
	}
	e.installMenuFile(j, key, tmp, path, size, sum)
}

// installMenuFile puts a menu file in place unless its bytes are unchanged.
func (e *gopherWalker) installMenuFile(j job, key, tmp, path string, size int64, sum string) {
	rec, had := e.st.getFile(path)
	if had && rec.SHA256 == sum && e.localOK(path, size) {
		e.root.Remove(e.tmpPath(tmp))
	} else if _, err := e.install(tmp, path, e.start); err != nil {
		e.root.Remove(e.tmpPath(tmp))
		e.fail(j.URL, path, err)
		return
	}
	r := record{URL: j.URL, Kind: kindMenu, Size: size, SHA256: sum, Run: e.run, From: key}
	e.st.putFile(path, r)
	e.share(path, r)
}

// index writes a menu's readable form: an HTML page whose links point at
// the local copies, or at the remote URL for what was not fetched.
type index struct {
	e    *engine
	tmp  string
	f    *os.File
	w    *bufio.Writer
	size int64
	sum  string
	done bool
}

func (e *gopherWalker) newIndex(j job) (*index, error) {
	tmp := tmpName(join(j.Path, indexFile))
	f, err := e.root.OpenFile(e.tmpPath(tmp), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	x := &index{e: e.engine, tmp: tmp, f: f, w: bufio.NewWriter(f)}
	title := html.EscapeString(gopherURL(e.site.scheme, j.Host, j.Port, '1', j.Sel, ""))
	fmt.Fprintf(x.w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body>\n<h1>%s</h1>\n<pre>\n", title, title)
	return x, nil
}

// add writes one menu line. dir is the menu's local directory, local the
// item's local path ("" when it has none).
func (x *index) add(dir string, ent schemes.Entry, local string) {
	if x == nil {
		return
	}
	label := html.EscapeString(ent.Name)
	g := gopherOf(ent)
	switch {
	case g.Type == "i" || g.Type == "3":
		fmt.Fprintf(x.w, "%s\n", label)
	case local != "":
		fmt.Fprintf(x.w, "[%s] <a href=\"%s\">%s</a>\n", html.EscapeString(ent.Type), html.EscapeString(relLink(dir, local)), label)
	case ent.URL != "":
		ref := ent.URL
		if strings.HasPrefix(g.Selector, "URL:") {
			ref = strings.TrimPrefix(g.Selector, "URL:")
		}
		fmt.Fprintf(x.w, "[%s] <a href=\"%s\">%s</a>\n", html.EscapeString(ent.Type), html.EscapeString(ref), label)
	default:
		fmt.Fprintf(x.w, "[%s] %s\n", html.EscapeString(ent.Type), label)
	}
}

func (x *index) finish() error {
	x.done = true
	io.WriteString(x.w, "</pre>\n</body></html>\n")
	err := x.w.Flush()
	if cerr := x.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		x.e.root.Remove(x.e.tmpPath(x.tmp))
		return err
	}
	fi, err := x.e.root.Lstat(x.e.tmpPath(x.tmp))
	if err != nil {
		return err
	}
	x.size = fi.Size()
	f, err := x.e.root.Open(x.e.tmpPath(x.tmp))
	if err != nil {
		return err
	}
	defer f.Close()
	x.sum, err = sha256Of(f)
	return err
}

// abandon drops an index whose menu could not be read to its end.
func (x *index) abandon() {
	if x == nil || x.done {
		return
	}
	x.f.Close()
	x.e.root.Remove(x.e.tmpPath(x.tmp))
}

// relLink is the relative link from a page in dir to the local path target.
func relLink(dir, target string) string {
	var b strings.Builder
	if dir != "" {
		for range strings.Count(dir, "/") + 1 {
			b.WriteString("../")
		}
	}
	for i, seg := range strings.Split(target, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(url.PathEscape(seg))
	}
	return b.String()
}
