package integration_test

// fetch/mirror against scripted hostile servers on loopback, through the
// real FTP and Gopher fetchers: listings and menus that name "../x",
// "/etc/x", "a/../../x", NUL bytes, symlinks out of the tree, a menu that
// links to itself, and a listing of 100 000 entries. Nothing may be
// written outside DIR, the refusals must be reported, memory stays bounded.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/integration/hostile"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/security"
)

// ftpTree is what the scripted FTP server serves: a directory's LIST lines
// by path, and file bodies by path.
type ftpTree struct {
	lists map[string][]string
	files map[string]string
	// big, when set, is a directory whose LIST has that many files.
	big      string
	bigCount int
	retr     atomic.Int64
}

func lsFile(name string, size int) string {
	return fmt.Sprintf("-rw-r--r--   1 ftp      ftp      %8d Dec 20  1994 %s\r\n", size, name)
}

func lsDir(name string) string {
	return fmt.Sprintf("drwxr-xr-x   2 ftp      ftp          4096 Dec 20  1994 %s\r\n", name)
}

func lsLink(name, target string) string {
	return fmt.Sprintf("lrwxrwxrwx   1 ftp      ftp            11 Dec 20  1994 %s -> %s\r\n", name, target)
}

func (tr *ftpTree) serve(c *hostile.Conn) { hostile.ServeFTPTree(c, tr, nil) }

// The hostile.FTPFiles of the tree.

func (tr *ftpTree) IsDir(p string) bool {
	_, ok := tr.lists[p]
	return ok || p == tr.big
}

func (tr *ftpTree) List(dir string, w *hostile.Conn) {
	for _, l := range tr.lists[dir] {
		w.Send(l)
	}
	if dir == tr.big {
		for i := range tr.bigCount {
			if !w.Send(lsFile(fmt.Sprintf("f%06d", i), 7)) {
				break
			}
		}
	}
}

func (tr *ftpTree) Stat(p string) (int64, time.Time, bool) {
	body, ok := tr.file(p)
	return int64(len(body)), time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC), ok
}

func (tr *ftpTree) Retr(p string) (string, bool, []byte, bool) {
	tr.retr.Add(1)
	body, ok := tr.file(p)
	return "", false, []byte(body), ok
}

func (tr *ftpTree) Sent(string) {}

func (tr *ftpTree) file(p string) (string, bool) {
	if b, ok := tr.files[p]; ok {
		return b, true
	}
	if tr.big != "" && path.Dir(p) == tr.big {
		return "content", true
	}
	return "", false
}

func startFTP(t *testing.T, tr *ftpTree) string {
	t.Helper()
	s, err := hostile.Start("127.0.0.1:0", tr.serve)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.Addr()
}

// outsideUntouched checks that nothing but DIR appeared beside it.
func outsideUntouched(t *testing.T, outer string) {
	t.Helper()
	ents, _ := os.ReadDir(outer)
	if len(ents) != 1 || ents[0].Name() != "mirror" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("written beside DIR: %q", names)
	}
}

func treeFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".gofer" {
			return filepath.SkipDir
		}
		if d.Type()&os.ModeSymlink != 0 {
			// Links are made only relative, and only where they stay in DIR.
			target, _ := os.Readlink(p)
			to := filepath.Clean(filepath.Join(filepath.Dir(p), target))
			if filepath.IsAbs(target) || (to != dir && !strings.HasPrefix(to, dir+string(filepath.Separator))) {
				t.Errorf("symlink leaving DIR created: %s -> %s", rel, target)
			}
		}
		if !d.IsDir() {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func TestMirrorHostileFTPListing(t *testing.T) {
	itest.Parallel(t)
	tr := &ftpTree{
		lists: map[string][]string{
			"/": {lsDir("pub")},
			"/pub": {lsFile("ok.txt", 3), lsFile("../x", 3), lsFile("/etc/x", 3), lsFile("a/../../x", 3),
				lsFile("nul\x00byte", 3), lsFile(`back\slash`, 3), lsDir(".."), lsDir("sub"),
				lsLink("out", "/etc/passwd"), lsLink("up", "../../../../tmp")},
			"/pub/sub": {lsFile("inner.txt", 5), lsLink("loop", "..")},
		},
		files: map[string]string{"/pub/ok.txt": "ok\n", "/pub/sub/inner.txt": "inner", "/x": "BAD", "/etc/x": "BAD", "/pub/x": "BAD"},
	}
	addr := startFTP(t, tr)
	outer := t.TempDir()
	dir := filepath.Join(outer, "mirror")
	c := mirrorClient()
	defer c.Close()
	sum, err := mirror.Run(context.Background(), c, "ftp://"+addr+"/pub/", dir, mirror.Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(treeFiles(t, dir), "|")
	if got != "ok.txt|sub/inner.txt|sub/loop" {
		t.Errorf("tree %q", got)
	}
	outsideUntouched(t, outer)
	// loop -> .. stays inside DIR and is made (--symlinks keep); the links
	// to /etc/passwd and above DIR are skipped.
	if target, err := os.Readlink(filepath.Join(dir, "sub", "loop")); err != nil || target != ".." {
		t.Errorf("sub/loop -> %q, %v; want ..", target, err)
	}
	if sum.Links != 1 || sum.LinksSkipped != 2 || sum.New != 2 {
		t.Errorf("summary %+v", sum)
	}
	// A name holding "/" ("../x", "/etc/x" in a listing of /pub,
	// "a/../../x") names no entry of the directory: the listing reports
	// its line unparsed. The NUL name may already be refused by the
	// listing parser; every other hostile name must reach the mirror's
	// rule and be refused there.
	if sum.Refused < 1 || sum.Refused+sum.Unparsed < 4 {
		t.Errorf("refused %d, unparsed %d: %+v %+v", sum.Refused, sum.Unparsed, sum.Refusals, sum.UnparsedLines)
	}
	for _, name := range []string{"../x", "/etc/x", "a/../../x"} {
		found := false
		for _, u := range sum.UnparsedLines {
			found = found || strings.HasSuffix(u.Line, " "+name)
		}
		if !found {
			t.Errorf("%q not reported unparsed: %+v", name, sum.UnparsedLines)
		}
	}
	for _, r := range sum.Refusals {
		if !errors.Is(r.Err, security.ErrUnsafeName) {
			t.Errorf("refusal %q: %v", r.Name, r.Err)
		}
	}
	if n := tr.retr.Load(); n != 2 {
		t.Errorf("%d RETR, want 2: a refused name must never be fetched", n)
	}
}

// It measures the test binary's own heap, so it runs alone (no
// itest.Parallel): a test beside it would add its own.
func TestMirrorHostileFTPListingOf100000(t *testing.T) {
	tr := &ftpTree{lists: map[string][]string{"/": {lsDir("big")}}, big: "/big", bigCount: 100_000}
	addr := startFTP(t, tr)
	dir := filepath.Join(t.TempDir(), "mirror")
	c := mirrorClient()
	defer c.Close()
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(2 * time.Millisecond)
		defer tk.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tk.C:
			}
		}
	})
	// A dry run: the walk reads and queues all 100 000 entries, fetching none.
	sum, err := mirror.Run(context.Background(), c, "ftp://"+addr+"/", dir, mirror.Options{DryRun: true})
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 100_000 || sum.Failed != 0 {
		t.Fatalf("summary new %d failed %d %+v", sum.New, sum.Failed, sum.Failures)
	}
	t.Logf("peak live heap %.1f MiB", float64(peak.Load())/(1<<20))
	if peak.Load() > 48<<20 {
		t.Errorf("peak live heap %d MiB for a 100 000-entry listing", peak.Load()>>20)
	}
}

