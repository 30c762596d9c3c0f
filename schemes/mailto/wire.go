package mailto

import (
	"bytes"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/goferurl/gofer/schemes"
)

// wireLog watches the connection between the TLS layer and net/smtp: it
// writes the transcript (-v) with the AUTH exchange masked, and bounds the
// length of a reply line so that a server cannot grow memory without end.
type wireLog struct {
	w       io.Writer // nil: no transcript
	limit   int
	in, out []byte
	// secret is set while the AUTH exchange is in progress: what the
	// client sends then is a credential.
	secret bool
	mu     sync.Mutex
}

type wireConn struct {
	net.Conn
	log *wireLog
}

func (c *wireConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		if lerr := c.log.received(p[:n]); lerr != nil {
			return 0, lerr
		}
	}
	return n, err
}

func (c *wireConn) Write(p []byte) (int, error) {
	c.log.sent(p)
	return c.Conn.Write(p)
}

func (l *wireLog) received(p []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		l.in = append(l.in, chunk...)
		if len(l.in) > l.limit {
			l.in = l.in[:0]
			return schemes.Errorf(schemes.ErrTooLarge, "smtp: server reply line longer than %d bytes", l.limit)
		}
		if i < 0 {
			return nil
		}
		line := string(bytes.TrimSuffix(l.in, []byte("\r")))
		l.in = l.in[:0]
		if strings.HasPrefix(line, "235") || (len(line) >= 1 && (line[0] == '4' || line[0] == '5')) {
			l.secret = false
		}
		l.emit("< " + printable(line))
		p = p[i+1:]
	}
	return nil
}

func (l *wireLog) sent(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.out = append(l.out, p...)
			return
		}
		l.out = append(l.out, p[:i]...)
		line := string(bytes.TrimSuffix(l.out, []byte("\r")))
		l.out = l.out[:0]
		p = p[i+1:]
		switch {
		case len(line) >= 5 && strings.EqualFold(line[:5], "AUTH "):
			// RFC 4954: AUTH mechanism [initial-response]; the response and
			// every line up to the final reply carry the credentials.
			mech, _, _ := strings.Cut(line[5:], " ")
			line = "AUTH " + mech + " ****"
			l.secret = true
		case l.secret:
			line = "****"
		}
		l.emit("> " + line)
	}
}

func (l *wireLog) emit(line string) {
	if l.w != nil {
		io.WriteString(l.w, line+"\n")
	}
}

// replayConn hands net/smtp a greeting that stands for the one already
// read on the plain connection, so that it starts its conversation (EHLO)
// afresh over TLS, as RFC 3207 §4.2 requires after STARTTLS.
type replayConn struct {
	net.Conn
	pending []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// printable keeps a server's text from driving a terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
