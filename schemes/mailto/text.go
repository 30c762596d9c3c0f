package mailto

import (
	"io"

	"github.com/goferurl/gofer/schemes"
)

// errNUL stops a send whose text holds a NUL, which mail may not carry
// (RFC 5322 §2.3); the message is left incomplete, so none is delivered.
var errNUL = schemes.Errorf(schemes.ErrUsage, "the message text holds a NUL byte, which mail cannot carry; nothing was delivered")

// copyText copies the message text from r to w with every line end, CR LF,
// lone LF or lone CR, written as eol, so that no server reads a line end
// the sender did not mean. Memory stays the size of one buffer.
func copyText(w io.Writer, r io.Reader, eol string) error {
	in := make([]byte, 32<<10)
	out := make([]byte, 0, 2*len(in))
	pendingCR := false
	for {
		n, rerr := r.Read(in)
		out = out[:0]
		for _, c := range in[:n] {
			if pendingCR {
				// A CR is a line end on its own, or the first half of CR LF.
				out = append(out, eol...)
				pendingCR = false
				if c == '\n' {
					continue
				}
			}
			switch c {
			case 0:
				return errNUL
			case '\r':
				pendingCR = true
			case '\n':
				out = append(out, eol...)
			default:
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			if _, err := w.Write(out); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			if pendingCR {
				_, err := io.WriteString(w, eol)
				return err
			}
			return nil
		}
		if rerr != nil {
			return schemes.Errorf(schemes.ErrInterrupted, "reading the message text: %v", rerr)
		}
	}
}
