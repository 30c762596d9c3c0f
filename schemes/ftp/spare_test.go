package ftp

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitIdle waits until f keeps n connections, or fails the test after a
// generous while: every connection kept signals the server's slots.
func waitIdle(t *testing.T, f *Fetcher, server string, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		f.mu.Lock()
		got := f.nidle
		freed := f.serverSlots(server).freed
		f.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-freed:
		case <-deadline:
			t.Fatalf("%d connections kept, want %d", got, n)
		}
	}
}

// A fetch that asks for spare connections has them opened alongside it,
// logged in and gone to its directory with a passive command read ahead;
// the fetches that follow use them and open none.
func TestSpareConnections(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/d/x", "ex")
	fake.addFile("/d/y", "why")
	fake.listings["LIST /d"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n-rw-r--r--    1 0 0 3 Dec 20  1994 y\r\n"
	f := newFetcher()
	req := newReq(ftpURL(fake.port(), 0, "d", ""))
	req.Spare = 2
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := resp.Listing.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	resp.Close()
	server := poolKey{host: "127.0.0.1", port: fake.port()}.server()
	waitIdle(t, f, server, 3)
	// Two fetches at once, each on a connection of its own: the spares.
	var bodies [2]io.ReadCloser
	for i, name := range []string{"x", "y"} {
		r := newReq(ftpURL(fake.port(), 0, "d", name))
		r.SkipMetadata = true
		resp, err := f.Fetch(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		bodies[i] = resp.Body
	}
	got := ""
	for _, b := range bodies {
		data, err := io.ReadAll(b)
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
		got += string(data)
	}
	if got != "exwhy" {
		t.Errorf("bodies %q", got)
	}
	if n := fake.endWith(f); n != 3 {
		t.Errorf("%d logins, want 3: the fetch's and two spares", n)
	}
	spareLogin := loginBatch + "CWD d\r\nEPSV\r\n"
	if n := strings.Count(strings.Join(fake.sentBatches(), "|"), spareLogin); n != 3 {
		t.Errorf("%d logins went to d with a passive command, want 3:\n%q", n, fake.sentBatches())
	}
}

// A server's known limit bounds the spares: none beyond it is opened.
func TestSpareConnectionsKeepToTheLimit(t *testing.T) {
	fake := newFake(t)
	fake.listings["LIST /"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	f := newFetcher()
	f.SetConnLimit("127.0.0.1", fake.port(), 2)
	req := newReq(ftpURL(fake.port(), 0, ""))
	req.Spare = 7
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := resp.Listing.Next(); err != nil {
			break
		}
	}
	resp.Close()
	server := poolKey{host: "127.0.0.1", port: fake.port()}.server()
	waitIdle(t, f, server, 2)
	f.mu.Lock()
	open := f.serverSlots(server).open
	f.mu.Unlock()
	if open != 2 {
		t.Errorf("%d connections held, want the limit, 2", open)
	}
	if n := fake.endWith(f); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
}

// Spares refused for the server's limit teach it, and ConnLimit, asked
// while they still wait for the server, waits for their answers.
func TestSpareRefusalsTeachTheLimit(t *testing.T) {
	gate := make(chan struct{})
	fake := newFakeWith(t, func(f *fakeFTP) { f.maxConns, f.greetGate = 2, gate })
	// Opened at the latest before the fake's own clean-up waits for its
	// sessions, so that a failure here ends instead of hanging.
	var open sync.Once
	release := func() { open.Do(func() { close(gate) }) }
	t.Cleanup(release)
	fake.listings["LIST /"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	f := newFetcher()
	req := newReq(ftpURL(fake.port(), 0, ""))
	req.Spare = 3
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	f.mu.Lock()
	spares := f.serverSlots(poolKey{host: "127.0.0.1", port: fake.port()}.server()).spares
	f.mu.Unlock()
	if spares != 3 {
		t.Fatalf("%d spares logging in, want 3", spares)
	}
	go release()
	if n := f.ConnLimit("127.0.0.1", fake.port()); n != 2 {
		t.Errorf("limit %d, want 2", n)
	}
	fake.endWith(f)
}

// A spare outlives the context of the fetch that asked for it: kept, it
// serves a later fetch (a mirror run after the one that opened it, with
// the same Fetcher).
func TestSpareOutlivesItsFetch(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/d/x", "ex")
	fake.addFile("/d/y", "why")
	f := newFetcher()
	ctx, cancel := context.WithCancel(context.Background())
	req := newReq(ftpURL(fake.port(), 0, "d", "x"))
	req.Spare = 1
	resp, err := f.Fetch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	resp.Close()
	waitIdle(t, f, poolKey{host: "127.0.0.1", port: fake.port()}.server(), 2)
	cancel()
	var bodies []io.ReadCloser
	for _, name := range []string{"x", "y"} {
		r := newReq(ftpURL(fake.port(), 0, "d", name))
		r.SkipMetadata = true
		resp, err := f.Fetch(context.Background(), r)
		if err != nil {
			t.Fatalf("%s after the first fetch's context ended: %v", name, err)
		}
		bodies = append(bodies, resp.Body)
	}
	for _, b := range bodies {
		if _, err := io.ReadAll(b); err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
	if n := fake.endWith(f); n != 2 {
		t.Errorf("%d logins, want 2: the spare serves", n)
	}
}
