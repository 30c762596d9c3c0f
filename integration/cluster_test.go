package integration_test

// mirror --cluster against the real servers: nats-server (Debian's, with
// JetStream) shared by worker processes of the built gofer binary, which
// mirror the sample archive from vsftpd and pygopherd into WARC. One
// worker is killed with SIGKILL mid-run, the others finish; the merged
// index (gofer warc merge) lists every manifest item exactly once with the
// manifest's digest; a rerun fetches nothing. A NATS server restarted
// mid-run (a private one, on its own loopback address) leaves the workers
// to reconnect and finish; two jobs on one server see nothing of each other.

import (
	"bufio"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

var natsURL = "nats://" + itest.NATSHost + ":4222"

// newJob is a job name no earlier test run used (the server keeps jobs).
func newJob(t *testing.T, what string) string {
	return fmt.Sprintf("it-%s-%d", what, time.Now().UnixNano())
}

// worker is one gofer mirror --cluster process.
type worker struct {
	name   string
	dir    string
	cmd    *exec.Cmd
	stdout strings.Builder
	// files counts the "new" lines of -v; at is closed when it reaches
	// atFiles, read is closed when stderr ended.
	atFiles int
	at      chan struct{}
	read    chan struct{}
	mu      sync.Mutex
	errs    strings.Builder
	written []time.Time // when each "new" line came
}

// startWorker starts a worker with -v, its stderr read as it comes (a
// worker blocked on a full pipe would hold its items); the channel at
// closes once it has written atFiles files (0: never).
func startWorker(t *testing.T, server, job, name, work, url string, atFiles int, extra ...string) *worker {
	t.Helper()
	w := &worker{name: name, dir: filepath.Join(work, name), atFiles: atFiles, at: make(chan struct{}), read: make(chan struct{})}
	args := append([]string{"mirror", "-v", "--json", "--cluster", server, "--job", job, "--worker", name,
		"--warc", filepath.Join(work, "warc", "seg")}, extra...)
	w.cmd = exec.CommandContext(itest.Context(t), itest.Gofer(t), append(args, url, w.dir)...)
	w.cmd.Env = append(os.Environ(), "EMAIL=gofer@example.org")
	w.cmd.Stdout = &w.stdout
	pipe, err := w.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.read)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		files := 0
		for sc.Scan() {
			l := sc.Text()
			switch {
			case strings.HasPrefix(l, "new "):
				w.mu.Lock()
				w.written = append(w.written, time.Now())
				w.mu.Unlock()
				if files++; files == w.atFiles {
					close(w.at)
				}
			case strings.HasPrefix(l, "> "), strings.HasPrefix(l, "< "), strings.HasPrefix(l, "unchanged "):
			default:
				w.mu.Lock()
				if w.errs.Len() < 64<<10 {
					w.errs.WriteString(l + "\n")
				}
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// wait waits for the worker to exit.
func (w *worker) wait() error {
	<-w.read
	return w.cmd.Wait()
}

// stderr is what the worker wrote to stderr but the wire and file lines.
func (w *worker) stderr() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errs.String()
}

// waitFiles waits until the worker has written its atFiles files; false
// if it ended first.
func (w *worker) waitFiles() bool {
	select {
	case <-w.at:
		return true
	case <-w.read:
		select {
		case <-w.at:
			return true
		default:
			return false
		}
	}
}

// longestPause is the longest time between from and end in which none of
// ws wrote a file: how long a kill or a restart left the job idle.
func longestPause(ws []*worker, from, end time.Time) time.Duration {
	var at []time.Time
	for _, w := range ws {
		w.mu.Lock()
		for _, t := range w.written {
			if t.After(from) && t.Before(end) {
				at = append(at, t)
			}
		}
		w.mu.Unlock()
	}
	slices.SortFunc(at, time.Time.Compare)
	longest, last := time.Duration(0), from
	for _, t := range append(at, end) {
		longest = max(longest, t.Sub(last))
		last = t
	}
	return longest
}

// maxPause bounds longestPause after a kill or a restart: the 4 s ack wait
// and a missed heartbeat, with room for a loaded machine. A 30 s ack wait
// (an item lost with its worker or its acknowledgement waiting it out)
// leaves a pause of 30 s less the rest of the job: 14 to 16 s on the
// loaded two-core test machine.
const maxPause = 10 * time.Second

func checkPause(t *testing.T, what string, pause time.Duration) {
	t.Helper()
	if pause > maxPause {
		t.Errorf("after %s the workers wrote nothing for %v, want at most %v", what, pause.Round(time.Millisecond), maxPause)
	}
}

// summary is what the tests read of a worker's --json summary.
type summary struct {
	New, Updated, Unchanged, Failed, Transfers int64
}

func (w *worker) summary(t *testing.T) summary {
	t.Helper()
	var s summary
	if err := json.Unmarshal([]byte(w.stdout.String()), &s); err != nil {
		t.Fatalf("worker %s: summary %q: %v (stderr: %s)", w.name, w.stdout.String(), err, w.stderr())
	}
	return s
}

// runWorkers starts workers named names and waits for them all; each
// must exit 0.
func runWorkers(t *testing.T, server, job, work, url string, names ...string) []*worker {
	t.Helper()
	var ws []*worker
	for _, n := range names {
		ws = append(ws, startWorker(t, server, job, n, work, url, 0))
	}
	for _, w := range ws {
		if err := w.wait(); err != nil {
			t.Errorf("worker %s: %v: %s", w.name, err, w.stderr())
		}
	}
	return ws
}

// mergedIndex runs gofer warc merge over every segment under work/warc
// and returns the lines' JSON.
func mergedIndex(t *testing.T, work string) []map[string]any {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(work, "warc", "*.warc.gz"))
	if len(segs) == 0 {
		t.Fatal("no WARC segments")
	}
	res := itest.Run(t, nil, nil, append([]string{"warc", "merge"}, segs...)...)
	if res.Code != 0 {
		t.Fatalf("gofer warc merge: exit %d: %s", res.Code, res.Stderr)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		i := strings.IndexByte(l, '{')
		var e map[string]any
		if i < 0 || json.Unmarshal([]byte(l[i:]), &e) != nil {
			t.Fatalf("merged index line %q", l)
		}
		out = append(out, e)
	}
	return out
}

// sha1Digest is a WARC payload digest of the archive file at path.
func sha1Digest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.StateDir(), "archive", path))
	if err != nil {
		t.Fatal(err)
	}
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// checkMerged checks that the merged index lists every manifest item
// exactly once as a resource record, with the file's digest.
func checkMerged(t *testing.T, work string, path func(warcRecord) string) {
	t.Helper()
	manifest := itest.Manifest(t)
	seen := map[string]int{}
	for _, e := range mergedIndex(t, work) {
		if e["type"] != "resource" {
			continue
		}
		r := warcRecord{}
		r.URI, _ = e["url"].(string)
		r.Mime, _ = e["mime"].(string)
		p := path(r)
		if _, ok := manifest[p]; !ok {
			continue
		}
		seen[p]++
		if d, _ := e["digest"].(string); d != sha1Digest(t, p) {
			t.Errorf("%s: digest %s, the file's %s", p, d, sha1Digest(t, p))
		}
	}
	for p := range manifest {
		if seen[p] != 1 {
			t.Errorf("%s: listed %d times in the merged index, want once", p, seen[p])
		}
	}
}

