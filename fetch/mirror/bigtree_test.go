package mirror

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// heapPeak samples the live heap until stop is called and returns its peak.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// A listing of 100 000 files is walked with a heap that does not grow with
// it: the listing streams, and the work queue keeps memJobs jobs in memory
// and spills the rest to disk. Workers are held (in Log) until the whole
// listing is queued, so every job waits in the queue at once. The walk is
// a dry run so that the test measures the walk, not 100 000 file creations.
func TestListingOf100000EntriesInBoundedMemory(t *testing.T) {
	const n = 100_000
	m := newMemFTP()
	m.nodes["big"] = &memNode{dir: true, count: n}
	m.file("small", "s")
	queued := make(chan struct{})
	m.listed = func() { close(queued) }
	dir := t.TempDir()
	runtime.GC()
	stop := heapPeak()
	hold := func(string, ...any) { <-queued }
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 2, DryRun: true, Log: hold})
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != n+1 || sum.Failed != 0 || len(sum.Planned) != maxPlanned {
		t.Fatalf("new %d, failed %d, planned %d", sum.New, sum.Failed, len(sum.Planned))
	}
	t.Logf("peak live heap %.1f MiB for %d entries", float64(peak)/(1<<20), n)
	if peak > 24<<20 {
		t.Errorf("peak live heap %d MiB: memory grows with the listing", peak>>20)
	}
}

// The same with files written, on a tenth of the size: every file lands,
// the spill file is gone at the end, the heap stays small.
func TestListingOf5000FilesWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("5 000 file creations")
	}
	const n = 5_000
	m := newMemFTP()
	m.nodes["big"] = &memNode{dir: true, count: n}
	dir := t.TempDir()
	runtime.GC()
	stop := heapPeak()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 4})
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(dir, "big"))
	if err != nil || len(ents) != n || sum.New != n {
		t.Fatalf("big/ holds %d entries, want %d (%v); %+v", len(ents), n, err, sum)
	}
	if _, err := os.Stat(filepath.Join(dir, stateDir, "queue")); !os.IsNotExist(err) {
		t.Errorf("spill file left: %v", err)
	}
	t.Logf("peak live heap %.1f MiB for %d files", float64(peak)/(1<<20), n)
	if peak > 24<<20 {
		t.Errorf("peak live heap %d MiB", peak>>20)
	}
}
