// Package cluster lets many gofer mirror processes, on many machines,
// share one crawl through NATS JetStream (the NATS server's persistence
// layer: streams with acknowledged delivery, and key-value buckets built on
// them). It implements mirror.Shared; the mirror engine does the fetching.
//
// A crawl is a named job. Per job the server holds:
//
//   - a work-queue stream, GOFER_JOB (subject gofer.JOB.work), and one
//     durable pull consumer all workers share. A message is one item of
//     work (a directory, menu or page to read, a file to fetch), JSON. A
//     worker acknowledges an item only after what it found there (the
//     items it queued, the records of what it wrote) is stored, and waits
//     for the server to confirm it (an acknowledgement lost in a server
//     restart is sent again). An item that is not acknowledged within
//     the ack wait (4 s by default: the worker died, hung or lost the
//     network) is delivered again to another. While it works on an item
//     a worker tells the server so (in-progress) and refreshes its claim
//     (below) every quarter of the ack wait, from a goroutine of its own,
//     so a long or stalled transfer keeps its item. An item taken
//     MaxDeliveries times by workers that died or gave it back is parked
//     at its next delivery: recorded under x.RUN.ID with its count,
//     acknowledged, reported by Status.
//     The crawl is finished when the stream is empty: items leave a
//     work-queue stream only when acknowledged, and a worker queues an
//     item's children before acknowledging it, so an empty stream means
//     no item is queued or in flight anywhere.
//   - a key-value bucket, GOFER_JOB: "job" (the starting URL, the run
//     number, running or done); the seen set t.RUN.ID, one key per item
//     taken in the run, made by atomic create when a worker takes the
//     item, so two workers never work on one item at once while its
//     holder is in touch with the server: a second copy
//     of an item (the stream drops copies queued within ten minutes of
//     each other by message ID, RUN.ID; a later one, say from a listing
//     read again after its worker died) finds the key and is dropped. The
//     key says who holds the item and how often it was taken ("take
//     WORKER N"), is taken over only by a redelivery of the item whose
//     holder let it go (gave it back, or has not refreshed the claim for
//     half the ack wait), and says "done" once the item is. A redelivery
//     while the claim is fresh (its holder's in-progress came late) is
//     left with the holder and not counted; a holder that finds its item
//     taken over while it still works on it gives the count back. The
//     claim's age is the server's time of its last write against the
//     reader's clock: machines' clocks must agree to within a second or
//     so (NTP).
//     Per local path f.ID, the record of what was written (URL, size,
//     time, sha256) and where (worker, host); per worker w.NAME, its
//     progress.
//   - a key-value bucket with a time to live, GOFER_JOB_slots: the per-host
//     connection cap, a counting semaphore. Before it works on an item a
//     mirror worker (one goroutine, one connection at a time) takes a
//     slot, h.HOST.N for some N below the cap, by atomic create (waiting
//     and watching the slots while all are taken), refreshes it while it
//     works and deletes it once it has had no item for a moment or has
//     held it for its turn (a second); the slot of a
//     worker that died expires with the bucket's age limit. All processes
//     of a job thus have at most the cap's number of workers fetching from
//     one server at any moment. (A control connection an FTP worker keeps
//     open, idle, after it gave its slot back is not counted.)
//
// IDs are hex SHA-256 prefixes of the item's key (its kind and URL) or
// of the local path. A finished job run again starts run N+1: items are
// seen and claimed afresh, and each worker compares with the records
// (its own state, or f.ID for files another worker wrote), so an
// unchanged file is not fetched again. A job whose workers all stopped
// goes on when any worker joins: the items they held are delivered again
// after the ack wait.
//
// A restarted server (or one the network hid) costs a few seconds: the
// client reconnects every 250 ms, notices a silent server within about
// 5 s (pings every 2 s), and each request to the server is given up and
// sent again after 2 s, so none waits out a request lost in the restart.
//
// The features used (work-queue retention, pull consumers, message
// deduplication, key-value create and update by revision, bucket age
// limits) are all in NATS server 2.9.
package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/internal/ctxwait"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Defaults of Options.
const (
	DefaultAckWait       = 4 * time.Second
	DefaultMaxDeliveries = 5
)

// tryTimeout bounds one request to the server: a request lost in a server
// restart is sent again after it, not after the client's 5 s default.
const tryTimeout = 2 * time.Second