// checkTrees checks that every file the workers wrote is the manifest's,
// and that together they hold every manifest file; sub is where the
// archive lies in a DIR ("" or "archive" for a Gopher selector's directory).
func checkTrees(t *testing.T, ws []*worker, sub string) {
	t.Helper()
	manifest := itest.Manifest(t)
	have := map[string]bool{}
	for _, w := range ws {
		root := filepath.Join(w.dir, sub)
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			if fi.IsDir() && rel == ".gofer" {
				return filepath.SkipDir
			}
			want, ok := manifest[filepath.ToSlash(rel)]
			if !ok || fi.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			if sha256Hex(b) != want {
				t.Errorf("worker %s: %s differs from the manifest", w.name, rel)
			}
			have[filepath.ToSlash(rel)] = true
			return nil
		})
	}
	var missing []string
	for p := range manifest {
		if !have[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d manifest files in no worker's DIR: %q", len(missing), missing[:min(len(missing), 10)])
	}
}

// jobStatus reads --status --json.
func jobStatus(t *testing.T, server, job string) map[string]any {
	t.Helper()
	res := itest.Run(t, nil, nil, "mirror", "--cluster", server, "--job", job, "--status", "--json")
	if res.Code != 0 {
		t.Fatalf("--status: exit %d: %s", res.Code, res.Stderr)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
		t.Fatalf("--status --json: %q: %v", res.Stdout, err)
	}
	return st
}

