package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/internal/ctxwait"
)

// idleWait is how long one pull waits for an item before the worker looks
// whether the crawl is finished.
const idleWait = 250 * time.Millisecond

// Take waits for the next item (mirror.Shared).
func (c *Crawl) Take(ctx context.Context) (mirror.Task, error) {
	wait := 50 * time.Millisecond
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// The pull is not cut short when ctx ends: a message the server
		// sent by then counts as delivered, and dropped on the way it
		// would be held from every worker for the ack wait. It is given
		// back instead.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), idleWait)
		batch, err := c.cons.Fetch(1, jetstream.FetchContext(fctx))
		got := false
		if err == nil {
			for m := range batch.Messages() {
				got = true
				if ctx.Err() != nil {
					m.Nak()
					continue
				}
				if t := c.claim(ctx, m); t != nil {
					cancel()
					return t, nil
				}
			}
			err = batch.Error()
		}
		cancel()
		if got {
			continue
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, jetstream.ErrNoMessages) {
			// The server is away (restarting, say): the client reconnects.
			if !ctxwait.For(ctx, wait) {
				return nil, ctx.Err()
			}
			wait = min(wait*2, 500*time.Millisecond)
			continue
		}
		wait = 50 * time.Millisecond
		ictx, cancel := context.WithTimeout(ctx, tryTimeout)
		info, err := c.stream.Info(ictx)
		cancel()
		if err == nil && info.State.Msgs == 0 {
			c.finish(ctx)
			return nil, mirror.ErrDone
		}
	}
}

// claim is a claim key's value: "take WORKER N" (WORKER holds the item,
// taken N times), "drop WORKER N" (given back), "done" or "parked".
type claim struct {
	state  string
	worker string
	takes  int
}

func parseClaim(b []byte) claim {
	f := strings.Fields(string(b))
	cl := claim{state: "?"}
	if len(f) > 0 {
		cl.state = f[0]
	}
	if len(f) > 1 {
		cl.worker = f[1]
	}
	cl.takes = 1
	if len(f) > 2 {
		if n, err := strconv.Atoi(f[2]); err == nil && n > 0 {
			cl.takes = n
		}
	}
	return cl
}

func (cl claim) value() []byte { return fmt.Appendf(nil, "%s %s %d", cl.state, cl.worker, cl.takes) }

// claim makes m this worker's, or settles it: nil when the item is done
// already, taken by another worker, parked, or could not be claimed now.
func (c *Crawl) claim(ctx context.Context, m jetstream.Msg) *task {
	md, err := m.Metadata()
	if err != nil {
		m.Term()
		return nil
	}
	item := m.Headers().Get("Gofer-Item")
	if item == "" {
		m.Term() // not gofer's: never to be worked on
		return nil
	}
	key := fmt.Sprintf("t.%d.%s", c.currentRun(), item)
	if c.holds(key) {
		// Delivered again while this worker works on it (an in-progress
		// came late): left pending, the task's acknowledgement ends it.
		return nil
	}
	mine := claim{state: "take", worker: c.opts.Worker, takes: 1}
	cctx, cancel := context.WithTimeout(ctx, tryTimeout)
	defer cancel()
	rev, err := c.kv.Create(cctx, key, mine.value())
	if errors.Is(err, jetstream.ErrKeyExists) {
		e, gerr := c.kv.Get(cctx, key)
		if gerr != nil {
			m.Nak()
			return nil
		}
		cl := parseClaim(e.Value())
		switch {
		case cl.state == "done" || cl.state == "parked":
			m.Ack() // done, its acknowledgement lost
			return nil
		case md.NumDelivered == 1:
			// A second copy of an item another worker holds or held:
			// the copy goes, the item stays (or is delivered again).
			m.Ack()
			return nil
		case cl.state == "take" && cl.worker != c.opts.Worker && time.Since(e.Created()) < c.ackWait/2:
			// Its holder refreshed the claim a moment ago: it works on
			// the item, its in-progress came late. Left pending, not
			// counted; the holder's acknowledgement ends it, and if the
			// holder dies it is delivered again.
			return nil
		}
		// Delivered again: whoever held it let it go.
		if cl.takes >= c.opts.MaxDeliveries {
			c.park(ctx, m, key, cl.takes+1)
			return nil
		}
		mine.takes = cl.takes + 1
		rev, err = c.kv.Update(cctx, key, mine.value(), e.Revision())
		if err == nil && cl.state == "take" && cl.worker != c.opts.Worker {
			// Its holder went silent: the item is reassigned, after the
			// time since the holder's last word.
			waited := time.Since(e.Created()).Seconds()
			c.statMu.Lock()
			c.stat.Reassigned++
			c.stat.ReassignSeconds = max(c.stat.ReassignSeconds, waited)
			c.statMu.Unlock()
		}
	}
	if err != nil {
		m.Nak()
		return nil
	}
	t := &task{c: c, m: m, key: key, rev: rev, claim: mine, stop: make(chan struct{})}
	c.heldMu.Lock()
	c.held[key] = true
	c.heldMu.Unlock()
	t.wg.Go(t.heartbeat)
	return t
}

