package fetch

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// FS returns the tree rawURL names as a read-only file system: an FTP or
// local directory, a Gopher menu and the menus under it, or an HTTP
// directory whose index pages link its files (a server's generated
// listing). fs.WalkDir, fs.Glob, fs.ReadFile and http.FileServer(http.FS)
// work on it; it implements fs.ReadDirFS and fs.StatFS.
//
// Names are the ones a mirror of rawURL gives the same items: an FTP or
// local entry's name, a Gopher item's last selector segment (never its
// display string), an HTTP link's last path segment, decoded. A Gopher
// item whose selector does not lie directly under its menu's, a link to
// another server or outside the directory, an info line, a search, a
// session and a symbolic link are not in the tree; an entry whose name is
// no valid path element ("", ".", "..", or holding '/') is left out too.
//
// A directory is listed once, when first needed, and kept; a file is
// fetched when first read (every Open reads it afresh), and Seek moves
// within it by asking the server for the rest from that byte (FTP REST,
// HTTP Range) where the scheme resumes, else by reading up to it; a seek
// from the end of a file whose size neither the listing nor the server
// gave reads it through once to learn it. ctx bounds every fetch the file
// system makes.
func FS(ctx context.Context, c *Client, rawURL string) (fs.FS, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	root := &node{name: ".", url: u.String(), dir: true, size: 0}
	switch {
	case u.Gopher != nil:
		if u.Gopher.Type != '1' {
			return nil, schemes.Errorf(schemes.ErrUsage, "%s is not a Gopher menu", u.Redacted())
		}
		root.selector = u.Gopher.Selector
	case u.HTTP != nil && (u.Scheme == "http" || u.Scheme == "https"):
		if !strings.HasSuffix(u.HTTP.Path, "/") {
			return nil, schemes.Errorf(schemes.ErrUsage, "%s names no directory (its path ends in no '/')", u.Redacted())
		}
	case u.FTP != nil, u.File != nil:
	default:
		return nil, schemes.Errorf(schemes.ErrUsage, "%s: a %s URL is not a tree", u.Redacted(), u.Scheme)
	}
	return &remoteFS{ctx: ctx, c: c, scheme: u.Scheme, root: root, dirs: map[string][]*node{}}, nil
}

// remoteFS is the file system FS returns.
type remoteFS struct {
	ctx    context.Context
	c      *Client
	scheme string
	root   *node

	mu   sync.Mutex
	dirs map[string][]*node // listed directories by name, sorted entries
}

// node is one item of the tree.
type node struct {
	name     string // base name; "." for the root
	url      string
	dir      bool
	size     int64
	sized    bool // the listing gave the size
	mod      time.Time
	selector string // Gopher: the item's selector
}

var (
	_ fs.ReadDirFS = (*remoteFS)(nil)
	_ fs.StatFS    = (*remoteFS)(nil)
)

func (f *remoteFS) Open(name string) (fs.File, error) {
	n, err := f.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if n.dir {
		return &dirFile{fs: f, path: name, n: n}, nil
	}
	end := int64(-1)
	if n.sized {
		end = n.size
	}
	return &remoteFile{fs: f, n: n, end: end}, nil
}

func (f *remoteFS) Stat(name string) (fs.FileInfo, error) {
	n, err := f.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return info{n}, nil
}

func (f *remoteFS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := f.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	list, err := f.list(name, n)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	out := make([]fs.DirEntry, len(list))
	for i, c := range list {
		out[i] = fs.FileInfoToDirEntry(info{c})
	}
	return out, nil
}

// lookup walks from the root to name, listing each directory on the way.
func (f *remoteFS) lookup(op, name string) (*node, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	n := f.root
	if name == "." {
		return n, nil
	}
	at := "."
	for _, seg := range strings.Split(name, "/") {
		if !n.dir {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		list, err := f.list(at, n)
		if err != nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: err}
		}
		var next *node
		for _, c := range list {
			if c.name == seg {
				next = c
				break
			}
		}
		if next == nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		n = next
		at = path.Join(at, seg)
	}
	return n, nil
}

