// Package mirror copies an FTP, Gopher or HTTP tree into a local directory
// on top of fetch.Client: parallel workers, incremental state, resume of
// partial files, atomic writes, and local names that a hostile listing
// cannot turn against the machine.
//
// DIR holds the mirrored tree and one hidden state directory, DIR/.gofer/
// (the state database, temporary files, the work queue's spill file).
// FTP and HTTP paths map onto local paths segment by segment below the
// starting directory; Gopher items map by selector, split on '/', and a
// menu is saved raw as "gophermap" in its selector's directory, next to a
// readable "gophermap.html" with local links. Every local name passes
// security.SafeName; a refused name is reported and never written. All
// writes go through an os.Root on DIR, so no name and no symlink already in
// DIR can lead a write outside it.
//
// A symlink a listing names is, by default, made as a relative symlink
// when its target stays inside DIR, and skipped otherwise (lftp's and
// wget's default); Options.Symlinks may follow links or skip them all
// instead. A walk ends however a server hides a loop: a
// directory that lists as an ancestor did, or a followed link that names
// a directory it lies in, is counted as a loop and not entered, and
// Options.MaxDepth bounds the rest.
//
// How a tree is walked follows the view the starting URL's response
// carries (Response.URL): FTP and file directories by listing, Gopher by
// menu, HTTP by the links of its HTML pages. A scheme a library user
// registers (an x- scheme) is walked as the scheme whose view its fetcher
// puts in Response.URL, by listing when it puts none.
//
// Unless Options.Jobs fixes it, the mirror chooses how many connections
// to use from what it measures (the first reply's time, items and bytes a
// second, the server's connection limit) and reports the choice in
// Summary.Streams; HostStreams documents the rule.
//
// The state (DIR/.gofer/state.db, bbolt) records per local path the remote
// URL, size, modification time and sha256, and what the listing said; a
// second run compares listings (FTP), asks If-Modified-Since (HTTP), uses
// Gopher+ Mod-Dates, and otherwise fetches again and replaces a file only
// when its bytes differ.
//
// With Options.Shared the run is one worker of a crawl many processes
// share (package cluster shares it through NATS JetStream): jobs are taken
// from and queued to the shared crawl instead of the local queue, each
// file's record is also stored there, and a file another worker recorded
// unchanged is not fetched again. The worker keeps its own state file and
// temporary directory, DIR/.gofer/state-WORKER.db and tmp-WORKER, so that
// workers may share one DIR.
package mirror

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/internal/ctxwait"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Options configure a mirror. The zero value mirrors with as many workers
// as the mirror finds worth it (from DefaultJobs up to DefaultMaxPerHost),
// no depth limit but DefaultMaxDepth, and symlinks kept.
type Options struct {
	// Jobs is the number of parallel workers, each with its connection,
	// at most MaxPerHost; 0 lets the mirror choose, starting at
	// DefaultJobs (see HostStreams for the rule).
	Jobs int
	// Depth limits how many levels are walked: 1 takes the starting
	// directory's (menu's, page's) items only, 2 also those one level
	// below, and so on; 0 is unlimited.
	Depth    int
	NoParent bool // keep to selectors (paths) under the starting one
	DryRun   bool // walk listings, write nothing, list what would change
	Delete   bool // remove local files that vanished remotely
	// StateOnly says the tree is not kept between runs (a capture into
	// WARC alone): a file the state records complete counts as held
	// without a local copy, so an unchanged rerun fetches it not again.
	// HTML pages are still fetched, their links being read from them.
	StateOnly bool
	// Filters include and exclude items by glob (see Filter); Delete
	// never removes a file they leave out.
	Filters []Filter
	// Retries bounds how often an item that failed transiently is tried
	// again (0: DefaultRetries, negative: never); RetryWait is the first
	// wait (0: one second), doubled for each try after it.
	Retries   int
	RetryWait time.Duration
	// Wait spaces one worker's requests (each worker keeps to one
	// connection); LimitRate bounds the bytes per second of all transfers
	// together (0: no bound); MaxPerHost caps the workers, and so the
	// connections, whatever Jobs says (0: DefaultMaxPerHost).
	Wait       time.Duration
	LimitRate  int64
	MaxPerHost int
	// Progress, if set, is called often with a snapshot; calls are
	// serialised, from one goroutine.
	Progress func(Progress)
	// Log, if set, receives one line per file; calls are serialised.
	Log func(format string, args ...any)
	// Shared, if set, makes this run one worker of a crawl many processes
	// share: its jobs come from and go to Shared instead of a local queue,
	// and the records of the files written go there too. Worker names
	// this process (ValidWorker): its state in DIR/.gofer is its own, so
	// that workers may share one DIR. Delete and DryRun are not for a
	// shared crawl.
	Shared Shared
	Worker string
	// Symlinks says what becomes of a symlink a listing names: SymlinksKeep
	// ("" too), SymlinksFollow or SymlinksSkip.
	Symlinks string
	// MaxDepth bounds how deep a listing walk goes, against loops a
	// server hides (a link listed as the directory it names): an item
	// more than MaxDepth levels below the start is not fetched, and is
	// counted (Summary.TooDeep). 0 is DefaultMaxDepth, negative unlimited.
	MaxDepth int
	// AllVersions keeps every version a listing numbers (VMS "NAME;N") as
	// a file "NAME;N"; without it only the highest version of each name
	// is fetched, saved under the plain name.
	AllVersions bool
	// Events, if set, receives each item's outcome (Event); calls are
	// serialised, and made from the workers: a slow one slows the run.
	Events func(Event)
	// Control, if set, steers the run while it goes on (NewControl).
	Control *Control
	// Bag keeps the tree as a BagIt bag (RFC 8493): the payload in
	// DIR/data, the tag files beside it written from the state at the end
	// of each run (see bag.go). Symlinks then defaults to SymlinksFollow,
	// and SymlinksKeep is refused: a bag holds no links. It is for FTP
	// and file trees, not with StateOnly or Shared. BagAgent names the
	// software in bag-info.txt's Bag-Software-Agent ("gofer" when empty).
	Bag      bool
	BagAgent string
	// Verify says when a file is proven by the server's own checksum
	// (verify.go): VerifyAuto ("" too), VerifyAlways or VerifyNever.
	Verify string
}