// slotTTL is how long a slot outlives a worker that stopped refreshing it.
const slotTTL = 15 * time.Second

// Options say which server and job a worker joins.
type Options struct {
	// URL is the NATS server, nats://[USER:PASSWORD@]HOST:PORT (tls://
	// for TLS); a comma-separated list names several servers of one cluster.
	URL string
	// Creds is a NATS credentials file (user JWT and seed), if any.
	Creds string
	// Job names the crawl: 1 to 64 letters, digits, '-' or '_'.
	Job string
	// Worker names this process within the job (mirror.ValidWorker).
	Worker string
	// AckWait is how long an item taken by a silent worker waits before
	// it is delivered again (the job's is set by the worker that creates
	// it); MaxDeliveries how often an item may be taken by a worker that
	// died or gave it back before it is parked.
	AckWait       time.Duration
	MaxDeliveries int
}

var jobName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidJob reports whether name can name a job.
func ValidJob(name string) bool { return jobName.MatchString(name) }

// Crawl is one worker's connection to a job. It implements mirror.Shared.
type Crawl struct {
	opts   Options
	nc     *nats.Conn
	js     jetstream.JetStream
	stream jetstream.Stream
	cons   jetstream.Consumer
	kv     jetstream.KeyValue
	slots  jetstream.KeyValue
	subj   string
	host   string
	// ackWait is the consumer's, which the worker that created it chose.
	ackWait time.Duration

	heldMu sync.Mutex
	held   map[string]bool // claim keys of this worker's tasks

	run    uint64
	runMu  sync.Mutex
	work   chan *pending
	bg     context.Context // ends when the crawl is closed
	stop   context.CancelFunc
	wg     sync.WaitGroup
	pendMu sync.Mutex
	pend   []*pending

	statMu sync.Mutex
	stat   WorkerStatus
	parked []Parked
}

// Parked is an item given up on after too many deliveries.
type Parked struct {
	Item       json.RawMessage `json:"item"`
	Deliveries uint64          `json:"deliveries"`
	By         string          `json:"by"`
}

// pending is an item to queue or a record to store, done when stored.
type pending struct {
	key    string // item key; "" for a record
	subj   string // the record's key-value subject
	data   []byte
	stored chan struct{}
}

// Open connects to the server and makes sure the job's stream, consumer
// and buckets exist. Errors match schemes.ErrUsage (a bad job or worker
// name, URL), ErrConnect or ErrAuth.
func Open(ctx context.Context, opts Options) (*Crawl, error) {
	if opts.AckWait <= 0 {
		opts.AckWait = DefaultAckWait
	}
	if opts.MaxDeliveries <= 0 {
		opts.MaxDeliveries = DefaultMaxDeliveries
	}
	if !mirror.ValidWorker(opts.Worker) {
		return nil, schemes.Errorf(schemes.ErrUsage, "worker name %q: want 1 to 64 letters, digits, '-' or '_'", opts.Worker)
	}
	nc, js, err := connect(opts, "gofer worker "+opts.Worker)
	if err != nil {
		return nil, err
	}
	c := &Crawl{opts: opts, nc: nc, js: js, subj: "gofer." + opts.Job + ".work", work: make(chan *pending, 1024),
		held: map[string]bool{}}
	c.host, _ = os.Hostname()
	if err := c.ensure(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	c.ackWait = opts.AckWait
	if ci := c.cons.CachedInfo(); ci != nil && ci.Config.AckWait > 0 {
		c.ackWait = ci.Config.AckWait
	}
	c.stat = WorkerStatus{Worker: opts.Worker, Host: c.host, PID: os.Getpid(), State: "running"}
	bg, stop := context.WithCancel(context.Background())
	c.bg, c.stop = bg, stop
	for range 8 {
		c.wg.Go(func() { c.storer(bg) })
	}
	c.wg.Go(func() { c.reporter(bg) })
	return c, nil
}

// connect dials the server; the URL's password never appears in an error.
func connect(opts Options, name string) (*nats.Conn, jetstream.JetStream, error) {
	if !ValidJob(opts.Job) {
		return nil, nil, schemes.Errorf(schemes.ErrUsage, "job name %q: want 1 to 64 letters, digits, '-' or '_'", opts.Job)
	}
	shown := redactList(opts.URL)
	for _, u := range strings.Split(opts.URL, ",") {
		u = strings.TrimSpace(u)
		if !strings.HasPrefix(u, "nats://") && !strings.HasPrefix(u, "tls://") {
			return nil, nil, schemes.Errorf(schemes.ErrUsage, "cluster %s: want nats://HOST:PORT or tls://HOST:PORT", security.RedactURL(u))
		}
	}
	// A server that went silent (no FIN: a machine or network gone) is
	// noticed after two unanswered pings.
	nopts := []nats.Option{nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(5 * time.Second), nats.PingInterval(2 * time.Second), nats.MaxPingsOutstanding(2),
		nats.NoCallbacksAfterClientClose(),
		// The client's own reports would go to stderr with the server URL.
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})}
	if opts.Creds != "" {
		if _, err := os.Stat(opts.Creds); err != nil {
			return nil, nil, schemes.Errorf(schemes.ErrUsage, "cluster credentials: %v", err)
		}
		nopts = append(nopts, nats.UserCredentials(opts.Creds))
	}
	nc, err := nats.Connect(opts.URL, nopts...)
	if err != nil {
		kind := schemes.ErrConnect
		if errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || strings.Contains(strings.ToLower(err.Error()), "authorization") {
			kind = schemes.ErrAuth
		}
		return nil, nil, schemes.Errorf(kind, "cluster %s: %s", shown, scrub(err.Error(), opts.URL))
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, schemes.Errorf(schemes.ErrConnect, "cluster %s: %v", shown, err)
	}
	return nc, js, nil
}