// holds reports whether one of this worker's tasks holds the claim key.
func (c *Crawl) holds(key string) bool {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	return c.held[key]
}

// park gives up on an item delivered too often: recorded, acknowledged.
func (c *Crawl) park(ctx context.Context, m jetstream.Msg, key string, n int) {
	p := Parked{Item: json.RawMessage(m.Data()), Deliveries: uint64(n), By: c.opts.Worker}
	if !json.Valid(m.Data()) {
		p.Item, _ = json.Marshal(string(m.Data()))
	}
	b, _ := json.Marshal(p)
	err := retry(ctx, func(ctx context.Context) error {
		if _, err := c.kv.Put(ctx, "x."+key[2:], b); err != nil {
			return err
		}
		_, err := c.kv.Put(ctx, key, []byte("parked"))
		return err
	})
	if err != nil {
		return // delivered again later
	}
	m.Ack()
	c.statMu.Lock()
	c.stat.Parked++
	c.parked = append(c.parked, p)
	c.statMu.Unlock()
}

// finish marks the run done, once, when its stream is empty.
func (c *Crawl) finish(ctx context.Context) {
	run := c.currentRun()
	retry(ctx, func(ctx context.Context) error {
		e, err := c.kv.Get(ctx, "job")
		if err != nil {
			return err
		}
		var m jobMeta
		if json.Unmarshal(e.Value(), &m) != nil || m.Run != run || m.State != "running" {
			return nil
		}
		m.State, m.Ended = "done", time.Now().UTC()
		b, _ := json.Marshal(m)
		_, err = c.kv.Update(ctx, "job", b, e.Revision())
		if errors.Is(err, jetstream.ErrKeyExists) {
			return nil // another worker marked it
		}
		return err
	})
}

// task is a claimed item (mirror.Task).
type task struct {
	c     *Crawl
	m     jetstream.Msg
	key   string
	rev   uint64 // the claim's revision; the heartbeat's until it ends
	claim claim
	// gaveBack: the claim was taken over while this task still worked
	// on the item, and its take was uncounted.
	gaveBack bool
	stop     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
}

func (t *task) Item() []byte { return t.m.Data() }

// heartbeat tells the server the item is being worked on, and refreshes
// the claim, every quarter of the ack wait until the task ends. It runs
// beside the transfer, so a slow one keeps its item; a tick missed while
// the last one waits on the server is dropped, not queued.
func (t *task) heartbeat() {
	every := t.c.ackWait / 4
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			t.m.InProgress()
			ctx, cancel := context.WithTimeout(context.Background(), every)
			t.refresh(ctx)
			cancel()
		}
	}
}

