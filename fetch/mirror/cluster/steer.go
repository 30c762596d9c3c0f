package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/schemes"
)

// Steering a job: the job's bucket holds under "ctl" what every worker
// follows, whenever it joined: whether the job is paused, and the rules
// added to its filters. Each worker watches the key and applies a change
// to its run's mirror.Control as it comes.

// keyControl is the job's control key.
const keyControl = "ctl"

// JobControl is what steers every worker of a job.
type JobControl struct {
	Paused bool            `json:"paused"`
	Rules  []mirror.Filter `json:"rules"`
}

// Steer applies the job's control to ctl, now and at every change, until
// ctx ends or the crawl is closed.
func (c *Crawl) Steer(parent context.Context, ctl *mirror.Control) {
	ctx, cancel := context.WithCancel(c.bg)
	stop := context.AfterFunc(parent, cancel)
	w, err := c.kv.Watch(ctx, keyControl)
	if err != nil {
		stop()
		cancel()
		return
	}
	var applied []mirror.Filter
	c.wg.Go(func() {
		defer stop()
		defer cancel()
		defer w.Stop()
		for {
			var e jetstream.KeyValueEntry
			var ok bool
			select {
			case e, ok = <-w.Updates():
				if !ok {
					return
				}
			case <-ctx.Done():
				return
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue // the end of what was there, or a delete
			}
			var jc JobControl
			if json.Unmarshal(e.Value(), &jc) != nil {
				continue
			}
			if jc.Paused {
				ctl.Pause()
			} else {
				ctl.Resume()
			}
			for _, f := range applied {
				if !slices.Contains(jc.Rules, f) {
					ctl.RemoveFilter(f)
				}
			}
			for _, f := range jc.Rules {
				if !slices.Contains(applied, f) {
					ctl.AddFilter(f)
				}
			}
			applied = slices.Clone(jc.Rules)
		}
	})
}

// Steer changes a job's control by change, which is given the control as
// it stands (a change made meanwhile by another is read again and change
// called again). A job the server does not know is an error matching
// schemes.ErrRefused.
func Steer(ctx context.Context, opts Options, change func(*JobControl) error) (*JobControl, error) {
	nc, js, err := connect(opts, "gofer serve")
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	kv, err := js.KeyValue(ctx, bucketName(opts.Job))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, schemes.Errorf(schemes.ErrRefused, "cluster %s: no job %s", redactList(opts.URL), opts.Job)
	}
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrConnect, "cluster %s: %s", redactList(opts.URL), scrub(err.Error(), opts.URL))
	}
	for range 10 {
		var jc JobControl
		var rev uint64
		e, err := kv.Get(ctx, keyControl)
		switch {
		case err == nil:
			json.Unmarshal(e.Value(), &jc)
			rev = e.Revision()
		case !errors.Is(err, jetstream.ErrKeyNotFound):
			return nil, schemes.Errorf(schemes.ErrConnect, "cluster %s: %s", redactList(opts.URL), scrub(err.Error(), opts.URL))
		}
		if err := change(&jc); err != nil {
			return nil, err
		}
		if jc.Rules == nil {
			jc.Rules = []mirror.Filter{}
		}
		b, _ := json.Marshal(jc)
		if rev == 0 {
			_, err = kv.Create(ctx, keyControl, b)
		} else {
			_, err = kv.Update(ctx, keyControl, b, rev)
		}
		if err == nil {
			return &jc, nil
		}
	}
	return nil, schemes.Errorf(schemes.ErrConnect, "cluster %s: the job's control kept changing", redactList(opts.URL))
}
