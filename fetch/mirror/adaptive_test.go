package mirror

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// window is a synthetic measurement: items and bytes in one second.
func window(streams int, items, bytes int64, limit int) measure {
	return measure{streams: streams, items: items, bytes: bytes, dur: time.Second, limit: limit}
}

func TestStreamRuleGrowsWhileThroughputRises(t *testing.T) {
	r := newStreamRule(4, 8, true)
	// Latency-bound: each stream adds a quarter of the throughput of four.
	steps := []struct {
		m    measure
		want int
	}{
		{window(4, 40, 4e6, 0), 5},
		{window(5, 50, 5e6, 0), 6},   // +25%
		{window(6, 60, 6e6, 0), 7},   // +20%
		{window(7, 64, 6.3e6, 0), 6}, // +7%: taken back
		{window(6, 60, 6e6, 0), 6},   // final
	}
	for i, s := range steps {
		if got := r.observe(s.m); got != s.want {
			t.Fatalf("step %d (%d streams): next %d, want %d; %q", i, s.m.streams, got, s.want, r.steps)
		}
	}
	if !r.final || !strings.Contains(r.why, "gained less than 10%") {
		t.Errorf("final %v, why %q", r.final, r.why)
	}
	if len(r.steps) != 4 {
		t.Errorf("steps %q, want 4", r.steps)
	}
}

func TestStreamRuleStopsAtCeiling(t *testing.T) {
	r := newStreamRule(4, 5, true)
	if got := r.observe(window(4, 40, 0, 0)); got != 5 {
		t.Fatalf("first window: %d, want 5", got)
	}
	if got := r.observe(window(5, 60, 0, 0)); got != 5 || !r.final || !strings.Contains(r.why, "ceiling") {
		t.Fatalf("at the ceiling: %d, final %v, why %q", got, r.final, r.why)
	}
	if got := r.observe(window(5, 100, 0, 0)); got != 5 {
		t.Fatalf("after the ceiling: %d, want 5", got)
	}
}

func TestStreamRuleBytesCountAsThroughput(t *testing.T) {
	// Few large files: items a second stay flat, bytes rise.
	r := newStreamRule(2, 8, true)
	r.observe(window(2, 2, 20e6, 0))
	if got := r.observe(window(3, 2, 30e6, 0)); got != 4 {
		t.Fatalf("bytes rose 50%%: next %d, want 4; %q", got, r.steps)
	}
}

func TestStreamRuleServerLimit(t *testing.T) {
	r := newStreamRule(4, 8, true)
	r.observe(window(4, 40, 0, 0))
	if got := r.observe(window(5, 80, 0, 2)); got != 2 {
		t.Fatalf("server allows 2: next %d, want 2", got)
	}
	if !r.final || r.limit != 2 || r.ceiling != 2 || !strings.Contains(r.why, "allows 2") {
		t.Errorf("final %v, limit %d, ceiling %d, why %q", r.final, r.limit, r.ceiling, r.why)
	}
	if got := r.observe(window(2, 1000, 0, 2)); got != 2 {
		t.Errorf("after the limit the count grew to %d", got)
	}
}

func TestStreamRuleFixed(t *testing.T) {
	r := newStreamRule(3, 3, false)
	for range 3 {
		if got := r.observe(window(3, 10, 0, 0)); got != 3 {
			t.Fatalf("fixed count changed to %d", got)
		}
	}
	if got := r.observe(window(3, 10, 0, 2)); got != 2 {
		t.Fatalf("a fixed count above the server's limit of 2: %d", got)
	}
}

// fakeClock is a clock a test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestStreamGateKeepsToTheCount(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	var bytes atomic.Int64
	var limit atomic.Int64
	g := newStreamGate(newStreamRule(2, 4, true), 0, bytes.Load, func() int { return int(limit.Load()) }, clock.now)
	ctx := context.Background()
	for i := range 2 {
		if !g.acquire(ctx) {
			t.Fatalf("turn %d refused at a count of 2", i+1)
		}
	}
	third := make(chan bool)
	go func() { third <- g.acquire(ctx) }()
	select {
	case <-third:
		t.Fatal("a third worker went on at a count of 2")
	default:
	}
	// A window long enough with enough items: the rule tries 3, and the
	// waiting worker goes on.
	clock.add(time.Second)
	bytes.Store(1 << 20)
	g.mu.Lock()
	g.winItems = 3
	g.mu.Unlock()
	g.release(true)
	if !<-third {
		t.Fatal("the third worker was refused")
	}
	if g.rule.target != 3 {
		t.Fatalf("count %d after the first window, want 3", g.rule.target)
	}
	// The server's limit of 1 is learned: the count drops at the next release.
	limit.Store(1)
	g.release(true)
	if g.rule.target != 1 {
		t.Fatalf("count %d after the server's limit of 1", g.rule.target)
	}
	waiting := make(chan bool)
	go func() { waiting <- g.acquire(ctx) }()
	g.finish()
	if <-waiting {
		t.Error("a worker went on after the run was over")
	}
	h := g.report("127.0.0.1:21")
	if h.Start != 2 || h.Used != 1 || h.Peak != 2 || h.Ceiling != 4 || h.ServerLimit != 1 || !strings.Contains(h.Reason, "allows 1") {
		t.Errorf("report %+v", h)
	}
}
