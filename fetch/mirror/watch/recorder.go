// Package watch follows a running mirror (package mirror) and shows it:
// as JSON lines, one object a line, for programs; as a few lines redrawn
// in place on a terminal; and as a dashboard over HTTP (RFC 9110) for a
// browser, with charts drawn on the server as SVG, updates pushed as
// server-sent events (the HTML standard's text/event-stream), and the
// forms and API that steer the run through a mirror.Control. When a run
// ends, the dashboard's final page is kept as a report.
//
// A Recorder is fed by the mirror's Options.Events and Options.Progress
// and told when the run starts and ends. The JSON lines are a contract:
// every object has an "event" field, one of
//
//	start    {"job","url","dir","settings"}
//	item     {"status","change","url","path","bytes","ms","error","exit"}
//	stats    {"done","failed","queued","bytes","rate","eta","hosts",...}
//	warning  {"message"}
//	end      the summary's fields (mirror.Summary as --json writes it), "exit"
//
// and "time" (RFC 3339, UTC). An item's status is done, failed, retry,
// refused or excluded; its path is relative to DIR; its exit the code a
// failure of its kind gives. A stats line comes at least once a second;
// its rate is bytes a second over the last seconds, its eta seconds or
// null while the queue is still growing; its hosts are keyed "host:port",
// each with "streams" in use and "limit" (null until the server's limit is
// learned). The bytes of the done items add up to the end's bytes when
// nothing failed after receiving some. Fields are added, never renamed.
package watch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/fetch/mirror"
)