// Symlink modes (Options.Symlinks).
const (
	// SymlinksKeep creates a listed symlink as a relative symlink when
	// its target lies inside the mirror; one that leaves it is skipped.
	SymlinksKeep = "keep"
	// SymlinksFollow fetches what a symlink names, file or directory, as
	// if it were the entry it points to.
	SymlinksFollow = "follow"
	// SymlinksSkip notes symlinks and neither creates nor follows them.
	SymlinksSkip = "skip"
)

// DefaultMaxDepth is Options.MaxDepth when it is 0: deeper than any
// archive's real tree, shallow enough that a hidden loop ends soon.
const DefaultMaxDepth = 64

// Progress is a snapshot of a running mirror.
type Progress struct {
	FilesDone  int64   `json:"files_done"`
	FilesTotal int64   `json:"files_total"` // grows as listings are read
	Bytes      int64   `json:"bytes"`
	Rate       float64 `json:"rate"` // bytes per second since the start
	// Workers holds each worker's current local path, "" when idle.
	Workers []string `json:"workers"`
	// The summary's counts so far.
	New, Updated, Unchanged int64
	Failed, Retries         int64
	Excluded                int64
	// Queued counts the jobs waiting (files, listings, menus), Head names
	// the first of them; Listing says listings are still being read or
	// wait, so that more work may come.
	Queued  int64
	Head    []string
	Listing bool
	// Paused says a Control paused the run; LimitRate is the byte budget
	// a Control set (0: none, or not set while running).
	Paused    bool
	LimitRate int64
	// Hosts holds per server ("host:port") the connections at work and
	// the limits on them.
	Hosts map[string]HostProgress
	// LastFailure is the latest failure, nil while there is none.
	LastFailure *Failure
}