// list returns the entries of the directory n at name, listing it the
// first time.
func (f *remoteFS) list(name string, n *node) ([]*node, error) {
	f.mu.Lock()
	list, ok := f.dirs[name]
	f.mu.Unlock()
	if ok {
		return list, nil
	}
	resp, err := f.c.Do(f.ctx, &Request{URL: n.url})
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	switch {
	case resp.Kind == schemes.KindListing:
		list, err = f.fromListing(n, resp.Listing)
	case resp.Page != nil:
		list, err = f.fromPage(n, resp)
	default:
		err = schemes.Errorf(schemes.ErrRefused, "%s is not a directory", n.url)
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	uniq := list[:0]
	for _, c := range list {
		if !seen[c.name] {
			seen[c.name] = true
			uniq = append(uniq, c)
		}
	}
	list = uniq
	sortNodes(list)
	f.mu.Lock()
	f.dirs[name] = list
	f.mu.Unlock()
	return list, nil
}

// fromListing reads a directory listing or a Gopher menu.
func (f *remoteFS) fromListing(parent *node, l schemes.Listing) ([]*node, error) {
	var list []*node
	for {
		e, err := l.Next()
		if err == io.EOF {
			return list, nil
		}
		if err != nil {
			return nil, err
		}
		if c := f.child(parent, e); c != nil {
			list = append(list, c)
		}
	}
}

// child is the node an entry becomes, or nil when it is not in the tree.
func (f *remoteFS) child(parent *node, e schemes.Entry) *node {
	c := &node{url: e.URL, size: max(e.Size, 0), sized: e.Size >= 0, mod: e.Modified}
	switch {
	case e.Gopher != nil:
		g := e.Gopher
		if g.Host != "" && parent.url != "" && !f.sameGopherServer(g) {
			return nil
		}
		switch e.Type {
		case schemes.TypeDir:
			c.dir = true
		case schemes.TypeText, schemes.TypeBinary, schemes.TypeImage, schemes.TypeAudio, schemes.TypeHTML, schemes.TypeFile, schemes.TypeOther:
			if g.Type == "h" && strings.HasPrefix(g.Selector, "URL:") {
				return nil
			}
		default:
			return nil
		}
		dir, base := path.Split(strings.TrimSuffix(g.Selector, "/"))
		if strings.Trim(dir, "/") != strings.Trim(parent.selector, "/") {
			return nil
		}
		c.name, c.selector = base, g.Selector
	default:
		switch e.Type {
		case schemes.TypeDir:
			c.dir = true
		case schemes.TypeUnparsed, schemes.TypeInfo, schemes.TypeError, schemes.TypeSearch, schemes.TypeTelnet, schemes.TypeTN3270:
			return nil
		}
		if e.Target != "" || e.Type == schemes.TypeLink {
			return nil
		}
		c.name = e.Name
	}
	if c.name == "" || c.name == "." || c.name == ".." || strings.ContainsAny(c.name, "/\x00") || c.url == "" {
		return nil
	}
	if c.dir {
		c.size = 0
	}
	return c
}

// sameGopherServer reports whether a menu item lives on the root's server.
func (f *remoteFS) sameGopherServer(g *schemes.GopherItem) bool {
	u, err := schemes.Parse(f.root.url)
	if err != nil {
		return false
	}
	return strings.EqualFold(g.Host, u.Host) && g.Port == u.EffectivePort()
}

// fromPage reads a directory's index page (an HTTP index, a gemtext
// page): each link to a name directly under the directory, on the same
// server, is an entry; one that ends in '/' a directory. An HTML page's
// links are its <a href> alone (not the images and scripts it shows).
// Sizes and times are unknown.
func (f *remoteFS) fromPage(parent *node, resp *Response) ([]*node, error) {
	base, err := url.Parse(parent.url)
	if err != nil {
		return nil, err
	}
	var list []*node
	links := schemes.Links(resp.Page(io.NopCloser(resp.Body)))
	defer links.Close()
	for {
		e, err := links.Next()
		if err == io.EOF {
			return list, nil
		}
		if err != nil {
			return nil, err
		}
		if e.HTML != nil && e.HTML.Element != "a" {
			continue
		}
		if c := pageChild(base, e.URL); c != nil {
			list = append(list, c)
		}
	}
}

// pageChild is the node a link on a directory page names, or nil.
func pageChild(base *url.URL, href string) *node {
	l, err := base.Parse(strings.TrimSpace(href))
	if err != nil || l.RawQuery != "" || l.ForceQuery || l.Scheme != base.Scheme || l.Host != base.Host {
		return nil
	}
	l.Fragment, l.RawFragment = "", ""
	rest, ok := strings.CutPrefix(l.EscapedPath(), base.EscapedPath())
	if !ok || rest == "" {
		return nil
	}
	dir := strings.HasSuffix(rest, "/")
	rest = strings.TrimSuffix(rest, "/")
	if strings.Contains(rest, "/") {
		return nil
	}
	name, err := url.PathUnescape(rest)
	if err != nil {
		return nil
	}
	return &node{name: name, url: l.String(), dir: dir}
}

// sortNodes orders list by name, byte by byte; nodes of one name keep
// their order.
func sortNodes(list []*node) {
	slices.SortStableFunc(list, func(a, b *node) int { return strings.Compare(a.name, b.name) })
}

// info is a node's fs.FileInfo.
type info struct{ n *node }

func (i info) Name() string       { return i.n.name }
func (i info) Size() int64        { return i.n.size }
func (i info) ModTime() time.Time { return i.n.mod }
func (i info) IsDir() bool        { return i.n.dir }
func (i info) Sys() any           { return nil }
func (i info) Mode() fs.FileMode {
	if i.n.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// dirFile is an open directory.
type dirFile struct {
	fs   *remoteFS
	path string
	n    *node
	read int // entries ReadDir has returned
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return info{d.n}, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(count int) ([]fs.DirEntry, error) {
	list, err := d.fs.list(d.path, d.n)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: d.path, Err: err}
	}
	rest := list[d.read:]
	if count > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if count > 0 && len(rest) > count {
		rest = rest[:count]
	}
	d.read += len(rest)
	out := make([]fs.DirEntry, len(rest))
	for i, c := range rest {
		out[i] = fs.FileInfoToDirEntry(info{c})
	}
	return out, nil
}

// remoteFile is an open file: its body is fetched on the first Read, from
// the offset Seek set.
type remoteFile struct {
	fs     *remoteFS
	n      *node
	body   io.ReadCloser
	off    int64 // where the next Read reads
	end    int64 // the size, once learnt; -1 before
	closed bool
}

func (r *remoteFile) Stat() (fs.FileInfo, error) { return info{r.n}, nil }

func (r *remoteFile) Read(p []byte) (int, error) {
	if r.closed {
		return 0, fs.ErrClosed
	}
	if r.body == nil {
		if err := r.open(); err != nil {
			return 0, err
		}
	}
	n, err := r.body.Read(p)
	r.off += int64(n)
	return n, err
}

// open fetches the body from r.off on.
func (r *remoteFile) open() error {
	resp, err := r.fs.c.Do(r.fs.ctx, &Request{URL: r.n.url, Call: schemes.Call{Offset: r.off}})
	if err != nil {
		return err
	}
	if resp.Kind != schemes.KindFile {
		resp.Close()
		return schemes.Errorf(schemes.ErrRefused, "%s is not a file", r.n.url)
	}
	if resp.Size >= 0 {
		r.end = resp.Size
	}
	if resp.Offset != r.off {
		// The server sent it from the start: skip to the offset.
		if _, err := io.CopyN(io.Discard, resp.Body, r.off-resp.Offset); err != nil && err != io.EOF {
			resp.Close()
			return err
		}
	}
	r.body = resp.Body
	return nil
}

// size learns the file's size when the listing did not give it: from the
// server's answer where it names one, else by reading the file through.
func (r *remoteFile) size() (int64, error) {
	if r.end >= 0 {
		return r.end, nil
	}
	if r.body != nil {
		r.body.Close()
		r.body = nil
	}
	at := r.off
	r.off = 0
	defer func() { r.off = at }()
	if err := r.open(); err != nil {
		return 0, err
	}
	defer func() { r.body.Close(); r.body = nil }()
	if r.end >= 0 {
		return r.end, nil
	}
	n, err := io.Copy(io.Discard, r.body)
	if err != nil {
		return 0, err
	}
	r.end = n
	return n, nil
}

// Seek moves the offset of the next Read. The end is known only when the
// listing gave the file's size.
func (r *remoteFile) Seek(offset int64, whence int) (int64, error) {
	if r.closed {
		return 0, fs.ErrClosed
	}
	var to int64
	switch whence {
	case io.SeekStart:
		to = offset
	case io.SeekCurrent:
		to = r.off + offset
	case io.SeekEnd:
		end, err := r.size()
		if err != nil {
			return 0, err
		}
		to = end + offset
	default:
		return 0, errors.New("seek: invalid whence")
	}
	if to < 0 {
		return 0, errors.New("seek: negative position")
	}
	if to != r.off && r.body != nil {
		r.body.Close()
		r.body = nil
	}
	r.off = to
	return to, nil
}

func (r *remoteFile) Close() error {
	if r.closed {
		return fs.ErrClosed
	}
	r.closed = true
	if r.body != nil {
		return r.body.Close()
	}
	return nil
}
