package mirror

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/internal/ctxwait"
	"github.com/goferurl/gofer/schemes"
)

// Retries. A transient failure (an FTP 4yz reply, a connection reset or
// refused, a timeout, an HTTP 5xx or 429) is tried again after a wait
// that doubles each time; a permanent one (FTP 550, HTTP 404, a refused
// login) is not. Options.Retries bounds the tries again per item that
// make no progress.

// DefaultRetries is Options.Retries when it is 0.
const DefaultRetries = 3

// Waits between tries: the first, and the most any wait grows to.
const (
	defaultRetryWait = time.Second
	maxRetryWait     = 30 * time.Second
)

// retrier counts one item's tries again.
type retrier struct {
	e           *engine
	n           int
	wait, first time.Duration
}

func (e *engine) retrier() *retrier {
	w := e.opts.RetryWait
	if w <= 0 {
		w = defaultRetryWait
	}
	return &retrier{e: e, wait: w, first: w}
}

// progressed says the try that failed last moved the item forward (a
// resumable transfer kept bytes it did not have): the bound and the wait
// start over, so that a link that breaks every few MiB still brings a
// large file in, while one that breaks before any progress is given up
// after Options.Retries. Progress is bounded by the file's size, so the
// tries are too.
func (r *retrier) progressed() {
	r.n, r.wait = 0, r.first
}

// maxRetries is the run's bound on tries again per item.
func (e *engine) maxRetries() int { return bound(e.opts.Retries, DefaultRetries) }

// again reports whether the item that failed with err is to be tried once
// more, after waiting its turn; false when err is permanent, the tries are
// spent or ctx ended.
func (r *retrier) again(ctx context.Context, err error, url string) bool {
	if ctx.Err() != nil || r.n >= r.e.maxRetries() || !schemes.Transient(err) {
		return false
	}
	r.n++
	r.e.countRetry(err)
	r.e.emit(Event{Status: StatusRetry, URL: url, Err: err}, nil)
	r.e.logf("retry %d of %d in %v: %s: %v", r.n, r.e.maxRetries(), r.wait, url, err)
	if !ctxwait.For(ctx, r.wait) {
		return false
	}
	r.wait = min(2*r.wait, maxRetryWait)
	return true
}

// retryKind names what a transient failure was, for
// Summary.RetriesByKind.
func retryKind(err error) string {
	var re *schemes.ReplyError
	switch {
	case errors.As(err, &re):
		return "reply"
	case errors.Is(err, schemes.ErrTimeout):
		return "timeout"
	case errors.Is(err, schemes.ErrConnect):
		return "connect"
	}
	return "interrupted"
}

// countRetry counts one try again after err.
func (e *engine) countRetry(err error) {
	k := retryKind(err)
	e.mu.Lock()
	e.sum.Retries++
	if e.sum.RetriesByKind == nil {
		e.sum.RetriesByKind = map[string]int64{}
	}
	e.sum.RetriesByKind[k]++
	e.mu.Unlock()
}

// get is Client.Do, tried again (through r, or a retrier of its own when
// r is nil) while it fails transiently.
func (e *engine) get(ctx context.Context, r *retrier, req *fetch.Request) (*fetch.Response, error) {
	if r == nil {
		r = e.retrier()
	}
	for {
		try := *req
		resp, err := e.paced(ctx, &try)
		if err == nil || !r.again(ctx, err, req.URL) {
			return resp, err
		}
	}
}

// paced is Client.Do after the worker's Options.Wait, with the body in the
// run's byte budget.
func (e *engine) paced(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if !e.pace(ctx) {
		return nil, fmt.Errorf("mirror %s: %w (%w)", req.URL, schemes.ErrInterrupted, context.Cause(ctx))
	}
	resp, err := e.c.Do(ctx, req)
	if err == nil && resp.Body != nil {
		resp.Body = e.throttle(ctx, resp.Body)
	}
	return resp, err
}