// Summary is the outcome of a mirror. Its counts are exact; the lists hold
// at most maxListed items each.
type Summary struct {
	URL       string `json:"url"`
	Dir       string `json:"dir"`
	DryRun    bool   `json:"dry_run"`
	New       int64  `json:"new"`
	Updated   int64  `json:"updated"`
	Unchanged int64  `json:"unchanged"`
	Refused   int64  `json:"refused"`
	Failed    int64  `json:"failed"`
	Deleted   int64  `json:"deleted"`
	// Links counts the symlinks listings named that the mirror took as
	// Options.Symlinks says: created (or found unchanged) with keep,
	// followed with follow; LinksSkipped those it left out (skip, or with keep a
	// target outside DIR). Recorded counts items noted but not fetched
	// (telnet, search and URL items, other hosts).
	Links        int64 `json:"links"`
	LinksSkipped int64 `json:"links_skipped"`
	Recorded     int64 `json:"recorded"`
	// Loops counts directories not entered because they would repeat an
	// ancestor (a symlink loop); TooDeep the items left out for lying
	// deeper than Options.MaxDepth.
	Loops   int64 `json:"loops"`
	TooDeep int64 `json:"too_deep"`
	// Unparsed counts listing lines in no form the client reads; the
	// first of them are in UnparsedLines. A directory with one is never
	// taken as proof that a file vanished (Options.Delete).
	Unparsed      int64          `json:"unparsed"`
	UnparsedLines []UnparsedLine `json:"unparsed_lines"`
	// Skipped counts items robots.txt excludes, Excluded those the filters leave out.
	Skipped  int64 `json:"skipped"`
	Excluded int64 `json:"excluded"`
	// Bytes counts file body bytes received; Transfers the file bodies
	// requested (listings, menus and pages are not counted).
	Bytes     int64 `json:"bytes"`
	Transfers int64 `json:"transfers"`
	// Retries counts tries again after transient failures; Changed the
	// files fetched again because they changed during their transfer,
	// Unstable those that changed every time (failures, never installed).
	Retries  int64 `json:"retries"`
	Changed  int64 `json:"changed"`
	Unstable int64 `json:"unstable"`
	// RetriesByKind splits Retries by what failed: "timeout" (no
	// progress for the idle timeout: a stalled connection), "interrupted"
	// (a connection reset or closed, mid-transfer or before the server's
	// greeting), "connect" (a connection that could not be made),
	// "reply" (the server answered FTP 4yz, HTTP 5xx or 429).
	RetriesByKind map[string]int64 `json:"retries_by_kind,omitempty"`
	// Verified counts the files the server's own checksum proved, per
	// algorithm in VerifyAlgorithms; Unverified those transferred without
	// a checksum to prove them (Options.Verify).
	Verified         int64            `json:"verified"`
	VerifyAlgorithms map[string]int64 `json:"verify_algorithms"`
	Unverified       int64            `json:"unverified"`
	// HostConnections is how many connections at once the server was
	// found to allow (it refused more), 0 when it refused none.
	HostConnections int           `json:"host_connections,omitempty"`
	Duration        time.Duration `json:"-"`
	Seconds         float64       `json:"duration"` // Duration in seconds
	Refusals        []Refusal     `json:"refusals"`
	Failures        []Failure     `json:"failures"`
	// Planned lists, in a dry run, what a real run would fetch or delete
	// (at most maxPlanned items; Options.Log receives every one).
	Planned []Planned `json:"planned,omitempty"`
	// Streams says, per server, how many connections the mirror used at
	// once and why (see HostStreams).
	Streams []HostStreams `json:"streams,omitempty"`
}

// Refusal is a remote name the safe-name rule (or a collision) kept off disk.
type Refusal struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	Reason string `json:"reason"`
	Err    error  `json:"-"` // matches security.ErrUnsafeName when the name rule refused it
}

// Failure is an item that could not be mirrored. Err keeps the error kind
// (schemes.ErrConnect, ...) for errors.Is.
type Failure struct {
	URL   string `json:"url"`
	Path  string `json:"path,omitempty"`
	Error string `json:"error"`
	Err   error  `json:"-"`
}

// UnparsedLine is a listing line in no form the client reads.
type UnparsedLine struct {
	URL  string `json:"url"`            // the listing's
	Path string `json:"path,omitempty"` // its local directory
	Line string `json:"line"`
}

// Planned is one change a dry run found.
type Planned struct {
	Action string `json:"action"` // "new", "update", "delete", "link"
	URL    string `json:"url,omitempty"`
	Path   string `json:"path"`
}

// maxListed bounds the refusal and failure lists, maxPlanned a dry run's
// list (Log sees every line); the counts are always exact.
const (
	maxListed  = 1000
	maxPlanned = 10000
)

// stateDir is the one non-content entry of DIR.
const stateDir = ".gofer"

