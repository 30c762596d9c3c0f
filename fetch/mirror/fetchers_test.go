package mirror

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/gopher"
)

// Test fetchers: in-memory trees served under x- schemes, walked by the
// mirror as the scheme they imitate (the fetcher's Response.URL carries
// that scheme's view).

const (
	testHost       = "127.0.0.1"
	testGopherPort = 7070
)

type memNode struct {
	dir    bool
	data   []byte
	mod    time.Time
	target string // a symlink
	// gen, for a directory, generates count file entries on the fly.
	count int
	// extra entries a hostile server lists in this directory.
	extra []schemes.Entry
	// hidden: fetched by its URL, never listed (a VMS version that the
	// listing names through extra).
	hidden bool
}

// memFTP serves a tree of memNodes, keyed by '/'-joined decoded path ("" is the root).
type memFTP struct {
	scheme string
	mu     sync.Mutex
	nodes  map[string]*memNode
	bodies map[string]int   // path -> bodies served
	offs   map[string]int64 // path -> last offset asked
	// breakAt makes the next body of path fail after n bytes, and
	// breakList the next listing of the directory path after n entries.
	breakAt   map[string]int64
	breakList map[string]int
	lists     map[string]int // path -> listings served
	// gate, if set, is called before each body starts.
	gate func(path string)
	// reads, if set, is called before every read of a body.
	reads func()
	// listed, if set, is called when a generated listing has yielded its last entry.
	listed func()
	// metaAsked counts bodies requested without SkipMetadata.
	metaAsked int
	// listDay lists times to the day only (a LIST line of an old file),
	// and noMDTM answers no time with a body (a server without MDTM).
	listDay, noMDTM bool
	// hash, if set, gives a body's Response.Hash when the request asks
	// for one (n: the bodies of path served so far, this one included);
	// hashAsked counts the requests that asked.
	hash      func(path string, data []byte, n int) schemes.ServerHash
	hashAsked int
	// listHash, if set, gives each file entry of a listing asked with
	// ListHashes its Hash.
	listHash func(data []byte) schemes.ServerHash
}

func newMemFTP() *memFTP {
	return &memFTP{scheme: "x-ftp", nodes: map[string]*memNode{"": {dir: true}},
		bodies: map[string]int{}, offs: map[string]int64{}, breakAt: map[string]int64{},
		breakList: map[string]int{}, lists: map[string]int{}}
}

var testTime = time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)

func (m *memFTP) file(path, data string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mkdirs(path)
	m.nodes[path] = &memNode{data: []byte(data), mod: testTime}
}

func (m *memFTP) link(path, target string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mkdirs(path)
	m.nodes[path] = &memNode{target: target, mod: testTime}
}

func (m *memFTP) remove(path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.nodes {
		if k == path || strings.HasPrefix(k, path+"/") {
			delete(m.nodes, k)
		}
	}
}

func (m *memFTP) mkdirs(path string) {
	for p := parent(path); ; p = parent(p) {
		if m.nodes[p] == nil {
			m.nodes[p] = &memNode{dir: true, mod: testTime}
		}
		if p == "" {
			return
		}
	}
}

func (m *memFTP) bodyCount(path string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.bodies[path]
}

func (m *memFTP) totalBodies() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.bodies {
		n += c
	}
	return n
}

func (m *memFTP) url(segs []string, dir bool) string {
	s := append([]string(nil), segs...)
	if dir {
		s = append(s, "")
	}
	return (&schemes.URL{Scheme: m.scheme, Host: testHost, FTP: &schemes.FTP{Segments: s}}).String()
}

func (m *memFTP) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	u, err := schemes.Parse("ftp:" + req.URL.Opaque)
	if err != nil {
		return nil, err
	}
	u.Scheme = m.scheme
	segs := u.FTP.Segments
	if n := len(segs); n > 0 && segs[n-1] == "" {
		segs = segs[:n-1]
	}
	path := strings.Join(segs, "/")
	m.mu.Lock()
	defer m.mu.Unlock()
	node := m.nodes[path]
	if node == nil {
		// Files of a generated directory.
		if p := m.nodes[parent(path)]; p != nil && p.count > 0 {
			node = &memNode{data: []byte(path[strings.LastIndexByte(path, '/')+1:]), mod: testTime}
		}
	}
	if node == nil {
		return nil, schemes.Errorf(schemes.ErrRefused, "550 %s: no such file", path)
	}
	if node.dir {
		m.lists[path]++
		l := m.listing(segs, path, node)
		if m.listHash != nil && req.ListHashes {
			gl := l.(*genListing)
			for i, e := range gl.ents {
				if n := m.nodes[join(path, e.Name)]; e.Type == schemes.TypeFile && n != nil {
					gl.ents[i].Hash = m.listHash(n.data)
				}
			}
		}
		if n, ok := m.breakList[path]; ok {
			delete(m.breakList, path)
			l = &breakingListing{Listing: l, n: n}
		}
		return &schemes.Response{URL: u, Kind: schemes.KindListing, Size: -1, Listing: l}, nil
	}
	m.bodies[path]++
	m.offs[path] = req.Offset
	if !req.SkipMetadata {
		m.metaAsked++
	}
	off := req.Offset
	if off > int64(len(node.data)) {
		off = 0
	}
	var body io.Reader = bytes.NewReader(node.data[off:])
	if n, ok := m.breakAt[path]; ok {
		delete(m.breakAt, path)
		body = &breaking{r: body, n: n}
	}
	if m.gate != nil {
		m.gate(path)
	}
	if m.reads != nil {
		body = &hooked{r: body, hook: m.reads}
	}
	mod := node.mod
	if m.noMDTM {
		mod = time.Time{}
	}
	var sh schemes.ServerHash
	if req.Hash {
		m.hashAsked++
		if m.hash != nil {
			sh = m.hash(path, node.data, m.bodies[path])
		}
	}
	return &schemes.Response{URL: u, Kind: schemes.KindFile, Body: io.NopCloser(body), Offset: off,
		Size: int64(len(node.data)), Name: segs[len(segs)-1], Type: schemes.TypeFile, Modified: mod, Hash: sh}, nil
}

