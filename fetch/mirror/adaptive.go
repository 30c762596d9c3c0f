package mirror

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// DefaultJobs is where the streams start when Options.Jobs is 0.
const DefaultJobs = 4

// minWindow is the shortest measuring window; gain is the rise in
// throughput an added stream must bring to stay.
const (
	minWindow = 300 * time.Millisecond
	gain      = 1.10
)

// HostStreams is what the mirror chose for one server's connections, and
// why (Summary.Streams): the start, the count at the end and the most used
// at once, the ceiling, the server's limit, the first reply's time, the
// throughput, and the reason.
//
// With Options.Jobs set, the mirror keeps to min(Jobs, MaxPerHost) streams
// (a fixed choice), fewer only once the server refuses more. With Jobs 0,
// and neither Wait nor LimitRate (which ask for politeness, not speed), the
// mirror chooses, from what it measures, by one rule:
//
//   - it starts with min(DefaultJobs, MaxPerHost) streams, or fewer when the
//     server's connection limit is known from an earlier run;
//   - it measures in windows, each at least 300 ms and twice the
//     time the first reply took (the round trips a request costs), and
//     holding at least two finished items per stream: items finished a
//     second and bytes received a second;
//   - after the first window it adds one stream; it keeps adding one a
//     window while the window after an addition shows at least 10% more
//     items or bytes a second than the window before it, up to MaxPerHost;
//     an addition that gains less is taken back and the count is final;
//   - a server that refuses a connection (FTP 421 or 530 for too many,
//     learned by the fetcher: fetch.Client.ConnLimit) caps the count at its
//     limit at once, whatever the rule had reached, and the count is final.
type HostStreams struct {
	Host string `json:"host"`
	// Adaptive is true when the mirror chose the count (Options.Jobs 0).
	Adaptive bool `json:"adaptive"`
	// Start is the count it began with, Used the count at the end, Peak
	// the most streams that ran at once, Ceiling the most it could have
	// (MaxPerHost, or min(Jobs, MaxPerHost) when fixed).
	Start   int `json:"start"`
	Used    int `json:"used"`
	Peak    int `json:"peak"`
	Ceiling int `json:"ceiling"`
	// ServerLimit is the server's connection limit when it refused more
	// (0: it refused none).
	ServerLimit int `json:"server_limit,omitempty"`
	// FirstReplyMS is how long the first reply took, in milliseconds
	// (connection, login and request: the round trips of a first request).
	FirstReplyMS float64 `json:"first_reply_ms"`
	// ItemsPerSecond and BytesPerSecond are the whole run's throughput;
	// BytesPerStream is BytesPerSecond over Used.
	ItemsPerSecond float64 `json:"items_per_second"`
	BytesPerSecond float64 `json:"bytes_per_second"`
	BytesPerStream float64 `json:"bytes_per_stream"`
	// Reason says why Used is what it is; Steps are the rule's changes in
	// order, each with its reason.
	Reason string   `json:"reason"`
	Steps  []string `json:"steps,omitempty"`
}

// measure is one window's measurement.
type measure struct {
	streams int
	items   int64
	bytes   int64
	dur     time.Duration
	limit   int // the server's connection limit known at the window's end (0: none)
}

func (m measure) itemRate() float64 { return float64(m.items) / m.dur.Seconds() }
func (m measure) byteRate() float64 { return float64(m.bytes) / m.dur.Seconds() }

// streamRule is the rule above, free of clocks and goroutines: observe
// takes one window and says the count for the next.
type streamRule struct {
	target, ceiling int
	adaptive        bool
	final           bool
	before          *measure // the window before the last addition
	limit           int
	why             string
	steps           []string
}

