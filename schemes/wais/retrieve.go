package wais

import (
	"context"
	"io"

	"github.com/goferurl/gofer/schemes"
)

// retrieve asks for the document's first range and returns a Body that
// streams it and asks for the other ranges in turn. The Response comes as
// soon as the first range's text begins.
func (f *Fetcher) retrieve(ctx context.Context, req *schemes.Request, t *target, c *conn) (*schemes.Response, error) {
	b := &body{c: c, t: t, pos: req.Offset, max: req.MaxBytes}
	if err := b.next(ctx); err != nil {
		return nil, err
	}
	resp := &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Body: b, Offset: req.Offset, Size: -1,
		Type: typeWord(t.wtype), MediaType: mediaType(t.wtype)}
	switch {
	case b.last:
		resp.Size = req.Offset + b.text.n // the first range is the last: the size is known
	case t.length >= 0:
		resp.Size = t.length
	}
	return resp, nil
}

// body streams a document range by range over one connection.
type body struct {
	c    *conn
	t    *target
	pos  int64 // where the next range starts
	text *textReader
	last bool // the current range is the document's last
	got  bool // some range had text
	done bool
	max  int64
	out  int64
	err  error
}

// next asks for the range at pos and positions b.text at its bytes. A
// range that comes back short (or empty) is the last. An answer with no
// text at all after some text ends the document too, since a server may
// answer a range past the end with a diagnostic.
func (b *body) next(ctx context.Context) error {
	end := b.pos + RangeSize
	start := b.pos
	tr, diags, err := b.c.retrieveRange(ctx, func() string { return describeRetrieval(b.t.database, b.t.wpath, b.t.wtype, start, end) },
		RetrievalRequest(b.t.database, b.t.id, b.t.wtype, b.pos, end))
	if err != nil {
		return err
	}
	if tr == nil {
		if b.got {
			b.done = true
			return nil
		}
		if len(diags) > 0 {
			return diagnosticError(diags)
		}
		return schemes.Errorf(schemes.ErrRefused, "wais server sent no document text for %s", b.t.wpath)
	}
	b.text = tr
	b.pos += tr.n
	b.got = b.got || tr.n > 0
	b.last = tr.n < RangeSize
	return nil
}

func (b *body) Read(p []byte) (int, error) {
	for {
		if b.err != nil {
			return 0, b.err
		}
		if b.done {
			return 0, io.EOF
		}
		n, err := b.text.Read(p)
		if n > 0 {
			b.out += int64(n)
			if b.max > 0 && b.out > b.max {
				b.err = schemes.Errorf(schemes.ErrTooLarge, "document larger than the limit of %d bytes", b.max)
				return n - int(b.out-b.max), b.err
			}
			return n, nil
		}
		if err != io.EOF {
			b.err = err
			return 0, err
		}
		// This range's text is read: the rest of its answer goes unread
		// into the discard, then the next range, if any.
		if err := b.text.finish(); err != nil {
			b.err = err
			return 0, err
		}
		if b.last {
			b.done = true
			continue
		}
		// The fetch's context still governs: cancelling it closes the
		// connection (see connect), which fails this exchange.
		if err := b.next(context.Background()); err != nil {
			b.err = err
			return 0, err
		}
	}
}

func (b *body) Close() error { return b.c.Close() }