// redactList masks the passwords of a comma-separated URL list.
func redactList(list string) string {
	parts := strings.Split(list, ",")
	for i, p := range parts {
		parts[i] = security.RedactURL(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
}

// scrub removes every URL of list from a message (a client error may quote it).
func scrub(msg, list string) string {
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			msg = strings.ReplaceAll(msg, p, security.RedactURL(p))
		}
	}
	return msg
}

func streamName(job string) string { return "GOFER_" + job }
func bucketName(job string) string { return "GOFER_" + job }
func slotsName(job string) string  { return "GOFER_" + job + "_slots" }

// consumerName is the one durable consumer every worker of a job pulls from.
const consumerName = "workers"

// ensure creates (or finds) the job's stream, consumer and buckets.
func (c *Crawl) ensure(ctx context.Context) error {
	// Workers starting together create the same things at once, and a
	// busy server may answer one of them late: each step is tried again
	// for up to a minute.
	step := func(what string, fn func(context.Context) error) error {
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := retry(sctx, fn); err != nil {
			return schemes.Errorf(schemes.ErrConnect, "cluster %s: %s: %s", redactList(c.opts.URL), what, scrub(err.Error(), c.opts.URL))
		}
		return nil
	}
	// Found or created, never updated: NATS 2.9 servers can crash on
	// concurrent updates of one stream.
	err := step("work queue", func(ctx context.Context) (err error) {
		name := streamName(c.opts.Job)
		if c.stream, err = c.js.Stream(ctx, name); !errors.Is(err, jetstream.ErrStreamNotFound) {
			return err
		}
		c.stream, err = c.js.CreateStream(ctx, jetstream.StreamConfig{
			Name: name, Subjects: []string{c.subj},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage,
			Duplicates: 10 * time.Minute,
		})
		return err
	})
	if err != nil {
		return err
	}
	err = step("work queue consumer", func(ctx context.Context) (err error) {
		if c.cons, err = c.stream.Consumer(ctx, consumerName); !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return err
		}
		c.cons, err = c.stream.CreateConsumer(ctx, jetstream.ConsumerConfig{
			Durable: consumerName, AckPolicy: jetstream.AckExplicitPolicy, AckWait: c.opts.AckWait,
			MaxDeliver: -1, MaxAckPending: 10000, DeliverPolicy: jetstream.DeliverAllPolicy,
		})
		return err
	})
	if err != nil {
		return err
	}
	bucket := func(cfg jetstream.KeyValueConfig) (kv jetstream.KeyValue, err error) {
		err = step("bucket "+cfg.Bucket, func(ctx context.Context) error {
			if kv, err = c.js.KeyValue(ctx, cfg.Bucket); !errors.Is(err, jetstream.ErrBucketNotFound) {
				return err
			}
			kv, err = c.js.CreateKeyValue(ctx, cfg)
			return err
		})
		return kv, err
	}
	if c.kv, err = bucket(jetstream.KeyValueConfig{Bucket: bucketName(c.opts.Job), History: 1, Storage: jetstream.FileStorage}); err != nil {
		return err
	}
	c.slots, err = bucket(jetstream.KeyValueConfig{Bucket: slotsName(c.opts.Job), History: 1, TTL: slotTTL, Storage: jetstream.FileStorage})
	return err
}

