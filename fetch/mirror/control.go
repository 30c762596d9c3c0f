package mirror

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/goferurl/gofer/schemes"
)

// Watching and steering a run. Options.Events receives each item's
// outcome as it happens; Options.Progress a snapshot several times a
// second; Options.Control, made by NewControl, lets another goroutine (a
// dashboard, an API) pause and resume the run, add and take back filter
// rules, and change the byte rate and the connections per host while the
// run goes on. Rules added while a run goes on are kept in its state, so
// that the next run of the same DIR honours them too.

// Item statuses (Event.Status).
const (
	StatusDone     = "done"     // the file is mirrored (Event.Change says how)
	StatusFailed   = "failed"   // the item could not be mirrored
	StatusRetry    = "retry"    // a transient failure: the item is tried again
	StatusRefused  = "refused"  // a remote name the safe-name rule kept off disk
	StatusExcluded = "excluded" // the filters leave the item out
)

// Event is one item's outcome (Options.Events). Every file the summary
// counts new, updated or unchanged has one StatusDone event, and Bytes
// over the run's StatusDone and StatusFailed events add up to
// Summary.Bytes.
type Event struct {
	Status string
	// Change is, for StatusDone, "new", "updated" or "unchanged".
	Change string
	URL    string
	Path   string // local path below DIR, '/'-separated
	// Bytes is what the item's transfers received in this run, every try
	// counted; Duration how long the item took, retries included.
	Bytes    int64
	Duration time.Duration
	// Err says why, for StatusFailed, StatusRetry and StatusRefused; it
	// keeps the error's kind (schemes.ErrConnect, ...) for errors.Is.
	Err  error
	Time time.Time
}

// MaxSteeredPerHost is the most connections per host a Control may set.
const MaxSteeredPerHost = 32

// Control steers a running mirror (Options.Control). Its methods may be
// called from any goroutine, before the run starts or while it runs; one
// Control steers one run.
type Control struct {
	mu      sync.Mutex
	paused  bool
	resumed chan struct{} // closed when the run may go on
	e       *engine
	// pending holds rules added before the run started.
	pending []Filter
}

// NewControl returns a Control for one run, not paused.
func NewControl() *Control {
	c := &Control{resumed: make(chan struct{})}
	close(c.resumed)
	return c
}

// Pause stops the run from starting new items; those under way end as
// they would.
func (c *Control) Pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.paused {
		c.paused = true
		c.resumed = make(chan struct{})
	}
}

// Resume lets a paused run go on.
func (c *Control) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		c.paused = false
		close(c.resumed)
	}
}

// Paused reports whether the run is paused.
func (c *Control) Paused() bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused
}

// wait blocks while the run is paused; false when ctx ended first.
func (c *Control) wait(ctx context.Context) bool {
	if c == nil {
		return ctx.Err() == nil
	}
	c.mu.Lock()
	ch := c.resumed
	c.mu.Unlock()
	select {
	case <-ch:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}

// AddFilter adds a rule after the run's others (the last rule that
// matches decides, so an added rule wins). It applies to what is queued as
// to what comes, and is kept in the run's state for the runs after it.
func (c *Control) AddFilter(f Filter) error {
	if _, err := compileFilters([]Filter{f}); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.e == nil {
		c.pending = append(c.pending, f)
		return nil
	}
	c.e.addFilter(f)
	return nil
}

// RemoveFilter takes back the last rule equal to f, whether the run began
// with it or it was added; false when there is none.
func (c *Control) RemoveFilter(f Filter) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.e == nil {
		if i := slices.Index(c.pending, f); i >= 0 {
			c.pending = slices.Delete(c.pending, i, i+1)
			return true
		}
		return false
	}
	return c.e.removeFilter(f)
}

// Filters returns the run's rules in order.
func (c *Control) Filters() []Filter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.e == nil {
		return slices.Clone(c.pending)
	}
	return slices.Clone(*c.e.filt.Load())
}

// SetLimitRate changes the run's byte budget: at most n bytes a second
// over all transfers, 0 for no bound. It fails before the run starts.
func (c *Control) SetLimitRate(n int64) error {
	if n < 0 {
		return schemes.Errorf(schemes.ErrUsage, "limit rate %d: want 0 or more bytes a second", n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.e == nil || c.e.limiter == nil {
		return fmt.Errorf("mirror: no run to steer")
	}
	if n == 0 {
		c.e.limiter.SetLimit(rate.Inf)
		c.e.limiter.SetBurst(maxBurst)
	} else {
		c.e.limiter.SetLimit(rate.Limit(n))
		c.e.limiter.SetBurst(int(min(n, maxBurst)))
	}
	c.e.rateNow.Store(n)
	return nil
}

// SetMaxPerHost changes how many connections the run may hold to the
// server (1 to MaxSteeredPerHost); a server's learned limit still caps it.
func (c *Control) SetMaxPerHost(n int) error {
	if n < 1 || n > MaxSteeredPerHost {
		return schemes.Errorf(schemes.ErrUsage, "max per host %d: want 1 to %d", n, MaxSteeredPerHost)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.e == nil || c.e.streams == nil {
		return fmt.Errorf("mirror: no run to steer")
	}
	c.e.perHostNow.Store(int64(n))
	c.e.streams.setCeiling(n, c.e.jobsAsked)
	return nil
}

// attach makes c steer e; rules added before the run join its own.
func (c *Control) attach(e *engine) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.e = e
	for _, f := range c.pending {
		e.addFilter(f)
	}
	c.pending = nil
}

// detach ends c's hold on the run; what it sets later has no effect.
func (c *Control) detach() {
	c.mu.Lock()
	c.e = nil
	c.mu.Unlock()
}

// keyFilters is where the state keeps the rules added while runs went on.
const keyFilters = "filters"

// addFilter appends f to the run's rules and to those the state keeps.
func (e *engine) addFilter(f Filter) {
	e.filtMu.Lock()
	defer e.filtMu.Unlock()
	fs := append(slices.Clone(*e.filt.Load()), f)
	e.filt.Store(&fs)
	e.kept = append(e.kept, f)
	e.st.write(bucketMeta, keyFilters, e.kept)
	e.logf("rule added: %s", f)
}

// removeFilter takes the last rule equal to f out of the run's rules and
// out of those the state keeps.
func (e *engine) removeFilter(f Filter) bool {
	e.filtMu.Lock()
	defer e.filtMu.Unlock()
	cur := *e.filt.Load()
	i := lastIndex(cur, f)
	if i < 0 {
		return false
	}
	fs := slices.Delete(slices.Clone(cur), i, i+1)
	e.filt.Store(&fs)
	if k := lastIndex(e.kept, f); k >= 0 {
		e.kept = slices.Delete(e.kept, k, k+1)
		e.st.write(bucketMeta, keyFilters, e.kept)
	}
	e.logf("rule taken back: %s", f)
	return true
}

func lastIndex(fs []Filter, f Filter) int {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i] == f {
			return i
		}
	}
	return -1
}