// listing snapshots the directory's entries (sorted) and generates count more.
func (m *memFTP) listing(segs []string, path string, dir *memNode) schemes.Listing {
	var ents []schemes.Entry
	prefix := path + "/"
	if path == "" {
		prefix = ""
	}
	for k, n := range m.nodes {
		if k == "" || n.hidden || !strings.HasPrefix(k, prefix) || strings.Contains(k[len(prefix):], "/") {
			continue
		}
		name := k[len(prefix):]
		cs := append(append([]string(nil), segs...), name)
		e := schemes.Entry{Name: name, URL: m.url(cs, n.dir), Size: int64(len(n.data)), Modified: n.mod}
		if m.listDay {
			e.Modified, e.Precision = n.mod.Truncate(24*time.Hour), schemes.PrecisionDay
		}
		switch {
		case n.dir:
			e.Type, e.Size = schemes.TypeDir, -1
		case n.target != "":
			e.Type, e.Target = schemes.TypeLink, n.target
		default:
			e.Type = schemes.TypeFile
		}
		ents = append(ents, e)
	}
	sort.Slice(ents, func(a, b int) bool { return ents[a].Name < ents[b].Name })
	ents = append(ents, dir.extra...)
	var end func()
	if dir.count > 0 {
		end = m.listed
	}
	return &genListing{ents: ents, count: dir.count, end: end, gen: func(i int) schemes.Entry {
		name := fmt.Sprintf("f%06d", i)
		cs := append(append([]string(nil), segs...), name)
		return schemes.Entry{Name: name, Type: schemes.TypeFile, URL: m.url(cs, false), Size: int64(len(name)), Modified: testTime}
	}}
}

type genListing struct {
	ents  []schemes.Entry
	i     int
	count int
	gen   func(int) schemes.Entry
	end   func()
}

func (l *genListing) Next() (schemes.Entry, error) {
	if l.i < len(l.ents) {
		l.i++
		return l.ents[l.i-1], nil
	}
	if k := l.i - len(l.ents); k < l.count {
		l.i++
		return l.gen(k), nil
	}
	if l.end != nil {
		l.end()
		l.end = nil
	}
	return schemes.Entry{}, io.EOF
}

func (l *genListing) Close() error { return nil }

// breaking is a body that breaks off after n bytes, as a dropped data
// connection does.
type breaking struct {
	r io.Reader
	n int64
}

