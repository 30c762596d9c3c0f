package mirror

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"
)

// job is one unit of work: list a directory, read a menu or page, or fetch
// a file. Its fields are exported for the spill file's JSON.
type job struct {
	Op    byte      `json:"o"`
	URL   string    `json:"u"`
	Path  string    `json:"p"` // local path below DIR, '/'-separated; "" is DIR itself
	From  string    `json:"f,omitempty"`
	Depth int       `json:"d,omitempty"`
	Name  string    `json:"n,omitempty"`
	Size  int64     `json:"s"`
	Mod   time.Time `json:"m,omitzero"`
	Prec  string    `json:"mp,omitempty"` // how far Mod is known (schemes.Entry.Precision)
	// Hash is the server's checksum of a file as its listing gave it (an
	// MLSD hash fact), "ALG:HEX"; the file is proven by it, no command
	// asked.
	Hash string `json:"sh,omitempty"`
	// Gopher items: where they live.
	Sel  string `json:"sel,omitempty"`
	Host string `json:"h,omitempty"`
	Port int    `json:"port,omitempty"`
	Plus string `json:"plus,omitempty"`
	// Root marks the starting job, whose response Run has fetched already.
	Root bool `json:"r,omitempty"`
	// Anc holds, for a listing, the hashes of its ancestors' listings
	// (listingHash), to see a directory that repeats one.
	Anc []uint64 `json:"a,omitempty"`
	// Remote is, with SymlinksFollow, the remote directory a listing
	// (or a followed link) resolves to, lexically; Real holds the hashes
	// of its ancestors' Remote, so that no directory is listed below itself.
	Remote string   `json:"rp,omitempty"`
	Real   []uint64 `json:"ra,omitempty"`
	// sharedSum is the sha256 a shared crawl recorded for Path (not
	// carried: looked up by the worker that takes the job).
	sharedSum string
	// track follows the item for Options.Events, while a worker has it.
	track *itemTrack
}

const (
	opList = 'L' // a directory listing (FTP, file, any Listing)
	opMenu = 'M' // a Gopher menu
	opPage = 'P' // an HTTP link: a page to read for links, or a file
	opFile = 'F' // a file
	// opFollow is a symlink to follow (SymlinksFollow): a file or a
	// directory, as its fetch answers.
	opFollow = 'K'
)

// memJobs bounds the jobs held in memory; the rest wait in a spill file, so
// that a listing of a million entries is drained at once (freeing its
// connection) without the queue growing in memory.
const memJobs = 4096

// queue is the work queue: bounded in memory, spilling to a file beyond
// that, and done when every pushed job has been finished.
type queue struct {
	mu        sync.Mutex
	cond      *sync.Cond
	mem       []job
	pending   int // pushed and not yet finished
	spilled   int // in the spill file, not yet read back
	spillPath string
	spillW    *os.File
	bw        *bufio.Writer
	spillR    *os.File
	br        *bufio.Reader
	err       error
	// at counts the workers in each directory (job.dir): pop sends a
	// worker without work in its own directory to one nobody is in.
	at map[string]int
	// lists counts the listings and menus in mem, which pop hands out
	// before files.
	lists int
}

// lists reports whether j reads a directory or menu: work that finds more
// work, handed out first.
func (j job) lists() bool { return j.Op == opList || j.Op == opMenu }

