package mirror

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"unicode/utf8"
)

// A mirror runs on one of two frontiers: the local queue (one process, the
// default) or a Shared crawl (Options.Shared), whose work queue and records
// many mirror processes on many machines share. The engine does not know
// which, beyond the constructor: both take jobs, both hand them out, both
// say when all work is done.

// ErrDone is what Shared.Take returns when the crawl has no work left:
// nothing queued and nothing taken by any worker.
var ErrDone = errors.New("shared crawl done")

// Shared is a crawl many mirror processes share. Items are opaque bytes to
// it; keys name them within one run of the crawl.
type Shared interface {
	// Join enters this process into the crawl of startURL and queues its
	// root item under key, unless that run queued it already. It returns
	// the run: 1 for a new crawl, the running one, or one more than the
	// last when the crawl had finished (an incremental rerun).
	Join(ctx context.Context, startURL, key string, root []byte) (run uint64, err error)
	// Push queues an item once per run (a key seen before is dropped). It
	// does not wait for the network: Task.Done waits until what was pushed
	// before it is stored.
	Push(key string, item []byte)
	// Take waits for the next item; ErrDone when the crawl is finished,
	// ctx's error when it ends first.
	Take(ctx context.Context) (Task, error)
	// Record stores what was written at a local path (a JSON record), for
	// every worker to find, without waiting for the network.
	Record(path string, rec []byte)
	// Lookup returns the record of a path any worker stored.
	Lookup(ctx context.Context, path string) (rec []byte, ok bool, err error)
	// Slot waits for one of n connection slots to host shared by all
	// workers of the crawl; release gives it back.
	Slot(ctx context.Context, host string, n int) (release func(), err error)
}

// Task is one taken item.
type Task interface {
	Item() []byte
	// Done acknowledges the item once everything pushed and recorded
	// before it is stored: a worker that dies before Done has its item
	// given to another.
	Done(ctx context.Context) error
	// Drop gives the item back at once (the worker is stopping).
	Drop()
}

// frontier is where the engine's jobs wait: the local queue or a shared crawl.
type frontier interface {
	push(j job)
	// pop returns the next job and the function that marks it finished.
	pop(ctx context.Context, from string) (job, func(), bool)
	wake()
	close()
	// waiting, waitingLists and head describe what waits, as far as
	// this process knows.
	waiting() int
	waitingLists() int
	head(n int) []string
}

// localFrontier is the one-process queue.
type localFrontier struct{ q *queue }

func (l localFrontier) push(j job) { l.q.push(j) }
func (l localFrontier) pop(ctx context.Context, from string) (job, func(), bool) {
	j, ok := l.q.pop(ctx, from)
	return j, l.q.done, ok
}
func (l localFrontier) wake()               { l.q.wake() }
func (l localFrontier) close()              { l.q.close() }
func (l localFrontier) waiting() int        { return l.q.waiting() }
func (l localFrontier) waitingLists() int   { return l.q.waitingLists() }
func (l localFrontier) head(n int) []string { return l.q.head(n) }

// sharedFrontier hands the engine's jobs to a Shared crawl.
type sharedFrontier struct {
	s Shared
	// finished is called when the crawl has no work left, to stop this
	// process's other workers (which may be waiting for a slot).
	finished func()
	// failed receives an error Take gave up on.
	failed func(error)
}

// jobKey names a job within a run: one directory listing, menu, page or
// file per URL.
func jobKey(j job) string { return string(j.Op) + j.URL }

func (s sharedFrontier) push(j job) { s.s.Push(jobKey(j), encodeJob(j)) }

// A shared crawl's queue is the crawl's: this process does not see it.
func (s sharedFrontier) waiting() int      { return 0 }
func (s sharedFrontier) waitingLists() int { return 0 }
func (s sharedFrontier) head(int) []string { return nil }

// wireJob is a job as a shared crawl carries it: JSON, with the bytes of
// a name that is not UTF-8 (a Latin-1 file name) kept beside its string,
// which JSON would otherwise turn into U+FFFD.
type wireJob struct {
	job
	Raw map[string][]byte `json:"raw,omitempty"`
}

// rawFields are the job's strings that hold remote names as bytes.
func rawFields(j *job) map[string]*string {
	return map[string]*string{"u": &j.URL, "p": &j.Path, "f": &j.From, "n": &j.Name, "sel": &j.Sel, "h": &j.Host, "rp": &j.Remote}
}

func encodeJob(j job) []byte {
	w := wireJob{job: j}
	for k, v := range rawFields(&j) {
		if !utf8.ValidString(*v) {
			if w.Raw == nil {
				w.Raw = map[string][]byte{}
			}
			w.Raw[k] = []byte(*v)
		}
	}
	b, _ := json.Marshal(w)
	return b
}

func decodeJob(b []byte) (job, error) {
	var w wireJob
	if err := json.Unmarshal(b, &w); err != nil {
		return job{}, err
	}
	j := w.job
	for k, v := range rawFields(&j) {
		if raw, ok := w.Raw[k]; ok {
			*v = string(raw)
		}
	}
	return j, nil
}

func (s sharedFrontier) pop(ctx context.Context, _ string) (job, func(), bool) {
	for {
		t, err := s.s.Take(ctx)
		if errors.Is(err, ErrDone) {
			s.finished()
			return job{}, nil, false
		}
		if err != nil {
			if ctx.Err() == nil {
				s.failed(err)
			}
			return job{}, nil, false
		}
		j, err := decodeJob(t.Item())
		if err != nil {
			t.Done(ctx) // not a job of this engine: never to be done
			continue
		}
		return j, func() {
			if ctx.Err() != nil {
				t.Drop()
				return
			}
			t.Done(ctx)
		}, true
	}
}

func (sharedFrontier) wake()  {}
func (sharedFrontier) close() {}

// workerName is what a shared crawl's worker may be called: it names
// files in DIR/.gofer and WARC segments.
var workerName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidWorker reports whether name can name a worker of a shared crawl:
// 1 to 64 letters, digits, '-' or '_'.
func ValidWorker(name string) bool { return workerName.MatchString(name) }

// share stores a file's record in the shared crawl, when there is one.
func (e *engine) share(path string, r record) {
	if e.shared == nil || e.opts.DryRun {
		return
	}
	b, _ := json.Marshal(r)
	e.shared.Record(path, b)
}

// sharedRecord is the record of path some worker of the crawl stored.
func (e *engine) sharedRecord(ctx context.Context, path string) (record, bool) {
	var r record
	if e.shared == nil {
		return r, false
	}
	b, ok, err := e.shared.Lookup(ctx, path)
	if err != nil || !ok || json.Unmarshal(b, &r) != nil {
		return r, false
	}
	return r, r.Kind == kindFile && !r.Partial
}

// joinShared enters the crawl with the root job; stop ends this process's
// workers once the crawl has no work left.
func (e *engine) joinShared(ctx context.Context, rawURL string, root job, stop func()) error {
	if _, err := e.shared.Join(ctx, rawURL, jobKey(root), encodeJob(root)); err != nil {
		return err
	}
	e.q = sharedFrontier{s: e.shared, finished: stop, failed: e.sharedFailed}
	return nil
}

// sharedFailed keeps the first error a worker met with the shared crawl
// itself (not with an item): the run ends with it.
func (e *engine) sharedFailed(err error) {
	e.sharedMu.Lock()
	if e.sharedBad == nil {
		e.sharedBad = err
	}
	e.sharedMu.Unlock()
}

func (e *engine) sharedErr() error {
	e.sharedMu.Lock()
	defer e.sharedMu.Unlock()
	return e.sharedBad
}
