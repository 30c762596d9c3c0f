package fetch

import (
	"io"
	"sync"

	"github.com/goferurl/gofer/schemes"
)

// limitBody fails a body that grows past limit bytes with an ErrTooLarge
// error and closes the underlying stream there, so that the server stops
// sending; the bytes up to the limit are delivered.
type limitBody struct {
	rc        io.ReadCloser
	limit     int64
	remaining int64
	err       error
	closeOnce sync.Once
	closeErr  error
}

func newLimitBody(rc io.ReadCloser, limit int64) *limitBody {
	return &limitBody{rc: rc, limit: limit, remaining: limit}
}

func tooLarge(limit int64) error {
	return schemes.Errorf(schemes.ErrTooLarge, "size limit of %d bytes exceeded", limit)
}

func (l *limitBody) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	// Ask for one byte more than may pass, to learn whether the body goes on.
	if int64(len(p)) > l.remaining+1 {
		p = p[:l.remaining+1]
	}
	n, err := l.rc.Read(p)
	if int64(n) > l.remaining {
		n = int(l.remaining)
		l.remaining = 0
		l.err = tooLarge(l.limit)
		l.Close()
		return n, l.err
	}
	l.remaining -= int64(n)
	return n, err
}

func (l *limitBody) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.rc.Close() })
	return l.closeErr
}

// limit applies Options.MaxBytes to a file response: a size known to be too
// large fails at once, an unknown one when the body passes the limit.
func (c *Client) limit(resp *Response) (*Response, error) {
	max := c.opts.MaxBytes
	if max <= 0 || resp.Kind != schemes.KindFile || resp.Body == nil {
		return resp, nil
	}
	if err := schemes.CheckSize(resp.Name, max, resp.Size, resp.Offset); err != nil {
		resp.Close()
		return nil, err
	}
	resp.Body = newLimitBody(resp.Body, max)
	return resp, nil
}
