package mailto

import (
	"io"
	"net"
	"strings"
	"sync"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// wireLog watches the connection between the TLS layer and net/smtp: it
// writes the transcript (Request.Transcript) with the AUTH exchange masked, and bounds the
// length of a reply line so that a server cannot grow memory without end.
type wireLog struct {
	w       io.Writer // nil: no transcript
	limit   int
	in, out lineproto.Lines
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
	l.in.Limit = l.limit
	err := l.in.Feed(p, func(b []byte) error {
		line := string(b)
		if strings.HasPrefix(line, "235") || (len(line) >= 1 && (line[0] == '4' || line[0] == '5')) {
			l.secret = false
		}
		l.emit("< " + printable(line))
		return nil
	})
	if err != nil {
		return schemes.Errorf(schemes.ErrTooLarge, "smtp: server reply line longer than %d bytes", l.limit)
	}
	return nil
}

func (l *wireLog) sent(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out.Feed(p, func(b []byte) error {
		line := string(b)
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
		return nil
	})
}

func (l *wireLog) emit(line string) {
	if l.w != nil {
		io.WriteString(l.w, line+"\n")
	}
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