func newStreamRule(start, ceiling int, adaptive bool) *streamRule {
	r := &streamRule{target: start, ceiling: ceiling, adaptive: adaptive}
	switch {
	case !adaptive:
		r.why = fmt.Sprintf("fixed: min(jobs, max per host) = %d", start)
	case start >= ceiling:
		r.why = fmt.Sprintf("started at the ceiling, %d", ceiling)
	default:
		r.why = fmt.Sprintf("started at %d; the run ended before a measurement", start)
	}
	return r
}

// set changes the count and records why.
func (r *streamRule) set(n int, why string) {
	r.steps = append(r.steps, fmt.Sprintf("%d -> %d: %s", r.target, n, why))
	r.target, r.why = n, why
}

// observe applies one window's measurement and returns the count for the next.
func (r *streamRule) observe(m measure) int {
	if m.limit > 0 && (r.limit == 0 || m.limit < r.limit) {
		r.limit = m.limit
		r.ceiling = min(r.ceiling, m.limit)
		why := fmt.Sprintf("the server allows %d connections", m.limit)
		if r.target > m.limit {
			r.set(m.limit, why)
		} else {
			r.why = why + fmt.Sprintf("; %d in use", r.target)
		}
		r.final = true
	}
	if !r.adaptive || r.final {
		return r.target
	}
	if r.before == nil {
		if r.target >= r.ceiling {
			r.final = true
			r.why = fmt.Sprintf("at the ceiling, %d", r.ceiling)
			return r.target
		}
		r.before = &m
		r.set(r.target+1, fmt.Sprintf("trying %d: %.1f items/s, %.0f bytes/s with %d", r.target+1, m.itemRate(), m.byteRate(), m.streams))
		return r.target
	}
	b := r.before
	if m.itemRate() >= gain*b.itemRate() || m.byteRate() >= gain*b.byteRate() {
		rise := 100 * (max(m.itemRate()/b.itemRate(), m.byteRate()/b.byteRate()) - 1)
		if r.target >= r.ceiling {
			r.final = true
			r.why = fmt.Sprintf("%d streams raised throughput %.0f%% over %d; at the ceiling", m.streams, rise, b.streams)
			return r.target
		}
		r.before = &m
		r.set(r.target+1, fmt.Sprintf("%d streams raised throughput %.0f%% over %d; trying %d", m.streams, rise, b.streams, r.target+1))
		return r.target
	}
	r.set(b.streams, fmt.Sprintf("%d streams gained less than %.0f%% over %d (%.1f against %.1f items/s, %.0f against %.0f bytes/s)",
		m.streams, 100*(gain-1), b.streams, m.itemRate(), b.itemRate(), m.byteRate(), b.byteRate()))
	r.final = true
	return r.target
}

// streamGate lets at most the rule's count of workers work at once, and
// measures the windows the rule is fed.
type streamGate struct {
	rule    *streamRule
	start   int
	ceiling int
	window  time.Duration
	bytes   func() int64 // body bytes received so far
	limit   func() int   // the server's connection limit, 0 when none is known
	now     func() time.Time
	// firstReply is how long the run's first request took.
	firstReply time.Duration
	// workers is how many workers the run started: the most a ceiling
	// set while it runs may let work.
	workers int

	mu       sync.Mutex
	active   int
	peak     int
	wake     chan struct{} // closed and replaced when a worker may go on
	finished bool

	began, winStart time.Time
	winItems        int64
	winBytes        int64 // bytes() when the window began
	items           int64
}

func newStreamGate(rule *streamRule, window time.Duration, bytes func() int64, limit func() int, now func() time.Time) *streamGate {
	t := now()
	return &streamGate{rule: rule, start: rule.target, ceiling: rule.ceiling, window: max(window, minWindow), bytes: bytes, limit: limit, now: now,
		wake: make(chan struct{}), began: t, winStart: t, winBytes: bytes()}
}