// clusterKill9 runs three workers on url, kills one with SIGKILL after a
// random number of its files, lets the others finish, checks the merged
// index and the trees, then reruns the job with two workers: nothing new.
func clusterKill9(t *testing.T, what, url, sub string, path func(warcRecord) string, withBoard bool) {
	work := t.TempDir()
	os.MkdirAll(filepath.Join(work, "warc"), 0o755)
	alone := aloneTime(t, natsURL, what, url, 3)
	job := newJob(t, what)
	k := 20 + rand.IntN(200)
	began := time.Now()
	var b *board
	if withBoard {
		b = startBoard(t)
	}
	victim := startWorker(t, natsURL, job, "w1", work, url, k)
	others := []*worker{startWorker(t, natsURL, job, "w2", work, url, 0), startWorker(t, natsURL, job, "w3", work, url, 0)}
	if b != nil {
		b.steer(t, job)
	}
	if !victim.waitFiles() {
		t.Fatalf("w1 ended before its %d files, before the kill: %v: %s", k, victim.wait(), victim.stderr())
	}
	victim.cmd.Process.Kill() // SIGKILL
	killed := time.Now()
	victim.wait()
	for _, w := range others {
		if err := w.wait(); err != nil {
			t.Fatalf("worker %s: %v: %s", w.name, err, w.stderr())
		}
	}
	ended := time.Now()
	t.Logf("w1 killed after %d files, %v into the job; the job ended %v after the kill (%v in all; %v without a kill); longest pause in writing after the kill %v",
		k, killed.Sub(began).Round(time.Millisecond), ended.Sub(killed).Round(time.Millisecond),
		ended.Sub(began).Round(time.Millisecond), alone.Round(time.Millisecond),
		longestPause(others, killed, ended).Round(time.Millisecond))
	checkPause(t, "the kill", longestPause(others, killed, ended))
	st := jobStatus(t, natsURL, job)
	if b != nil {
		// As many as the workers took over: none when w1 held no item
		// at the kill (killed as the job ran out of work).
		reassigned, _ := st["reassigned"].(float64)
		b.reassigned(t, job, int64(reassigned))
	}
	if st["state"] != "done" || st["queued"] != float64(0) || st["in_flight"] != float64(0) {
		t.Errorf("status after the run: %v", st)
	}
	checkMerged(t, work, path)
	checkTrees(t, append(others, victim), sub)

	// The rerun: a new run of the job, by two workers, fetches no file.
	segs, _ := filepath.Glob(filepath.Join(work, "warc", "*.warc.gz"))
	ws := runWorkers(t, natsURL, job, work, url, "w2", "w3")
	var total summary
	for _, w := range ws {
		s := w.summary(t)
		total.New += s.New
		total.Updated += s.Updated
		total.Unchanged += s.Unchanged
		total.Failed += s.Failed
	}
	if total.New != 0 || total.Updated != 0 || total.Failed != 0 || total.Unchanged < int64(len(itest.Manifest(t))) {
		t.Errorf("rerun: %+v, want nothing new and every file unchanged", total)
	}
	if st := jobStatus(t, natsURL, job); st["run"] != float64(2) || st["state"] != "done" {
		t.Errorf("status after the rerun: run %v, %v", st["run"], st["state"])
	}
	after, _ := filepath.Glob(filepath.Join(work, "warc", "*.warc.gz"))
	if len(after) <= len(segs) {
		t.Errorf("rerun wrote no new segment")
	}
	checkMerged(t, work, path) // the rerun's records are revisits, if any
}

// aloneTime is how long workers (each started with extra) take for url
// on server when nothing goes wrong: what a job with a kill or a restart
// is measured against.
func aloneTime(t *testing.T, server, what, url string, workers int, extra ...string) time.Duration {
	t.Helper()
	work := t.TempDir()
	os.MkdirAll(filepath.Join(work, "warc"), 0o755)
	job := newJob(t, what+"-alone")
	itest.Gofer(t) // built before the clock starts
	began := time.Now()
	var ws []*worker
	for i := range workers {
		ws = append(ws, startWorker(t, server, job, fmt.Sprintf("a%d", i+1), work, url, 0, extra...))
	}
	for _, w := range ws {
		if err := w.wait(); err != nil {
			t.Fatalf("worker %s of the job alone: %v: %s", w.name, err, w.stderr())
		}
	}
	return time.Since(began)
}