// Run mirrors rawURL into dir. It returns an error only when the mirror
// could not run at all: a malformed URL, an unusable dir, a starting URL
// that could not be fetched (the error keeps its kind for errors.Is), or
// ctx ending the run (then the error matches schemes.ErrInterrupted and the
// summary says how far it got). Failures and refusals of single items are
// in the Summary.
func Run(ctx context.Context, c *fetch.Client, rawURL, dir string, opts Options) (*Summary, error) {
	e, plan := newEngine(c, rawURL, dir, opts)
	defer func() {
		e.sum.Bytes = e.bytes.Load()
		e.sum.Duration = time.Since(e.start)
		e.sum.Seconds = e.sum.Duration.Seconds()
	}()
	if err := e.settle(); err != nil {
		return &e.sum, err
	}
	if err := e.open(); err != nil {
		return &e.sum, err
	}
	defer e.close()
	if err := e.prepareBag(); err != nil {
		return &e.sum, err
	}
	if !e.opts.DryRun {
		fs := e.loadKeptFilters(*e.filt.Load())
		e.filt.Store(&fs)
	}
	if ctl := e.opts.Control; ctl != nil {
		ctl.attach(e)
		defer ctl.detach()
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopWake := context.AfterFunc(ctx, e.q.wake)
	defer stopWake()

	// The starting URL is parsed once: the fetch and the scope use it.
	u, err := fetch.ParseURL(rawURL)
	if err != nil {
		err = &fetch.Error{Op: "get", URL: security.RedactURL(rawURL), Err: err}
		e.fail(rawURL, "", err)
		return &e.sum, err
	}
	e.loadConnLimit(u)
	defer e.saveConnLimit(u)
	e.ftp.loadDirProbe(u)
	defer e.ftp.saveDirProbe(u)
	resp, took, err := e.first(ctx, rawURL, u, plan)
	if err != nil {
		e.fail(rawURL, "", err)
		return &e.sum, err
	}
	e.streams = e.newStreams(u, plan.start, plan.ceiling, plan.adaptive, took)
	e.streams.workers = e.opts.Jobs
	e.perHostNow.Store(int64(e.opts.maxPerHost()))
	defer e.reportStreams(u)
	if err := e.learnSite(ctx, rawURL, u, resp); err != nil {
		return &e.sum, err
	}
	if err := e.crawl(ctx, rawURL, resp); err != nil {
		return &e.sum, err
	}
	return &e.sum, e.finish(ctx, rawURL)
}

// streamPlan is how many streams a run starts with, how many it may
// grow to, and whether it chooses the number itself.
type streamPlan struct {
	start, ceiling int
	adaptive       bool
}

// newEngine is a run of opts: its workers counted, not yet checked.
func newEngine(c *fetch.Client, rawURL, dir string, opts Options) (*engine, streamPlan) {
	jobsAsked := opts.Jobs
	plan := streamPlan{adaptive: opts.Jobs <= 0 && opts.Wait == 0 && opts.LimitRate == 0}
	if opts.Jobs <= 0 {
		opts.Jobs = DefaultJobs
	}
	plan.start = opts.workers()
	opts.Jobs = plan.start
	if plan.adaptive {
		// Workers up to the ceiling; the gate lets the chosen number work.
		opts.Jobs = max(plan.start, opts.maxPerHost())
	}
	plan.ceiling = opts.Jobs
	if opts.Control != nil {
		// Workers a Control may let work later (SetMaxPerHost); the
		// gate keeps the rest waiting.
		opts.Jobs = max(opts.Jobs, MaxSteeredPerHost)
	}
	e := &engine{c: c, opts: opts, dir: dir, start: time.Now(), shared: opts.Shared, jobsAsked: jobsAsked}
	e.walkers()
	e.sum.URL, e.sum.Dir, e.sum.DryRun = rawURL, dir, opts.DryRun
	return e, plan
}

// walkers gives e its walkers.
func (e *engine) walkers() {
	e.ftp, e.gopher, e.pages = &ftpWalker{engine: e}, &gopherWalker{e}, &pageWalker{e}
}

// settle checks the run's options, fills in their defaults, compiles
// its rules and makes its byte budget.
func (e *engine) settle() error {
	o := &e.opts
	switch {
	case o.Bag && o.Symlinks == "":
		o.Symlinks = SymlinksFollow
	case o.Bag && o.Symlinks == SymlinksKeep:
		return fmt.Errorf("mirror: a bag holds no symbolic links: follow them or skip them: %w", schemes.ErrUsage)
	case o.Bag && (o.StateOnly || o.Shared != nil):
		return fmt.Errorf("mirror: a bag is kept of a tree in DIR, not of a capture alone or a shared crawl: %w", schemes.ErrUsage)
	}
	switch o.Verify {
	case "":
		o.Verify = VerifyAuto
	case VerifyAuto, VerifyAlways, VerifyNever:
	default:
		return fmt.Errorf("mirror: verify %q: want auto, always or never: %w", o.Verify, schemes.ErrUsage)
	}
	switch o.Symlinks {
	case "":
		o.Symlinks = SymlinksKeep
	case SymlinksKeep, SymlinksFollow, SymlinksSkip:
	default:
		return fmt.Errorf("mirror: symlinks %q: want keep, follow or skip: %w", o.Symlinks, schemes.ErrUsage)
	}
	filt, err := compileFilters(o.Filters)
	if err != nil {
		return err
	}
	e.filt.Store(&filt)
	if e.shared != nil {
		if !ValidWorker(o.Worker) {
			return fmt.Errorf("mirror: worker name %q: want 1 to 64 letters, digits, '-' or '_': %w", o.Worker, schemes.ErrUsage)
		}
		if o.DryRun || o.Delete {
			return fmt.Errorf("mirror: a dry run and deletion are not for a shared crawl: %w", schemes.ErrUsage)
		}
	}
	e.limiter = newLimiter(o.LimitRate)
	e.rateNow.Store(o.LimitRate)
	if o.Control != nil && e.limiter == nil {
		// A budget a Control may set later.
		e.limiter = rate.NewLimiter(rate.Inf, maxBurst)
	}
	return nil
}

// first fetches the starting URL, with the other workers' connections
// opened alongside (a fetcher with a pool logs them in meanwhile) unless
// a shared crawl hands out connection slots or Wait spaces requests. It
// is tried again, as every item is, while it fails transiently (a
// connection closed before its greeting, a reset, a timeout); but a
// server not reached at all is most likely a wrong URL: said at once.
// took is how long the answer took.
func (e *engine) first(ctx context.Context, rawURL string, u *schemes.URL, plan streamPlan) (resp *fetch.Response, took time.Duration, err error) {
	spare := 0
	if e.shared == nil && e.opts.Wait == 0 {
		spare = plan.start - 1
	}
	for r := e.retrier(); ; {
		asked := time.Now()
		resp, err = e.paced(ctx, &fetch.Request{URL: rawURL, Parsed: u, Call: schemes.Call{Spare: spare, Hash: e.opts.Verify != VerifyNever, DirTimes: true}})
		if err == nil {
			return resp, time.Since(asked), nil
		}
		if errors.Is(err, schemes.ErrConnect) || !r.again(ctx, err, rawURL) {
			return nil, 0, err
		}
	}
}

// learnSite learns the site from the starting URL's answer: its kind,
// where the bag's payload goes, its robots.txt, its clock's zone. resp is
// closed when it fails.
func (e *engine) learnSite(ctx context.Context, rawURL string, u *schemes.URL, resp *fetch.Response) error {
	if err := e.site.init(rawURL, u, resp, e.c.DecodeName); err != nil {
		resp.Close()
		return err
	}
	if e.opts.Bag {
		if e.site.mode != modeListing {
			resp.Close()
			return fmt.Errorf("mirror: a bag is kept of FTP and file trees, not of %s: %w", e.site.scheme, schemes.ErrUsage)
		}
		e.payload = bagPayload
		if e.site.rootOp(resp) == opList {
			e.site.rootPath = bagPayload
		}
	}
	if e.site.mode == modeGopher || e.site.scheme == "gemini" {
		e.robots = e.fetchRobots(ctx)
	}
	e.ftp.loadZone()
	return nil
}

// crawl queues the starting job (or joins the shared crawl with it) and
// runs the workers until the queue is done or ctx ends.
func (e *engine) crawl(ctx context.Context, rawURL string, resp *fetch.Response) error {
	// The starting job is queued before any worker runs: a worker that
	// found the queue empty with nothing pending would take the mirror
	// for done.
	root := job{Op: e.site.rootOp(resp), URL: e.site.rootURL, Path: e.site.rootPath, Sel: e.site.selector, Host: e.site.host, Port: e.site.port, Size: -1, Root: true}
	if root.Op == opList && e.opts.Symlinks == SymlinksFollow {
		root.Remote = remotePath(rawURL)
		e.rootRemote = root.Remote
	}
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	if e.shared != nil {
		// Every worker read the starting URL to learn the site; whichever
		// takes the root job reads it again.
		resp.Close()
		if err := e.joinShared(ctx, rawURL, root, stopWorkers); err != nil {
			return err
		}
	} else {
		e.rootResp.Store(resp)
		e.q.push(root)
	}
	stopProgress := e.startProgress()
	var wg sync.WaitGroup
	for i := range e.opts.Jobs {
		wg.Go(func() { e.worker(wctx, i) })
	}
	wg.Wait()
	stopProgress()
	if err := e.sharedErr(); err != nil && ctx.Err() == nil {
		e.st.flush()
		return err
	}
	if err := ctx.Err(); err != nil {
		e.st.flush()
		return fmt.Errorf("mirror %s: %w (%w)", rawURL, schemes.ErrInterrupted, context.Cause(ctx))
	}
	return nil
}

// finish ends a whole run: what vanished deleted, directory times set,
// the state written, the bag's manifests.
func (e *engine) finish(ctx context.Context, rawURL string) error {
	if e.opts.Delete {
		e.deleteVanished(ctx)
	}
	e.ftp.setDirTimes()
	if err := e.st.flush(); err != nil {
		return fmt.Errorf("mirror state in %s: %w", filepath.Join(e.dir, stateDir), err)
	}
	if e.opts.Bag && !e.opts.DryRun {
		if err := e.writeBag(rawURL); err != nil {
			return fmt.Errorf("mirror bag in %s: %w", e.dir, err)
		}
	}
	return nil
}

// engine is one mirror run.
type engine struct {
	c     *fetch.Client
	opts  Options
	dir   string
	start time.Time
	root  *os.Root // nil in a dry run over a DIR that does not exist
	tmp   *os.Root // DIR/.gofer/tmp (not in a dry run)
	st    *store   // nil in a dry run without earlier state
	q     frontier
	run   uint64
	site  site
	// shared is the crawl this run is a worker of, nil for a local mirror.
	shared    Shared
	sharedMu  sync.Mutex
	sharedBad error
	// tmpDir holds partial files: DIR/.gofer/tmp, or tmp-WORKER for a
	// worker of a shared crawl.
	tmpDir string

	robots []string
	// filt holds the run's rules (a Control may change them while the
	// run goes on); kept the rules added while runs went on, which the
	// state keeps.
	filt   atomic.Pointer[filters]
	filtMu sync.Mutex
	kept   []Filter
	// listing counts the listings, menus and pages being read now.
	listing atomic.Int64
	// jobsAsked is Options.Jobs as given; rateNow and perHostNow the byte
	// budget and the connection cap now (a Control may change them).
	jobsAsked           int
	rateNow, perHostNow atomic.Int64
	// rootRemote is the starting directory's remote path, with
	// SymlinksFollow (links leading out of it are not followed with
	// Options.NoParent).
	rootRemote string
	// payload is the local directory the tree goes into: "" (DIR
	// itself), or a bag's data directory.
	payload  string
	limiter  *rate.Limiter // the run's byte budget, nil for none
	rootResp atomic.Pointer[fetch.Response]
	streams  *streamGate

	mu        sync.Mutex // guards sum, visited, dirs, workers, listFailed
	sum       Summary
	visited   map[uint64]struct{}
	dirs      map[string]struct{}
	workers   []string
	listFails int

	// The walkers, one per kind of tree, over this core.
	ftp    *ftpWalker
	gopher *gopherWalker
	pages  *pageWalker

	filesDone, filesTotal, bytes atomic.Int64
	logMu                        sync.Mutex
}

// open prepares DIR, its state directory, the state database and the queue.
func (e *engine) open() error {
	e.visited = map[uint64]struct{}{}
	e.dirs = map[string]struct{}{}
	e.workers = make([]string, e.opts.Jobs)
	e.sum.Refusals, e.sum.Failures, e.sum.UnparsedLines = []Refusal{}, []Failure{}, []UnparsedLine{}

	e.tmpDir = stateDir + "/tmp"
	dbName := "state.db"
	if e.shared != nil {
		e.tmpDir = stateDir + "/tmp-" + e.opts.Worker
		dbName = "state-" + e.opts.Worker + ".db"
	}
	open := e.openState
	if e.opts.DryRun {
		open = e.openStateReadOnly
	}
	spill, err := open(dbName)
	if err != nil {
		return err
	}
	run, err := e.st.beginRun()
	if err != nil {
		return fmt.Errorf("mirror state: %w", err)
	}
	e.run = run
	if !e.opts.DryRun {
		e.cleanTemps()
	}
	if e.shared != nil {
		os.Remove(spill)
		e.q = sharedFrontier{s: e.shared, finished: func() {}, failed: e.sharedFailed}
		return nil
	}
	e.q = localFrontier{newQueue(spill)}
	return nil
}

// openStateReadOnly is a dry run's open: nothing is written into DIR;
// the state is read if there is one, and the queue spills into the
// system's temp directory, whose file it returns.
func (e *engine) openStateReadOnly(string) (spill string, err error) {
	if root, err := os.OpenRoot(e.dir); err == nil {
		e.root = root
		if stateDirOK(root) == nil {
			db := filepath.Join(e.dir, stateDir, "state.db")
			if _, err := os.Stat(db); err == nil {
				if e.st, err = openStore(db, true); err != nil {
					return "", err
				}
			}
		}
	}
	f, err := os.CreateTemp("", "gofer-mirror-queue-")
	if err != nil {
		return "", err
	}
	f.Close()
	return f.Name(), nil
}

// openState makes DIR and its state directory (refusing one that is not
// what gofer made), opens the state database dbName and returns where
// the queue spills.
func (e *engine) openState(dbName string) (spill string, err error) {
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		return "", fmt.Errorf("mirror directory: %w", err)
	}
	root, err := os.OpenRoot(e.dir)
	if err != nil {
		return "", fmt.Errorf("mirror directory: %w", err)
	}
	e.root = root
	for _, d := range []string{stateDir, e.tmpDir} {
		if err := root.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("mirror state: %w", err)
		}
	}
	if err := stateDirOK(root); err != nil {
		return "", fmt.Errorf("mirror state: %w", err)
	}
	if fi, err := root.Lstat(e.tmpDir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("mirror state: %s is not a directory", e.tmpDir)
	}
	if fi, err := root.Lstat(stateDir + "/" + dbName); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("mirror state: %s/%s is not a regular file", stateDir, dbName)
	}
	if e.tmp, err = root.OpenRoot(e.tmpDir); err != nil {
		return "", fmt.Errorf("mirror state: %w", err)
	}
	if e.st, err = openStore(filepath.Join(e.dir, stateDir, dbName), false); err != nil {
		return "", fmt.Errorf("mirror state: %w", err)
	}
	return filepath.Join(e.dir, stateDir, "queue"), nil
}

