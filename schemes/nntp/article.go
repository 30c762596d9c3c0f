package nntp

import (
	"bufio"
	"io"
	"net"
	"net/textproto"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// article sends ARTICLE, HEAD or BODY and hands the dot-terminated block
// that follows to the response as a stream.
func (s *session) article(req *schemes.Request, part string, cmd command, name string, lg *login) (*schemes.Response, error) {
	code, text, err := s.c.do(cmd, lg)
	if err != nil {
		return nil, err
	}
	want := codeArticle
	switch part {
	case "head":
		want = codeHead
	case "body":
		want = codeBody
	}
	if code != want {
		return nil, s.c.refusal(cmd, code, text)
	}
	ab := &articleBody{s: s, r: s.c.tr.DotReader()}
	if blk := captureArticle(req, text, s.c.nc); blk != nil {
		// The raw block is read through the unstuffing recorder, then
		// through a dot reader of its own, as the plain path does. The
		// session sends nothing more before QUIT, so the second buffer
		// holds nothing the session needs afterwards.
		tee := io.TeeReader(s.c.tr.R, &unstuffer{w: blk, lineStart: true})
		ab.r = schemes.CommitAtEOF(textproto.NewReader(bufio.NewReader(tee)).DotReader(), blk)
	}
	resp := &schemes.Response{
		URL:  req.URL,
		Kind: schemes.KindFile,
		Body: ab,
		Size: -1,
		Name: name,
		Type: schemes.TypeArticle,
	}
	if part == "" {
		resp.MediaType = "message/rfc822"
	}
	return resp, nil
}

// articleBody streams an article as the server sends it, dot-unstuffed
// and with CR LF line ends turned into LF by textproto's DotReader (RFC 3977
// §3.1.1). A connection that ends before the terminating "." is
// ErrInterrupted, never a silent short article.
type articleBody struct {
	s   *session
	r   io.Reader
	n   int64 // bytes delivered
	eof bool  // the terminating "." was read
	err error // sticky
}

func (b *articleBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		b.eof = true
		b.err = io.EOF
	case err == io.ErrUnexpectedEOF:
		b.err = b.s.c.classify(schemes.Errorf(schemes.ErrInterrupted,
			"news server %s closed the connection in the middle of the article (after %d bytes)", b.s.c.server, b.n), "read article")
	case err != nil:
		b.err = b.s.c.classify(err, "read article from news server "+b.s.c.server)
	}
	return n, b.err
}

// Close ends the session: with QUIT when the article was read to its end.
func (b *articleBody) Close() error {
	return b.s.close(b.eof)
}

// captureArticle starts the record of an article when the request has a
// capture: its target is news:<message-id>, the message-id taken from the
// URL or from the server's reply ("220 n <message-id>", RFC 3977 §6.2.1),
// and the URL that fetched it goes with it.
func captureArticle(req *schemes.Request, reply string, nc net.Conn) schemes.CaptureBlock {
	if req.Capture == nil {
		return nil
	}
	fetched := req.URL.Redacted()
	id := ""
	if n := req.URL.News; n != nil && n.MessageID != "" {
		id = n.MessageID
	} else if f := strings.Fields(reply); len(f) >= 2 && strings.HasPrefix(f[1], "<") && strings.HasSuffix(f[1], ">") {
		id = strings.Trim(f[1], "<>")
	}
	rec := schemes.CaptureRecord{Type: "resource", ContentType: "message/rfc822", URI: fetched,
		Protocol: schemes.Protocols("nntp", nc)}
	if id != "" && !strings.ContainsAny(id, " \t\r\n") {
		// RFC 1738 §3.6: the '@' of a message-id stays as it is.
		rec.URI = "news:" + strings.ReplaceAll(schemes.Escape(id), "%40", "@")
		if rec.URI != fetched {
			rec.Also = []string{fetched}
		}
	}
	return req.Capture.Record(rec)
}

// unstuffer writes an NNTP multi-line block as the article it carries:
// the leading dot of a dot-stuffed line removed, CR LF line ends kept, and
// nothing from the terminating "." line on (RFC 3977 §3.1.1).
type unstuffer struct {
	w         io.Writer
	lineStart bool
	dot       bool // a line began with '.', not written yet
	done      bool
}

func (u *unstuffer) Write(p []byte) (int, error) {
	start := 0
	for i := 0; i < len(p) && !u.done; i++ {
		c := p[i]
		switch {
		case u.dot:
			u.dot = false
			if c == '\r' || c == '\n' {
				u.done = true // the terminating line
				start = len(p)
				continue
			}
			start = i // "..x" keeps ".x"; ".x" (not stuffed) keeps "x"
			if c != '.' {
				u.w.Write([]byte{'.'})
			}
		case u.lineStart && c == '.':
			if _, err := u.w.Write(p[start:i]); err != nil {
				return len(p), nil
			}
			u.dot = true
			start = i + 1
		}
		u.lineStart = c == '\n'
	}
	if !u.done && !u.dot && start < len(p) {
		u.w.Write(p[start:])
	}
	return len(p), nil
}