// TestClusterMirrorFTPKill9: three workers mirror the archive from
// vsftpd; one is killed with SIGKILL; the merged index lists every file
// once. gofer serve --cluster shows the three, pauses and resumes them
// all, and counts the items reassigned after the kill.
func TestClusterMirrorFTPKill9(t *testing.T) {
	itest.Require(t, itest.FTPHost+":21")
	itest.Require(t, itest.NATSHost+":4222")
	clusterKill9(t, "ftp", "ftp://"+itest.FTPHost+"/archive/", "", ftpPath, true)
}

// TestClusterMirrorGopherKill9: the same over Gopher+ (pygopherd), whose
// items carry their exact bytes.
func TestClusterMirrorGopherKill9(t *testing.T) {
	itest.Require(t, itest.GopherPlusHost+":70")
	itest.Require(t, itest.NATSHost+":4222")
	clusterKill9(t, "gopher", "gopher://"+itest.GopherPlusHost+"/1/archive", "archive", gopherPath, false)
}

// TestClusterJobsIsolated runs two jobs at once on one server: each
// worker's tree holds its own job's files only, each job's status counts
// its own workers, and a worker that names a job with another URL is
// refused.
func TestClusterJobsIsolated(t *testing.T) {
	itest.Require(t, itest.FTPHost+":21")
	itest.Require(t, itest.NATSHost+":4222")
	work := t.TempDir()
	os.MkdirAll(filepath.Join(work, "warc"), 0o755)
	jobA, jobB := newJob(t, "text"), newJob(t, "binary")
	a := startWorker(t, natsURL, jobA, "a", work, "ftp://"+itest.FTPHost+"/archive/text/", 0)
	b := startWorker(t, natsURL, jobB, "b", work, "ftp://"+itest.FTPHost+"/archive/binary/", 0)
	for _, w := range []*worker{a, b} {
		if err := w.wait(); err != nil {
			t.Fatalf("worker %s: %v: %s", w.name, err, w.stderr())
		}
	}
	list := func(dir string) map[string]bool {
		out := map[string]bool{}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Name() != ".gofer" {
				out[e.Name()] = true
			}
		}
		return out
	}
	manifest := itest.Manifest(t)
	for _, c := range []struct {
		w      *worker
		job    string
		prefix string
	}{{a, jobA, "text/"}, {b, jobB, "binary/"}} {
		want := 0
		for p := range manifest {
			if strings.HasPrefix(p, c.prefix) {
				want++
				if !list(c.w.dir)[strings.TrimPrefix(p, c.prefix)] {
					t.Errorf("job %s: %s missing", c.job, p)
				}
			}
		}
		if got := len(list(c.w.dir)); got != want {
			t.Errorf("job %s: %d entries in its DIR, want its %d files only", c.job, got, want)
		}
		st := jobStatus(t, natsURL, c.job)
		ws, _ := st["workers"].([]any)
		if len(ws) != 1 || ws[0].(map[string]any)["worker"] != c.w.name {
			t.Errorf("job %s: workers %v, want only %s", c.job, ws, c.w.name)
		}
		// The listing, then one item per file.
		if st["done"] != float64(want+1) {
			t.Errorf("job %s: %v items done, want %d", c.job, st["done"], want+1)
		}
	}
	res := itest.Run(t, nil, nil, "mirror", "--cluster", natsURL, "--job", jobA, "ftp://"+itest.FTPHost+"/archive/binary/", filepath.Join(work, "c"))
	if res.Code != 2 || !strings.Contains(res.Stderr, "mirrors ftp://"+itest.FTPHost+"/archive/text/") {
		t.Errorf("a worker naming job %s with another URL: exit %d: %s", jobA, res.Code, res.Stderr)
	}
}