func (e *engine) close() {
	if r := e.rootResp.Swap(nil); r != nil {
		r.Close()
	}
	if e.q != nil {
		e.q.close()
	}
	e.st.close()
	if e.tmp != nil {
		e.tmp.Close()
	}
	if e.root != nil {
		e.root.Close()
	}
}

func (e *engine) worker(ctx context.Context, id int) {
	// where is the directory this worker's last job left its connection
	// in (job.dir).
	where := ""
	ctx = context.WithValue(ctx, pacerKey{}, &pacer{})
	var held *heldSlot
	defer func() { held.giveBack() }()
	for {
		if !e.opts.Control.wait(ctx) || !e.streams.acquire(ctx) {
			return
		}
		j, done, ok := e.q.pop(ctx, where)
		if !ok {
			e.streams.release(false)
			e.streams.finish()
			return
		}
		if !e.opts.Control.wait(ctx) {
			// Paused while this worker waited for the job, then ended.
			done()
			e.streams.release(false)
			return
		}
		if !held.keep() {
			// Only a shared crawl has other processes to yield to: a local
			// run's slots are its own and come at once.
			if e.shared != nil && held != nil && held.turnTaken && !ctxwait.For(ctx, time.Duration(rand.Int64N(int64(slotYield)))) {
				done()
				e.streams.release(false)
				return
			}
			release, ok := e.slot(ctx)
			if !ok {
				done()
				e.streams.release(false)
				return
			}
			held = &heldSlot{release: release, since: time.Now()}
		}
		where = j.dir()
		e.setWorker(id, j.Path)
		e.do(ctx, j)
		e.setWorker(id, "")
		if time.Since(held.since) >= slotTurn {
			// Its turn is over: workers of other processes waiting for a
			// slot get theirs now.
			held.giveBack()
			held.turnTaken = true
		} else {
			held.idle()
		}
		done()
		e.streams.release(true)
	}
}

