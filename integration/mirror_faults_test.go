package integration_test

// gofer mirror through a relay that injects faults (integration/relay):
// data connections reset every few MiB, data connections that stall with
// their sockets open, control connections dropped at login or mid-session.
// The mirror retries each (resuming a large file with REST), detects a
// stall by its idle timeout, reconnects, and ends with every file exactly
// once, byte for byte, nothing temporary left, exit 0, and its retries
// counted by kind in the --json summary.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
)

// faultTree makes scratch/NAME: the archive's tree/d01 (300 small files
// in 11 directories, hard links) as d01/, and big/ with sizes.. files of
// pseudo-random bytes. It returns the tree's manifest (path -> sha256),
// and removes the tree when the test ends.
func faultTree(t *testing.T, name string, sizes ...int) (dir string, manifest map[string]string) {
	t.Helper()
	dir = filepath.Join(itest.ScratchDir(), name)
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	manifest = map[string]string{}
	for p, sum := range itest.Manifest(t) {
		rel, ok := strings.CutPrefix(p, "tree/d01/")
		if !ok {
			continue
		}
		dst := filepath.Join(dir, "d01", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(itest.ArchiveDir(), filepath.FromSlash(p)), dst); err != nil {
			t.Fatal(err)
		}
		manifest["d01/"+rel] = sum
	}
	old := time.Date(2001, 2, 3, 4, 5, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	for i, size := range sizes {
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		rel := fmt.Sprintf("big/file%d.bin", i)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
		sum := sha256.Sum256(b)
		manifest[rel] = hex.EncodeToString(sum[:])
	}
	return dir, manifest
}

// leftovers lists what in dir is neither a directory nor a file of the
// manifest, and any file in the state's temporary directory.
func leftovers(t *testing.T, dir string, manifest map[string]string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".gofer/tmp" || strings.HasPrefix(rel, ".gofer/tmp/"):
			if !d.IsDir() {
				out = append(out, rel)
			}
		case rel == ".gofer" || strings.HasPrefix(rel, ".gofer/"), d.IsDir():
		default:
			if _, ok := manifest[rel]; !ok {
				out = append(out, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var restLine = regexp.MustCompile(`FTP command: Client "127\.0\.0\.1", "REST (\d+)"`)

func TestMirrorSurvivesFaults(t *testing.T) {
	itest.Require(t, itest.FTPHost+":21")
	name := fmt.Sprintf("mirror-faults-%d", os.Getpid())
	_, manifest := faultTree(t, name, 1<<20+777, 2<<20+1555, 3<<20+2333, 4<<20+3111)
	// Seeded: the n-th control connection is dropped (or not) and the
	// n-th data connection stalls (or not) on every run. Drops come at
	// login or after up to 40 commands; one data connection in 30 stalls
	// after 64 bytes, until the control connection ends; a reset comes
	// after every 2 MiB.
	r, err := relay.Listen("127.0.0.1:0", itest.FTPHost+":21", true, relay.Config{Faults: relay.Faults{
		Seed: 5, ResetEvery: 2 << 20, Stall: 1.0 / 30, StallAfter: 64, Drop: 0.3, DropAfter: 40,
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	port := r.Addr()[strings.LastIndexByte(r.Addr(), ':')+1:]
	url := "ftp://" + r.Addr() + "/scratch/" + name + "/"
	dir := t.TempDir()
	since := itest.LogSince(t, "vsftpd.log")
	t0 := time.Now()
	res := itest.Run(t, nil, nil, "mirror", "--json", "-j", "8", "--idle-timeout", "2s", "--retries", "6",
		"--allow-port", port, url, dir)
	took := time.Since(t0)
	counts := r.Counts()
	t.Logf("%v; relay: %+v", took.Round(time.Millisecond), counts)
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	var sum struct {
		New           int64            `json:"new"`
		Failed        int64            `json:"failed"`
		Transfers     int64            `json:"transfers"`
		Retries       int64            `json:"retries"`
		RetriesByKind map[string]int64 `json:"retries_by_kind"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &sum); err != nil {
		t.Fatalf("--json: %v: %s", err, res.Stdout)
	}
	t.Logf("summary %+v", sum)
	if d := diffAgainst(t, dir, manifest); len(d) != 0 {
		t.Fatalf("tree differs from the manifest (%d): %q", len(d), d[:min(len(d), 10)])
	}
	if l := leftovers(t, dir, manifest); len(l) != 0 {
		t.Errorf("left behind: %q", l)
	}
	if sum.New != int64(len(manifest)) || sum.Failed != 0 {
		t.Errorf("new %d, failed %d; want %d new, none failed", sum.New, sum.Failed, len(manifest))
	}
	// Every fault happened, and the summary counts the tries again: a
	// stall as a timeout, a reset as an interruption (a drop may cost
	// none, when it hits an idle connection that is simply replaced).
	if counts.Resets == 0 || counts.Stalls == 0 || counts.Drops == 0 {
		t.Errorf("faults injected %+v: want resets, stalls and drops", counts)
	}
	if sum.Retries == 0 || sum.RetriesByKind["timeout"] == 0 || sum.RetriesByKind["interrupted"] == 0 {
		t.Errorf("retries %d %v for %d resets and %d stalls", sum.Retries, sum.RetriesByKind, counts.Resets, counts.Stalls)
	}
	// A broken large file went on from where it stopped: vsftpd saw a
	// REST past 0.
	resumed := 0
	for _, m := range restLine.FindAllStringSubmatch(since(), -1) {
		if n, _ := strconv.ParseInt(m[1], 10, 64); n > 0 {
			resumed++
		}
	}
	if resumed == 0 {
		t.Error("no transfer resumed with a REST past 0")
	}
	if took > 40*time.Second {
		t.Errorf("took %v, want under 40s", took.Round(time.Second))
	}
}

// diffAgainst compares dir (skipping its state directory) with manifest.
func diffAgainst(t *testing.T, dir string, manifest map[string]string) []string {
	t.Helper()
	var diffs []string
	for rel, want := range manifest {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			diffs = append(diffs, "missing: "+rel)
			continue
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != want {
			diffs = append(diffs, "content differs: "+rel)
		}
	}
	return diffs
}

// TestMirrorWarnsOnce: a mirror of a server on a non-default port makes
// one request per file, each guarded; the port's warning is printed once
// per run, not once per file.
func TestMirrorWarnsOnce(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	r, err := relay.Listen("127.0.0.1:0", itest.FTPHost+":21", true, relay.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res := itest.Run(t, nil, nil, "mirror", "-j", "2", "ftp://"+r.Addr()+"/archive/text/", t.TempDir())
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if n := strings.Count(res.Stderr, "names port"); n != 1 {
		t.Errorf("the port warning was printed %d times, want once:\n%s", n, res.Stderr)
	}
}
