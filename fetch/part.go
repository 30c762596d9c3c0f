package fetch

import (
	"fmt"
	"io"
	"os"

	"github.com/goferurl/gofer/schemes"
)

// PartSuffix is added to a file's name while a download writes it. The
// file gets its own name only when the transfer is whole, so that a name
// never holds part of a file, and an interrupted download leaves
// NAME+PartSuffix for a later one to continue.
const PartSuffix = ".part"

// Part is one download into the local file Name by way of Name+PartSuffix:
//
//	p, err := fetch.OpenPart(name, true)
//	resp, err := client.Do(ctx, &fetch.Request{URL: u, Offset: p.Offset})
//	err = p.Start(resp.Offset)
//	_, err = io.Copy(p, resp.Body)
//	err = p.Commit() // or, after a failure, p.Abort(true)
//
// A Part is used by one goroutine.
type Part struct {
	// Name is the file's own name, which it gets when whole.
	Name string
	// Offset is the length of the partial file an earlier download left:
	// the position a resumed request asks for (Request.Offset). 0 when
	// there is none, or resuming was not asked for.
	Offset int64

	f       *os.File
	resumed bool
}

// OpenPart prepares a download into name. With resume, what an earlier
// download left is continued: NAME+PartSuffix, or else a regular file
// already at NAME, taken as the file's first bytes as curl -C takes it (it
// is moved to NAME+PartSuffix first, so that NAME never holds a partial
// file). Nothing is opened for writing until Start.
func OpenPart(name string, resume bool) (*Part, error) {
	p := &Part{Name: name}
	if !resume {
		return p, nil
	}
	if fi, err := os.Stat(p.Path()); err == nil {
		p.Offset = fi.Size()
		return p, nil
	}
	if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
		if err := os.Rename(name, p.Path()); err != nil {
			return nil, err
		}
		p.Offset = fi.Size()
	}
	return p, nil
}

// Path is where the file is written until it is whole: Name+PartSuffix.
func (p *Part) Path() string { return p.Name + PartSuffix }

// Resumed reports whether Start continued the partial file: the bytes
// before Offset were already there.
func (p *Part) Resumed() bool { return p.resumed }

// Start opens the partial file for a body whose first byte is at offset in
// the file (Response.Offset): at Offset, when the server honoured the
// resumed request, the partial file is continued; at 0 it is started over.
// Another offset is refused with an error of kind schemes.ErrUsage.
func (p *Part) Start(offset int64) error {
	if p.f != nil {
		return schemes.Errorf(schemes.ErrUsage, "%s: already started", p.Path())
	}
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case offset == 0:
		flags |= os.O_TRUNC
	case offset == p.Offset:
		p.resumed = true
	default:
		return schemes.Errorf(schemes.ErrUsage, "%s: the body starts at byte %d, not at 0 or %d", p.Path(), offset, p.Offset)
	}
	f, err := os.OpenFile(p.Path(), flags, 0o644)
	if err != nil {
		return err
	}
	if p.resumed {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			f.Close()
			return err
		}
	}
	p.f = f
	return nil
}

// Write appends b to the partial file.
func (p *Part) Write(b []byte) (int, error) {
	if p.f == nil {
		return 0, fmt.Errorf("%s: write before Start", p.Path())
	}
	return p.f.Write(b)
}

// ReadFrom appends what r reads to the partial file, as the file itself
// reads it: a body that can move its bytes into a file without passing
// through memory (an FTP body's splice) sees the file, not a Writer.
func (p *Part) ReadFrom(r io.Reader) (int64, error) {
	if p.f == nil {
		return 0, fmt.Errorf("%s: write before Start", p.Path())
	}
	return p.f.ReadFrom(r)
}

// Commit ends a whole transfer: the partial file is closed and renamed to
// Name, replacing what was there.
func (p *Part) Commit() error {
	if p.f == nil {
		return fmt.Errorf("%s: commit before Start", p.Path())
	}
	err := p.f.Close()
	p.f = nil
	if err != nil {
		return err
	}
	return os.Rename(p.Path(), p.Name)
}

// Abort ends a failed transfer: the partial file is closed, and kept for a
// later download to continue when keep is true, else removed. Name is
// never touched.
func (p *Part) Abort(keep bool) error {
	var err error
	if p.f != nil {
		err = p.f.Close()
		p.f = nil
	}
	if !keep {
		if rerr := os.Remove(p.Path()); rerr != nil && !os.IsNotExist(rerr) && err == nil {
			err = rerr
		}
	}
	return err
}