// A worker of a shared crawl keeps its connection slot while work comes
// at once (and with it its connection), and gives it back once it has had
// no job for slotIdle, or has held it for slotTurn; then it waits up to
// slotYield before asking again, so that workers that were waiting (which
// are told at once) come first.
const (
	slotIdle  = 200 * time.Millisecond
	slotTurn  = time.Second
	slotYield = 25 * time.Millisecond
)

// heldSlot is a worker's connection slot in a shared crawl.
type heldSlot struct {
	release   func()
	since     time.Time
	timer     *time.Timer
	once      sync.Once
	turnTaken bool // given back after its turn, not for want of work
}

// idle starts the slot's idle time: it is given back unless kept first.
func (h *heldSlot) idle() {
	if h != nil {
		h.timer = time.AfterFunc(slotIdle, h.giveBack)
	}
}

// keep reports whether the slot is still held, and then keeps it.
func (h *heldSlot) keep() bool {
	return h != nil && !h.turnTaken && (h.timer == nil || h.timer.Stop())
}

func (h *heldSlot) giveBack() {
	if h != nil {
		h.once.Do(h.release)
	}
}

// slot waits, in a shared crawl, for one of the crawl's connection slots
// to the server (Options.MaxPerHost over all its processes), held while
// the worker works on one job; false when ctx ended first.
func (e *engine) slot(ctx context.Context) (func(), bool) {
	if e.shared == nil {
		return func() {}, true
	}
	perHost := e.opts.MaxPerHost
	if perHost <= 0 {
		perHost = DefaultMaxPerHost
	}
	release, err := e.shared.Slot(ctx, net.JoinHostPort(e.site.host, strconv.Itoa(e.site.port)), perHost)
	if err != nil {
		if ctx.Err() == nil {
			e.sharedFailed(err)
		}
		return nil, false
	}
	return release, true
}

