package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/schemes"
)

// runServer starts an in-process NATS server with JetStream on a free
// loopback port; user and password, if given, are required.
func runServer(t *testing.T, user, password string) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoLog: true, NoSigs: true, Username: user, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	return s.ClientURL()
}

func open(t *testing.T, url, job, worker string, ackWait time.Duration, maxDeliveries int) *Crawl {
	t.Helper()
	c, err := Open(context.Background(), Options{URL: url, Job: job, Worker: worker, AckWait: ackWait, MaxDeliveries: maxDeliveries})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background(), "stopped") })
	return c
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func take(t *testing.T, c *Crawl) mirror.Task {
	t.Helper()
	task, err := c.Take(ctxFor(t, 20*time.Second))
	if err != nil {
		t.Fatalf("take: %v", err)
	}
	return task
}

// TestQueueOnceAckDone: the root, then children pushed while it is held
// (one key twice: queued once), acknowledged; then the job is done.
func TestQueueOnceAckDone(t *testing.T) {
	url := runServer(t, "", "")
	c := open(t, url, "j1", "w1", 0, 0)
	ctx := ctxFor(t, 30*time.Second)
	run, err := c.Join(ctx, "ftp://h/", "Lroot", []byte("root"))
	if err != nil || run != 1 {
		t.Fatalf("join: run %d, %v", run, err)
	}
	root := take(t, c)
	if string(root.Item()) != "root" {
		t.Fatalf("took %q, want the root", root.Item())
	}
	c.Push("Fa", []byte("a"))
	c.Push("Fb", []byte("b"))
	c.Push("Fa", []byte("a"))
	if err := root.Done(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for range 2 {
		task := take(t, c)
		got[string(task.Item())] = true
		if err := task.Done(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !got["a"] || !got["b"] {
		t.Errorf("took %v, want a and b", got)
	}
	if task, err := c.Take(ctx); !errors.Is(err, mirror.ErrDone) {
		t.Fatalf("after the last item: %v, %v; want ErrDone", task, err)
	}
	c.putStatus(ctx)
	st, err := Status(ctx, Options{URL: url, Job: "j1"})
	if err != nil {
		t.Fatal(err)
	}
	if st.State != "done" || st.Done != 3 || st.Queued != 0 || st.InFlight != 0 || len(st.Workers) != 1 {
		t.Errorf("status %+v, want done with 3 items by one worker", st)
	}
}

// TestRedeliveryToAnotherWorker: a worker that dies holding an item (its
// connection gone, no heartbeat) has it given to another within seconds,
// with the default ack wait; the claim passes to the new holder.
func TestRedeliveryToAnotherWorker(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	dead := open(t, url, "j2", "dead", 0, 0)
	if _, err := dead.Join(ctx, "ftp://h/", "Lroot", []byte("root")); err != nil {
		t.Fatal(err)
	}
	alive := open(t, url, "j2", "alive", 0, 0)
	if _, err := alive.Join(ctx, "ftp://h/", "Lroot", []byte("root")); err != nil {
		t.Fatal(err)
	}
	held := take(t, dead)
	held.(*task).end() // its heartbeat stops, as in a killed process
	dead.nc.Close()
	killed := time.Now()
	got := take(t, alive)
	after := time.Since(killed)
	if string(got.Item()) != "root" {
		t.Fatalf("took %q, want the dead worker's root", got.Item())
	}
	t.Logf("redelivered %v after the kill (ack wait %v)", after, DefaultAckWait)
	// The ack wait and one missed heartbeat, with room for a slow machine.
	if after > 10*time.Second {
		t.Errorf("redelivered %v after the kill, want within seconds", after)
	}
	if e, err := alive.kv.Get(ctx, "t.1."+id("Lroot")); err != nil || string(e.Value()) != "take alive 2" {
		t.Errorf("claim after the takeover: %v", err)
	}
	if err := got.Done(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := alive.Take(ctx); !errors.Is(err, mirror.ErrDone) {
		t.Fatalf("after the root: %v, want ErrDone", err)
	}
}

// TestLiveHolderKeepsItem: a worker that holds an item for three times the
// ack wait (a long transfer) keeps it: it is never delivered again, and
// another worker waits until it is done.
func TestLiveHolderKeepsItem(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	const ackWait = time.Second
	a := open(t, url, "j8", "a", ackWait, 1)
	b := open(t, url, "j8", "b", ackWait, 1)
	for _, c := range []*Crawl{a, b} {
		if _, err := c.Join(ctx, "ftp://h/", "Lroot", []byte("root")); err != nil {
			t.Fatal(err)
		}
	}
	held := take(t, a)
	if task, err := b.Take(ctxFor(t, 3*ackWait)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b during a's long item: %v, %v; want to wait", task, err)
	}
	ci, err := a.cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ci.NumRedelivered != 0 || ci.NumAckPending != 1 {
		t.Errorf("after 3 ack waits: %d redelivered, %d pending; want the item held, never redelivered", ci.NumRedelivered, ci.NumAckPending)
	}
	if err := held.Done(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Take(ctx); !errors.Is(err, mirror.ErrDone) {
		t.Errorf("b after a's item: %v, want ErrDone", err)
	}
	if len(a.Parked())+len(b.Parked()) != 0 {
		t.Errorf("parked %v %v", a.Parked(), b.Parked())
	}
}

// stopHeartbeat stops a task's heartbeat (its in-progress and claim
// refreshes) as if the server no longer heard them, the task still held.
func stopHeartbeat(t *task) {
	t.once.Do(func() {
		close(t.stop)
		t.wg.Wait()
	})
}

// TestLateExtensionNotCounted: an item delivered again while its holder
// still refreshes its claim (its in-progress lost) is neither taken over
// nor counted towards parking, even at one delivery allowed.
func TestLateExtensionNotCounted(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	const ackWait = time.Second
	a := open(t, url, "j9", "a", ackWait, 1)
	b := open(t, url, "j9", "b", ackWait, 1)
	for _, c := range []*Crawl{a, b} {
		if _, err := c.Join(ctx, "ftp://h/", "Lroot", []byte("root")); err != nil {
			t.Fatal(err)
		}
	}
	held := take(t, a).(*task)
	stopHeartbeat(held)
	stop := make(chan struct{})
	refreshed := make(chan struct{})
	go func() {
		defer close(refreshed)
		tick := time.NewTicker(ackWait / 4)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				held.refresh(ctx)
			}
		}
	}()
	if task, err := b.Take(ctxFor(t, 4*ackWait)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b while a refreshes its claim: %v, %v; want to wait", task, err)
	}
	close(stop)
	<-refreshed
	ci, err := a.cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ci.NumRedelivered == 0 {
		t.Errorf("no redelivery without in-progress: the test shows nothing")
	}
	if len(b.Parked()) != 0 {
		t.Errorf("b parked %v, delivered again while its holder worked on it", b.Parked())
	}
	if err := held.Done(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Take(ctx); !errors.Is(err, mirror.ErrDone) {
		t.Errorf("b after a's item: %v, want ErrDone", err)
	}
}

// TestTakenOverGivesCountBack: a holder cut off long enough for another
// worker to take its item over, still working on it, gives the take back
// (once), so that the item is not parked for a worker that did not die.
func TestTakenOverGivesCountBack(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	const ackWait = time.Second
	a := open(t, url, "j10", "a", ackWait, 0)
	b := open(t, url, "j10", "b", ackWait, 0)
	for _, c := range []*Crawl{a, b} {
		if _, err := c.Join(ctx, "ftp://h/", "Lroot", []byte("root")); err != nil {
			t.Fatal(err)
		}
	}
	held := take(t, a).(*task)
	stopHeartbeat(held)
	got := take(t, b).(*task)
	if got.claim.takes != 2 {
		t.Fatalf("b's claim %+v, want the second take", got.claim)
	}
	stopHeartbeat(got) // no refresh races the checks below
	key := "t.1." + id("Lroot")
	held.refresh(ctx)
	held.refresh(ctx)
	if e, err := a.kv.Get(ctx, key); err != nil || string(e.Value()) != "take b 1" || !held.gaveBack {
		t.Fatalf("claim after a's refreshes: %v; want b's, counted once", err)
	}
	got.refresh(ctx)
	if got.claim.takes != 1 {
		t.Errorf("b's claim after its refresh: %+v, want the count given back", got.claim)
	}
	if e, err := b.kv.Get(ctx, key); err != nil || string(e.Value()) != "take b 1" {
		t.Errorf("claim after b's refresh: %v", err)
	}
}

// TestClaimStopsSecondCopy: a second copy of an item another worker holds
// (published again after the deduplication window, say) is dropped.
func TestClaimStopsSecondCopy(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	a := open(t, url, "j3", "a", 0, 0)
	b := open(t, url, "j3", "b", 0, 0)
	if _, err := a.Join(ctx, "ftp://h/", "Lroot", []byte("root")); err != nil {
		t.Fatal(err)
	}
	held := take(t, a)
	// A copy under another message ID: the stream keeps it.
	if _, err := b.js.PublishMsg(ctx, b.itemMsg("Lroot", []byte("root"))); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Join(ctx, "ftp://h/", "Lroot", []byte("root")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		task, err := b.Take(ctx)
		if err == nil {
			err = fmt.Errorf("b took %q, held by a", task.Item())
		}
		done <- err
	}()
	if err := held.Done(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, mirror.ErrDone) {
		t.Errorf("b: %v, want ErrDone", err)
	}
}

// TestParkAfterDeliveries: an item given back every time is parked after
// MaxDeliveries deliveries, recorded and reported, and the job ends.
func TestParkAfterDeliveries(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	c := open(t, url, "j4", "w", time.Second, 2)
	if _, err := c.Join(ctx, "ftp://h/", "Lroot", []byte(`{"u":"ftp://h/"}`)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		take(t, c).Drop()
	}
	if task, err := c.Take(ctx); !errors.Is(err, mirror.ErrDone) {
		t.Fatalf("after two deliveries: %v, %v; want the item parked and ErrDone", task, err)
	}
	p := c.Parked()
	if len(p) != 1 || p[0].Deliveries != 3 || !strings.Contains(string(p[0].Item), "ftp://h/") {
		t.Fatalf("parked %+v, want the root after its third delivery", p)
	}
	c.putStatus(ctx)
	st, err := Status(ctx, Options{URL: url, Job: "j4"})
	if err != nil || st.Parked != 1 {
		t.Errorf("status: %+v, %v; want 1 parked", st, err)
	}
}

// TestRerunAndOtherURL: a finished job joined again starts run 2, whose
// items are new work; a job joined with another URL is refused.
func TestRerunAndOtherURL(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	c := open(t, url, "j5", "w", 0, 0)
	for want := uint64(1); want <= 2; want++ {
		run, err := c.Join(ctx, "ftp://h/", "Lroot", []byte("root"))
		if err != nil || run != want {
			t.Fatalf("join: run %d, %v; want %d", run, err, want)
		}
		if err := take(t, c).Done(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Take(ctx); !errors.Is(err, mirror.ErrDone) {
			t.Fatalf("run %d: %v, want ErrDone", want, err)
		}
	}
	if _, err := c.kv.Get(ctx, "t.1."+id("Lroot")); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Errorf("run 1's claim after run 2 began: %v, want it purged", err)
	}
	if _, err := c.kv.Get(ctx, "t.2."+id("Lroot")); err != nil {
		t.Errorf("run 2's claim: %v", err)
	}
	_, err := c.Join(ctx, "ftp://other/", "Lroot", []byte("root"))
	if !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), "mirrors ftp://h/") {
		t.Errorf("join with another URL: %v", err)
	}
}

// TestJobsIsolated: two jobs on one server take only their own items.
func TestJobsIsolated(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	a := open(t, url, "ja", "w", 0, 0)
	b := open(t, url, "jb", "w", 0, 0)
	a.Join(ctx, "ftp://a/", "Lroot", []byte("a-root"))
	b.Join(ctx, "ftp://b/", "Lroot", []byte("b-root"))
	ta, tb := take(t, a), take(t, b)
	if string(ta.Item()) != "a-root" || string(tb.Item()) != "b-root" {
		t.Fatalf("a took %q, b took %q", ta.Item(), tb.Item())
	}
	a.Push("Fx", []byte("a-x"))
	ta.Done(ctx)
	tb.Done(ctx)
	if _, err := b.Take(ctx); !errors.Is(err, mirror.ErrDone) {
		t.Errorf("b after its root: %v, want ErrDone (a's item is not b's)", err)
	}
	if got := take(t, a); string(got.Item()) != "a-x" {
		t.Errorf("a took %q, want a-x", got.Item())
	}
}

// TestRecordLookup: a record stored by one worker is found by another,
// under a path that is not UTF-8.
func TestRecordLookup(t *testing.T) {
	url := runServer(t, "", "")
	ctx := ctxFor(t, 30*time.Second)
	a := open(t, url, "j6", "a", 0, 0)
	b := open(t, url, "j6", "b", 0, 0)
	path := "names/caf\xe9.txt"
	a.Record(path, []byte(`{"size":3}`))
	if err := a.flush(ctx); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := b.Lookup(ctx, path)
	if err != nil || !ok || string(rec) != `{"size":3}` {
		t.Errorf("lookup: %q %v %v", rec, ok, err)
	}
	if _, ok, _ := b.Lookup(ctx, "names/cafe.txt"); ok {
		t.Error("lookup of another path found a record")
	}
}

// TestSlots: with a cap of one, a second slot waits until the first is
// given back.
func TestSlots(t *testing.T) {
	url := runServer(t, "", "")
	a := open(t, url, "j7", "a", 0, 0)
	b := open(t, url, "j7", "b", 0, 0)
	release, err := a.Slot(ctxFor(t, 10*time.Second), "h:21", 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Slot(ctxFor(t, 600*time.Millisecond), "h:21", 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second slot of a cap of one: %v, want to wait", err)
	}
	if r, err := b.Slot(ctxFor(t, 10*time.Second), "other:21", 1); err != nil {
		t.Fatalf("a slot to another host: %v", err)
	} else {
		r()
	}
	release()
	r, err := b.Slot(ctxFor(t, 10*time.Second), "h:21", 1)
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	r()
}

// TestCredentials: a wrong password is an authentication error that does
// not show the password; a bad job name or URL is a usage error.
func TestCredentials(t *testing.T) {
	url := runServer(t, "gofer", "right-secret")
	host := strings.TrimPrefix(url, "nats://")
	_, err := Open(context.Background(), Options{URL: "nats://gofer:wrong-secret@" + host, Job: "j", Worker: "w"})
	if !errors.Is(err, schemes.ErrAuth) || strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("wrong password: %v", err)
	}
	c, err := Open(context.Background(), Options{URL: "nats://gofer:right-secret@" + host, Job: "j", Worker: "w"})
	if err != nil {
		t.Fatalf("right password: %v", err)
	}
	c.Close(context.Background(), "stopped")
	for _, o := range []Options{{URL: url, Job: "a.b", Worker: "w"}, {URL: url, Job: "j", Worker: "w/x"},
		{URL: "http://" + host, Job: "j", Worker: "w"}} {
		if _, err := Open(context.Background(), o); !errors.Is(err, schemes.ErrUsage) {
			t.Errorf("%+v: %v, want a usage error", o, err)
		}
	}
}

// srcTree writes n files into a new directory; it returns the file: URL
// and the files' contents by path.
func srcTree(t *testing.T, n int) (string, map[string]string) {
	src := t.TempDir()
	want := map[string]string{}
	for i := range n {
		p := fmt.Sprintf("d%d/e%d/f%02d.txt", i%4, i%3, i)
		want[p] = fmt.Sprintf("file %d\n", i)
		os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(want[p]), 0o644)
	}
	return "file://" + filepath.ToSlash(src) + "/", want
}

// TestMirrorStopAndResume: a worker interrupted mid-run gives its items
// back at once; a worker started afterwards finishes the job, and the
// two DIRs together hold every file.
func TestMirrorStopAndResume(t *testing.T) {
	url := runServer(t, "", "")
	start, want := srcTree(t, 60)
	work := t.TempDir()
	worker := func(name string, ctx context.Context, log func(string, ...any)) (*mirror.Summary, error) {
		// An ack wait longer than the test: only items given back reach
		// the second worker in time.
		c, err := Open(context.Background(), Options{URL: url, Job: "resume", Worker: name, AckWait: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background(), "stopped")
		client := fetch.NewClient(fetch.Options{})
		defer client.Close()
		return mirror.Run(ctx, client, start, filepath.Join(work, name), mirror.Options{Jobs: 2, Shared: c, Worker: name, Log: log})
	}
	ctx, cancel := context.WithCancel(ctxFor(t, time.Minute))
	files := 0
	_, err := worker("first", ctx, func(format string, _ ...any) {
		if strings.HasPrefix(format, "new ") {
			if files++; files == 5 {
				cancel()
			}
		}
	})
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("interrupted worker: %v", err)
	}
	// Its items were given back: no ack wait (a minute) stands in the way.
	sum, err := worker("second", ctxFor(t, 20*time.Second), nil)
	if err != nil {
		t.Fatalf("second worker: %v", err)
	}
	for p := range want {
		_, e1 := os.Stat(filepath.Join(work, "first", p))
		_, e2 := os.Stat(filepath.Join(work, "second", p))
		if e1 != nil && e2 != nil {
			t.Errorf("%s in neither DIR", p)
		}
	}
	if sum.New < int64(len(want)-files) {
		t.Errorf("second worker: %d new, want at least %d", sum.New, len(want)-files)
	}
}

// TestMirrorTwoWorkers: two mirror runs (each with two workers) share one
// crawl of a file: tree; together they write every file once; a rerun
// fetches none.
func TestMirrorTwoWorkers(t *testing.T) {
	url := runServer(t, "", "")
	start, want := srcTree(t, 40)
	work := t.TempDir()
	run := func() []*mirror.Summary {
		var sums [2]*mirror.Summary
		var errs [2]error
		done := make(chan int, 2)
		for i := range 2 {
			go func() {
				name := fmt.Sprintf("w%d", i)
				c, err := Open(context.Background(), Options{URL: url, Job: "files", Worker: name})
				if err != nil {
					errs[i] = err
					done <- i
					return
				}
				defer c.Close(context.Background(), "finished")
				client := fetch.NewClient(fetch.Options{})
				defer client.Close()
				sums[i], errs[i] = mirror.Run(ctxFor(t, time.Minute), client, start, filepath.Join(work, name),
					mirror.Options{Jobs: 2, Shared: c, Worker: name})
				done <- i
			}()
		}
		<-done
		<-done
		for i, err := range errs {
			if err != nil {
				t.Fatalf("worker %d: %v", i, err)
			}
		}
		return sums[:]
	}
	sums := run()
	if n := sums[0].New + sums[1].New; n != int64(len(want)) {
		t.Errorf("%d new files over both workers, want %d", n, len(want))
	}
	for p, body := range want {
		n := 0
		for _, w := range []string{"w0", "w1"} {
			if b, err := os.ReadFile(filepath.Join(work, w, p)); err == nil {
				n++
				if string(b) != body {
					t.Errorf("%s/%s: %q, want %q", w, p, b, body)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s written by %d workers, want 1", p, n)
		}
	}
	sums = run()
	if n := sums[0].New + sums[1].New + sums[0].Updated + sums[1].Updated; n != 0 || sums[0].Transfers+sums[1].Transfers != 0 {
		t.Errorf("rerun: %+v %+v, want no transfer", *sums[0], *sums[1])
	}
}
