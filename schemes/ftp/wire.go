package ftp

import (
	"errors"
	"io"
	"net"
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// wireLog watches the control connection between the TLS layer and the
// reply reader: it writes the transcript (Request.Transcript) with every
// password masked, and bounds the length of a reply line and the lines of
// a reply.
type wireLog struct {
	// w receives the transcript of the fetch in progress; nil for none.
	// It is replaced per fetch because a kept connection serves many.
	w       io.Writer
	limit   int
	in, out lineproto.Lines
	// lines counts the lines received since the last command: a reply
	// that never ends is refused before it fills memory.
	lines int
	// ack, when set, has the next bytes acknowledged at once (quickAck).
	ack func()
	// err is the refusal of a reply over a limit. It stays: the rest of
	// that reply is unread, so the connection is out of step for good.
	err error
}

// maxReplyLines bounds the lines of one reply (FEAT and HELP have dozens).
const maxReplyLines = 10000

// ctrlConn is a control connection seen through a wireLog. It is the one
// choke point of the control connection: every command line passes the
// guard's line check in Write as it goes out,
// and a line with a CR, LF or NUL inside is refused before any byte of it
// is written.
type ctrlConn struct {
	net.Conn
	log   *wireLog
	guard *lineproto.Writer
}

func newCtrlConn(nc net.Conn, log *wireLog) *ctrlConn {
	c := &ctrlConn{Conn: nc, log: log}
	c.guard = lineproto.NewWriter(ctrlWire{c}, "ftp command")
	return c
}

// ctrlWire is what passes the guard: whole checked lines, logged and sent.
type ctrlWire struct{ c *ctrlConn }

func (w ctrlWire) Write(p []byte) (int, error) {
	w.c.log.sent(p)
	return w.c.Conn.Write(p)
}

func (c *ctrlConn) Read(p []byte) (int, error) {
	if c.log.ack != nil {
		c.log.ack()
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		if lerr := c.log.received(p[:n]); lerr != nil {
			return 0, lerr
		}
	}
	return n, err
}

func (c *ctrlConn) Write(p []byte) (int, error) { return c.guard.Write(p) }

func (l *wireLog) received(p []byte) error {
	if l.err != nil {
		return l.err
	}
	l.in.Limit = l.limit
	err := l.in.Feed(p, func(line []byte) error {
		l.emit("< ", line)
		if l.lines++; l.lines > maxReplyLines {
			return schemes.Errorf(schemes.ErrTooLarge, "ftp: server reply longer than %d lines", maxReplyLines)
		}
		return nil
	})
	if errors.Is(err, lineproto.ErrLineTooLong) {
		err = schemes.Errorf(schemes.ErrTooLarge, "ftp: server reply line longer than %d bytes", l.limit)
	}
	if err != nil {
		// The rest of that reply is unread, so the connection is out of
		// step for good: every later read gets the same answer.
		l.err = err
	}
	return err
}

func (l *wireLog) sent(p []byte) {
	l.out.Feed(p, func(b []byte) error {
		line := string(b)
		l.lines = 0
		if verb, _, _ := strings.Cut(line, " "); strings.EqualFold(verb, "PASS") {
			// Passwords never appear in transcripts, not even the
			// anonymous one (RFC 1738 §6: never echo them).
			line = "PASS ****"
		}
		l.emit("> ", []byte(line))
		return nil
	})
}

func (l *wireLog) emit(dir string, line []byte) {
	if l.w == nil {
		return
	}
	buf := make([]byte, 0, len(dir)+len(line)+1)
	buf = append(buf, dir...)
	buf = append(buf, line...)
	buf = append(buf, '\n')
	l.w.Write(buf)
}
