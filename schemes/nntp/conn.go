package nntp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
	"github.com/goferurl/gofer/security"
)

// command is one NNTP command line: a verb and at most one argument, which
// is all any command gofer sends needs.
type command struct {
	verb string // "ARTICLE", "LIST ACTIVE", "AUTHINFO USER", ...
	arg  string // the argument as written on the wire, or ""
	// part names where arg comes from ("news message-id", "nntp group"),
	// for the injection check's message.
	part string
	// secret masks arg as "****" in transcripts, plans and errors.
	secret bool
}

// line returns the command as written on the wire, without CR LF. Every
// argument, from the URL or not, passes the line check here: this is the one
// place commands are built.
func (c command) line() (string, error) {
	if c.arg == "" {
		return c.verb, nil
	}
	part := c.part
	if part == "" {
		part = "nntp argument"
	}
	if err := security.CheckLine(part, c.arg); err != nil {
		return "", err
	}
	return c.verb + " " + c.arg, nil
}

// display is the command for a person: the secret argument masked.
func (c command) display() string {
	if c.secret && c.arg != "" {
		return c.verb + " ****"
	}
	if c.arg == "" {
		return c.verb
	}
	return c.verb + " " + c.arg
}

// Status codes gofer branches on (RFC 3977 §3.2, RFC 4643, RFC 4642).
const (
	codePostingAllowed   = 200
	codeNoPosting        = 201
	codeCapabilities     = 101
	codeGroupSelected    = 211
	codeListFollows      = 215
	codeArticle          = 220
	codeHead             = 221
	codeBody             = 222
	codeOverview         = 224
	codeAuthAccepted     = 281
	codeContinueTLS      = 382
	codePasswordRequired = 381
	codeNoSuchGroup      = 411
	codeNoArticles       = 420 // OVER on an empty range
	codeNoArticleNumber  = 423
	codeNoSuchArticle    = 430
	codeAuthRequired     = 480
	codeAuthRejected     = 481
	codeAuthOutOfOrder   = 482
	codeUnknownCommand   = 500
	codeSyntaxError      = 501
	codeNotPermitted     = 502
	codeNotSupported     = 503
)

// conn is one NNTP session. Only one command is in flight at a time; a
// multi-line response is read to its end (or the connection closed) before
// the next command.
type conn struct {
	lc      *lineproto.Conn // the connection: closed when the fetch's context ends
	nc      net.Conn        // lc, or TLS over it once started
	br      *bufio.Reader
	tr      *textproto.Reader // for the dot-terminated article body
	lines   *lineproto.Reader
	server  string // "host:port", for messages
	maxLine int
	log     io.Writer // the transcript, or nil

	caps      map[string][]string // CAPABILITIES, keyword upper-cased
	capsKnown bool
	authed    bool
	group     string // the group GROUP last selected
}

func newConn(lc *lineproto.Conn, nc net.Conn, server string, req *schemes.Request) *conn {
	c := &conn{lc: lc, server: server, maxLine: req.LineLimit(), log: req.Transcript}
	c.setNetConn(nc)
	return c
}

func (c *conn) setNetConn(nc net.Conn) {
	c.nc = nc
	c.br = bufio.NewReader(nc)
	c.tr = textproto.NewReader(c.br)
	c.lines = lineproto.NewReader(c.br, c.maxLine)
}

// classify turns an I/O error into one of gofer's kinds.
func (c *conn) classify(err error, what string) error { return c.lc.Classify(err, what) }

func (c *conn) trace(dir, line string) {
	if c.log != nil {
		fmt.Fprintf(c.log, "%s %s\n", dir, line)
	}
}

// send writes one command. It is the one choke point every command goes
// through: its argument passes the line check when the command is built
// (command.line, which names the URL part), and the whole line again as it
// is written.
func (c *conn) send(cmd command) error {
	line, err := cmd.line()
	if err != nil {
		return err
	}
	part := cmd.part
	if part == "" {
		part = "nntp command"
	}
	if err := lineproto.WriteText(c.nc, part, line+"\r\n"); err != nil {
		return c.classify(err, "send "+cmd.verb)
	}
	c.trace(">", cmd.display())
	return nil
}

