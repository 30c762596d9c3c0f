package replay

import (
	"fmt"
	"io"
	"path"
	"strings"
	"time"
)

// fact is what a listing says of one entry.
type fact struct {
	name  string
	dir   bool
	size  int64
	mtime time.Time // zero: not known
}

// stat returns what the capture knows of p, false when nothing.
func (t *ftpTree) stat(p string) (fact, bool) {
	e := fact{name: path.Base(p)}
	if t.dirs[p] != nil {
		e.dir = true
		return e, true
	}
	uri, ok := t.files[p]
	if !ok {
		return e, false
	}
	pl, err := t.a.Lookup(uri, "resource")
	if err != nil {
		return e, false
	}
	e.size = pl.Size
	pl.Close()
	e.mtime, _ = t.modTime(p)
	return e, true
}

// unixLine is a generated "ls -l" line (the form of most Unix servers).
func (e fact) unixLine(now time.Time) string {
	mode, links, size := "-rw-r--r--", 1, e.size
	if e.dir {
		mode, links, size = "drwxr-xr-x", 2, 4096
	}
	m := e.mtime
	if m.IsZero() {
		m = time.Unix(0, 0)
	}
	m = m.UTC()
	when := m.Format("Jan _2  2006")
	if now.Sub(m) < 180*24*time.Hour && m.Sub(now) < 24*time.Hour {
		when = m.Format("Jan _2 15:04")
	}
	return fmt.Sprintf("%s %4d ftp      ftp      %12d %s %s\r\n", mode, links, size, when, e.name)
}

// mlsxFacts is the facts part of an MLSD or MLST line (RFC 3659 §7).
func (e fact) mlsxFacts() string {
	var b strings.Builder
	if e.dir {
		b.WriteString("type=dir;")
	} else {
		fmt.Fprintf(&b, "type=file;size=%d;", e.size)
	}
	if !e.mtime.IsZero() {
		b.WriteString("modify=" + e.mtime.UTC().Format("20060102150405") + ";")
	}
	return b.String()
}

// listArg takes the options ("-la") off a LIST or NLST argument.
func listArg(arg string) string {
	for {
		arg = strings.TrimLeft(arg, " ")
		if !strings.HasPrefix(arg, "-") {
			return arg
		}
		_, rest, _ := strings.Cut(arg, " ")
		arg = rest
	}
}

// list answers LIST, NLST and MLSD: a LIST of a directory whose LIST was
// captured gets the captured bytes; every other listing is generated
// from what the capture holds.
func (f *ftpSession) list(verb, arg string) {
	if verb != "MLSD" {
		arg = listArg(arg)
	}
	p, ok := resolve(f.cwd, arg)
	t := f.s.tree
	if !ok || t.dirs[p] == nil && t.files[p] == "" {
		f.closePassive()
		f.reply(550, "No such file or directory was captured.")
		return
	}
	if verb == "MLSD" && t.dirs[p] == nil {
		f.closePassive()
		f.reply(501, "MLSD of a file: use MLST.")
		return
	}
	if uri := t.lists[p]["list"]; verb == "LIST" && uri != "" {
		pl, err := t.a.Lookup(uri, "resource")
		if err == nil {
			defer pl.Close()
			f.transfer("the captured listing of "+p, func(w io.Writer) error {
				_, err := io.Copy(w, pl)
				return err
			})
			return
		}
		f.s.warn(err.Error())
	}
	var entries []fact
	if t.dirs[p] == nil {
		e, _ := t.stat(p)
		entries = append(entries, e)
	} else {
		for _, name := range t.children(p) {
			if e, ok := t.stat(path.Join(p, name)); ok {
				entries = append(entries, e)
			}
		}
	}
	now := time.Now()
	f.transfer("the listing of "+p, func(w io.Writer) error {
		for _, e := range entries {
			var line string
			switch verb {
			case "NLST":
				line = e.name + "\r\n"
			case "MLSD":
				line = e.mlsxFacts() + " " + e.name + "\r\n"
			default:
				line = e.unixLine(now)
			}
			if _, err := io.WriteString(w, line); err != nil {
				return err
			}
		}
		return nil
	})
}

// mlst answers MLST with the facts of one file or directory on the
// control connection (RFC 3659 §7.2).
func (f *ftpSession) mlst(arg string) {
	p, ok := resolve(f.cwd, strings.TrimSpace(arg))
	e, found := f.s.tree.stat(p)
	if !ok || !found {
		f.reply(550, "No such file or directory was captured.")
		return
	}
	f.c.Write([]byte("250-Listing " + p + "\r\n " + e.mlsxFacts() + " " + p + "\r\n250 End\r\n"))
}
