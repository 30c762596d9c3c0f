package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
			wait = min(wait*2, 2*time.Second)
			continue
		}
		wait = 50 * time.Millisecond
		info, err := c.stream.Info(ctx)
		if err == nil && info.State.Msgs == 0 {
			c.finish(ctx)
			return nil, mirror.ErrDone
		}
	}
}

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
	if md.NumDelivered > uint64(c.opts.MaxDeliveries) {
		c.park(ctx, m, key, md.NumDelivered)
		return nil
	}
	mine := []byte("take " + c.opts.Worker)
	rev, err := c.kv.Create(ctx, key, mine)
	if errors.Is(err, jetstream.ErrKeyExists) {
		e, gerr := c.kv.Get(ctx, key)
		switch {
		case gerr != nil:
			m.Nak()
			return nil
		case string(e.Value()) == "done" || string(e.Value()) == "parked":
			m.Ack() // done, its acknowledgement lost
			return nil
		case md.NumDelivered == 1:
			// A second copy of an item another worker holds: the copy
			// goes, the item stays with its worker.
			m.Ack()
			return nil
		}
		// Delivered again: whoever held it let it go.
		rev, err = c.kv.Update(ctx, key, mine, e.Revision())
	}
	if err != nil {
		m.Nak()
		return nil
	}
	t := &task{c: c, m: m, key: key, rev: rev, stop: make(chan struct{})}
	t.wg.Go(t.heartbeat)
	return t
}

// park gives up on an item delivered too often: recorded, acknowledged.
func (c *Crawl) park(ctx context.Context, m jetstream.Msg, key string, n uint64) {
	p := Parked{Item: json.RawMessage(m.Data()), Deliveries: n, By: c.opts.Worker}
	if !json.Valid(m.Data()) {
		p.Item, _ = json.Marshal(string(m.Data()))
	}
	b, _ := json.Marshal(p)
	err := retry(ctx, func() error {
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
	retry(ctx, func() error {
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
	c    *Crawl
	m    jetstream.Msg
	key  string
	rev  uint64
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

func (t *task) Item() []byte { return t.m.Data() }

// heartbeat tells the server the item is being worked on, every third of
// the ack wait, until the task ends.
func (t *task) heartbeat() {
	tick := time.NewTicker(t.c.opts.AckWait / 3)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			t.m.InProgress()
		}
	}
}

func (t *task) end() {
	t.once.Do(func() {
		close(t.stop)
		t.wg.Wait()
	})
}

// Done acknowledges the item once what it queued and recorded is stored.
func (t *task) Done(ctx context.Context) error {
	defer t.end()
	if err := t.c.flush(ctx); err != nil {
		t.m.Nak()
		return err
	}
	err := retry(ctx, func() error {
		_, err := t.c.kv.Put(ctx, t.key, []byte("done"))
		return err
	})
	if err != nil {
		// Not recorded done: another worker does it again (at once; a
		// worker ended by ctx must not hold it for the ack wait).
		t.m.Nak()
		return err
	}
	t.c.statMu.Lock()
	t.c.stat.Done++
	t.c.statMu.Unlock()
	// A lost acknowledgement only means a redelivery, which the claim
	// ("done") settles.
	return t.m.Ack()
}

// Drop gives the item back for another worker, at once.
func (t *task) Drop() {
	t.end()
	t.m.Nak()
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
			rev, err := c.slots.Create(ctx, key, []byte(c.opts.Worker))
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