// do runs one job. The root job takes the response Run already fetched.
func (e *engine) do(ctx context.Context, j job) {
	var pre *fetch.Response
	if j.Root {
		pre = e.rootResp.Swap(nil)
	}
	if !j.Root && j.Path != "" && e.dropped(j) {
		if pre != nil {
			pre.Close()
		}
		if j.Op == opFile {
			e.filesDone.Add(1) // it was counted in FilesTotal
		}
		return
	}
	if j.Op != opFile {
		e.listing.Add(1)
		defer e.listing.Add(-1)
	}
	switch j.Op {
	case opList:
		e.ftp.listDir(ctx, j, pre)
	case opMenu:
		e.gopher.menu(ctx, j, pre)
	case opPage:
		e.pages.page(ctx, j, pre)
	case opFollow:
		e.ftp.follow(ctx, j)
	default:
		e.file(ctx, j, pre)
	}
}

func (e *engine) setWorker(id int, path string) {
	e.mu.Lock()
	e.workers[id] = path
	e.mu.Unlock()
}

func (e *engine) logf(format string, args ...any) {
	if e.opts.Log == nil {
		return
	}
	e.logMu.Lock()
	defer e.logMu.Unlock()
	e.opts.Log(format, args...)
}

func (e *engine) fail(url, path string, err error) { e.failed(job{URL: url, Path: path}, err) }