// id is the key-value form of a key: hex of its SHA-256, first 16 bytes.
func id(key string) string {
	s := sha256.Sum256([]byte(key))
	return hex.EncodeToString(s[:16])
}

// jobMeta is the "job" key.
type jobMeta struct {
	URL     string    `json:"url"`
	Run     uint64    `json:"run"`
	State   string    `json:"state"` // running, done
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
}

// Join enters the job (mirror.Shared).
func (c *Crawl) Join(ctx context.Context, startURL, key string, root []byte) (uint64, error) {
	var run uint64
	err := retry(ctx, func(ctx context.Context) error {
		e, err := c.kv.Get(ctx, "job")
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			b, _ := json.Marshal(jobMeta{URL: startURL, Run: 1, State: "running", Started: time.Now().UTC()})
			if _, err := c.kv.Create(ctx, "job", b); err != nil {
				return err // another worker created it first: read again
			}
			run = 1
			return nil
		}
		if err != nil {
			return err
		}
		var m jobMeta
		if err := json.Unmarshal(e.Value(), &m); err != nil {
			return permanent{fmt.Errorf("job %s: unreadable state: %w", c.opts.Job, err)}
		}
		if m.URL != startURL {
			return permanent{schemes.Errorf(schemes.ErrUsage, "job %s mirrors %s, not %s", c.opts.Job,
				security.RedactURL(m.URL), security.RedactURL(startURL))}
		}
		if m.State == "running" {
			run = m.Run
			return nil
		}
		// A finished job: this worker starts its next run.
		b, _ := json.Marshal(jobMeta{URL: startURL, Run: m.Run + 1, State: "running", Started: time.Now().UTC()})
		if _, err := c.kv.Update(ctx, "job", b, e.Revision()); err != nil {
			return err
		}
		run = m.Run + 1
		c.forget(ctx, m.Run)
		return nil
	})
	if err != nil {
		return 0, c.wrap("join", err)
	}
	c.runMu.Lock()
	c.run = run
	c.runMu.Unlock()
	c.statMu.Lock()
	c.stat.Run = run
	c.statMu.Unlock()
	// The root is queued by every worker that joins, under one message
	// ID: the stream keeps one, and a claim already made skips a late one.
	err = retry(ctx, func(ctx context.Context) error {
		_, err := c.js.PublishMsg(ctx, c.itemMsg(key, root), jetstream.WithMsgID(c.msgID(key)))
		return err
	})
	if err != nil {
		return 0, c.wrap("queue the root", err)
	}
	c.putStatus(ctx)
	return run, nil
}

// forget removes a finished run's seen set, which no later run reads,
// so that reruns do not grow the bucket. Its parked items stay.
func (c *Crawl) forget(ctx context.Context, run uint64) {
	st, err := c.js.Stream(ctx, "KV_"+bucketName(c.opts.Job))
	if err != nil {
		return
	}
	st.Purge(ctx, jetstream.WithPurgeSubject(fmt.Sprintf("$KV.%s.t.%d.>", bucketName(c.opts.Job), run)))
}

func (c *Crawl) currentRun() uint64 {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	return c.run
}

func (c *Crawl) msgID(key string) string { return fmt.Sprintf("%d.%s", c.currentRun(), id(key)) }

func (c *Crawl) itemMsg(key string, item []byte) *nats.Msg {
	m := nats.NewMsg(c.subj)
	m.Data = item
	m.Header.Set("Gofer-Item", id(key))
	return m
}

func (c *Crawl) wrap(what string, err error) error {
	var p permanent
	if errors.As(err, &p) {
		return p.err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return schemes.Errorf(schemes.ErrInterrupted, "cluster job %s: %s: %v", c.opts.Job, what, err)
	}
	return schemes.Errorf(schemes.ErrConnect, "cluster job %s: %s: %s", c.opts.Job, what, scrub(err.Error(), c.opts.URL))
}

// Push queues an item once per run (mirror.Shared).
func (c *Crawl) Push(key string, item []byte) {
	c.enqueue(&pending{key: key, data: item, stored: make(chan struct{})})
}

