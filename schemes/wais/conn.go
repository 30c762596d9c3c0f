package wais

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// conn is one connection to a WAIS server, used for one request at a time.
// The line-protocol kit's Conn carries it: idle deadlines on every read and
// write, closed when the context ends, and its errors classified.
type conn struct {
	c    *lineproto.Conn
	br   *bufio.Reader
	tr   io.Writer
	addr string
}

func connect(ctx context.Context, req *schemes.Request, t *target) (*conn, error) {
	addr := t.addr()
	lc, err := lineproto.Dial(ctx, req, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &conn{c: lc, br: bufio.NewReader(lc), tr: req.Transcript, addr: addr}, nil
}

// Close ends the connection; closing twice is harmless.
func (c *conn) Close() error { return c.c.Close() }

func (c *conn) classify(err error, what string) error { return c.c.Classify(err, what) }

// send writes one message and reads the answer's header; it returns the
// length of the answer's body, which is next on c.br. what is the
// request's readable form, for the transcript.
func (c *conn) send(ctx context.Context, what func() string, body []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, dial.Classify(err, "wais request")
	}
	if c.tr != nil {
		fmt.Fprintf(c.tr, "> %s\n", what())
	}
	if _, err := c.c.Write(Message(body)); err != nil {
		return 0, c.classify(err, "send request to "+c.addr)
	}
	// The WAIS reference client skips whatever comes before the header's
	// first '0' (a length below 10^9 starts with one); so does gofer, up to
	// a bound.
	for skipped := 0; ; skipped++ {
		b, err := c.br.Peek(1)
		if err != nil {
			return 0, c.classify(err, "read answer from "+c.addr)
		}
		if b[0] == '0' {
			break
		}
		if skipped == maxJunk {
			return 0, schemes.Errorf(schemes.ErrRefused, "wais server %s: %d bytes that are not a WAIS header", c.addr, maxJunk)
		}
		c.br.Discard(1)
	}
	var hb [HeaderSize]byte
	if _, err := io.ReadFull(c.br, hb[:]); err != nil {
		return 0, c.classify(err, "read answer from "+c.addr)
	}
	h, err := ParseHeader(hb[:])
	if err != nil {
		return 0, schemes.Errorf(schemes.ErrRefused, "wais server %s: %v", c.addr, err)
	}
	switch {
	case h.Type != 'z':
		return 0, schemes.Errorf(schemes.ErrRefused, "wais server %s answered with message type %q, not a Z39.50 APDU", c.addr, h.Type)
	case h.Compression != ' ' || h.Encoding != ' ':
		return 0, schemes.Errorf(schemes.ErrRefused, "wais server %s used compression %q / encoding %q, which gofer does not ask for", c.addr, h.Compression, h.Encoding)
	}
	return h.Length, nil
}

// exchange writes one message and reads the SearchResponse that answers
// it, whole (at most MaxMessage bytes).
func (c *conn) exchange(ctx context.Context, what func() string, body []byte) (*SearchResponse, error) {
	n, err := c.send(ctx, what, body)
	if err != nil {
		return nil, err
	}
	if n > MaxMessage {
		return nil, schemes.Errorf(schemes.ErrTooLarge, "wais server %s announced an answer of %d bytes, more than %d", c.addr, n, MaxMessage)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(c.br, b); err != nil {
		return nil, c.classify(err, "read answer from "+c.addr)
	}
	r, err := ParseSearchResponse(b)
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrRefused, "wais server %s: %v", c.addr, err)
	}
	c.logAnswer(r, -1)
	return r, nil
}

func (c *conn) logAnswer(r *SearchResponse, text int64) {
	if c.tr == nil {
		return
	}
	fmt.Fprintf(c.tr, "< SearchResponse status=%d results=%d returned=%d documents=%d diagnostics=%d",
		r.Status, r.ResultCount, r.Returned, len(r.Documents), len(r.Diagnostics))
	if text >= 0 {
		fmt.Fprintf(c.tr, " text=%d bytes", text)
	}
	fmt.Fprintln(c.tr)
	for _, d := range r.Diagnostics {
		fmt.Fprintf(c.tr, "< %s\n", d)
	}
}

// maxJunk bounds the bytes skipped before an answer's header.
const maxJunk = 512

// maxItem bounds an item of an answer that is read whole (the APDU, a
// diagnostic record, a document id); anything else streams or is skipped.
const maxItem = 1 << 16

// retrieveRange writes a retrieval and reads its answer up to the first
// document text (tag 127 inside a text group), which it returns as a
// reader over the connection: the text streams, whatever its length. The
// text is nil when the answer has none; diags are the diagnostics seen
// before it.
func (c *conn) retrieveRange(ctx context.Context, what func() string, body []byte) (*textReader, []Diagnostic, error) {
	n, err := c.send(ctx, what, body)
	if err != nil {
		return nil, nil, err
	}
	m := &message{c: c, left: n}
	tr, r, err := m.scanToText()
	if err != nil {
		return nil, nil, err
	}
	text := int64(-1)
	if tr != nil {
		text = tr.n
	}
	c.logAnswer(r, text)
	if tr == nil {
		return nil, r.Diagnostics, nil
	}
	return tr, r.Diagnostics, nil
}