func (b *breaking) Read(p []byte) (int, error) {
	if b.n <= 0 {
		return 0, schemes.Errorf(schemes.ErrInterrupted, "connection reset mid-body")
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	return n, err
}

// breakingListing is a listing that breaks off after n entries, as one
// whose data connection stalls or is reset does.
type breakingListing struct {
	schemes.Listing
	n int
}

func (b *breakingListing) Next() (schemes.Entry, error) {
	if b.n <= 0 {
		return schemes.Entry{}, schemes.Errorf(schemes.ErrTimeout, "listing stalled")
	}
	b.n--
	return b.Listing.Next()
}

// memGopher serves menus and items by selector.
type memGopher struct {
	scheme string
	mu     sync.Mutex
	menus  map[string][]schemes.Entry // selector -> items
	items  map[string][]byte
	// requests counts every request per selector (menus and raw reads).
	requests map[string]int
	raw      map[string][]byte // a menu's raw bytes, served for a type-9 request
	// modDate holds +ADMIN Mod-Dates, answered to a menu's "$" request.
	modDate map[string]time.Time
	attrs   int // "$" requests
}

func newMemGopher() *memGopher {
	return &memGopher{scheme: "x-gopher", menus: map[string][]schemes.Entry{}, items: map[string][]byte{},
		requests: map[string]int{}, raw: map[string][]byte{}, modDate: map[string]time.Time{}}
}

// item is a menu line pointing at this server (or host:port when given).
func (g *memGopher) item(typ byte, name, sel string) schemes.Entry {
	return g.itemAt(typ, name, sel, testHost, testGopherPort)
}

func (g *memGopher) itemAt(typ byte, name, sel, host string, port int) schemes.Entry {
	types := map[byte]string{'0': "text", '1': "dir", '7': "search", '8': "telnet", '9': "binary", 'i': "info", 'h': "html", 'I': "image"}
	return schemes.Entry{Name: name, Type: types[typ], Gopher: &schemes.GopherItem{Type: string(typ), Selector: sel, Host: host, Port: port},
		Size: -1, URL: gopherURL(g.scheme, host, port, typ, sel, "")}
}

func (g *memGopher) menu(sel string, items ...schemes.Entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.menus[sel] = items
	var b strings.Builder
	for _, it := range items {
		gi := gopherOf(it)
		fmt.Fprintf(&b, "%s%s\t%s\t%s\t%d\r\n", gi.Type, it.Name, gi.Selector, gi.Host, gi.Port)
	}
	b.WriteString(".\r\n")
	g.raw[sel] = []byte(b.String())
}

func (g *memGopher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	u, err := schemes.Parse("gopher:" + req.URL.Opaque)
	if err != nil {
		return nil, err
	}
	u.Scheme = g.scheme
	sel := u.Gopher.Selector
	g.mu.Lock()
	defer g.mu.Unlock()
	if u.Gopher.PlusString == "$" {
		g.attrs++
		var attrs gopher.Attributes
		for _, it := range g.menus[sel] {
			if d, ok := g.modDate[gopherOf(it).Selector]; ok {
				info := it
				attrs.Items = append(attrs.Items, &gopher.Item{Info: &info, Admin: &gopher.Admin{ModDate: &d}})
			}
		}
		if len(attrs.Items) == 0 {
			return nil, schemes.Errorf(schemes.ErrRefused, "the server did not answer \"$\" with Gopher+ attributes")
		}
		return &schemes.Response{URL: u, Kind: schemes.KindInfo, Info: &attrs, Size: -1}, nil
	}
	g.requests[sel]++
	if u.Gopher.Type == '1' {
		items, ok := g.menus[sel]
		if !ok {
			return nil, schemes.Errorf(schemes.ErrRefused, "no menu %q", sel)
		}
		return &schemes.Response{URL: u, Kind: schemes.KindListing, Size: -1,
			Listing: &genListing{ents: append([]schemes.Entry(nil), items...)}}, nil
	}
	data, ok := g.items[sel]
	if !ok {
		data, ok = g.raw[sel]
	}
	if !ok {
		return nil, schemes.Errorf(schemes.ErrRefused, "no item %q", sel)
	}
	return &schemes.Response{URL: u, Kind: schemes.KindFile, Body: io.NopCloser(bytes.NewReader(data)), Size: -1, Type: schemes.TypeBinary}, nil
}

func (g *memGopher) count(sel string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.requests[sel]
}

// memHTTP serves pages and files by path; a path ending in '/' is a
// generated directory page (no Last-Modified).
type memHTTP struct {
	mu     sync.Mutex
	pages  map[string]string // path -> HTML
	files  map[string][]byte
	mod    map[string]time.Time
	bodies map[string]int
	ims    map[string]int // conditional requests answered "not modified"
}

func newMemHTTP() *memHTTP {
	return &memHTTP{pages: map[string]string{}, files: map[string][]byte{}, mod: map[string]time.Time{},
		bodies: map[string]int{}, ims: map[string]int{}}
}

func (h *memHTTP) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	u, err := schemes.Parse("http:" + req.URL.Opaque)
	if err != nil {
		return nil, err
	}
	u.Scheme = "x-http"
	p, err := url.PathUnescape(u.HTTP.Path)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	resp := &schemes.Response{URL: u, Kind: schemes.KindFile, Size: -1, Modified: h.mod[p]}
	var data []byte
	if page, ok := h.pages[p]; ok {
		data, resp.MediaType, resp.Type = []byte(page), "text/html", schemes.TypeHTML
	} else if f, ok := h.files[p]; ok {
		data, resp.MediaType = f, "application/octet-stream"
	} else {
		return nil, schemes.Errorf(schemes.ErrRefused, "404 %s", p)
	}
	if !req.IfModifiedSince.IsZero() && !resp.Modified.IsZero() && !resp.Modified.After(req.IfModifiedSince) {
		h.ims[p]++
		resp.NotModified, resp.Body = true, io.NopCloser(strings.NewReader(""))
		return resp, nil
	}
	h.bodies[p]++
	resp.Size, resp.Body = int64(len(data)), io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// newClient returns a fetch.Client with the test fetchers registered.
func newClient(fs ...schemes.Fetcher) *fetch.Client {
	c := fetch.NewClient(fetch.Options{Warn: func(string) {}})
	for _, f := range fs {
		switch f := f.(type) {
		case *memFTP:
			c.Register(f.scheme, f)
		case *memGopher:
			c.Register(f.scheme, f)
		case *memHTTP:
			c.Register("x-http", f)
		}
	}
	return c
}

type hooked struct {
	r    io.Reader
	hook func()
}

func (h *hooked) Read(p []byte) (int, error) {
	h.hook()
	if len(p) > 16<<10 {
		p = p[:16<<10]
	}
	return h.r.Read(p)
}
