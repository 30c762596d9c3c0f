package replay

import (
	"bufio"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// FTPHosts returns the FTP servers the archive holds captures of,
// "host:port", in the order first captured.
func (a *Archive) FTPHosts() []string {
	var hosts []string
	for _, uri := range a.uris {
		if f := parseFTP(uri); f != nil && !slices.Contains(hosts, f.host) {
			hosts = append(hosts, f.host)
		}
	}
	return hosts
}

// ftpURI is a captured ftp URI taken apart: the server and the absolute
// path ("/" for the login directory), dir when the URI ends in "/".
type ftpURI struct {
	uri  string
	host string
	path string
	dir  bool
}

func parseFTP(uri string) *ftpURI {
	if !strings.HasPrefix(strings.ToLower(uri), "ftp:") {
		return nil
	}
	u, err := schemes.Parse(uri)
	if err != nil || u.FTP == nil {
		return nil
	}
	segs := u.FTP.Segments
	for i, s := range segs {
		// A name with a slash, or one that climbs, names nothing a
		// replayed tree can hold.
		if strings.ContainsAny(s, "/\x00\r\n") || s == "." || s == ".." || s == "" && i < len(segs)-1 {
			return nil
		}
	}
	f := &ftpURI{uri: uri, host: hostKey(u.Host, u.EffectivePort())}
	f.dir = len(segs) == 0 || segs[len(segs)-1] == "" || u.FTP.TypeCode == 'd'
	f.path = "/" + strings.Join(segs, "/")
	if f.dir {
		f.path = strings.TrimSuffix(f.path, "/")
		if f.path == "" {
			f.path = "/"
		}
	}
	return f
}

// ftpTree is the tree of one FTP server's captures: its files and the
// directories that hold them or whose listings were captured.
type ftpTree struct {
	a     *Archive
	files map[string]string            // path: URI of the file's records
	dirs  map[string]map[string]bool   // path: child name: is a directory
	lists map[string]map[string]string // path: listing content type: URI

	mu    sync.Mutex
	mtime map[string]time.Time // path: MDTM from the capture's conversation
}

func newFTPTree(a *Archive, host string) *ftpTree {
	t := &ftpTree{a: a, files: map[string]string{}, dirs: map[string]map[string]bool{"/": {}},
		lists: map[string]map[string]string{}, mtime: map[string]time.Time{}}
	for _, uri := range a.uris {
		f := parseFTP(uri)
		if f == nil || f.host != host {
			continue
		}
		var typ, mime string
		if c := a.pick(uri, func(c *capture) bool { return c.entry.Type == "resource" }); c != nil {
			typ, mime = c.entry.Type, c.entry.Mime
		}
		if typ != "resource" {
			// A conversation, or revisits alone: a revisit stands for
			// the resource the URI was captured as, found with it.
			if c := a.pick(uri, func(c *capture) bool { return c.entry.Type == "revisit" }); c == nil {
				continue
			} else if orig, err := a.revisited(c); err == nil {
				mime = orig.entry.Mime
			} else {
				continue
			}
		}
		if kind, ok := strings.CutPrefix(mime, "text/x-ftp-"); ok && slices.Contains([]string{"list", "mlsd", "nlst"}, kind) {
			t.addDir(f.path)
			if t.lists[f.path] == nil {
				t.lists[f.path] = map[string]string{}
			}
			t.lists[f.path][kind] = uri
			continue
		}
		if f.dir || f.path == "/" {
			continue
		}
		t.files[f.path] = uri
		dir, name := path.Split(f.path)
		t.addDir(path.Clean(dir))
		t.dirs[path.Clean(dir)][name] = false
	}
	return t
}

func (t *ftpTree) addDir(p string) {
	for p != "/" {
		if t.dirs[p] == nil {
			t.dirs[p] = map[string]bool{}
		}
		parent, name := path.Split(p)
		parent = path.Clean(parent)
		if t.dirs[parent] == nil {
			t.dirs[parent] = map[string]bool{}
		}
		t.dirs[parent][name] = true
		p = parent
	}
}

// mdtmReply matches the reply to MDTM in a captured conversation.
var mdtmReply = regexp.MustCompile(`^< 213 (\d{14})(\.\d+)?\r?$`)

// modTime returns the file's modification time as its captured control
// conversation recorded the MDTM reply, else as the captured listing of
// its directory gives it (an MLSD fact to the second, a LIST line to the
// minute or the day: a mirror that had the time from the listing asked
// no MDTM), false when neither has it.
func (t *ftpTree) modTime(p string) (time.Time, bool) {
	t.mu.Lock()
	m, ok := t.mtime[p]
	t.mu.Unlock()
	if ok {
		return m, !m.IsZero()
	}
	uri := t.files[p]
	pl, err := t.a.Lookup(uri, "metadata")
	if err == nil {
		if pl.ContentType == warc.TypeFTPConversation {
			sc := bufio.NewScanner(io.LimitReader(pl, 1<<20))
			asked := false
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "> MDTM ") {
					asked = true
				}
				if mm := mdtmReply.FindStringSubmatch(line); asked && mm != nil {
					m, _ = time.Parse("20060102150405", mm[1])
					break
				}
			}
		}
		pl.Close()
	}
	if m.IsZero() {
		m = t.listTime(p)
	}
	t.mu.Lock()
	t.mtime[p] = m
	t.mu.Unlock()
	return m, !m.IsZero()
}

// listTime is the time the captured listing of p's directory gives p:
// MLSD's, else LIST's; the zero time when neither names it with one.
func (t *ftpTree) listTime(p string) time.Time {
	dir, name := path.Split(p)
	for _, kind := range []string{"mlsd", "list"} {
		uri := t.lists[path.Clean(dir)][kind]
		if uri == "" {
			continue
		}
		base, err := schemes.Parse(uri)
		if err != nil {
			continue
		}
		pl, err := t.a.Lookup(uri, "resource")
		if err != nil {
			continue
		}
		entries, _ := parseFTPListing(pl, pl.ContentType, base, pl.Date)
		pl.Close()
		for _, e := range entries {
			if e.Name == name && e.Type != schemes.TypeDir && !e.Modified.IsZero() {
				return e.Modified
			}
		}
	}
	return time.Time{}
}

// resolve turns a path argument, relative to cwd, into an absolute clean
// path; ok is false for one with a ".." segment.
func resolve(cwd, arg string) (string, bool) {
	if arg == "" {
		return cwd, true
	}
	if strings.ContainsAny(arg, "\x00\r\n") {
		return "", false
	}
	for _, s := range strings.Split(arg, "/") {
		if s == ".." {
			return "", false
		}
	}
	if !strings.HasPrefix(arg, "/") {
		arg = cwd + "/" + arg
	}
	return path.Clean(arg), true
}

// children returns a directory's entries, sorted.
func (t *ftpTree) children(dir string) []string {
	var names []string
	for n := range t.dirs[dir] {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
