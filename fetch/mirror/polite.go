package mirror

import (
	"context"
	"io"
	"time"

	"golang.org/x/time/rate"

	"github.com/goferurl/gofer/internal/ctxwait"
)

// Politeness towards the server: Options.Wait between one worker's
// requests (each worker keeps to one connection), Options.LimitRate bytes
// per second over all transfers together, and Options.MaxPerHost workers
// at most, whatever Options.Jobs says (a mirror talks to one server).

// DefaultMaxPerHost is Options.MaxPerHost when it is 0.
const DefaultMaxPerHost = 8

// maxBurst bounds one read under Options.LimitRate.
const maxBurst = 64 << 10

// workers is how many workers the run starts: Jobs, capped at MaxPerHost.
func (o Options) workers() int {
	n := o.MaxPerHost
	if n <= 0 {
		n = DefaultMaxPerHost
	}
	return min(o.Jobs, n)
}

// pacer spaces one worker's requests by Options.Wait.
type pacer struct{ last time.Time }

type pacerKey struct{}

// pace waits until Options.Wait has passed since this worker's last
// request (the worker's pacer travels in ctx); false if ctx ended first.
func (e *engine) pace(ctx context.Context) bool {
	p, _ := ctx.Value(pacerKey{}).(*pacer)
	if p == nil || e.opts.Wait <= 0 {
		return true
	}
	if d := time.Until(p.last.Add(e.opts.Wait)); !p.last.IsZero() && d > 0 && !ctxwait.For(ctx, d) {
		return false
	}
	p.last = time.Now()
	return true
}

// newLimiter is the run's shared byte budget (nil: no limit).
func newLimiter(bytesPerSecond int64) *rate.Limiter {
	if bytesPerSecond <= 0 {
		return nil
	}
	burst := int(min(bytesPerSecond, maxBurst))
	return rate.NewLimiter(rate.Limit(bytesPerSecond), burst)
}

// throttled reads a body within the run's byte budget. It holds ctx's
// done channel, not ctx, to stop waiting when the run ends.
type throttled struct {
	r    io.Reader
	lim  *rate.Limiter
	done <-chan struct{}
}

// throttle wraps body in the run's byte budget, when there is one.
func (e *engine) throttle(ctx context.Context, body io.ReadCloser) io.ReadCloser {
	if e.limiter == nil || body == nil {
		return body
	}
	return struct {
		io.Reader
		io.Closer
	}{&throttled{r: body, lim: e.limiter, done: ctx.Done()}, body}
}

func (t *throttled) Read(p []byte) (int, error) {
	if len(p) > t.lim.Burst() {
		p = p[:t.lim.Burst()]
	}
	n, err := t.r.Read(p)
	if n > 0 {
		res := t.lim.ReserveN(time.Now(), n)
		if d := res.Delay(); d > 0 {
			tm := time.NewTimer(d)
			select {
			case <-t.done:
				tm.Stop()
				res.Cancel()
			case <-tm.C:
			}
		}
	}
	return n, err
}
