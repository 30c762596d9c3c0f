package lineproto

import (
	"bufio"
	"bytes"

	"github.com/goferurl/gofer/schemes"
)

// Reader reads the lines of a line protocol, each at most Limit bytes long
// without its line end, so that a server cannot make gofer's memory grow
// with one endless line. Once a read fails (a line over the limit, the end
// of the connection, a broken connection) every later read fails the same.
type Reader struct {
	// R is the buffered connection; bytes a caller reads from it directly
	// (a body after a header) are simply not lines.
	R     *bufio.Reader
	limit int
	err   error
}

// NewReader reads lines of at most limit bytes from br.
func NewReader(br *bufio.Reader, limit int) *Reader {
	return &Reader{R: br, limit: limit}
}

// errLineTooLong is the error of a line longer than limit bytes.
func errLineTooLong(limit int) error {
	return schemes.Errorf(schemes.ErrTooLarge, "line longer than %d bytes", limit)
}

// ReadLine returns the next line without its CR LF or LF. A last line that
// the connection ends before its line end comes with io.EOF; after it, and
// at a clean end, ReadLine returns "" and io.EOF. A line longer than the
// limit is an error of kind schemes.ErrTooLarge.
func (r *Reader) ReadLine() (string, error) {
	if r.err != nil {
		return "", r.err
	}
	var line []byte
	for {
		chunk, err := r.R.ReadSlice('\n')
		// The line end does not count against the limit; stop early only
		// when even without it the line is too long.
		if len(line)+len(chunk) > r.limit+2 {
			r.err = errLineTooLong(r.limit)
			return "", r.err
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		text := trimEOL(line)
		if len(text) > r.limit {
			r.err = errLineTooLong(r.limit)
			return "", r.err
		}
		if err != nil {
			r.err = err
		}
		return text, err
	}
}

// trimEOL removes one LF and then one CR from the end of b.
func trimEOL(b []byte) string {
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	return string(b)
}