// failed records that the item j could not be mirrored.
func (e *engine) failed(j job, err error) {
	e.mu.Lock()
	e.sum.Failed++
	if len(e.sum.Failures) < maxListed {
		e.sum.Failures = append(e.sum.Failures, Failure{URL: j.URL, Path: j.Path, Error: err.Error(), Err: err})
	}
	e.mu.Unlock()
	e.logf("failed %s: %v", j.URL, err)
	e.emit(Event{Status: StatusFailed, URL: j.URL, Path: j.Path, Err: err}, j.track)
}

func (e *engine) refuse(name, url string, err error) {
	e.mu.Lock()
	e.sum.Refused++
	if len(e.sum.Refusals) < maxListed {
		e.sum.Refusals = append(e.sum.Refusals, Refusal{Name: name, URL: url, Reason: err.Error(), Err: err})
	}
	e.mu.Unlock()
	e.logf("refused %q (%s): %v", name, url, err)
	e.emit(Event{Status: StatusRefused, URL: url, Path: name, Err: err}, nil)
}

func (e *engine) plan(action, url, path string) {
	e.mu.Lock()
	switch action {
	case "new":
		e.sum.New++
	case "update":
		e.sum.Updated++
	case "delete":
		e.sum.Deleted++
	}
	if len(e.sum.Planned) < maxPlanned {
		e.sum.Planned = append(e.sum.Planned, Planned{Action: action, URL: url, Path: path})
	}
	e.mu.Unlock()
	e.logf("would %s %s -> %s", action, url, path)
}

func (e *engine) count(field *int64) {
	e.mu.Lock()
	*field++
	e.mu.Unlock()
}

// listingFailed notes that a listing could not be read to its end, which
// keeps Options.Delete from taking its files for vanished.
func (e *engine) listingFailed() {
	e.mu.Lock()
	e.listFails++
	e.mu.Unlock()
}

// visit reports whether key is seen for the first time this run. Keys are
// kept as 64-bit hashes: eight bytes per menu, page or Gopher item.
func (e *engine) visit(key string) bool {
	h := fnv64(key)
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.visited[h]; ok {
		return false
	}
	e.visited[h] = struct{}{}
	return true
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func (e *engine) startProgress() func() {
	if e.opts.Progress == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				e.opts.Progress(e.snapshot())
				return
			case <-t.C:
				e.opts.Progress(e.snapshot())
			}
		}
	}()
	return func() { close(stop); <-done }
}

func (e *engine) snapshot() Progress {
	p := Progress{FilesDone: e.filesDone.Load(), FilesTotal: e.filesTotal.Load(), Bytes: e.bytes.Load()}
	if s := time.Since(e.start).Seconds(); s > 0 {
		p.Rate = float64(p.Bytes) / s
	}
	e.mu.Lock()
	p.Workers = append([]string(nil), e.workers...)
	e.mu.Unlock()
	e.fillProgress(&p)
	return p
}
