package mirror

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A run paused from the first body starts no other until resumed; a rule
// added meanwhile leaves out what was queued under it, and the next run
// honours it from the state; the events agree with the summary to the
// item and the byte.
func TestControlPausesExcludesAndEventsAddUp(t *testing.T) {
	m := newMemFTP()
	for i := range 12 {
		m.file(fmt.Sprintf("keep/k%02d", i), strings.Repeat("k", 100+i))
		m.file(fmt.Sprintf("drop/d%02d", i), strings.Repeat("d", 200+i))
	}
	ctl := NewControl()
	var once sync.Once
	paused := make(chan string)
	m.gate = func(path string) {
		once.Do(func() {
			ctl.Pause()
			if err := ctl.AddFilter(Filter{Exclude: true, Glob: "drop/"}); err != nil {
				t.Error(err)
			}
			paused <- path
		})
	}
	var mu sync.Mutex
	var events []Event
	evc := make(chan Event, 100)
	opts := Options{Jobs: 1, Control: ctl, Events: func(ev Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
		evc <- ev
	}}
	dir := t.TempDir()
	type result struct {
		sum *Summary
		err error
	}
	res := make(chan result, 1)
	go func() {
		sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, opts)
		res <- result{sum, err}
	}()
	first := <-paused
	// The body under way ends; nothing starts after it while paused.
	for ev := range evc {
		if ev.Status == StatusDone {
			if ev.Path != first {
				t.Fatalf("done %s, want the body under way, %s", ev.Path, first)
			}
			break
		}
	}
	select {
	case ev := <-evc:
		if ev.Status == StatusDone {
			t.Fatalf("%s done while paused", ev.Path)
		}
	case <-time.After(300 * time.Millisecond):
	}
	if !ctl.Paused() || m.totalBodies() != 1 {
		t.Fatalf("paused %v, bodies served %d, want true and 1", ctl.Paused(), m.totalBodies())
	}
	ctl.Resume()
	go func() {
		for range evc {
		}
	}()
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	sum := r.sum
	mu.Lock()
	defer mu.Unlock()
	var done, excluded int64
	var bytes int64
	for _, ev := range events {
		switch ev.Status {
		case StatusDone:
			done++
			bytes += ev.Bytes
			if strings.HasPrefix(ev.Path, "drop/") && ev.Path != first {
				t.Errorf("%s mirrored after the rule left it out", ev.Path)
			}
		case StatusExcluded:
			excluded++
		}
	}
	if done != sum.New+sum.Updated+sum.Unchanged || bytes != sum.Bytes || excluded != sum.Excluded {
		t.Errorf("events: %d done, %d bytes, %d excluded; summary: %d new, %d bytes, %d excluded", done, bytes, excluded, sum.New, sum.Bytes, sum.Excluded)
	}
	if sum.New < 12 || sum.Excluded < 11 {
		t.Errorf("summary: %d new, %d excluded; want every keep/ file and the drop/ files left out", sum.New, sum.Excluded)
	}

	// The rule stays in the state: a rerun without it leaves drop/ out.
	for i := range 12 {
		os.Remove(filepath.Join(dir, fmt.Sprintf("drop/d%02d", i)))
	}
	sum2, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum2.New != 0 || sum2.Excluded != 1 {
		t.Errorf("rerun: %d new, %d excluded; want 0 and the drop/ directory", sum2.New, sum2.Excluded)
	}

	// Taken back while a run goes on, the rule is gone from the state:
	// the run after it mirrors drop/ again.
	ctl3 := NewControl()
	if ctl3.RemoveFilter(Filter{Exclude: true, Glob: "drop/"}) {
		t.Error("a rule taken back before the run found in the Control")
	}
	var once3 sync.Once
	m.gate = nil
	if _, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 1, Control: ctl3, Progress: func(Progress) {
		once3.Do(func() {
			if !ctl3.RemoveFilter(Filter{Exclude: true, Glob: "drop/"}) {
				t.Error("the state's rule not found while the run went on")
			}
		})
	}}); err != nil {
		t.Fatal(err)
	}
	sum4, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum4.New != 12 || sum4.Excluded != 0 {
		t.Errorf("after the rule was taken back: %d new, %d excluded; want the 12 drop/ files and none", sum4.New, sum4.Excluded)
	}
}

// A Control's settings reach a run: the byte budget and the connection
// cap it sets are in the snapshots.
func TestControlSettingsReachTheRun(t *testing.T) {
	m := newMemFTP()
	for i := range 6 {
		m.file(fmt.Sprintf("f%d", i), "x")
	}
	ctl := NewControl()
	if err := ctl.SetLimitRate(1000); err == nil {
		t.Error("SetLimitRate before the run: no error")
	}
	if err := ctl.SetMaxPerHost(0); err == nil {
		t.Error("SetMaxPerHost(0): no error")
	}
	var once sync.Once
	var seen Progress
	m.gate = func(string) {
		once.Do(func() {
			if err := ctl.SetLimitRate(1 << 20); err != nil {
				t.Error(err)
			}
			if err := ctl.SetMaxPerHost(2); err != nil {
				t.Error(err)
			}
		})
	}
	_, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", t.TempDir(), Options{Jobs: 4, Control: ctl,
		Progress: func(p Progress) { seen = p }})
	if err != nil {
		t.Fatal(err)
	}
	if seen.LimitRate != 1<<20 {
		t.Errorf("limit rate in the last snapshot = %d, want %d", seen.LimitRate, 1<<20)
	}
	for h, hp := range seen.Hosts {
		if hp.Limit != 2 {
			t.Errorf("%s: %d streams allowed, want 2", h, hp.Limit)
		}
	}
	if len(seen.Hosts) != 1 {
		t.Errorf("hosts = %v, want one", seen.Hosts)
	}
}
