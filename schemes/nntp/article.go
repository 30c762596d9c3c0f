package nntp

import (
	"io"

	"github.com/goferurl/gofer/schemes"
)

// article sends ARTICLE, HEAD or BODY and hands the dot-terminated block
// that follows to the response as a stream.
func (s *session) article(req *schemes.Request, cmd command, name string, lg *login) (*schemes.Response, error) {
	code, text, err := s.c.do(cmd, lg)
	if err != nil {
		return nil, err
	}
	want := codeArticle
	switch req.Part {
	case "head":
		want = codeHead
	case "body":
		want = codeBody
	}
	if code != want {
		return nil, s.c.refusal(cmd, code, text)
	}
	resp := &schemes.Response{
		URL:  req.URL,
		Kind: schemes.KindFile,
		Body: &articleBody{s: s, r: s.c.tr.DotReader()},
		Size: -1,
		Name: name,
		Type: schemes.TypeArticle,
	}
	if req.Part == "" {
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
