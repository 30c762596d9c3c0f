package warc

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"strings"
)

// A WACZ file (a ZIP archive, as gofer warc pack and js-wacz write them)
// holds WARC files in its archive/ directory, each stored uncompressed as
// the WACZ convention has it. The reading commands read each where the
// ZIP stores it, so that a record's offset is its offset in the WACZ file
// and the record is read again there.

// part is a WARC file a command reads: a file given as it is, or one of
// the WARC files a WACZ stores.
type part struct {
	name string    // the path, or PATH#archive/NAME in a WACZ
	r    io.Reader // its bytes (an io.Seeker too)
	base int64     // where they start in the file
	size int64     // how many there are in a WACZ; -1 for a whole file
}

// isWACZ reports whether path names a WACZ file.
func isWACZ(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".wacz") }

// WACZArchived reports whether name, a path in a WACZ's ZIP archive,
// names one of its WARC files: a file of its archive/ directory whose
// name says WARC (.warc, .warc.gz, .warc.zst, and a Common Crawl's
// .warc.wat and .warc.wet, which are WARC files too) or ARC (.arc,
// .arc.gz). Other files there (notes, a README) are not read.
func WACZArchived(name string) bool {
	low := strings.ToLower(name)
	base, ok := strings.CutPrefix(low, "archive/")
	if !ok || base == "" || strings.HasSuffix(base, "/") {
		return false
	}
	return strings.Contains(base, ".warc") || strings.HasSuffix(base, ".arc") || strings.HasSuffix(base, ".arc.gz")
}

// readParts opens path and calls fn with each WARC file it holds: the
// file itself, or, for a WACZ, each WARC file its archive/ directory
// stores (WACZArchived), in the ZIP's order, as replay
// reads them. A WACZ that is no ZIP archive, holds no
// WARC file, or compressed one (which cannot be read where it lies) is an
// error naming it.
func readParts(path string, fn func(part) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	defer f.Close()
	if !isWACZ(path) {
		return fn(part{name: path, r: f, size: -1})
	}
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return fmt.Errorf("warc: %s: not a WACZ (ZIP) file: %w", path, err)
	}
	var parts []part
	for _, zf := range zr.File {
		if !WACZArchived(zf.Name) {
			continue
		}
		if zf.Method != zip.Store {
			return fmt.Errorf("warc: %s: %s is compressed in the ZIP, not stored, and cannot be read where it lies", path, zf.Name)
		}
		base, err := zf.DataOffset()
		if err != nil {
			return fmt.Errorf("warc: %s: %s: %w", path, zf.Name, err)
		}
		size := int64(zf.CompressedSize64)
		if base < 0 || size < 0 || base > fi.Size() || size > fi.Size()-base {
			return fmt.Errorf("warc: %s: %s lies past the end of the file", path, zf.Name)
		}
		parts = append(parts, part{name: path + "#" + zf.Name, r: io.NewSectionReader(f, base, size), base: base, size: size})
	}
	if len(parts) == 0 {
		return fmt.Errorf("warc: %s: no WARC file in its archive/ directory", path)
	}
	for _, p := range parts {
		if err := fn(p); err != nil {
			return err
		}
	}
	return nil
}

// newPartReader is NewReader of p, its offsets those in the file p is in.
func newPartReader(p part, opt ReadOptions) *Reader {
	r := NewReader(p.r, opt)
	r.cr.n, r.base = p.base, p.base
	return r
}

// partAt is where the WARC file that holds offset lies in the WACZ file
// path.
func partAt(path string, offset int64) (base, size int64, err error) {
	found := false
	err = readParts(path, func(p part) error {
		if !found && offset >= p.base && offset < p.base+p.size {
			base, size, found = p.base, p.size, true
		}
		return nil
	})
	if err == nil && !found {
		err = fmt.Errorf("warc: %s: offset %d is in none of its WARC files", path, offset)
	}
	return base, size, err
}