// gopherHole serves menus by selector; every request is counted.
type gopherHole struct {
	menus    map[string]string
	items    map[string]string
	mu       sync.Mutex
	requests map[string]int
}

func (g *gopherHole) serve(c *hostile.Conn) {
	req, ok := c.ReadLine()
	if !ok {
		return
	}
	sel, _, _ := strings.Cut(req, "\t")
	g.mu.Lock()
	g.requests[sel]++
	g.mu.Unlock()
	if m, ok := g.menus[sel]; ok {
		c.Send(m + ".\r\n")
	} else if it, ok := g.items[sel]; ok {
		c.Send(it)
	} else {
		c.Send("3not found\tfake\t(NULL)\t0\r\n.\r\n")
	}
}

func TestMirrorHostileGopherMenu(t *testing.T) {
	itest.Parallel(t)
	g := &gopherHole{requests: map[string]int{}}
	s, err := hostile.Start("127.0.0.1:0", g.serve)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	host, port, _ := net.SplitHostPort(s.Addr())
	line := func(typ, name, sel string) string {
		return fmt.Sprintf("%s%s\t%s\t%s\t%s\r\n", typ, name, sel, host, port)
	}
	g.menus = map[string]string{
		"": "iwelcome\tfake\t(NULL)\t0\r\n" + line("1", "loop", "/loop") + line("0", "ok", "/ok.txt") +
			line("0", "climb", "../x") + line("0", "abs", "/etc/x") + line("0", "climb2", "a/../../x") +
			line("0", "nul", "a\x00b") + line("0", "slash", `a\b`) + line("0", "state", "/.gofer/x") +
			fmt.Sprintf("0elsewhere\t/x\t127.0.0.9\t%s\r\n", port),
		"/loop":  line("1", "me", "/loop") + line("1", "me again", "/loop/") + line("1", "home", "") + line("0", "in loop", "/loop/item"),
		"/loop/": line("1", "back", "/loop"),
	}
	g.items = map[string]string{"/ok.txt": "ok\r\n.\r\n", "/etc/x": "inside DIR\r\n.\r\n", "/loop/item": "item\r\n.\r\n",
		"../x": "BAD", "a/../../x": "BAD"}
	outer := t.TempDir()
	dir := filepath.Join(outer, "mirror")
	c := mirrorClient()
	defer c.Close()
	sum, err := mirror.Run(context.Background(), c, "gopher://"+s.Addr()+"/1", dir, mirror.Options{Jobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	outsideUntouched(t, outer)
	files := strings.Join(treeFiles(t, dir), "|")
	for _, want := range []string{"ok.txt", "etc/x", "loop/item", "gophermap", "loop/gophermap"} {
		if !strings.Contains("|"+files+"|", "|"+want+"|") {
			t.Errorf("%s missing from %q", want, files)
		}
	}
	for _, bad := range []string{"x", ".gofer/x"} {
		if strings.Contains("|"+files+"|", "|"+bad+"|") {
			t.Errorf("%s written: %q", bad, files)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "ok.txt")); string(got) != "ok\r\n" {
		t.Errorf("ok.txt = %q", got)
	}
	if sum.Refused < 4 {
		t.Errorf("refused %d: %+v", sum.Refused, sum.Refusals)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.requests["../x"]+g.requests["a/../../x"] != 0 {
		t.Errorf("a refused selector was requested")
	}
	// Each menu: one listing, one raw read (plus one "$" try for the start).
	if n := g.requests["/loop"]; n != 2 {
		t.Errorf("self-linking menu requested %d times, want 2", n)
	}
}