// refresh rewrites the claim, which tells other workers its holder is
// alive. When the claim is no longer this task's (another worker took the
// item over while this one was cut off from the server), the take is
// given back once: the item was not lost, and must not be parked for it.
func (t *task) refresh(ctx context.Context) {
	rev, err := t.c.kv.Update(ctx, t.key, t.claim.value(), t.rev)
	if err == nil {
		t.rev = rev
		return
	}
	e, err := t.c.kv.Get(ctx, t.key)
	if err != nil {
		return
	}
	cl := parseClaim(e.Value())
	switch {
	case cl.state == "take" && cl.worker == t.c.opts.Worker:
		// The last refresh was done, its answer lost; or the count was
		// given back by a worker this one took the item over from.
		t.claim, t.rev = cl, e.Revision()
	case cl.state == "take" && cl.worker != t.c.opts.Worker && cl.takes > 1 && !t.gaveBack:
		cl.takes--
		if _, err := t.c.kv.Update(ctx, t.key, cl.value(), e.Revision()); err == nil {
			t.gaveBack = true
		}
	}
}

func (t *task) end() {
	t.once.Do(func() {
		close(t.stop)
		t.wg.Wait()
		t.c.heldMu.Lock()
		delete(t.c.held, t.key)
		t.c.heldMu.Unlock()
	})
}

// release marks the claim given back, so that the next delivery of the
// item is taken at once, and gives the item back to the server.
func (t *task) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tryTimeout)
	defer cancel()
	cl := t.claim
	cl.state = "drop"
	t.c.kv.Update(ctx, t.key, cl.value(), t.rev)
	t.m.Nak()
}

// Done acknowledges the item once what it queued and recorded is stored.
func (t *task) Done(ctx context.Context) error {
	defer t.end()
	if err := t.c.flush(ctx); err != nil {
		t.end()
		t.release(ctx)
		return err
	}
	err := retry(ctx, func(ctx context.Context) error {
		_, err := t.c.kv.Put(ctx, t.key, []byte("done"))
		return err
	})
	if err != nil {
		// Not recorded done: another worker does it again (at once; a
		// worker ended by ctx must not hold it for the ack wait).
		t.end()
		t.release(ctx)
		return err
	}
	t.end()
	t.c.statMu.Lock()
	t.c.stat.Done++
	t.c.statMu.Unlock()
	// The server confirms the acknowledgement; one lost (the server
	// restarting) is sent again, so that the item does not wait out the
	// ack wait before the crawl can end. Given up on, it only means a
	// redelivery, which the claim ("done") settles.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*tryTimeout)
	defer cancel()
	return retry(actx, t.m.DoubleAck)
}

// Drop gives the item back for another worker, at once.
func (t *task) Drop() {
	t.end()
	t.release(context.Background())
}

// Slot waits for one of n connection slots to host (mirror.Shared). While
// all are taken it watches them, so that a slot given back is tried for at
// once (and at least every second, for a slot that expired).
func (c *Crawl) Slot(ctx context.Context, host string, n int) (func(), error) {
	prefix := "h." + id(host)[:16] + "."
	var watch jetstream.KeyWatcher
	defer func() {
		if watch != nil {
			watch.Stop()
		}
	}()
	for {
		for i := range n {
			key := fmt.Sprintf("%s%d", prefix, i)
			cctx, cancel := context.WithTimeout(ctx, tryTimeout)
			rev, err := c.slots.Create(cctx, key, []byte(c.opts.Worker))
			cancel()
			if err != nil {
				continue
			}
			return c.holdSlot(key, rev), nil
		}
		if watch == nil {
			// Set up after the first round: an uncontended slot costs
			// no watcher.
			watch, _ = c.slots.Watch(ctx, prefix+"*", jetstream.UpdatesOnly())
		}
		var updates <-chan jetstream.KeyValueEntry
		if watch != nil {
			updates = watch.Updates()
		}
		t := time.NewTimer(time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-updates:
		case <-t.C:
		}
		t.Stop()
	}
}

// holdSlot refreshes a slot until released; then deletes it.
func (c *Crawl) holdSlot(key string, rev uint64) func() {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(slotTTL / 3)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				ctx, cancel := context.WithTimeout(context.Background(), slotTTL/3)
				if r, err := c.slots.Update(ctx, key, []byte(c.opts.Worker), rev); err == nil {
					rev = r
				} else if r, err := c.slots.Create(ctx, key, []byte(c.opts.Worker)); err == nil {
					rev = r // it expired while the server was away
				}
				cancel()
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			c.slots.Delete(ctx, key, jetstream.LastRevision(rev))
		})
	}
}