// readStatus reads a status line: three digits, then text (RFC 3977 §3.2).
func (c *conn) readStatus(what string) (int, string, error) {
	line, err := c.lines.ReadLine()
	if err != nil {
		if errors.Is(err, schemes.ErrTooLarge) {
			return 0, "", schemes.Errorf(schemes.ErrTooLarge, "news server %s: %s: status line longer than %d bytes", c.server, what, c.maxLine)
		}
		if err == io.EOF {
			return 0, "", schemes.Errorf(schemes.ErrInterrupted, "news server %s closed the connection (%s)", c.server, what)
		}
		return 0, "", c.classify(err, "news server "+c.server+": "+what)
	}
	c.trace("<", lineproto.ServerText(line))
	code, text, ok := parseStatus(line)
	if !ok {
		return 0, "", schemes.Errorf(schemes.ErrRefused, "news server %s: %s: malformed response %q", c.server, what, truncate(line, 80))
	}
	return code, text, nil
}

// parseStatus splits "NNN text" into its code and text.
func parseStatus(line string) (int, string, bool) {
	if len(line) < 3 || (len(line) > 3 && line[3] != ' ') {
		return 0, "", false
	}
	for i := 0; i < 3; i++ {
		if line[i] < '0' || line[i] > '9' {
			return 0, "", false
		}
	}
	code, _ := strconv.Atoi(line[:3])
	if code < 100 || code > 599 {
		return 0, "", false
	}
	return code, strings.TrimPrefix(line[3:], " "), true
}

// cmd sends one command and reads its status line.
func (c *conn) cmd(cmd command) (int, string, error) {
	if err := c.send(cmd); err != nil {
		return 0, "", err
	}
	return c.readStatus(cmd.verb)
}

// refusal is the error for a status the command did not hope for: the
// authentication codes are ErrAuth, everything else ErrRefused, each with
// the server's own text. The cause is a *textproto.Error with the code.
func (c *conn) refusal(cmd command, code int, text string) error {
	return c.refusalHint(cmd, code, text, "")
}

// refusalHint is refusal with advice for the person appended.
func (c *conn) refusalHint(cmd command, code int, text, hint string) error {
	kind := schemes.ErrRefused
	switch code {
	case codeAuthRequired, codeAuthRejected, codeAuthOutOfOrder, codeNotPermitted:
		kind = schemes.ErrAuth
	case codeNoSuchGroup, codeNoArticleNumber, codeNoSuchArticle:
		kind = schemes.ErrNotFound
	}
	msg := fmt.Sprintf("news server %s answered %s with %d %s", c.server, cmd.display(), code, lineproto.ServerText(text))
	if hint != "" {
		msg += ": " + hint
	}
	return &schemes.KindError{Kind: kind, Msg: msg, Err: &textproto.Error{Code: code, Msg: text}}
}

// readBodyLine reads one line of a multi-line block, undoing the dot
// stuffing (RFC 3977 §3.1.1); done reports the terminating ".".
func (c *conn) readBodyLine(what string) (line string, done bool, err error) {
	line, err = c.lines.ReadLine()
	if err != nil {
		if errors.Is(err, schemes.ErrTooLarge) {
			return "", false, schemes.Errorf(schemes.ErrTooLarge, "news server %s: %s: line longer than %d bytes", c.server, what, c.maxLine)
		}
		if err == io.EOF {
			return "", false, schemes.Errorf(schemes.ErrInterrupted, "news server %s closed the connection in the middle of %s", c.server, what)
		}
		return "", false, c.classify(err, "news server "+c.server+": "+what)
	}
	if line == "." {
		return "", true, nil
	}
	return strings.TrimPrefix(line, "."), false, nil
}

// quit ends the session politely when it is in a state to take a command,
// then closes the connection. The reply is not awaited: nothing depends on it.
func (c *conn) quit() error {
	c.send(command{verb: "QUIT"})
	return c.lc.Close()
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
