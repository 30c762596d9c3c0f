package gopher

import (
	"bufio"
	"errors"
	"io"
)

// errNoTerminator reports a dot-terminated stream that ended without its
// lone "." line.
var errNoTerminator = errors.New("connection closed before the final \".\" line")

// dotReader streams a dot-terminated body (RFC 1436 text, Gopher+ "+-1"
// blocks): it ends at a line holding only "." (CR LF or LF), drops the first
// dot of a line that starts with "..", and passes everything else through
// byte for byte. It never holds more than the bufio.Reader's buffer.
type dotReader struct {
	r *bufio.Reader
	// lenient accepts a close of the connection as the end, which plain
	// Gopher servers do; a Gopher+ "+-1" block must end with its ".".
	lenient   bool
	lineStart bool
	pending   []byte
	err       error
}

func newDotReader(r *bufio.Reader, lenient bool) *dotReader {
	return &dotReader{r: r, lenient: lenient, lineStart: true}
}

func (d *dotReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(d.pending) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		d.fill()
	}
	n := copy(p, d.pending)
	d.pending = d.pending[n:]
	return n, nil
}

// fill reads the next piece of a line into pending, or sets err.
func (d *dotReader) fill() {
	if d.lineStart {
		b, err := d.r.Peek(1)
		if len(b) == 0 {
			d.eof(err)
			return
		}
		if b[0] == '.' {
			// Peek no further than the line needs, so that a server that
			// sends ".\n" and waits is not waited on.
			b, err = d.r.Peek(2)
			if len(b) == 2 && b[1] == '\r' {
				b, _ = d.r.Peek(3)
			}
			switch {
			case len(b) == 1 && err == io.EOF:
				// "." and then the close: the terminator without its line end.
				d.end(1)
				return
			case len(b) == 1:
				d.err = err
				return
			case b[1] == '\n':
				d.end(2)
				return
			case b[1] == '\r' && (len(b) == 2 || b[2] == '\n'):
				d.end(len(b))
				return
			case b[1] == '.':
				d.r.Discard(1) // un-stuff ".." to "."
			}
		}
	}
	line, err := d.r.ReadSlice('\n')
	if len(line) > 0 {
		d.pending = line
		d.lineStart = line[len(line)-1] == '\n'
		return
	}
	if err == bufio.ErrBufferFull {
		return
	}
	d.eof(err)
}

// end consumes the n bytes of the terminator line.
func (d *dotReader) end(n int) {
	d.r.Discard(n)
	d.err = io.EOF
}

func (d *dotReader) eof(err error) {
	if err == nil || err == io.EOF {
		if d.lenient {
			d.err = io.EOF
		} else {
			d.err = errNoTerminator
		}
		return
	}
	d.err = err
}
