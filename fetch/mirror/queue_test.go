package mirror

import (
	"context"
	"path/filepath"
	"testing"
)

// A worker is handed a job of the directory it is already in when one is
// near the top of the queue; otherwise the newest job (last in, first out).
func TestQueuePrefersTheWorkersDirectory(t *testing.T) {
	q := newQueue(filepath.Join(t.TempDir(), "spill"))
	for _, j := range []job{
		{Op: opFile, Path: "a/1", From: "d:a"},
		{Op: opFile, Path: "b/1", From: "d:b"},
		{Op: opFile, Path: "a/2", From: "d:a"},
		{Op: opFile, Path: "b/2", From: "d:b"},
	} {
		q.push(j)
	}
	ctx := context.Background()
	var got []string
	for _, prefer := range []string{"d:a", "d:a", "", "d:zzz"} {
		j, ok := q.pop(ctx, prefer)
		if !ok {
			t.Fatal("queue ended early")
		}
		got = append(got, j.Path)
		q.done()
	}
	want := []string{"a/2", "a/1", "b/2", "b/1"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("popped %q, want %q", got, want)
		}
	}
}

// A worker with no work left in its own directory is sent to a directory
// no other worker is in, not after the others into theirs.
func TestQueueSpreadsWorkersOverDirectories(t *testing.T) {
	q := newQueue(filepath.Join(t.TempDir(), "spill"))
	for _, j := range []job{
		{Op: opFile, Path: "b/1", From: "d:b"},
		{Op: opFile, Path: "b/2", From: "d:b"},
		{Op: opFile, Path: "a/1", From: "d:a"},
		{Op: opFile, Path: "a/2", From: "d:a"},
	} {
		q.push(j)
	}
	ctx := context.Background()
	pop := func(from string) string {
		t.Helper()
		j, ok := q.pop(ctx, from)
		if !ok {
			t.Fatal("queue ended early")
		}
		q.done()
		return j.Path
	}
	// Worker A starts with the newest; worker B, starting too, goes to b
	// although a's other file is newer; each then stays where it is.
	got := []string{pop(""), pop(""), pop("d:a"), pop("d:b")}
	want := []string{"a/2", "b/2", "a/1", "b/1"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("popped %q, want %q", got, want)
		}
	}
}

// Listings are handed out before files, even to a worker whose directory
// still has files: a directory left waiting behind files is work the other
// workers cannot share until it is listed.
func TestQueueHandsOutListingsFirst(t *testing.T) {
	q := newQueue(filepath.Join(t.TempDir(), "spill"))
	for _, j := range []job{
		{Op: opList, Path: "d0", From: "d:"},
		{Op: opList, Path: "d1", From: "d:"},
		{Op: opFile, Path: "a/1", From: "d:a"},
		{Op: opFile, Path: "a/2", From: "d:a"},
	} {
		q.push(j)
	}
	ctx := context.Background()
	var got []string
	for _, from := range []string{"d:a", "", "d:a", "d:a"} {
		j, ok := q.pop(ctx, from)
		if !ok {
			t.Fatal("queue ended early")
		}
		got = append(got, j.Path)
		q.done()
	}
	want := []string{"d1", "d0", "a/2", "a/1"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("popped %q, want %q", got, want)
		}
	}
	if q.lists != 0 {
		t.Fatalf("%d listings still counted in an empty queue", q.lists)
	}
}