// Record stores a local path's record, with where it was written (mirror.Shared).
func (c *Crawl) Record(path string, rec []byte) {
	b, _ := json.Marshal(fileRecord{Path: path, Worker: c.opts.Worker, Host: c.host, Record: rec})
	c.enqueue(&pending{subj: "$KV." + bucketName(c.opts.Job) + ".f." + id(path), data: b, stored: make(chan struct{})})
}

// fileRecord is the f.ID value: the mirror's record and where it lies.
type fileRecord struct {
	Path   string          `json:"path"`
	Worker string          `json:"worker"`
	Host   string          `json:"host"`
	Record json.RawMessage `json:"record"`
}

func (c *Crawl) enqueue(p *pending) {
	c.pendMu.Lock()
	// Forget what is stored already, so the list stays short.
	keep := c.pend[:0]
	for _, q := range c.pend {
		select {
		case <-q.stored:
		default:
			keep = append(keep, q)
		}
	}
	clear(c.pend[len(keep):])
	c.pend = append(keep, p)
	c.pendMu.Unlock()
	c.work <- p
}

// storer stores queued items and records until ctx ends, each until it
// is stored (the server may be restarting).
func (c *Crawl) storer(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case p := <-c.work:
			if retry(ctx, func(ctx context.Context) error { return c.store(ctx, p) }) == nil {
				close(p.stored)
			}
		}
	}
}

func (c *Crawl) store(ctx context.Context, p *pending) error {
	if p.key == "" {
		_, err := c.js.Publish(ctx, p.subj, p.data)
		return err
	}
	// The message ID makes the stream keep one copy of an item queued
	// twice within its deduplication window (a Gopher item two menus
	// name, the children of an item listed again after its worker died);
	// a copy published later is dropped when taken, by its claim.
	_, err := c.js.PublishMsg(ctx, c.itemMsg(p.key, p.data), jetstream.WithMsgID(c.msgID(p.key)))
	return err
}

// flush waits until everything pushed or recorded so far is stored.
func (c *Crawl) flush(ctx context.Context) error {
	c.pendMu.Lock()
	list := append([]*pending(nil), c.pend...)
	c.pendMu.Unlock()
	for _, p := range list {
		select {
		case <-p.stored:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Lookup returns a path's record as some worker stored it (mirror.Shared).
func (c *Crawl) Lookup(ctx context.Context, path string) ([]byte, bool, error) {
	var rec []byte
	found := false
	err := retry(ctx, func(ctx context.Context) error {
		e, err := c.kv.Get(ctx, "f."+id(path))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var fr fileRecord
		// The key is the path's hash: Path, JSON, may have lost bytes
		// that are not UTF-8, and is there for people to read.
		if err := json.Unmarshal(e.Value(), &fr); err != nil {
			return nil
		}
		rec, found = fr.Record, true
		return nil
	})
	return rec, found, err
}

// Close stops the worker: its progress is written as state ("finished",
// "stopped"), the connection drained.
func (c *Crawl) Close(ctx context.Context, state string) error {
	c.statMu.Lock()
	c.stat.State = state
	c.statMu.Unlock()
	c.putStatus(ctx)
	c.stop()
	c.wg.Wait()
	c.nc.Close()
	return nil
}

// Parked lists the items this worker parked.
func (c *Crawl) Parked() []Parked {
	c.statMu.Lock()
	defer c.statMu.Unlock()
	return append([]Parked(nil), c.parked...)
}

// permanent marks an error retry must not retry.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }

// retry calls fn until it succeeds, returns a permanent error, or ctx
// ends. Each try has tryTimeout; between tries it waits, from 50 ms
// doubling to 1 s: a server restarting is back within that, and the
// client reconnects by itself. fn must be safe to repeat: a try that
// timed out may have been done by the server.
func retry(ctx context.Context, fn func(context.Context) error) error {
	wait := 50 * time.Millisecond
	for {
		tctx, cancel := context.WithTimeout(ctx, tryTimeout)
		err := fn(tctx)
		cancel()
		if err == nil {
			return nil
		}
		var p permanent
		if errors.As(err, &p) {
			return err
		}
		if ctx.Err() != nil {
			return err
		}
		if !ctxwait.For(ctx, wait) {
			return err
		}
		wait = min(wait*2, time.Second)
	}
}
