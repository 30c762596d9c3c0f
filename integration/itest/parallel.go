package itest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"
)

// Parallel lets t run beside the other parallel tests (t.Parallel), once
// it holds a turn on each server it names. Most servers serve any number
// of tests at once; one that allows a client address only so many
// connections (the limited ProFTPD and Pure-FTPd) serves one test at a
// time, so that no other test's connection counts against the limit a
// test is about. Tests that restart or reconfigure a server, that assert
// a server saw nothing, or that measure time, do not call Parallel: go
// test runs every such test alone, before the parallel ones start.
//
// Turns are taken in one order whatever the order of servers, so two
// tests that name the same servers never wait for each other's turn in a
// circle.
func Parallel(t *testing.T, servers ...string) {
	t.Helper()
	t.Parallel()
	servers = slices.Clone(servers)
	slices.Sort(servers)
	for _, s := range slices.Compact(servers) {
		turn := turnsOf(s)
		if turn == nil {
			continue
		}
		turn <- struct{}{}
		t.Cleanup(func() { <-turn })
	}
}

// turnsFor is how many tests each limited server serves at once; a server
// not named here serves any number.
var turnsFor = map[string]int{
	ProFTPDLimitedHost:  1,
	PureFTPdLimitedHost: 1,
}

var (
	turnsMu sync.Mutex
	turns   = map[string]chan struct{}{}
)

func turnsOf(server string) chan struct{} {
	n, ok := turnsFor[server]
	if !ok {
		return nil
	}
	turnsMu.Lock()
	defer turnsMu.Unlock()
	c := turns[server]
	if c == nil {
		c = make(chan struct{}, n)
		turns[server] = c
	}
	return c
}

// DefaultDeadline is how long one test may wait for the commands it runs
// (Context), unless GOFER_TEST_DEADLINE (a Go duration) says otherwise. It
// is far above what any test takes on a loaded two-core machine: it is
// there so that a hang fails the test that hangs, naming it and what it
// waited for, rather than the whole package at go test's -timeout.
const DefaultDeadline = 10 * time.Minute

// Deadline is how long one test may wait for the commands it runs.
func Deadline() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("GOFER_TEST_DEADLINE")); err == nil && d > 0 {
		return d
	}
	return DefaultDeadline
}

var (
	ctxMu sync.Mutex
	ctxs  = map[testing.TB]context.Context{}
)

// Context is t's own deadline: one context per test, made at its first
// use and ended by Deadline after that or when t ends. Commands started
// through Command end with it, and the cause it carries names the test
// and the deadline.
func Context(t testing.TB) context.Context {
	ctxMu.Lock()
	defer ctxMu.Unlock()
	if ctx, ok := ctxs[t]; ok {
		return ctx
	}
	d := Deadline()
	ctx, cancel := context.WithTimeoutCause(context.Background(), d,
		fmt.Errorf("%s ran past its deadline of %v (GOFER_TEST_DEADLINE)", t.Name(), d))
	ctxs[t] = ctx
	t.Cleanup(func() {
		cancel()
		ctxMu.Lock()
		delete(ctxs, t)
		ctxMu.Unlock()
	})
	return ctx
}
