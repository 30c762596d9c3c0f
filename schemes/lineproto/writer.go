package lineproto

import (
	"bytes"
	"io"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

var crlf = []byte("\r\n")

// checkLines applies the guard's line check to every whole line of text
// (each ending in CR LF) and returns how many bytes those lines take; what
// follows the last CR LF is a line not yet ended.
func checkLines(part string, text []byte) (int, error) {
	n := 0
	for {
		i := bytes.Index(text[n:], crlf)
		if i < 0 {
			return n, nil
		}
		if err := security.CheckLine(part, string(text[n:n+i])); err != nil {
			return 0, err
		}
		n += i + len(crlf)
	}
}

// WriteText writes text, one or more request lines each ending in CR LF, in
// one Write, after every line passed the guard's line check: a CR, LF or NUL
// anywhere but in the CR LF that ends a line is refused with
// security.ErrInjection (the part names where the line came from, for the
// message) and nothing is written.
func WriteText(w io.Writer, part, text string) error {
	n, err := checkLines(part, []byte(text))
	if err != nil {
		return err
	}
	if n != len(text) {
		if err := security.CheckLine(part, text[n:]); err != nil {
			return err
		}
		return schemes.Errorf(schemes.ErrUsage, "%s does not end with CR LF", part)
	}
	_, err = io.WriteString(w, text)
	return err
}

// Writer guards a connection that another piece of code writes commands on
// (an FTP engine): it holds what it is given until a line's CR LF arrives,
// checks the line, and only then passes it on, so that a line is refused
// whole, before any byte of it leaves, however the writer above split it.
type Writer struct {
	w       io.Writer
	part    string
	pending []byte
}

// NewWriter guards w; part names the wire in an injection error ("ftp
// command").
func NewWriter(w io.Writer, part string) *Writer {
	return &Writer{w: w, part: part}
}

// Write passes on every line p completes. A line that fails the check is
// dropped, with what was held of it, and Write returns the
// security.ErrInjection error having written none of p.
func (g *Writer) Write(p []byte) (int, error) {
	g.pending = append(g.pending, p...)
	n, err := checkLines(g.part, g.pending)
	if err != nil {
		g.pending = g.pending[:0]
		return 0, err
	}
	if n == 0 {
		return len(p), nil
	}
	_, err = g.w.Write(g.pending[:n])
	g.pending = append(g.pending[:0], g.pending[n:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}
