package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// MinSegment is the smallest part of a file Download gives a stream of its
// own: below it, the round trips of another connection cost more than the
// stream gains.
const MinSegment = 1 << 20

// Download is what Client.Download did.
type Download struct {
	// Response is the first response: the file's URL, Name, Size, Type,
	// MediaType and Modified. Its Body has been read and closed.
	Response *Response
	// Offset is where the file's bytes in w start: the Request's Offset
	// when the server honoured it, else 0.
	Offset int64
	// Size is the file's size, -1 when the server did not say.
	Size int64
	// Written is the number of bytes written to w.
	Written int64
	// Segments is the number of streams that carried the file.
	Segments int
	// Fallback says why fewer streams than asked carried it ("" when as
	// many as asked did): the size was unknown, the server refused ranged
	// requests, the file was too small to split, or the server's
	// connection limit.
	Fallback string
	// Contiguous is the end of the unbroken run of bytes written from
	// Offset on: after a failure, the bytes up to it are the file's and a
	// resume may start there; after success it is the file's end.
	Contiguous int64
}

// Download writes the file r names into w at its own byte positions (a
// resumed download at r.Offset on), over up to segments streams at once,
// as lftp's pget does: FTP REST and RETR on one connection per stream, each
// stream closed once its range is in (RFC 959 §4.1.3: the server answers
// 426 and the connection stays usable); HTTP Range requests (RFC 9110 §14).
//
// The first stream is an ordinary fetch, whose answer gives the size; the
// rest of the file is then cut into equal ranges, at least MinSegment each,
// and never more than the server's learned connection limit (ConnLimit).
// With an unknown size, or a server that answers a ranged request from the
// file's start (FTP REST refused, HTTP 200 to a Range), the download goes on
// as one stream, and Options.Warn says why; so does it under a capture
// (Options.Capture, r.Capture), which records a file from one response.
// Every request passes the
// guard, as Do's do; later streams ask for the URL the first one ended at,
// after any redirect.
//
// The returned Download is never nil. An error is the first stream's error,
// as Do returns it, or the first failure of any stream, after which the
// others are stopped; Contiguous then says how much of the file from Offset
// on is whole. Segments <= 1 means one stream.
func (c *Client) Download(ctx context.Context, r *Request, w io.WriterAt, segments int) (*Download, error) {
	first, err := c.Do(ctx, r)
	if err != nil {
		return &Download{Size: -1, Segments: 1}, err
	}
	if r.Capture != nil {
		// An archive records a whole file from one response.
		segments = 1
	}
	return c.DownloadFrom(ctx, r, first, w, segments)
}

// DownloadFrom is Download for a caller that has made the first fetch
// itself, first = Do(ctx, r), and found a file: first's Body becomes the
// first stream, and first is closed when DownloadFrom returns. A first
// that is not a file is closed and refused with an error of kind
// schemes.ErrUsage.
func (c *Client) DownloadFrom(ctx context.Context, r *Request, first *Response, w io.WriterAt, segments int) (*Download, error) {
	d := &Download{Response: first, Offset: first.Offset, Size: first.Size, Segments: 1, Contiguous: first.Offset}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if first.Kind != schemes.KindFile {
		first.Close()
		return d, c.downloadError(first, schemes.Errorf(schemes.ErrUsage, "not a file: the answer is a %v", first.Kind))
	}
	n, why := c.segmentCount(first, segments)
	if segments > 1 && c.opts.Capture != nil {
		// An archive records a whole file from one response.
		n, why = 1, "a capture records a file from one stream"
	}
	if why != "" {
		d.Fallback = why
		c.warn(fmt.Sprintf("%s: %d stream(s), not %d: %s", first.URL.Redacted(), n, segments, why))
	}
	if n <= 1 {
		s := &stream{lo: first.Offset, hi: -1, pos: first.Offset}
		err := s.copy(first.Body, w)
		first.Close()
		d.Written, d.Contiguous = s.pos-s.lo, s.pos
		if err != nil {
			return d, c.downloadError(first, err)
		}
		return d, nil
	}
	return c.segmented(ctx, cancel, r, first, w, n, d)
}