// TestClusterNATSRestart restarts a private nats-server (its own loopback
// address and store) while two workers mirror through it: they reconnect,
// the job completes, and the trees hold the archive.
func TestClusterNATSRestart(t *testing.T) {
	itest.Require(t, itest.FTPHost+":21")
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed (integration/up nats installs it)")
	}
	const addr = "127.0.0.43"
	store := t.TempDir()
	// Started in the foreground, the server logs "Server is ready" on
	// stderr once it listens: the test waits for that line.
	start := func() *exec.Cmd {
		cmd := exec.CommandContext(itest.Context(t), bin, "-a", addr, "-p", "4222", "-js", "-sd", store)
		pipe, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(pipe)
		var log strings.Builder
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "Server is ready") {
				go io.Copy(io.Discard, pipe) // ends when the server exits
				return cmd
			}
		}
		cmd.Wait()
		t.Fatalf("nats-server on %s exited before it was ready:\n%s", addr, log.String())
		return nil
	}
	srv := start()
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	server := "nats://" + addr + ":4222"
	work := t.TempDir()
	os.MkdirAll(filepath.Join(work, "warc"), 0o755)
	job := newJob(t, "restart")
	url := "ftp://" + itest.FTPHost + "/archive/"
	alone := aloneTime(t, server, "restart", url, 2, "-j", "2")
	began := time.Now()
	w1 := startWorker(t, server, job, "w1", work, url, 300, "-j", "2")
	w2 := startWorker(t, server, job, "w2", work, url, 0, "-j", "2")
	if !w1.waitFiles() {
		t.Fatalf("w1 ended before its 300 files, before the restart: %v: %s", w1.wait(), w1.stderr())
	}
	stopped := time.Now()
	srv.Process.Signal(os.Interrupt)
	srv.Wait()
	srv = start()
	restarted := time.Now()
	for _, w := range []*worker{w1, w2} {
		if err := w.wait(); err != nil {
			t.Fatalf("worker %s: %v: %s", w.name, err, w.stderr())
		}
	}
	ended := time.Now()
	t.Logf("nats-server stopped after 300 files of w1, %v into the job, ready again %v later; the job ended %v after the restart (%v in all; %v without a restart); longest pause in writing after the stop %v",
		stopped.Sub(began).Round(time.Millisecond), restarted.Sub(stopped).Round(time.Millisecond),
		ended.Sub(restarted).Round(time.Millisecond), ended.Sub(began).Round(time.Millisecond), alone.Round(time.Millisecond),
		longestPause([]*worker{w1, w2}, stopped, ended).Round(time.Millisecond))
	checkPause(t, "the restart", longestPause([]*worker{w1, w2}, stopped, ended))
	if st := jobStatus(t, server, job); st["state"] != "done" {
		t.Errorf("status after the restart: %v", st)
	}
	checkTrees(t, []*worker{w1, w2}, "")
	checkMerged(t, work, ftpPath)
}

// TestClusterSharedDir: two workers write into one DIR (as on a network
// file system every machine mounts): the DIR ends up holding the archive
// exactly, and each worker's state and temporary files stay its own.
func TestClusterSharedDir(t *testing.T) {
	itest.Require(t, itest.FTPHost+":21")
	itest.Require(t, itest.NATSHost+":4222")
	work := t.TempDir()
	url := "ftp://" + itest.FTPHost + "/archive/"
	shared := filepath.Join(work, "shared")
	job := newJob(t, "shared")
	var pair []*worker
	for _, n := range []string{"s1", "s2"} {
		w := &worker{name: n, dir: shared, at: make(chan struct{}), read: make(chan struct{})}
		w.cmd = exec.CommandContext(itest.Context(t), itest.Gofer(t), "mirror", "-q", "--json", "--cluster", natsURL, "--job", job, "--worker", n, url, shared)
		w.cmd.Env = append(os.Environ(), "EMAIL=gofer@example.org")
		w.cmd.Stdout = &w.stdout
		var errb strings.Builder
		w.cmd.Stderr = &errb
		if err := w.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		close(w.read)
		pair = append(pair, w)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s stderr: %s", n, errb.String())
			}
		})
	}
	var total summary
	for _, w := range pair {
		if err := w.cmd.Wait(); err != nil {
			t.Fatalf("worker %s: %v", w.name, err)
		}
		s := w.summary(t)
		total.New += s.New
		if s.New == 0 {
			t.Errorf("worker %s fetched nothing: the pair did not share the work", w.name)
		}
	}
	if d := itest.DiffTree(t, shared, ".gofer"); len(d) != 0 {
		t.Errorf("shared DIR differs from the archive: %q", d[:min(len(d), 5)])
	}
	if total.New != int64(len(itest.Manifest(t))) {
		t.Errorf("%d files new over the pair, want each of %d once", total.New, len(itest.Manifest(t)))
	}
	for _, n := range []string{"state-s1.db", "state-s2.db", "tmp-s1", "tmp-s2"} {
		if _, err := os.Stat(filepath.Join(shared, ".gofer", n)); err != nil {
			t.Errorf("DIR/.gofer/%s: %v", n, err)
		}
	}
}
