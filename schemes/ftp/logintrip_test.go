package ftp

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// waitFor receives from ch, or fails the test after a generous while
// with what.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

// drainListing fetches req's listing and reads it to its end.
func drainListing(t *testing.T, f *Fetcher, req *schemes.Request) {
	t.Helper()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	for {
		if _, err := resp.Listing.Next(); err == io.EOF {
			return
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

// spareReq asks for the root listing of fake with n spare connections.
func spareReq(fake *fakeFTP, n int) *schemes.Request {
	req := newReq(ftpURL(fake.port(), 0, ""))
	req.Spare = n
	return req
}

// batchesStarting counts the batches that begin with prefix.
func batchesStarting(fake *fakeFTP, prefix string) int {
	n := 0
	for _, b := range fake.sentBatches() {
		if strings.HasPrefix(b, prefix) {
			n++
		}
	}
	return n
}

// A user's first connection to a server sends USER alone (its reply
// decides whether PASS follows, and the login tells whether the server
// reads pipelined commands); spares, and every connection once the server
// has read a pipelined login, send PASS with USER: a round trip less
// each. An anonymous login sends them together from the first
// connection on (TestConnectionReuseReturnsHome and others).
func TestUSERAndPASSTogether(t *testing.T) {
	fake := newFake(t)
	fake.users["joe"] = "secret"
	fake.listings["LIST /"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	fake.addFile("/x", "ex")
	f := newFetcher()
	asJoe := func(req *schemes.Request) *schemes.Request {
		req.URL.User, req.URL.HasUser, req.URL.Password, req.URL.HasPassword = "joe", true, "secret", true
		return req
	}
	drainListing(t, f, asJoe(spareReq(fake, 2)))
	server := poolKey{host: "127.0.0.1", port: fake.port()}.server()
	waitIdle(t, f, server, 3)
	alone := batchesStarting(fake, "USER joe\r\n") - batchesStarting(fake, "USER joe\r\nPASS ")
	if together := batchesStarting(fake, "USER joe\r\nPASS secret\r\nFEAT\r\n"); alone != 1 || together != 2 {
		t.Fatalf("%d logins sent USER alone (want 1, the first) and %d with PASS (want 2, the spares):\n%q", alone, together, fake.sentBatches())
	}
	// Every kept connection ended by the server: the next fetch opens a
	// new one, which now sends USER and PASS together too.
	fake.dropAll()
	req := asJoe(newReq(ftpURL(fake.port(), 0, "x")))
	req.SkipMetadata = true
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := io.ReadAll(resp.Body); err != nil || string(data) != "ex" {
		t.Fatalf("x: %q, %v", data, err)
	}
	resp.Close()
	if together := batchesStarting(fake, "USER joe\r\nPASS "); together != 3 {
		t.Errorf("%d logins sent PASS with USER, want 3: the new connection's too:\n%q", together, fake.sentBatches())
	}
	if n := fake.endWith(f); n != 4 {
		t.Errorf("%d logins, want 4", n)
	}
}

// A server that lets the user in at USER (230) answers the PASS sent with
// it with an error, which changes nothing.
func TestUSERAndPASSTogetherWithoutPassword(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.noPassword = true })
	fake.listings["LIST /"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	fake.addFile("/x", "ex")
	f := newFetcher()
	drainListing(t, f, spareReq(fake, 1))
	waitIdle(t, f, poolKey{host: "127.0.0.1", port: fake.port()}.server(), 2)
	if n := batchesStarting(fake, "USER anonymous\r\nPASS "); n != 2 {
		t.Fatalf("%d logins sent PASS with USER, want 2:\n%q", n, fake.sentBatches())
	}
	// Both connections serve, the spare among them.
	fake.mu.Lock()
	before := len(fake.lines)
	fake.mu.Unlock()
	var bodies []io.ReadCloser
	for range 2 {
		req := newReq(ftpURL(fake.port(), 0, "x"))
		req.SkipMetadata = true
		resp, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, resp.Body)
	}
	for _, b := range bodies {
		if data, err := io.ReadAll(b); err != nil || string(data) != "ex" {
			t.Errorf("body %q, %v", data, err)
		}
		b.Close()
	}
	if n := fake.endWith(f); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
	if strings.Contains(strings.Join(fake.sent()[before:], ""), "USER") {
		t.Errorf("a fetch logged in again: %q", fake.sent()[before:])
	}
}

// A spare refused at USER for the server's limit (ProFTPD's 530), with
// PASS sent behind it, is a refusal that teaches the limit, not a server
// that mishandles pipelining.
func TestUSERAndPASSTogetherRefusedForTheLimit(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.maxConns, f.limitAtUSER = 1, true })
	fake.listings["LIST /"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	f := newFetcher()
	var mu sync.Mutex
	var warned []string
	req := spareReq(fake, 2)
	req.Warn = func(s string) { mu.Lock(); warned = append(warned, s); mu.Unlock() }
	drainListing(t, f, req)
	if n := f.ConnLimit("127.0.0.1", fake.port()); n != 1 {
		t.Errorf("limit %d, want 1", n)
	}
	if !f.pipelines(poolKey{host: "127.0.0.1", port: fake.port()}) {
		t.Error("the refusal was taken for a server that mishandles pipelining")
	}
	mu.Lock()
	if len(warned) == 0 || !strings.Contains(warned[0], "max 1 clients per host") {
		t.Errorf("warnings %q, want the server's refusal", warned)
	}
	mu.Unlock()
	if n := fake.endWith(f); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
}

// Spares that send PASS with USER to a server that drops pipelined
// commands find it out, as the first connection does, and log in one
// command at a time.
func TestUSERAndPASSTogetherOnALockStepServer(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.lockStep = true })
	fake.listings["LIST /"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	f := newFetcher()
	drainListing(t, f, spareReq(fake, 2))
	waitIdle(t, f, poolKey{host: "127.0.0.1", port: fake.port()}.server(), 3)
	if f.pipelines(poolKey{host: "127.0.0.1", port: fake.port()}) {
		t.Error("the server is still taken to read pipelined commands")
	}
	// Every connection's PASS, sent with USER, was dropped; an anonymous
	// one is not tried again with USER alone (its password is checked at
	// once, so a missing answer is a dropped PASS): one login each, one
	// command at a time.
	if n := fake.endWith(f); n != 3 {
		t.Errorf("%d logins, want 3, one a connection", n)
	}
}