// loadKeptFilters appends the rules earlier runs added while they went on
// (a rule the command line gives already is not repeated).
func (e *engine) loadKeptFilters(fs filters) filters {
	kept, _ := getJSON[[]Filter](e.st, bucketMeta, keyFilters)
	e.kept = kept
	for _, f := range kept {
		if !slices.Contains(fs, f) {
			fs = append(fs, f)
		}
	}
	return fs
}

// String is the rule as "exclude GLOB" or "include GLOB".
func (f Filter) String() string {
	if f.Exclude {
		return "exclude " + f.Glob
	}
	return "include " + f.Glob
}

// setCeiling changes the most streams the gate lets work at once: a
// fixed choice becomes min(jobs, n), an adaptive one keeps its count
// within n; a server's learned limit still caps either.
func (g *streamGate) setCeiling(n, jobs int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n = min(n, g.workers)
	if g.rule.limit > 0 {
		n = min(n, g.rule.limit)
	}
	g.ceiling, g.rule.ceiling = n, n
	want := g.rule.target
	if !g.rule.adaptive && jobs > 0 {
		want = min(jobs, n)
	}
	if want > n {
		want = n
	}
	if want != g.rule.target {
		g.rule.set(want, fmt.Sprintf("max per host set to %d while running", n))
	}
	g.signal()
}

// itemTrack follows one item: when it began and what its transfers
// received.
type itemTrack struct {
	start time.Time
	bytes atomic.Int64
}

// track starts following an item.
func (e *engine) track() *itemTrack {
	if e.opts.Events == nil {
		return nil
	}
	return &itemTrack{start: time.Now()}
}

// add counts n bytes the item received (it may be nil).
func (t *itemTrack) add(n int64) {
	if t != nil {
		t.bytes.Add(n)
	}
}

// emit sends one event to Options.Events; calls are serialised.
func (e *engine) emit(ev Event, t *itemTrack) {
	if e.opts.Events == nil {
		return
	}
	ev.Time = time.Now()
	if t != nil {
		ev.Bytes = t.bytes.Load()
		ev.Duration = ev.Time.Sub(t.start)
	}
	e.logMu.Lock()
	defer e.logMu.Unlock()
	e.opts.Events(ev)
}

// HostProgress is one server's connections in a Progress snapshot.
type HostProgress struct {
	// Streams is how many connections are at work; Limit the most the run
	// lets work at once (what the rule chose within MaxPerHost);
	// ServerLimit the server's own limit once it refused more (0 while
	// unknown).
	Streams     int `json:"streams"`
	Limit       int `json:"limit"`
	ServerLimit int `json:"server_limit"`
}

// fillProgress adds what a dashboard shows beyond the counts.
func (e *engine) fillProgress(p *Progress) {
	p.Queued = int64(e.q.waiting())
	p.Listing = e.listing.Load() > 0 || e.q.waitingLists() > 0
	p.Paused = e.opts.Control.Paused()
	p.LimitRate = e.rateNow.Load()
	e.mu.Lock()
	p.Failed, p.Retries, p.Excluded = e.sum.Failed, e.sum.Retries, e.sum.Excluded
	p.New, p.Updated, p.Unchanged = e.sum.New, e.sum.Updated, e.sum.Unchanged
	if n := len(e.sum.Failures); n > 0 {
		f := e.sum.Failures[n-1]
		p.LastFailure = &f
	}
	busy := 0
	for _, w := range e.workers {
		if w != "" {
			busy++
		}
	}
	e.mu.Unlock()
	if e.site.host != "" {
		h := HostProgress{Streams: busy}
		if g := e.streams; g != nil {
			g.mu.Lock()
			h.Limit, h.ServerLimit = g.rule.target, g.rule.limit
			g.mu.Unlock()
		}
		p.Hosts = map[string]HostProgress{net.JoinHostPort(e.site.host, strconv.Itoa(e.site.port)): h}
	}
	p.Head = e.q.head(maxHead)
}

// maxHead is how many queued items a Progress names.
const maxHead = 10