// message reads one answer's body from the connection, counting what is
// left of it.
type message struct {
	c    *conn
	left int64
}

func (m *message) fail(err error) error {
	if errors.Is(err, errMalformed) {
		return schemes.Errorf(schemes.ErrRefused, "wais server %s: %v", m.c.addr, err)
	}
	return m.c.classify(err, "read answer from "+m.c.addr)
}

func (m *message) bytes(n int64) ([]byte, error) {
	if n > m.left || n > maxItem {
		return nil, m.fail(malformed("an item of %d bytes where %d remain", n, m.left))
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(m.c.br, b); err != nil {
		return nil, m.fail(err)
	}
	m.left -= n
	return b, nil
}

func (m *message) skip(n int64) error {
	if n > m.left {
		return m.fail(malformed("an item of %d bytes where %d remain", n, m.left))
	}
	k, err := io.CopyN(io.Discard, m.c.br, n)
	m.left -= k
	if err != nil {
		return m.fail(err)
	}
	return nil
}

func (m *message) compressed() (uint64, error) {
	var n uint64
	for k := 0; k < maxCompressed; k++ {
		if m.left <= 0 {
			return 0, m.fail(malformed("compressed integer runs past the end"))
		}
		c, err := m.c.br.ReadByte()
		if err != nil {
			return 0, m.fail(err)
		}
		m.left--
		n = n<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return n, nil
		}
	}
	return 0, m.fail(malformed("compressed integer longer than %d bytes", maxCompressed))
}

// tagLength reads an item's tag and length and checks that the value fits
// in what is left.
func (m *message) tagLength() (int, int64, error) {
	tag, err := m.compressed()
	if err != nil {
		return 0, 0, err
	}
	n, err := m.compressed()
	if err != nil {
		return 0, 0, err
	}
	if n > uint64(m.left) {
		return 0, 0, m.fail(malformed("tag %d claims %d bytes, %d remain", tag, n, m.left))
	}
	return int(tag), int64(n), nil
}

// scanToText reads the APDU and the WAIS part's items up to the first
// document text.
func (m *message) scanToText() (*textReader, *SearchResponse, error) {
	lb, err := m.bytes(2)
	if err != nil {
		return nil, nil, err
	}
	apdu, err := m.bytes(int64(lb[0])<<8 | int64(lb[1]))
	if err != nil {
		return nil, nil, err
	}
	// The APDU alone, through the whole-answer decoder.
	r, err := ParseSearchResponse(append(lb, apdu...))
	if err != nil {
		return nil, nil, m.fail(err)
	}
	if m.left == 0 {
		return nil, r, nil
	}
	tag, n, err := m.tagLength()
	if err != nil {
		return nil, nil, err
	}
	if tag != tagUserInformation || n != m.left {
		return nil, nil, m.fail(malformed("WAIS part has tag %d and %d bytes, %d remain", tag, n, m.left))
	}
	for m.left > 0 {
		start := m.left
		tag, err := m.compressed()
		if err != nil {
			return nil, nil, err
		}
		if tag == tagDiagnosticRecords {
			lb, err := m.bytes(2)
			if err != nil {
				return nil, nil, err
			}
			rec, err := m.bytes(int64(lb[0])<<8 | int64(lb[1]) + 1)
			if err != nil {
				return nil, nil, err
			}
			d, _, err := readDiagnostic(append(append(appendCompressed(nil, tag), lb...), rec...), 0)
			if err != nil {
				return nil, nil, m.fail(err)
			}
			r.Diagnostics = append(r.Diagnostics, d)
			continue
		}
		n, err := m.compressed()
		if err != nil {
			return nil, nil, err
		}
		if n > uint64(m.left) {
			return nil, nil, m.fail(malformed("tag %d claims %d bytes, %d remain (item at %d)", tag, n, m.left, start))
		}
		if tag != tagDocumentTextGroup {
			if err := m.skip(int64(n)); err != nil {
				return nil, nil, err
			}
			continue
		}
		groupEnd := m.left - int64(n)
		for m.left > groupEnd {
			ft, fn, err := m.tagLength()
			if err != nil {
				return nil, nil, err
			}
			if m.left-fn < groupEnd {
				return nil, nil, m.fail(malformed("tag %d runs past its text group", ft))
			}
			if ft == tagDocumentText {
				return &textReader{m: m, n: fn, rest: fn}, r, nil
			}
			if err := m.skip(fn); err != nil {
				return nil, nil, err
			}
		}
	}
	return nil, r, nil
}

// textReader reads one document text from the connection; finish skips
// the rest of its answer.
type textReader struct {
	m    *message
	n    int64 // the text's length
	rest int64 // of it, not yet read
}

func (t *textReader) Read(p []byte) (int, error) {
	if t.rest <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > t.rest {
		p = p[:t.rest]
	}
	n, err := t.m.c.br.Read(p)
	t.rest -= int64(n)
	t.m.left -= int64(n)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return n, t.m.fail(err)
	}
	return n, nil
}

func (t *textReader) finish() error {
	if t.rest > 0 {
		return t.m.fail(malformed("document text not read to its end"))
	}
	return t.m.skip(t.m.left)
}
