package integration_test

// fetch/mirror against the harness's real servers (integration/LAYOUT.md):
// the sample archive mirrored byte for byte over FTP (vsftpd), Gopher+
// (pygopherd) and HTTP (nginx), checked against its sha256 manifest; a
// second run that transfers no file body; one changed remote file fetched
// again, alone; kill -9 of the gofer binary at random moments, then a rerun
// that ends with the same tree and no temporary file.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes/ftp"
)

func mirrorClient() *fetch.Client {
	return fetch.NewClient(withEmail(fetch.Options{Warn: func(string) {}}))
}

// withEmail is o with an FTP fetcher that gives gofer@example.org as the
// anonymous password.
func withEmail(o fetch.Options) fetch.Options {
	o.SetFetcher(&ftp.Fetcher{Email: "gofer@example.org"}, ftp.Schemes()...)
	return o
}

func mirrorRun(t *testing.T, c *fetch.Client, url, dir string, opts mirror.Options) *mirror.Summary {
	t.Helper()
	// Bounded by the test's deadline, not a time of its own: under load
	// a whole-archive mirror over pygopherd took more than five minutes.
	sum, err := mirror.Run(itest.Context(t), c, url, dir, opts)
	if err != nil {
		t.Fatalf("mirror %s: %v", url, err)
	}
	if sum.Failed != 0 || sum.Refused != 0 {
		t.Fatalf("mirror %s: %d failed, %d refused: %+v %+v", url, sum.Failed, sum.Refused, first(sum.Failures), sum.Refusals)
	}
	return sum
}

func first(f []mirror.Failure) []mirror.Failure {
	if len(f) > 5 {
		return f[:5]
	}
	return f
}

// gopherExtra lists the menu files a Gopher mirror adds to the archive.
func noMenuFiles(diffs []string) []string {
	var out []string
	for _, d := range diffs {
		if strings.HasPrefix(d, "extra: ") && (strings.HasSuffix(d, `gophermap"`) || strings.HasSuffix(d, `gophermap.html"`)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func manifestFiles(t *testing.T) int64 { return int64(len(itest.Manifest(t))) }

func TestMirrorArchiveOverFTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	dir := t.TempDir()
	c := mirrorClient()
	defer c.Close()
	sum := mirrorRun(t, c, "ftp://"+itest.FTPHost+"/archive/", dir, mirror.Options{Jobs: 8})
	if d := itest.DiffTree(t, dir, ".gofer"); len(d) != 0 {
		t.Fatalf("mirror differs from the manifest (%d): %q", len(d), d[:min(len(d), 10)])
	}
	if sum.New != manifestFiles(t) {
		t.Errorf("new = %d, want %d", sum.New, manifestFiles(t))
	}
	if fi, err := os.Stat(filepath.Join(dir, "names", "empty dir")); err != nil || !fi.IsDir() {
		t.Errorf("empty remote directory not mirrored: %v", err)
	}
	// Second run: listings only, no file body.
	sum = mirrorRun(t, c, "ftp://"+itest.FTPHost+"/archive/", dir, mirror.Options{Jobs: 8})
	if sum.Transfers != 0 || sum.Bytes != 0 || sum.Unchanged != manifestFiles(t) {
		t.Errorf("second run transferred %d bodies (%d bytes): %+v", sum.Transfers, sum.Bytes, sum)
	}
}

func TestMirrorArchiveOverGopherPlus(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.GopherPlusHost+":70")
	dir := t.TempDir()
	c := mirrorClient()
	defer c.Close()
	sum := mirrorRun(t, c, "gopher://"+itest.GopherPlusHost+"/1/archive", dir, mirror.Options{Jobs: 8, NoParent: true})
	if d := noMenuFiles(itest.DiffTree(t, filepath.Join(dir, "archive"))); len(d) != 0 {
		t.Fatalf("mirror differs from the manifest (%d): %q", len(d), d[:min(len(d), 10)])
	}
	if sum.New != manifestFiles(t) {
		t.Errorf("new = %d, want %d", sum.New, manifestFiles(t))
	}
	for _, f := range []string{"archive/gophermap", "archive/gophermap.html", "archive/tree/gophermap"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("menu file %s: %v", f, err)
		}
	}
	// Second run: pygopherd gives +ADMIN Mod-Dates, so nothing is fetched again.
	sum = mirrorRun(t, c, "gopher://"+itest.GopherPlusHost+"/1/archive", dir, mirror.Options{Jobs: 8, NoParent: true})
	if sum.Transfers != 0 || sum.Unchanged != manifestFiles(t) {
		t.Errorf("second run transferred %d bodies: %+v", sum.Transfers, sum)
	}
}

func TestMirrorArchiveOverHTTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	dir := t.TempDir()
	c := mirrorClient()
	defer c.Close()
	sum := mirrorRun(t, c, "http://"+itest.HTTPHost+"/archive/", dir, mirror.Options{Jobs: 8})
	if sum.New != manifestFiles(t) || sum.Failed != 0 {
		t.Errorf("first run: %+v", sum)
	}
	if d := itest.DiffTree(t, dir, ".gofer"); len(d) != 0 {
		t.Fatalf("mirror differs from the manifest (%d): %q", len(d), d[:min(len(d), 10)])
	}
	sum = mirrorRun(t, c, "http://"+itest.HTTPHost+"/archive/", dir, mirror.Options{Jobs: 8})
	if sum.Transfers != 0 || sum.Bytes != 0 || sum.Unchanged != manifestFiles(t) {
		t.Errorf("second run transferred %d bodies (%d bytes): %+v", sum.Transfers, sum.Bytes, sum)
	}
}

// scratchTree makes scratch/NAME (served by vsftpd and nginx) with a few
// files, all with one old mtime, and removes it when the test ends.
func scratchTree(t *testing.T, name string) string {
	t.Helper()
	d := filepath.Join(itest.ScratchDir(), name)
	os.RemoveAll(d)
	t.Cleanup(func() { os.RemoveAll(d) })
	old := time.Date(2001, 2, 3, 4, 5, 0, 0, time.UTC)
	for i := range 6 {
		p := filepath.Join(d, fmt.Sprintf("sub%d", i%2), fmt.Sprintf("file%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("file %d\n", i), 10+i)), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	return d
}

// downloads counts vsftpd's "OK DOWNLOAD" log lines for paths under prefix.
func downloads(t *testing.T, prefix string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.LogDir(), "vsftpd.log"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "OK DOWNLOAD") && strings.Contains(l, `"`+prefix) {
			n++
		}
	}
	return n
}

func TestMirrorRefetchesOnlyTheChangedFile(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	itest.Require(t, itest.HTTPHost+":80")
	name := fmt.Sprintf("mirror-changed-%d", os.Getpid())
	src := scratchTree(t, name)
	for _, base := range []string{"ftp://" + itest.FTPHost, "http://" + itest.HTTPHost} {
		t.Run(base[:strings.IndexByte(base, ':')], func(t *testing.T) {
			old := time.Date(2001, 2, 3, 4, 5, 0, 0, time.UTC)
			changed := filepath.Join(src, "sub1", "file3.txt")
			os.WriteFile(changed, []byte(strings.Repeat("file 3\n", 13)), 0o644)
			os.Chtimes(changed, old, old)
			dir := t.TempDir()
			c := mirrorClient()
			defer c.Close()
			url := base + "/scratch/" + name + "/"
			sum := mirrorRun(t, c, url, dir, mirror.Options{})
			if sum.New != 6 {
				t.Fatalf("first run: %+v", sum)
			}
			before := downloads(t, "/scratch/"+name+"/")
			sum = mirrorRun(t, c, url, dir, mirror.Options{})
			if sum.Transfers != 0 || sum.Unchanged != 6 {
				t.Fatalf("unchanged second run: %+v", sum)
			}
			if err := os.WriteFile(changed, []byte("changed, and of another size\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			later := old.Add(24 * time.Hour)
			os.Chtimes(changed, later, later)
			sum = mirrorRun(t, c, url, dir, mirror.Options{})
			if sum.Transfers != 1 || sum.Updated != 1 || sum.Unchanged != 5 {
				t.Errorf("after one change: %+v", sum)
			}
			got, _ := os.ReadFile(filepath.Join(dir, "sub1", "file3.txt"))
			if string(got) != "changed, and of another size\n" {
				t.Errorf("sub1/file3.txt = %q", got)
			}
			if strings.HasPrefix(base, "ftp") {
				// The server's own log agrees: one body in two runs.
				if n := downloads(t, "/scratch/"+name+"/") - before; n != 1 {
					t.Errorf("vsftpd logged %d downloads over the last two runs, want 1", n)
				}
			}
		})
	}
}

// TestMirrorKill9ThenRerunBinary kills `gofer mirror -v` at random moments
// (after a random number of its per-file lines), then runs it to the end:
// the tree matches the manifest and no temporary file is left.
func TestMirrorKill9ThenRerunBinary(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	bin := itest.Gofer(t)
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, seed))
	t.Logf("seed %d", seed)
	url := "ftp://" + itest.FTPHost + "/archive/"
	for round := range 3 {
		dir := t.TempDir()
		for kill := range 1 + rng.IntN(3) {
			k := 1 + rng.IntN(int(manifestFiles(t)))
			killed, lines := killAfterLines(t, k, bin, "mirror", "-v", "-j", "6", url, dir)
			t.Logf("round %d kill %d: killed=%v after %d lines", round, kill, killed, lines)
		}
		res := itest.Run(t, nil, nil, "mirror", "-q", url, dir)
		if res.Code != 0 {
			t.Fatalf("rerun: exit %d: %s", res.Code, res.Stderr)
		}
		if d := itest.DiffTree(t, dir, ".gofer"); len(d) != 0 {
			t.Fatalf("round %d: tree differs after kills and rerun (%d): %q", round, len(d), d[:min(len(d), 10)])
		}
		tmps, _ := os.ReadDir(filepath.Join(dir, ".gofer", "tmp"))
		if len(tmps) != 0 {
			t.Errorf("round %d: %d temporary files left", round, len(tmps))
		}
	}
}

func TestMirrorBinaryJSONSummary(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	dir := t.TempDir()
	res := itest.Run(t, nil, nil, "mirror", "--json", "-j", "8", "http://"+itest.HTTPHost+"/archive/", dir)
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	var sum struct {
		New       int64 `json:"new"`
		Failed    int64 `json:"failed"`
		Transfers int64 `json:"transfers"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &sum); err != nil {
		t.Fatalf("--json: %v: %s", err, res.Stdout)
	}
	if sum.New != manifestFiles(t) || sum.Failed != 0 {
		t.Errorf("summary %+v", sum)
	}
	if d := itest.DiffTree(t, dir, ".gofer"); len(d) != 0 {
		t.Fatalf("tree differs (%d): %q", len(d), d[:min(len(d), 10)])
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() && e.Name() == ".gofer" {
			continue
		}
		if _, ok := itest.Manifest(t)[e.Name()]; !ok && !e.IsDir() {
			t.Errorf("unexpected entry in DIR: %q", e.Name())
		}
	}
}

// sameFile fails unless dir/rel holds exactly the bytes of src.
func sameFile(t *testing.T, dir, rel, src string) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from %s (%d bytes, want %d)", rel, src, len(got), len(want))
	}
}

// Plain Gopher (gophernicus): nested generated menus mirrored by selector,
// text items unstuffed to the file's bytes, binary items exact; the
// hand-written menu that links to itself and to the top is read once.
func TestMirrorGophernicusMenus(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.GopherHost+":70")
	srv := filepath.Join(itest.StateDir(), "srv", "gopher")
	c := mirrorClient()
	defer c.Close()
	dir := t.TempDir()
	sum := mirrorRun(t, c, "gopher://"+itest.GopherHost+"/1/menus", dir, mirror.Options{NoParent: true})
	for _, f := range []string{"one/level1.txt", "one/two/level2.txt", "one/two/three/level3.txt", "one/two/three/deep.bin"} {
		sameFile(t, dir, "menus/"+f, filepath.Join(srv, "menus", f))
	}
	if sum.New != 4 {
		t.Errorf("new = %d, want 4: %+v", sum.New, sum)
	}
	if _, err := os.Stat(filepath.Join(dir, "dots.txt")); err == nil {
		t.Errorf("--no-parent left /menus")
	}
	for _, m := range []string{"menus/gophermap", "menus/one/two/three/gophermap", "menus/one/two/three/gophermap.html"} {
		if fi, err := os.Stat(filepath.Join(dir, m)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", m, err)
		}
	}

	dir = t.TempDir()
	sum = mirrorRun(t, c, "gopher://"+itest.GopherHost+"/1/mapped", dir, mirror.Options{NoParent: true})
	raw, err := os.ReadFile(filepath.Join(dir, "mapped", "gophermap"))
	if err != nil || !strings.Contains(string(raw), "A loop: this same menu") || !strings.Contains(string(raw), "iAn info line") {
		t.Errorf("raw menu of /mapped: %v %q", err, raw)
	}
	if sum.New != 0 || sum.Failed != 0 {
		t.Errorf("/mapped with --no-parent: %+v", sum)
	}
}

// killAfterLines runs bin with args (EMAIL set, for anonymous FTP), kills
// it with SIGKILL once it has written k lines to stderr, and waits for it.
// It reports whether it was killed (not finished first) and the lines seen.
func killAfterLines(t *testing.T, k int, bin string, args ...string) (killed bool, lines int) {
	t.Helper()
	cmd := exec.CommandContext(itest.Context(t), bin, args...)
	cmd.Env = append(os.Environ(), "EMAIL=gofer@example.org")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if lines++; lines == k {
			cmd.Process.Kill() // SIGKILL
			killed = true
			break
		}
	}
	cmd.Wait()
	return killed, lines
}
