package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/schemes"
)

// WorkerStatus is one worker's progress, kept under w.NAME.
type WorkerStatus struct {
	Worker string    `json:"worker"`
	Host   string    `json:"host"`
	PID    int       `json:"pid"`
	Run    uint64    `json:"run"`
	State  string    `json:"state"` // running, finished, stopped; lost (silent for 10 s)
	Done   int64     `json:"done"`  // items acknowledged
	Failed int64     `json:"failed"`
	Parked int64     `json:"parked"`
	Bytes  int64     `json:"bytes"`
	Seen   time.Time `json:"seen"` // when this was written
	// Holding names what the worker's connections work on now; Paused
	// says a job's control has paused it.
	Holding []string `json:"holding"`
	Paused  bool     `json:"paused"`
	// Reassigned counts the items this worker took over from a worker
	// that went silent (died, hung, or lost the server);
	// ReassignSeconds is the longest such an item waited, from its
	// holder's last word to the takeover.
	Reassigned      int64   `json:"reassigned"`
	ReassignSeconds float64 `json:"reassign_seconds"`
}

// JobStatus is a job's progress, as Status reads it.
type JobStatus struct {
	Job      string         `json:"job"`
	URL      string         `json:"url"`
	Run      uint64         `json:"run"`
	State    string         `json:"state"` // running, done
	Started  time.Time      `json:"started"`
	Ended    time.Time      `json:"ended,omitzero"`
	Queued   uint64         `json:"queued"`
	InFlight int            `json:"in_flight"`
	Done     int64          `json:"done"`
	Failed   int64          `json:"failed"`
	Parked   int64          `json:"parked"`
	Workers  []WorkerStatus `json:"workers"`
	// Bytes, Reassigned and ReassignSeconds sum (the last: the longest)
	// the workers'; Control is what steers every worker.
	Bytes           int64      `json:"bytes"`
	Reassigned      int64      `json:"reassigned"`
	ReassignSeconds float64    `json:"reassign_seconds"`
	Control         JobControl `json:"control"`
}

// Progress sets the counts the mirror engine keeps (failed items, bytes
// received); they are written with the worker's status.
func (c *Crawl) Progress(failed, bytes int64) {
	c.statMu.Lock()
	c.stat.Failed, c.stat.Bytes = failed, bytes
	c.statMu.Unlock()
}

// Holding sets what the worker's connections work on now, and whether
// the worker is paused; they are written with the worker's status.
func (c *Crawl) Holding(paths []string, paused bool) {
	c.statMu.Lock()
	c.stat.Holding, c.stat.Paused = paths, paused
	c.statMu.Unlock()
}

// lostAfter is how long a running worker may go without writing its
// status before Status calls it lost.
const lostAfter = 10 * time.Second

// reporter writes the worker's status every two seconds.
func (c *Crawl) reporter(ctx context.Context) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			c.putStatus(ctx)
		}
	}
}

func (c *Crawl) putStatus(ctx context.Context) {
	c.statMu.Lock()
	s := c.stat
	c.statMu.Unlock()
	s.Seen = time.Now().UTC()
	b, _ := json.Marshal(s)
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c.kv.Put(pctx, "w."+c.opts.Worker, b)
}

// Status reads a job's progress without joining it. A job the server does
// not know is an error matching schemes.ErrRefused.
func Status(ctx context.Context, opts Options) (*JobStatus, error) {
	nc, js, err := connect(opts, "gofer status")
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	return status(ctx, js, opts)
}

// Jobs reads the progress of the jobs named, or of every job the server
// holds when none is, by name. A job named that the server does not hold
// is left out.
func Jobs(ctx context.Context, opts Options, only ...string) ([]*JobStatus, error) {
	opts.Job = "any" // a name connect takes: the jobs are listed below
	nc, js, err := connect(opts, "gofer serve")
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	names := slices.Clone(only)
	if len(names) == 0 {
		lister := js.KeyValueStoreNames(ctx)
		for n := range lister.Name() {
			if job, ok := strings.CutPrefix(n, "GOFER_"); ok && !strings.HasSuffix(job, "_slots") && ValidJob(job) {
				names = append(names, job)
			}
		}
		if err := lister.Error(); err != nil {
			return nil, schemes.Errorf(schemes.ErrConnect, "cluster %s: jobs: %s", redactList(opts.URL), scrub(err.Error(), opts.URL))
		}
	}
	slices.Sort(names)
	out := []*JobStatus{}
	for _, job := range names {
		o := opts
		o.Job = job
		st, err := status(ctx, js, o)
		if errors.Is(err, schemes.ErrRefused) {
			continue // a bucket without a job in it yet
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func status(ctx context.Context, js jetstream.JetStream, opts Options) (*JobStatus, error) {
	fail := func(what string, err error) error {
		return schemes.Errorf(schemes.ErrConnect, "cluster %s: %s: %s", redactList(opts.URL), what, scrub(err.Error(), opts.URL))
	}
	st := &JobStatus{Job: opts.Job, Workers: []WorkerStatus{}, Control: JobControl{Rules: []mirror.Filter{}}}
	kv, err := js.KeyValue(ctx, bucketName(opts.Job))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, schemes.Errorf(schemes.ErrRefused, "cluster %s: no job %s", redactList(opts.URL), opts.Job)
	}
	if err != nil {
		return nil, fail("state bucket", err)
	}
	e, err := kv.Get(ctx, "job")
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, schemes.Errorf(schemes.ErrRefused, "cluster %s: no job %s", redactList(opts.URL), opts.Job)
	}
	if err != nil {
		return nil, fail("job", err)
	}
	var m jobMeta
	if err := json.Unmarshal(e.Value(), &m); err != nil {
		return nil, fail("job", err)
	}
	st.URL, st.Run, st.State, st.Started, st.Ended = m.URL, m.Run, m.State, m.Started, m.Ended
	if ce, err := kv.Get(ctx, keyControl); err == nil {
		json.Unmarshal(ce.Value(), &st.Control)
	}
	cons, err := js.Consumer(ctx, streamName(opts.Job), consumerName)
	if err != nil {
		return nil, fail("work queue", err)
	}
	ci, err := cons.Info(ctx)
	if err != nil {
		return nil, fail("work queue", err)
	}
	st.Queued, st.InFlight = ci.NumPending, ci.NumAckPending
	lister, err := kv.ListKeysFiltered(ctx, "w.>")
	if err != nil {
		return nil, fail("workers", err)
	}
	for k := range lister.Keys() {
		we, err := kv.Get(ctx, k)
		if err != nil {
			continue
		}
		var w WorkerStatus
		if json.Unmarshal(we.Value(), &w) != nil || w.Run != st.Run {
			continue // a worker of an earlier run
		}
		if w.State == "running" && time.Since(w.Seen) > lostAfter {
			w.State = "lost" // killed, or cut off from the server
		}
		if w.Holding == nil {
			w.Holding = []string{}
		}
		st.Workers = append(st.Workers, w)
		st.Done += w.Done
		st.Failed += w.Failed
		st.Parked += w.Parked
		st.Bytes += w.Bytes
		st.Reassigned += w.Reassigned
		st.ReassignSeconds = max(st.ReassignSeconds, w.ReassignSeconds)
	}
	slices.SortFunc(st.Workers, func(a, b WorkerStatus) int { return strings.Compare(a.Worker, b.Worker) })
	return st, nil
}
