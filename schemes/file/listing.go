package file

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/goferurl/gofer/schemes"
)

// batchSize is how many directory entries are read from the system at a
// time: a directory of a million names is never held in memory whole.
const batchSize = 256

// listing streams a directory's entries in the order the system gives them.
// Symbolic links are reported as links (type "link", with their target) and
// never followed.
type listing struct {
	dir   *os.File
	path  string
	limit int
	batch []os.DirEntry
	seen  int
	done  bool
}

func (l *listing) Next() (schemes.Entry, error) {
	for len(l.batch) == 0 {
		if l.done {
			return schemes.Entry{}, io.EOF
		}
		batch, err := l.dir.ReadDir(batchSize)
		if err == io.EOF || (err == nil && len(batch) == 0) {
			l.done = true
			continue
		}
		if err != nil && len(batch) == 0 {
			return schemes.Entry{}, schemes.Errorf(schemes.ErrInterrupted, "%s: reading directory: %w", l.path, err)
		}
		l.batch = batch
	}
	de := l.batch[0]
	l.batch = l.batch[1:]
	l.seen++
	if l.seen > l.limit {
		return schemes.Entry{}, schemes.Errorf(schemes.ErrTooLarge, "%s: more than %d entries", l.path, l.limit)
	}
	return l.entry(de), nil
}

func (l *listing) entry(de os.DirEntry) schemes.Entry {
	full := filepath.Join(l.path, de.Name())
	e := schemes.Entry{Name: de.Name(), Size: -1}
	mode := de.Type()
	switch {
	case mode&fs.ModeSymlink != 0:
		e.Type = schemes.TypeLink
		if target, err := os.Readlink(full); err == nil {
			e.Target = target
		}
	case mode.IsDir():
		e.Type = schemes.TypeDir
	case mode.IsRegular():
		e.Type = schemes.TypeFile
	default:
		e.Type = schemes.TypeOther
	}
	// Info is an lstat: a link's own size and time, never its target's.
	if info, err := de.Info(); err == nil {
		if info.Mode().IsRegular() {
			e.Size = info.Size()
		}
		e.Modified = info.ModTime()
	}
	u := fileURL(full)
	if e.Type == schemes.TypeDir {
		u += "/"
	}
	e.URL = u
	return e
}

func (l *listing) Close() error { return l.dir.Close() }
