package integration_test

// Politeness against the scripted FTP server: --max-per-host caps the
// connections whatever -j says, --wait spaces one connection's requests,
// --limit-rate bounds the bytes per second of all connections together.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/integration/itest"
)

func politeTree(z *zoneFTP, n, size int) {
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for i := range n {
		z.put(fmt.Sprintf("/pub/f%02d.bin", i), strings.Repeat(string(rune('a'+i%26)), size), old, old)
	}
}

// TestMirrorMaxPerHostCapsConnections: the server holds each RETR until
// three run at once (or 150 ms pass), so eight workers would crowd it at
// once; --max-per-host 2 keeps it to two connections.
func TestMirrorMaxPerHostCapsConnections(t *testing.T) {
	z := newZoneFTP(time.UTC)
	z.hold = 150 * time.Millisecond
	politeTree(z, 8, 100)
	addr := z.start(t)
	dir := t.TempDir()
	r := itest.Run(t, nil, nil, "mirror", "-j", "8", "--max-per-host", "2", "ftp://"+addr+"/pub/", dir)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Reason())
	}
	if got := len(filesUnder(t, dir)); got != 8 {
		t.Errorf("%d files mirrored, want 8", got)
	}
	z.mu.Lock()
	peak, total := z.peak, z.nconn
	z.mu.Unlock()
	if peak > 2 || total > 2 {
		t.Errorf("%d connections at once, %d in all; --max-per-host 2 allows 2", peak, total)
	}
	select {
	case <-z.crowded:
		t.Errorf("three transfers ran at once")
	default:
	}
}

// TestMirrorWaitSpacesRequests: with --wait 200ms, no two transfers on
// one connection start closer than that.
func TestMirrorWaitSpacesRequests(t *testing.T) {
	z := newZoneFTP(time.UTC)
	politeTree(z, 4, 10)
	addr := z.start(t)
	dir := t.TempDir()
	r := itest.Run(t, nil, nil, "mirror", "-j", "1", "--wait", "200ms", "ftp://"+addr+"/pub/", dir)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Reason())
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	last := map[int]time.Time{}
	n := 0
	for _, c := range z.at {
		if !strings.HasPrefix(c.line, "RETR ") {
			continue
		}
		n++
		if prev, ok := last[c.conn]; ok && c.at.Sub(prev) < 200*time.Millisecond {
			t.Errorf("connection %d: %s %v after the transfer before it", c.conn, c.line, c.at.Sub(prev))
		}
		last[c.conn] = c.at
	}
	if n != 4 {
		t.Errorf("%d RETR, want 4", n)
	}
}

// TestMirrorLimitRateOverall: 512 KiB over four connections at 256 KiB/s
// take at least (512 - 64 KiB of burst) / 256 KiB/s = 1.75 s, however
// many connections share them.
func TestMirrorLimitRateOverall(t *testing.T) {
	z := newZoneFTP(time.UTC)
	politeTree(z, 4, 128<<10)
	addr := z.start(t)
	dir := t.TempDir()
	c := mirrorClient()
	defer c.Close()
	start := time.Now()
	sum, err := mirror.Run(context.Background(), c, "ftp://"+addr+"/pub/", dir, mirror.Options{Jobs: 4, LimitRate: 256 << 10})
	took := time.Since(start)
	if err != nil || sum.New != 4 || sum.Bytes != 4*128<<10 {
		t.Fatalf("mirror: %v %+v", err, sum)
	}
	if took < 1700*time.Millisecond {
		t.Errorf("512 KiB took %v at --limit-rate 256k: the limit was not kept", took)
	}
	if took > 10*time.Second {
		t.Errorf("512 KiB took %v at --limit-rate 256k", took)
	}
	b, err := os.ReadFile(filepath.Join(dir, "f03.bin"))
	if err != nil || len(b) != 128<<10 || b[0] != 'd' {
		t.Errorf("f03.bin: %d bytes, %v", len(b), err)
	}
	t.Logf("512 KiB in %v (%.0f KiB/s)", took, 512/took.Seconds())
}
