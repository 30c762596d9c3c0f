package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// errNoTerminator reports a dot-terminated stream that ended without its
// lone "." line.
var errNoTerminator = errors.New("connection closed before the final \".\" line")

// maxHold bounds what a lenient dotReader holds back while it cannot yet
// tell whether the server dot-stuffs.
const maxHold = 1 << 20

// dotReader streams a dot-terminated body (RFC 1436 text, Gopher+ "+-1"
// blocks): it ends at a line holding only "." (CR LF or LF), drops the first
// dot of a line that starts with "..", and passes everything else through
// byte for byte.
//
// A strict reader (Gopher+ "+-1") always un-stuffs. A lenient one (plain
// RFC 1436 replies) cannot know whether the server stuffs: many small
// servers neither stuff nor send the final "." line, and their ".." lines
// are the file's own. So from the first ".." line on it holds the lines
// back, as sent, until the end decides: a "." line (the server follows
// RFC 1436 §3.8's framing) releases them un-stuffed, a close without one
// releases them verbatim. If the held lines reach holdLimit before the
// end, they and every later ".." line pass verbatim: a server that stuffs
// but whose text keeps going for so long after its first ".." line is
// rarer than one that does neither, and the data is kept either way.
//
// A text item (newTextReader) may hold a "." line of its own, which such
// a server sends as it is: a "." line with more bytes behind it is
// therefore not the end, and it and every later ".." line pass verbatim.
// The reader waits for the byte after a "." line or the end of the
// connection, whichever comes, so that where a packet happens to end
// decides nothing. A menu always ends at its "." line.
//
// It holds at most holdLimit plus one bufio.Reader buffer.
type dotReader struct {
	r *bufio.Reader
	// lenient accepts a close of the connection as the end, which plain
	// Gopher servers do; a Gopher+ "+-1" block must end with its ".".
	lenient   bool
	lineStart bool
	pending   []byte
	err       error

	// holding is set from a lenient reader's first ".." line until the
	// end or holdLimit decides; hold has the held bytes as sent.
	holding   bool
	hold      []byte
	holdLimit int
	// text marks a plain text item, whose "." line may be its own.
	text bool
	// verbatim: the server is seen not to stuff, or the held lines
	// outgrew holdLimit, so ".." lines are kept.
	verbatim bool
	// maxHeld is the most bytes hold has had, for tests.
	maxHeld int
}

func newDotReader(r *bufio.Reader, lenient bool) *dotReader {
	return &dotReader{r: r, lenient: lenient, lineStart: true, holdLimit: maxHold}
}

// newTextReader reads a plain RFC 1436 text item (type 0).
func newTextReader(r *bufio.Reader) *dotReader {
	d := newDotReader(r, true)
	d.text = true
	return d
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

// fill reads the next piece of a line into pending (or hold), or sets err.
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
			n := 0 // the length of a "." line
			switch {
			case len(b) == 1 && err == io.EOF:
				// "." and then the close: the terminator without its line end.
				n = 1
			case len(b) == 1:
				d.eof(err)
				return
			case b[1] == '\n':
				n = 2
			case b[1] == '\r' && (len(b) == 2 || b[2] == '\n'):
				n = len(b)
			case b[1] == '.' && !d.lenient:
				d.r.Discard(1) // un-stuff ".." to "."
			case b[1] == '.' && !d.verbatim:
				d.holding = true
			}
			if n > 0 && d.text {
				// Whether text goes on behind the "." line is known once a
				// byte behind it comes, or the connection ends (a timeout
				// too: a server that keeps the connection after its "."
				// line sent nothing more).
				if more, _ := d.r.Peek(n + 1); len(more) <= n {
					d.end(n)
					return
				}
			} else if n > 0 {
				d.end(n)
				return
			}
			if n > 0 {
				// Text goes on behind its "." line: the server does not
				// frame its text, so the line is the file's own.
				d.verbatim = true
			}
		}
	}
	line, err := d.r.ReadSlice('\n')
	if len(line) > 0 {
		d.lineStart = line[len(line)-1] == '\n'
		if !d.holding {
			d.pending = line
			return
		}
		d.hold = append(d.hold, line...)
		d.maxHeld = max(d.maxHeld, len(d.hold))
		if len(d.hold) >= d.holdLimit || d.verbatim {
			d.release(false)
			d.verbatim = true
		}
		return
	}
	if err == bufio.ErrBufferFull {
		return
	}
	d.eof(err)
}

// release hands the held lines on, un-stuffed or as sent.
func (d *dotReader) release(unstuff bool) {
	if unstuff {
		d.hold = unstuffLines(d.hold)
	}
	d.pending, d.hold, d.holding = d.hold, nil, false
}

// unstuffLines drops the first dot of every line of b that starts with
// "..", in place; b starts at a line start.
func unstuffLines(b []byte) []byte {
	out := b[:0]
	for len(b) > 0 {
		if len(b) >= 2 && b[0] == '.' && b[1] == '.' {
			b = b[1:]
		}
		i := bytes.IndexByte(b, '\n') + 1
		if i == 0 {
			i = len(b)
		}
		out = append(out, b[:i]...)
		b = b[i:]
	}
	return out
}

// end consumes the n bytes of the terminator line: the server frames its
// text as RFC 1436 says, so what was held back was stuffed.
func (d *dotReader) end(n int) {
	d.r.Discard(n)
	if d.holding {
		d.release(true)
	}
	d.err = io.EOF
}

func (d *dotReader) eof(err error) {
	if d.holding {
		// No "." line came: the server does not frame its text, so its
		// ".." lines are its own.
		d.release(false)
	}
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