// segmentCount is how many streams a file of first's size gets when
// segments are asked for, and why fewer, if so.
func (c *Client) segmentCount(first *Response, segments int) (int, string) {
	if segments <= 1 {
		return 1, ""
	}
	if first.Size < 0 {
		return 1, "the server did not give the size"
	}
	if v := first.URL.FTP; v != nil && v.TypeCode == 'a' {
		// RFC 959 §3.1.1.1: TYPE A rewrites line ends on the way, so a
		// position in the stream is not a position in the file.
		return 1, "a ;type=a transfer has no byte positions to cut at"
	}
	rest := first.Size - first.Offset
	n := int(min(int64(segments), max(rest/MinSegment, 1)))
	why := ""
	if n < segments {
		why = fmt.Sprintf("%d bytes make %d segment(s) of at least %d", rest, n, MinSegment)
	}
	u := first.URL
	if limit := c.ConnLimit(u.Scheme, u.Host, u.EffectivePort()); limit > 0 && n > limit {
		n, why = limit, fmt.Sprintf("the server allows %d connections", limit)
	}
	return n, why
}

// segmented runs n streams over first's file: first carries the first
// range, a fetch of its own each of the others.
func (c *Client) segmented(ctx context.Context, cancel context.CancelFunc, r *Request, first *Response, w io.WriterAt, n int, d *Download) (*Download, error) {
	start, size := first.Offset, first.Size
	sr := &segmentRun{c: c, r: r, first: first, w: w, cancel: cancel,
		streams: make([]*stream, n), stops: make([]context.CancelFunc, n), ctxs: make([]context.Context, n)}
	for i := range sr.streams {
		lo := start + (size-start)*int64(i)/int64(n)
		hi := start + (size-start)*int64(i+1)/int64(n)
		sr.streams[i] = &stream{lo: lo, hi: hi, pos: lo}
		sr.ctxs[i], sr.stops[i] = context.WithCancel(ctx)
		defer sr.stops[i]()
	}
	var wg sync.WaitGroup
	for i := range sr.streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sr.run(i)
		}()
	}
	wg.Wait()
	sr.account(d)
	if u := first.URL; sr.takeover == nil && d.Fallback == "" {
		if limit := c.ConnLimit(u.Scheme, u.Host, u.EffectivePort()); limit > 0 && limit < n {
			// Learned during the download: the streams beyond the
			// limit waited for a connection.
			d.Fallback = fmt.Sprintf("the server allows %d connections: %d streams, at most %d at once", limit, n, limit)
			c.warn(fmt.Sprintf("%s: %s", u.Redacted(), d.Fallback))
		}
	}
	if sr.firstErr != nil {
		return d, c.downloadError(first, sr.firstErr)
	}
	if err := ctx.Err(); err != nil {
		return d, c.downloadError(first, err)
	}
	if d.Contiguous != size {
		// Every stream ended without an error, yet a range is missing:
		// the file must not pass as whole.
		return d, c.downloadError(first, schemes.Errorf(schemes.ErrInterrupted, "segments cover %d of %d bytes", d.Contiguous-start, size-start))
	}
	return d, nil
}

// segmentRun is one segmented download under way: its streams, each with
// its own context, and what ended it.
type segmentRun struct {
	c      *Client
	r      *Request
	first  *Response
	w      io.WriterAt
	cancel context.CancelFunc

	streams []*stream
	stops   []context.CancelFunc
	ctxs    []context.Context

	mu       sync.Mutex
	firstErr error
	takeover *stream // the one stream that carries all, after a refusal
}

// fail ends the download with err, the first error only.
func (sr *segmentRun) fail(err error) {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if sr.firstErr == nil {
		sr.firstErr = err
		sr.cancel()
	}
}

// run carries stream i: the first response's body for the first, a
// ranged request of its own for each other.
func (sr *segmentRun) run(i int) {
	s, sctx := sr.streams[i], sr.ctxs[i]
	body := sr.first.Body
	if i == 0 {
		defer sr.first.Close()
	} else {
		resp, err := sr.c.Do(sctx, streamRequest(sr.r, sr.first, s.lo, s.hi-s.lo))
		if err != nil {
			if sctx.Err() == nil {
				sr.fail(err)
			}
			return
		}
		defer resp.Close()
		if resp.Offset != s.lo {
			sr.takeOver(i, resp)
			return
		}
		body = resp.Body
	}
	if err := s.copy(contextReader{sctx, body}, sr.w); err != nil && sctx.Err() == nil {
		sr.fail(err)
	}
}

