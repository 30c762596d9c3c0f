package ftp

import (
	"bytes"
	"io"
	"net"
	"strings"

	goftp "github.com/jlaffaye/ftp"

	"github.com/goferurl/gofer/schemes"
)

// listLimit bounds what the data connection of a listing may carry: lines
// (entries, plus "." and "..") and the length of one line. The engine
// collects a listing before it returns it, so the bound is applied to the
// bytes as they arrive, before they can pile up.
type listLimit struct {
	maxLines, maxLine int
	lines, cur        int
	err               error
}

// limitConn is a listing's data connection under a listLimit.
type limitConn struct {
	net.Conn
	lim *listLimit
}

func (c *limitConn) Read(p []byte) (int, error) {
	if c.lim.err != nil {
		return 0, c.lim.err
	}
	n, err := c.Conn.Read(p)
	l := c.lim
	for b := p[:n]; len(b) > 0; {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			l.cur += len(b)
			break
		}
		l.cur += i
		b = b[i+1:]
		if l.cur > l.maxLine {
			break
		}
		l.cur = 0
		l.lines++
	}
	switch {
	case l.cur > l.maxLine:
		l.err = schemes.Errorf(schemes.ErrTooLarge, "ftp: listing line longer than %d bytes", l.maxLine)
	case l.lines > l.maxLines:
		l.err = schemes.Errorf(schemes.ErrTooLarge, "ftp: listing has more than %d entries", l.maxLines-2)
	}
	if l.err != nil {
		return 0, l.err
	}
	return n, err
}

// listing yields a directory's entries. base is the URL listed and dir the
// segments of the directory the entries live in.
type listing struct {
	base    *schemes.URL
	dir     []string
	entries []*goftp.Entry
	names   []string // NLST: names only
	nlstArg string
	i       int
	max     int
	n       int
}

func (l *listing) Next() (schemes.Entry, error) {
	for {
		if l.entries != nil && l.i < len(l.entries) {
			e := l.entries[l.i]
			l.entries[l.i] = nil // let the garbage collector have it
			l.i++
			if e.Name == "." || e.Name == ".." || e.Name == "" {
				continue
			}
			return l.count(l.fromEntry(e))
		}
		if l.names != nil && l.i < len(l.names) {
			name := l.names[l.i]
			l.names[l.i] = ""
			l.i++
			if name == "." || name == ".." || name == "" {
				continue
			}
			return l.count(l.fromName(name))
		}
		return schemes.Entry{}, io.EOF
	}
}

func (l *listing) count(e schemes.Entry) (schemes.Entry, error) {
	l.n++
	if l.n > l.max {
		return schemes.Entry{}, schemes.Errorf(schemes.ErrTooLarge, "ftp: listing has more than %d entries", l.max)
	}
	return e, nil
}

func (l *listing) Close() error {
	l.entries, l.names = nil, nil
	return nil
}

func (l *listing) fromEntry(e *goftp.Entry) schemes.Entry {
	out := schemes.Entry{Name: e.Name, Size: int64(e.Size), Modified: e.Time}
	switch e.Type {
	case goftp.EntryTypeFolder:
		out.Type = schemes.TypeDir
		out.Size = -1 // a directory's size in a listing says nothing useful
		out.URL = entryURL(l.base, l.dir, e.Name, true)
	case goftp.EntryTypeLink:
		out.Type = schemes.TypeLink
		out.Target = e.Target
		out.URL = entryURL(l.base, l.dir, e.Name, false)
	default:
		out.Type = schemes.TypeFile
		out.URL = entryURL(l.base, l.dir, e.Name, false)
	}
	return out
}

// fromName makes an entry of one NLST line. NLST gives names only, so the
// type is unknown. Servers answer "NLST dir" with "dir/name" or with "name".
func (l *listing) fromName(line string) schemes.Entry {
	dir := l.dir
	name := line
	if l.nlstArg != "" {
		if rest, ok := strings.CutPrefix(line, l.nlstArg+"/"); ok && rest != "" {
			name = rest
			dir = append(dir[:len(dir):len(dir)], l.nlstArg)
		} else if line != l.nlstArg {
			dir = append(dir[:len(dir):len(dir)], l.nlstArg)
		}
	}
	return schemes.Entry{Name: name, Type: schemes.TypeOther, Size: -1, URL: entryURL(l.base, dir, name, false)}
}

// entryURL is the URL that fetches name inside the directory dir of base: a
// copy of base with its segments replaced, no type code, no fragment, and no
// password (DESIGN.md: passwords never appear in listings). A directory's
// URL ends in '/' so that it is fetched as a directory (RFC 1738 §3.2.2).
func entryURL(base *schemes.URL, dir []string, name string, isDir bool) string {
	u := *base
	u.Password, u.HasPassword = "", false
	u.Fragment, u.HasFragment = "", false
	segs := make([]string, 0, len(dir)+2)
	segs = append(segs, dir...)
	segs = append(segs, name)
	if isDir {
		segs = append(segs, "")
	}
	u.FTP = &schemes.FTP{Segments: segs}
	return u.String()
}