// Config says what a Recorder records and where its lines go.
type Config struct {
	Job, URL, Dir string
	// Settings are the run's settings, as the start line shows them.
	Settings map[string]any
	// Lines, if set, receives the JSON lines.
	Lines io.Writer
	// Exit gives the exit code a failure's error stands for.
	Exit func(error) int
	// Terminal, if set, is a terminal the status is drawn on.
	Terminal io.Writer
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Recorder follows one run. Its methods may be called from any goroutine.
type Recorder struct {
	cfg   Config
	start time.Time

	mu        sync.Mutex
	last      mirror.Progress
	stats     Stats
	lastStats time.Time
	series    []Point
	step      time.Duration // the series' spacing
	window    []sample      // the last seconds, for the rate
	types     map[string]*Count
	sizes     [numSizes]Count
	failures  []Failure // the latest, newest last
	events    int64
	ended     bool
	endLine   []byte
	summary   *mirror.Summary
	subs      map[chan []byte]struct{}
	term      *terminal
}

// Stats is the latest "stats" line's content.
type Stats struct {
	Done     int64                `json:"done"`
	Failed   int64                `json:"failed"`
	Queued   int64                `json:"queued"`
	Bytes    int64                `json:"bytes"`
	Rate     float64              `json:"rate"`
	ETA      *float64             `json:"eta"`
	Hosts    map[string]HostStats `json:"hosts"`
	Excluded int64                `json:"excluded"`
	Retries  int64                `json:"retries"`
	Paused   bool                 `json:"paused"`
	Total    int64                `json:"files_total"`
	Elapsed  float64              `json:"elapsed"`
	Changes  map[string]int64     `json:"changes"`
	Limits   map[string]any       `json:"settings"`
	Head     []string             `json:"queue_head"`
	Last     *Failure             `json:"last_failure"`
}

// HostStats is one server's connections in a stats line.
type HostStats struct {
	Streams int  `json:"streams"`
	Limit   *int `json:"limit"`
	// Allowed is how many the run lets work at once now.
	Allowed int `json:"allowed"`
}

// Point is one step of the run's history.
type Point struct {
	T      float64 `json:"t"` // seconds since the start
	Done   int64   `json:"done"`
	Failed int64   `json:"failed"`
	Bytes  int64   `json:"bytes"`
	Rate   float64 `json:"rate"`
}

// Count is items and their bytes.
type Count struct {
	Items int64 `json:"items"`
	Bytes int64 `json:"bytes"`
}

// Failure is a recent failure.
type Failure struct {
	Time  time.Time `json:"time"`
	URL   string    `json:"url"`
	Path  string    `json:"path"`
	Error string    `json:"error"`
}

type sample struct {
	t     time.Time
	bytes int64
	done  int64
}

// sizeBuckets are the upper bounds of the size classes; the last class
// holds the rest.
var sizeBuckets = [numSizes - 1]int64{1 << 10, 64 << 10, 1 << 20, 64 << 20}

// numSizes is the number of size classes.
const numSizes = 5

// sizeNames name the size classes.
var sizeNames = [numSizes]string{"under 1 KiB", "1 to 64 KiB", "64 KiB to 1 MiB", "1 to 64 MiB", "64 MiB or more"}

// Limits on what a Recorder holds, whatever the run's length.
const (
	maxPoints   = 600
	maxFailures = 20
	maxTypes    = 200
	rateWindow  = 3 * time.Second
)

// New returns a Recorder for one run.
func New(cfg Config) *Recorder {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Recorder{cfg: cfg, start: cfg.Now(), step: time.Second, types: map[string]*Count{}, subs: map[chan []byte]struct{}{}}
	if cfg.Terminal != nil {
		r.term = &terminal{w: cfg.Terminal}
	}
	return r
}

// Start writes the start line.
func (r *Recorder) Start() {
	r.line(map[string]any{"event": "start", "job": r.cfg.Job, "url": r.cfg.URL, "dir": r.cfg.Dir, "settings": r.cfg.Settings})
}

// Event records one item's outcome (mirror.Options.Events).
func (r *Recorder) Event(ev mirror.Event) {
	obj := map[string]any{"event": "item", "status": ev.Status, "url": ev.URL, "path": ev.Path,
		"bytes": ev.Bytes, "ms": ev.Duration.Milliseconds()}
	if ev.Change != "" {
		obj["change"] = ev.Change
	}
	if ev.Err != nil {
		obj["error"] = oneLine(ev.Err.Error())
		if r.cfg.Exit != nil && ev.Status == mirror.StatusFailed {
			obj["exit"] = r.cfg.Exit(ev.Err)
		}
	}
	r.mu.Lock()
	r.events++
	switch ev.Status {
	case mirror.StatusDone:
		if ev.Change != "unchanged" || ev.Bytes > 0 {
			c := r.typeCount(ev.Path)
			c.Items++
			c.Bytes += ev.Bytes
			b := &r.sizes[sizeClass(ev.Bytes)]
			b.Items++
			b.Bytes += ev.Bytes
		}
	case mirror.StatusFailed:
		r.failures = append(r.failures, Failure{Time: ev.Time.UTC(), URL: ev.URL, Path: ev.Path, Error: oneLine(errText(ev.Err))})
		if len(r.failures) > maxFailures {
			r.failures = slices.Delete(r.failures, 0, len(r.failures)-maxFailures)
		}
	}
	r.mu.Unlock()
	r.line(obj)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// typeCount is the count of the type path's name says (its extension).
// r.mu is held.
func (r *Recorder) typeCount(p string) *Count {
	ext := strings.ToLower(path.Ext(p))
	if ext == "" || len(ext) > 12 {
		ext = "(none)"
	}
	if c, ok := r.types[ext]; ok {
		return c
	}
	if len(r.types) >= maxTypes {
		ext = "(other)"
		if c, ok := r.types[ext]; ok {
			return c
		}
	}
	c := &Count{}
	r.types[ext] = c
	return c
}

func sizeClass(n int64) int {
	for i, b := range sizeBuckets {
		if n < b {
			return i
		}
	}
	return len(sizeBuckets)
}

// Progress takes a snapshot (mirror.Options.Progress): the terminal is
// redrawn, and a stats line written once a second.
func (r *Recorder) Progress(p mirror.Progress) {
	now := r.cfg.Now()
	r.mu.Lock()
	r.last = p
	r.stats = r.statsOf(p, now)
	r.record(now)
	due := now.Sub(r.lastStats) >= time.Second || r.lastStats.IsZero()
	if due {
		r.lastStats = now
	}
	st := r.stats
	if r.term != nil {
		r.term.draw(st, now)
	}
	r.mu.Unlock()
	if due {
		r.statsLine(st, now)
	}
}

// Flush writes a stats line now, whatever the time since the last.
func (r *Recorder) Flush() {
	r.mu.Lock()
	st := r.stats
	r.lastStats = r.cfg.Now()
	r.mu.Unlock()
	r.statsLine(st, r.lastStats)
}

func (r *Recorder) statsLine(st Stats, _ time.Time) {
	b, _ := json.Marshal(st)
	// The event name first, for readers that look at the start of a line.
	r.raw(append([]byte(`{"event":"stats",`), b[1:]...), true)
}

// statsOf computes a stats line from a snapshot. r.mu is held.
func (r *Recorder) statsOf(p mirror.Progress, now time.Time) Stats {
	st := Stats{Done: p.New + p.Updated + p.Unchanged, Failed: p.Failed, Queued: p.Queued, Bytes: p.Bytes,
		Excluded: p.Excluded, Retries: p.Retries, Paused: p.Paused, Total: p.FilesTotal,
		Elapsed: now.Sub(r.start).Seconds(), Head: p.Head, Hosts: map[string]HostStats{},
		Changes: map[string]int64{"new": p.New, "updated": p.Updated, "unchanged": p.Unchanged},
		Limits:  map[string]any{"limit_rate": p.LimitRate}}
	for h, hp := range p.Hosts {
		hs := HostStats{Streams: hp.Streams, Allowed: hp.Limit}
		if hp.ServerLimit > 0 {
			n := hp.ServerLimit
			hs.Limit = &n
		}
		st.Hosts[h] = hs
		st.Limits["max_per_host"] = hp.Limit
	}
	if p.LastFailure != nil {
		st.Last = &Failure{URL: p.LastFailure.URL, Path: p.LastFailure.Path, Error: oneLine(p.LastFailure.Error)}
	}
	// The rate over the last seconds.
	r.window = append(r.window, sample{t: now, bytes: p.Bytes, done: p.FilesDone})
	for len(r.window) > 2 && now.Sub(r.window[1].t) >= rateWindow {
		r.window = r.window[1:]
	}
	first := r.window[0]
	if d := now.Sub(first.t).Seconds(); d > 0 {
		st.Rate = float64(p.Bytes-first.bytes) / d
		// The ETA once no listing may add work: what waits over the
		// items a second the last seconds saw.
		left := max(p.FilesTotal-p.FilesDone, 0)
		if perSec := float64(p.FilesDone-first.done) / d; !p.Listing && !p.Paused && perSec > 0 {
			eta := float64(left) / perSec
			st.ETA = &eta
		} else if !p.Listing && left == 0 && p.Queued == 0 {
			zero := 0.0
			st.ETA = &zero
		}
	} else {
		st.Rate = p.Rate
	}
	return st
}

// record adds to the history: a point a step, the latest snapshot as a
// point of its own until the step is over, the whole kept within
// maxPoints by halving its resolution when it fills. r.mu is held.
func (r *Recorder) record(now time.Time) {
	t := now.Sub(r.start)
	pt := Point{T: t.Seconds(), Done: r.stats.Done, Failed: r.stats.Failed, Bytes: r.stats.Bytes, Rate: r.stats.Rate}
	if n := len(r.series); n >= 2 && t-time.Duration(r.series[n-2].T*float64(time.Second)) < r.step {
		r.series[n-1] = pt // the step is not over: the live point moves
		return
	}
	r.series = append(r.series, pt)
	if len(r.series) > maxPoints {
		half := r.series[:0]
		for i, p := range r.series {
			if i%2 == 0 || i == len(r.series)-1 {
				half = append(half, p)
			}
		}
		r.series = half
		r.step *= 2
	}
}

// Warn writes a warning line.
func (r *Recorder) Warn(msg string) {
	r.line(map[string]any{"event": "warning", "message": oneLine(msg)})
}

// End records the run's outcome: a last stats line, then the end line
// with the summary's fields and the run's exit code. The terminal status
// is cleared.
func (r *Recorder) End(sum *mirror.Summary, exit int) {
	r.mu.Lock()
	if r.term != nil {
		r.term.clear()
		r.term = nil
	}
	r.summary = sum
	r.mu.Unlock()
	r.Flush()
	var obj map[string]any
	if sum != nil {
		b, _ := json.Marshal(sum)
		json.Unmarshal(b, &obj)
	}
	if obj == nil {
		obj = map[string]any{}
	}
	obj["event"] = "end"
	obj["exit"] = exit
	line := r.encode(obj)
	r.mu.Lock()
	r.ended = true
	r.endLine = line
	r.mu.Unlock()
	r.raw(line, false)
	r.mu.Lock()
	for ch := range r.subs {
		close(ch)
		delete(r.subs, ch)
	}
	r.mu.Unlock()
}

// Ended reports whether End was called.
func (r *Recorder) Ended() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

// LatestStats is the latest stats line, as /api/progress answers it.
func (r *Recorder) LatestStats() []byte {
	r.mu.Lock()
	st := r.stats
	r.mu.Unlock()
	b, _ := json.Marshal(st)
	return append([]byte(`{"event":"stats",`), b[1:]...)
}

func (r *Recorder) line(obj map[string]any) { r.raw(r.encode(obj), false) }

func (r *Recorder) encode(obj map[string]any) []byte {
	obj["time"] = r.cfg.Now().UTC().Format(time.RFC3339Nano)
	// "event" first: encoding/json sorts keys, so it is put in front.
	ev, _ := obj["event"].(string)
	delete(obj, "event")
	b, _ := json.Marshal(obj)
	obj["event"] = ev
	var out bytes.Buffer
	fmt.Fprintf(&out, `{"event":%q`, ev)
	if len(b) > 2 {
		out.WriteByte(',')
		out.Write(b[1 : len(b)-1])
	}
	out.WriteByte('}')
	return out.Bytes()
}

// raw writes one line to the lines and to the dashboard's subscribers.
func (r *Recorder) raw(b []byte, stats bool) {
	if stats {
		b = bytes.TrimSuffix(b, []byte("}"))
		b = append(b, []byte(`,"time":"`+r.cfg.Now().UTC().Format(time.RFC3339Nano)+`"}`)...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.Lines != nil {
		r.cfg.Lines.Write(append(slices.Clip(b), '\n'))
	}
	for ch := range r.subs {
		select {
		case ch <- b:
		default: // a slow reader loses lines, never the run its pace
		}
	}
}

// subscribe returns a channel of the lines from now on, closed at the
// end; cancel stops it.
func (r *Recorder) subscribe() (<-chan []byte, func()) {
	ch := make(chan []byte, 256)
	r.mu.Lock()
	if r.ended {
		close(ch)
	} else {
		r.subs[ch] = struct{}{}
	}
	r.mu.Unlock()
	return ch, func() {
		r.mu.Lock()
		if _, ok := r.subs[ch]; ok {
			delete(r.subs, ch)
			close(ch)
		}
		r.mu.Unlock()
	}
}

// WarningWriter returns a writer whose every line becomes a warning line
// (what a command would print on stderr, while stderr carries the lines).
func (r *Recorder) WarningWriter() io.Writer { return &warnWriter{r: r} }

type warnWriter struct {
	r   *Recorder
	mu  sync.Mutex
	buf []byte
}

func (w *warnWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) > 64<<10 {
				i = len(w.buf)
			} else {
				break
			}
		}
		msg := strings.TrimPrefix(string(w.buf[:i]), "gofer: ")
		w.buf = w.buf[min(i+1, len(w.buf)):]
		if msg = strings.TrimPrefix(msg, "warning: "); strings.TrimSpace(msg) != "" {
			w.r.Warn(msg)
		}
	}
	return len(p), nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\x00", " ")), " ")
}

// ErrNotLoopback is what CheckListen says of an address off loopback.
var ErrNotLoopback = errors.New("not a loopback address")