// takeOver makes stream i, whose server answered from the file's start,
// carry the whole file, and stops the others. Bytes already written are
// written again, the same bytes.
func (sr *segmentRun) takeOver(i int, resp *Response) {
	sr.mu.Lock()
	if sr.takeover != nil || sr.firstErr != nil {
		sr.mu.Unlock()
		return
	}
	whole := &stream{lo: resp.Offset, hi: sr.first.Size, pos: resp.Offset}
	sr.takeover = whole
	sr.mu.Unlock()
	for j, stop := range sr.stops {
		if j != i {
			stop()
		}
	}
	sr.c.warn(fmt.Sprintf("%s: the server does not resume at a byte position; one stream", sr.first.URL.Redacted()))
	if err := whole.copy(resp.Body, sr.w); err != nil {
		sr.fail(err)
	}
}

// account sets what d says of the streams once they have ended: bytes
// written, streams, and how far from the start the file is whole.
func (sr *segmentRun) account(d *Download) {
	spans := make([]span, 0, len(sr.streams)+1)
	for _, s := range sr.streams {
		spans = append(spans, span{s.lo, s.pos})
		d.Written += s.pos - s.lo
	}
	d.Segments = len(sr.streams)
	if t := sr.takeover; t != nil {
		spans = append(spans, span{t.lo, t.pos})
		d.Written += t.pos - t.lo
		d.Segments, d.Fallback = 1, "the server refused ranged requests"
	}
	d.Contiguous = contiguous(sr.first.Offset, spans)
}

// streamRequest asks for length bytes of first's file from byte lo on: by
// the URL the first response came from when it is HTTP (past any
// redirect), else as r asked, whose names are as the caller wrote them
// (Options.RemoteCharset converts them once, on the way out).
func streamRequest(r *Request, first *Response, lo, length int64) *Request {
	// The first fetch gave the warnings this one would repeat.
	q := &Request{URL: r.URL, Parsed: r.Parsed, quiet: true, Call: schemes.Call{Offset: lo, Length: length, SkipMetadata: true}}
	if first.URL != nil && first.URL.HTTP != nil {
		q.URL, q.Parsed = first.URL.String(), first.URL
	}
	return q
}

// stream is one range of a download, [lo, hi), hi -1 when the stream
// reads to its end; pos is the next byte to write.
type stream struct {
	lo, hi, pos int64
}

// copy writes body's bytes into w from s.pos on until s.hi, or until the
// body ends when the end is not known. A body that ends before s.hi is an
// interrupted transfer.
func (s *stream) copy(body io.Reader, w io.WriterAt) error {
	buf := make([]byte, 256<<10)
	for s.hi < 0 || s.pos < s.hi {
		p := buf
		if s.hi >= 0 && int64(len(p)) > s.hi-s.pos {
			p = p[:s.hi-s.pos]
		}
		n, err := body.Read(p)
		if n > 0 {
			if _, werr := w.WriteAt(p[:n], s.pos); werr != nil {
				return werr
			}
			s.pos += int64(n)
		}
		if err == io.EOF {
			if s.hi >= 0 && s.pos < s.hi {
				return schemes.Errorf(schemes.ErrInterrupted, "the stream for bytes %d-%d ended at byte %d", s.lo, s.hi-1, s.pos)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// contextReader stops reading once ctx is done, for a body whose own
// fetch had another context.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// span is a written range of a file, [lo, hi).
type span struct{ lo, hi int64 }

// contiguous returns the end of the unbroken run of spans from start on.
func contiguous(start int64, spans []span) int64 {
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	end := start
	for _, s := range spans {
		if s.lo > end {
			break
		}
		end = max(end, s.hi)
	}
	return end
}

// warn sends a warning to Options.Warn.
func (c *Client) warn(s string) {
	if c.opts.Warn != nil {
		c.opts.Warn(s)
	}
}

// downloadError wraps err as a *Error for first's URL, unless it is one.
func (c *Client) downloadError(first *Response, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	return &Error{Op: "get", URL: security.RedactURL(first.URL.Redacted()), Err: err}
}