// acquire waits for the worker's turn to take a job; false when the run
// is over or ctx ended.
func (g *streamGate) acquire(ctx context.Context) bool {
	for {
		g.mu.Lock()
		if g.finished {
			g.mu.Unlock()
			return false
		}
		if g.active < g.rule.target {
			g.active++
			g.peak = max(g.peak, g.active)
			g.mu.Unlock()
			return true
		}
		wake := g.wake
		g.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return false
		}
	}
}

// release ends a worker's turn; worked says it finished a job (not just
// found the run over). A window that is long enough goes to the rule.
func (g *streamGate) release(worked bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	if worked {
		g.items++
		g.winItems++
	}
	if limit := g.limit(); limit > 0 && limit != g.rule.limit {
		g.observe()
	} else if now := g.now(); now.Sub(g.winStart) >= g.window && g.winItems >= 2*int64(g.rule.target) {
		g.observe()
	}
	// A turn given back, or a count grown, lets a waiting worker go on.
	g.signal()
}

// observe hands the rule the window so far and starts the next. g.mu is held.
func (g *streamGate) observe() {
	now, b := g.now(), g.bytes()
	g.rule.observe(measure{streams: g.rule.target, items: g.winItems, bytes: b - g.winBytes,
		dur: max(now.Sub(g.winStart), time.Millisecond), limit: g.limit()})
	g.winStart, g.winItems, g.winBytes = now, 0, b
}

// signal wakes the waiting workers. g.mu is held.
func (g *streamGate) signal() {
	close(g.wake)
	g.wake = make(chan struct{})
}

// finish ends the run for every waiting worker.
func (g *streamGate) finish() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.finished = true
	g.signal()
}

// report is the summary's account of the choice.
func (g *streamGate) report(host string) HostStreams {
	g.mu.Lock()
	defer g.mu.Unlock()
	if limit := g.limit(); limit > 0 && limit != g.rule.limit {
		g.rule.observe(measure{streams: g.rule.target, dur: time.Millisecond, limit: limit})
	}
	secs := max(g.now().Sub(g.began), time.Millisecond).Seconds()
	h := HostStreams{
		Host: host, Adaptive: g.rule.adaptive, Start: g.start, Used: g.rule.target, Peak: g.peak,
		Ceiling: g.ceiling, ServerLimit: g.rule.limit,
		FirstReplyMS:   float64(g.firstReply.Microseconds()) / 1000,
		ItemsPerSecond: float64(g.items) / secs, BytesPerSecond: float64(g.bytes()) / secs,
		Reason: g.rule.why, Steps: g.rule.steps,
	}
	h.BytesPerStream = h.BytesPerSecond / float64(max(h.Used, 1))
	return h
}

// maxPerHost is MaxPerHost, or its default.
func (o Options) maxPerHost() int {
	if o.MaxPerHost <= 0 {
		return DefaultMaxPerHost
	}
	return o.MaxPerHost
}

// newStreams makes the run's gate for u's server: start streams of at most
// ceiling, chosen by the rule when adaptive; firstReply is how long the
// first request took.
func (e *engine) newStreams(u *schemes.URL, start, ceiling int, adaptive bool, firstReply time.Duration) *streamGate {
	limit := func() int { return e.c.ConnLimit(u.Scheme, u.Host, u.EffectivePort()) }
	rule := newStreamRule(start, ceiling, adaptive)
	if l := limit(); l > 0 {
		// Learned before (loadConnLimit): the run starts within it.
		rule.observe(measure{streams: start, dur: time.Millisecond, limit: l})
	}
	g := newStreamGate(rule, 2*firstReply, func() int64 { return e.bytes.Load() }, limit, time.Now)
	g.firstReply = firstReply
	return g
}

// reportStreams puts the gate's account in the summary.
func (e *engine) reportStreams(u *schemes.URL) {
	if e.streams == nil {
		return
	}
	h := e.streams.report(net.JoinHostPort(u.Host, strconv.Itoa(u.EffectivePort())))
	e.mu.Lock()
	e.sum.Streams = append(e.sum.Streams, h)
	e.mu.Unlock()
}
