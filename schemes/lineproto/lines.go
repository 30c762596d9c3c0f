package lineproto

import (
	"bytes"
	"errors"
	"net"
)

// ErrLineTooLong is Lines.Feed's answer to a line past its limit.
var ErrLineTooLong = errors.New("line too long")

// Lines cuts the bytes that cross a connection into lines as they pass,
// for a transcript or a watch on the conversation: Feed hands each complete
// line, without its CR LF, to a function, and keeps a partial line until
// its LF arrives. A line that grows past Limit bytes (0: no bound) is
// ErrLineTooLong, and what was gathered of it is dropped.
type Lines struct {
	Limit int
	buf   []byte
}

// Feed passes p. line is called with each line p completes; the slice is
// valid only during the call. The first error line returns ends Feed.
func (l *Lines) Feed(p []byte, line func([]byte) error) error {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		l.buf = append(l.buf, chunk...)
		if l.Limit > 0 && len(l.buf) > l.Limit {
			l.buf = l.buf[:0]
			return ErrLineTooLong
		}
		if i < 0 {
			return nil
		}
		err := line(bytes.TrimSuffix(l.buf, []byte("\r")))
		l.buf = l.buf[:0]
		if err != nil {
			return err
		}
		p = p[i+1:]
	}
	return nil
}

// Replay is a connection whose first reads return Pending, bytes already
// read from it (a greeting read on the plain connection before TLS), so
// that a protocol engine can start its conversation afresh on it.
type Replay struct {
	net.Conn
	Pending []byte
}

func (c *Replay) Read(p []byte) (int, error) {
	if len(c.Pending) > 0 {
		n := copy(p, c.Pending)
		c.Pending = c.Pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}