// newQueue spills into a file created at path (removed on close).
func newQueue(path string) *queue {
	q := &queue{spillPath: path, at: map[string]int{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queue) push(j job) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending++
	if len(q.mem) < memJobs || q.spill(j) != nil {
		// When the spill file cannot be written, memory is the fallback.
		q.mem = append(q.mem, j)
		if j.lists() {
			q.lists++
		}
	}
	q.cond.Signal()
}

func (q *queue) spill(j job) error {
	if q.err != nil {
		return q.err
	}
	if q.spillW == nil {
		w, err := os.OpenFile(q.spillPath, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			q.err = err
			return err
		}
		r, err := os.Open(q.spillPath)
		if err != nil {
			w.Close()
			q.err = err
			return err
		}
		q.spillW, q.bw, q.spillR, q.br = w, bufio.NewWriter(w), r, bufio.NewReader(r)
	}
	line, _ := json.Marshal(j)
	line = append(line, '\n')
	if _, err := q.bw.Write(line); err != nil {
		q.err = err
		return err
	}
	q.spilled++
	return nil
}

// affinityWindow is how far below the top of the queue pop looks for a job
// of the directory a worker is already in, or of one no worker is in: far
// enough to see past the files of eight directories of a typical archive.
const affinityWindow = 1024

// dir is the listing key of where doing j leaves a worker's connection:
// the directory or menu it lists, or the one its file is in.
func (j job) dir() string {
	if j.Op == opList || j.Op == opMenu {
		return dirKey(j.Path)
	}
	return j.From
}

// pop returns the next job for a worker whose last job was in directory
// from (job.dir; "" for none), or false when all work is done or ctx ended.
// A listing (or menu) among the newest jobs comes first: each one may
// name a directory's worth of work, and while it waits behind files the
// other workers run out of work to share. Among the newest jobs pop then
// prefers one of from, and after that one of a directory no other worker
// is in: a worker that stays in one directory
// keeps its connection there (an FTP connection that changes directory
// pays a CWD per level), and workers that spread over directories do not
// all follow each other from one to the next.
func (q *queue) pop(ctx context.Context, from string) (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.leave(from)
	for {
		if ctx.Err() != nil || q.pending == 0 {
			return job{}, false
		}
		if n := len(q.mem); n > 0 {
			// Last in, first out: a walk goes deep first, which keeps the
			// queue short (a directory's files before its siblings' subtrees).
			i := n - 1
			if l := q.listing(); l >= 0 {
				i = l
			} else if from != "" || q.at[q.mem[i].dir()] > 0 {
				i = q.pick(from)
			}
			j := q.mem[i]
			copy(q.mem[i:], q.mem[i+1:])
			q.mem[n-1] = job{}
			q.mem = q.mem[:n-1]
			if j.lists() {
				q.lists--
			}
			q.at[j.dir()]++
			return j, true
		}
		if q.spilled > 0 {
			if j, err := q.unspill(); err == nil {
				q.at[j.dir()]++
				return j, true
			}
			// An unreadable spill file loses its jobs: count them done.
			q.pending -= q.spilled
			q.spilled = 0
			continue
		}
		q.cond.Wait()
	}
}

// listing is the index of the newest listing among the newest
// affinityWindow jobs in memory, -1 when there is none.
func (q *queue) listing() int {
	if q.lists == 0 {
		return -1
	}
	n := len(q.mem)
	for k := n - 1; k >= max(0, n-affinityWindow); k-- {
		if q.mem[k].lists() {
			return k
		}
	}
	return -1
}

// pick chooses among the newest affinityWindow jobs in memory: the newest
// of directory from, else the newest of a directory no worker is in, else
// the newest.
func (q *queue) pick(from string) int {
	n := len(q.mem)
	free := -1
	last, lastBusy := "", true // jobs come in runs of one directory
	for k := n - 1; k >= max(0, n-affinityWindow); k-- {
		d := q.mem[k].dir()
		if from != "" && d == from {
			return k
		}
		if free < 0 {
			if d != last || k == n-1 {
				last, lastBusy = d, q.at[d] > 0
			}
			if !lastBusy {
				free = k
			}
		}
	}
	if free >= 0 {
		return free
	}
	return n - 1
}

// leave records that a worker has left directory d.
func (q *queue) leave(d string) {
	if d == "" {
		return
	}
	if q.at[d]--; q.at[d] <= 0 {
		delete(q.at, d)
	}
}

func (q *queue) unspill() (job, error) {
	if err := q.bw.Flush(); err != nil {
		return job{}, err
	}
	line, err := q.br.ReadBytes('\n')
	if err != nil && !(err == io.EOF && len(line) > 0) {
		return job{}, err
	}
	var j job
	if err := json.Unmarshal(line, &j); err != nil {
		return job{}, err
	}
	q.spilled--
	if q.spilled == 0 {
		// Everything spilled has been read: start the file over so that
		// it does not grow for the whole run.
		if q.spillW.Truncate(0) == nil {
			q.spillW.Seek(0, io.SeekStart)
			q.spillR.Seek(0, io.SeekStart)
			q.bw.Reset(q.spillW)
			q.br.Reset(q.spillR)
		}
	}
	return j, nil
}

// waiting counts the jobs not yet handed out; waitingLists the listings
// and menus among those in memory.
func (q *queue) waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.mem) + q.spilled
}

func (q *queue) waitingLists() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lists
}

// head names the local paths of up to n jobs pop would hand out first
// (the newest; a listing before them).
func (q *queue) head(n int) []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]string, 0, min(n, len(q.mem)))
	if l := q.listing(); l >= 0 {
		out = append(out, q.mem[l].Path+"/")
	}
	for k := len(q.mem) - 1; k >= 0 && len(out) < n; k-- {
		if k != q.listing() {
			out = append(out, q.mem[k].Path)
		}
	}
	return out
}

// done marks one popped job finished.
func (q *queue) done() {
	q.mu.Lock()
	q.pending--
	if q.pending == 0 {
		q.cond.Broadcast()
	}
	q.mu.Unlock()
}

// wake lets waiting workers see a cancelled context.
func (q *queue) wake() {
	q.mu.Lock()
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *queue) close() {
	if q.spillW != nil {
		q.spillW.Close()
		q.spillR.Close()
	}
	os.Remove(q.spillPath)
}
