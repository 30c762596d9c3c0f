package telnet

// RFC 854's NVT ends a line with CR LF and sends a bare CR as CR NUL. These
// translators carry a pending CR across reads so a pair split between two
// reads is still one line end.

// inputEncoder turns local input into NVT data for the server.
type inputEncoder struct {
	pendingCR bool
}

// encode appends p, translated, to dst. A local "\n" or "\r\n" becomes CR LF,
// a bare CR becomes CR NUL, and a data byte 255 is doubled. With flush, a CR
// at the end of p is sent at once as CR NUL instead of waiting for the next
// byte: a terminal's Enter key sends a lone CR and must not wait.
func (e *inputEncoder) encode(dst, p []byte, flush bool) []byte {
	for _, c := range p {
		if e.pendingCR {
			e.pendingCR = false
			if c == '\n' {
				dst = append(dst, '\r', '\n')
				continue
			}
			dst = append(dst, '\r', 0)
		}
		switch c {
		case '\r':
			e.pendingCR = true
		case '\n':
			dst = append(dst, '\r', '\n')
		case cmdIAC:
			dst = append(dst, cmdIAC, cmdIAC)
		default:
			dst = append(dst, c)
		}
	}
	if flush {
		dst = e.finish(dst)
	}
	return dst
}

// finish sends a CR still pending (at the end of input).
func (e *inputEncoder) finish(dst []byte) []byte {
	if e.pendingCR {
		e.pendingCR = false
		dst = append(dst, '\r', 0)
	}
	return dst
}

// outputDecoder turns the server's NVT data into local text. For a
// terminal, CR LF stays (a raw terminal needs both) and CR NUL becomes CR.
// For a pipe or file, CR LF becomes the local "\n" and CR NUL a CR.
type outputDecoder struct {
	terminal  bool
	pendingCR bool // pipe: a CR waiting to see what follows
	afterCR   bool // terminal: the last byte shown was a CR
}

func (d *outputDecoder) decode(dst, p []byte) []byte {
	for _, c := range p {
		if d.terminal {
			// Show a CR at once; drop the NUL that may follow it.
			if c == 0 && d.afterCR {
				d.afterCR = false
				continue
			}
			d.afterCR = c == '\r'
			dst = append(dst, c)
			continue
		}
		if d.pendingCR {
			d.pendingCR = false
			switch c {
			case 0:
				dst = append(dst, '\r')
				continue
			case '\n':
				dst = append(dst, '\n')
				continue
			}
			dst = append(dst, '\r')
		}
		if c == '\r' {
			d.pendingCR = true
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// finish returns a CR still pending when the server closed.
func (d *outputDecoder) finish(dst []byte) []byte {
	if d.pendingCR {
		d.pendingCR = false
		dst = append(dst, '\r')
	}
	return dst
}