// A spare whose PASS, sent with USER, is answered late (a slow check of
// the password) logs in again with USER alone: the server, which reads
// pipelined commands, is not taken for one that drops them.
func TestUSERAndPASSTogetherSlowPassword(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.slowPass = probeGrace + probeGrace/2 })
	fake.listings["LIST /"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	f := newFetcher()
	drainListing(t, f, spareReq(fake, 1))
	waitIdle(t, f, poolKey{host: "127.0.0.1", port: fake.port()}.server(), 2)
	if !f.pipelines(poolKey{host: "127.0.0.1", port: fake.port()}) {
		t.Error("a late reply to PASS was taken for a server that drops pipelined commands")
	}
	if n := batchesStarting(fake, "USER anonymous\r\nPASS "); n != 2 {
		t.Errorf("%d logins sent PASS with USER, want 2: the first connection's and the spare's first", n)
	}
	if n := fake.endWith(f); n != 3 {
		t.Errorf("%d logins, want 3: the first connection's and the spare's two", n)
	}
}

// Spares are opened once the server has greeted the first connection, not
// once its login is over: they log in alongside it.
func TestSparesStartAtTheGreeting(t *testing.T) {
	gate := make(chan struct{})
	accepted := make(chan struct{}, 8)
	fake := newFakeWith(t, func(f *fakeFTP) { f.passGate, f.accepted = gate, accepted })
	// Opened at the latest before the fake's own clean-up waits for its
	// sessions, so that a failure here ends instead of hanging.
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	fake.listings["LIST /"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	f := newFetcher()
	done := make(chan struct{})
	go func() {
		defer close(done)
		drainListing(t, f, spareReq(fake, 2))
	}()
	for i := range 3 {
		waitFor(t, accepted, []string{"first connection", "first spare while the first login waits for its PASS reply", "second spare while the first login waits"}[i])
	}
	release()
	<-done
	waitIdle(t, f, poolKey{host: "127.0.0.1", port: fake.port()}.server(), 3)
	if n := fake.endWith(f); n != 3 {
		t.Errorf("%d logins, want 3", n)
	}
}

// The data connection of the passive command read ahead with a transfer's
// end is dialled as soon as that reply is read, before the next fetch is
// even asked for; the next fetch transfers through it.
func TestDataConnectionDialledAhead(t *testing.T) {
	early := make(chan bool, 8)
	fake := newFakeWith(t, func(f *fakeFTP) { f.acceptEarly, f.early = true, early })
	fake.addFile("/d/x", "ex")
	fake.addFile("/d/y", "why")
	fake.addFile("/d/z", "zed")
	f := newFetcher()
	// The login's passive command: dialled during the login.
	if got := getBody(t, f, fake, "d", "x"); got != "ex" {
		t.Fatalf("x: %q", got)
	}
	waitFor(t, early, "data connection for x")
	// The second fetch on the connection sends a passive command behind
	// its RETR, whose reply is read when the transfer ends.
	if got := getBody(t, f, fake, "d", "y"); got != "why" {
		t.Fatalf("y: %q", got)
	}
	waitFor(t, early, "data connection for y")
	if !waitFor(t, early, "data connection dialled ahead, before z was asked for") {
		t.Error("the data connection dialled ahead came after z's RETR")
	}
	if got := getBody(t, f, fake, "d", "z"); got != "zed" {
		t.Fatalf("z: %q", got)
	}
	if n := fake.endWith(f); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
}

// A data connection dialled ahead that the server has closed meanwhile (it
// gave up on the passive port) is not used: the fetch asks for another.
func TestDataConnectionDialledAheadGoneStale(t *testing.T) {
	early := make(chan bool, 8)
	fake := newFakeWith(t, func(f *fakeFTP) { f.acceptEarly, f.early, f.dropNth = true, early, 3 })
	fake.addFile("/d/x", "ex")
	fake.addFile("/d/y", "why")
	fake.addFile("/d/z", "zed")
	f := newFetcher()
	for _, name := range []string{"x", "y"} {
		if got := getBody(t, f, fake, "d", name); got != fake.files["/d/"+name] {
			t.Fatalf("%s: %q", name, got)
		}
		waitFor(t, early, "data connection for "+name)
	}
	// The third, dialled ahead for z, is closed by the server at once.
	waitFor(t, early, "data connection dialled ahead")
	if got := getBody(t, f, fake, "d", "z"); got != "zed" {
		t.Fatalf("z: %q", got)
	}
	if n := fake.endWith(f); n != 1 {
		t.Errorf("%d logins, want 1: the connection stayed in step", n)
	}
	if n := strings.Count(strings.Join(fake.sent(), ""), "EPSV\r\n"); n != 5 {
		t.Errorf("%d EPSVs, want 5: the login's, y's, the one sent ahead for z, z's own after the drop, and the one behind z:\n%q", n, fake.sent())
	}
}
