package integration_test

// TestFTPMatrix runs the same gofer operations against every FTP server
// the harness runs (itest.FTPServers: vsftpd and the ftpmore servers),
// one subtest per server and operation (TestFTPMatrix/proftpd/resume),
// and writes what each did as a Markdown table to $GOFER_MATRIX_OUT
// (integration/matrix puts it into README.md). A cell fails where gofer
// gets the operation wrong; where the server itself cannot do it the cell
// says "n/a" and why, and does not fail.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

// matrixOps are the table's columns, in order.
var matrixOps = []struct{ name, doc string }{
	{"list", "`get --json` of archive/ and archive/text/: names, types, sizes, times within their modified_precision (second where the server has MLSD)"},
	{"text", "text/crlf.txt and text/plain.txt without ;type=: the file's bytes exactly"},
	{"binary", "three binary files with -o: sha256 as in the manifest"},
	{"type-a", "the same two files with ;type=a: LF line ends"},
	{"resume", "-C on a partial binary/random-1m.bin and text/plain.txt: byte-exact"},
	{"missing", "a missing file: exit 5, nothing written"},
	{"mirror", "mirror of archive/tree/d00/d00/: the manifest's files exactly, each with the server's time to the second where the server has MLSD or MDTM"},
	{"rerun", "the same mirror again: 0 transfers"},
	{"changed", "a scratch copy mirrored, one file changed on the server: 1 transfer"},
	{"delete", "one file removed on the server, mirror --delete: removed locally"},
	{"symlinks", "mirror of links/ (--symlinks keep, the default): links whose target stays inside are made, relative; fails if it does not end, makes a link that leaves DIR, or loses 2.3/file.txt"},
	{"tls", "--ftp-ssl: a binary file and a listing over AUTH TLS"},
	{"limit", "mirror -j 4 against a server that allows 2 connections per address: the files exactly, the limit learned (host_connections), and a rerun that starts within it"},
}

type cellState int

const (
	cellPass cellState = iota
	cellFail
	cellNA   // the server cannot do it
	cellSkip // not run here (an earlier cell failed, or not this row's kind)
)

type cell struct {
	state cellState
	note  string
}

func pass(format string, a ...any) cell { return cell{cellPass, fmt.Sprintf(format, a...)} }
func fail(format string, a ...any) cell { return cell{cellFail, fmt.Sprintf(format, a...)} }
func na(format string, a ...any) cell   { return cell{cellNA, fmt.Sprintf(format, a...)} }
func skip(format string, a ...any) cell { return cell{cellSkip, fmt.Sprintf(format, a...)} }

func (c cell) markdown() string {
	note := strings.NewReplacer("|", `\|`, "\n", " ").Replace(c.note)
	if len(note) > 160 {
		note = note[:157] + "..."
	}
	word := [...]string{"pass", "**FAIL**", "n/a", "–"}[c.state]
	if note == "" {
		return word
	}
	return word + " (" + note + ")"
}

type matrix struct {
	mu    sync.Mutex
	cells map[string]map[string]cell
}

func (m *matrix) set(server, op string, c cell) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cells[server] == nil {
		m.cells[server] = map[string]cell{}
	}
	m.cells[server][op] = c
}

func (m *matrix) markdown(servers []itest.FTPServer) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	b.WriteString("| server | address |")
	for _, op := range matrixOps {
		b.WriteString(" " + op.name + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(matrixOps)) + "\n")
	for _, s := range servers {
		fmt.Fprintf(&b, "| %s | %s |", s.Software, s.Host)
		for _, op := range matrixOps {
			c, ok := m.cells[s.Name][op.name]
			if !ok {
				c = skip("")
			}
			b.WriteString(" " + c.markdown() + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nColumns:\n\n")
	for _, op := range matrixOps {
		fmt.Fprintf(&b, "- **%s**: %s\n", op.name, op.doc)
	}
	b.WriteString("\n`–`: not run (an operation it needs failed, or the limit column on a server without a limit).\n")
	return b.String()
}

func TestFTPMatrix(t *testing.T) {
	itest.Parallel(t)
	if !itest.Enabled() {
		t.Skip("integration test: run `integration/matrix` (or start servers with `integration/up` and set GOFER_INTEGRATION=1)")
	}
	servers := itest.FTPServers()
	m := &matrix{cells: map[string]map[string]cell{}}
	// Cleanup runs once every parallel subtest has ended.
	t.Cleanup(func() {
		out := os.Getenv("GOFER_MATRIX_OUT")
		if out == "" {
			return
		}
		if err := os.WriteFile(out, []byte(m.markdown(servers)), 0o644); err != nil {
			t.Errorf("writing the matrix: %v", err)
		}
	})
	for _, s := range servers {
		t.Run(s.Name, func(t *testing.T) {
			itest.Parallel(t, s.Host) // a limited server's row runs alone on it
			itest.Require(t, s.Host+":21")
			r := &matrixRun{s: s, row: t}
			for _, op := range matrixOps {
				t.Run(op.name, func(t *testing.T) {
					c := r.do(t, op.name)
					m.set(s.Name, op.name, c)
					switch c.state {
					case cellFail:
						t.Errorf("%s %s: %s", s.Name, op.name, c.note)
					case cellNA, cellSkip:
						t.Logf("%s %s: %s", s.Name, op.name, c.markdown())
					}
				})
			}
		})
	}
}

// matrixRun is one server's row; later cells use what earlier ones left,
// in directories of the row's test (row), removed when the row ends.
type matrixRun struct {
	s         itest.FTPServer
	row       *testing.T
	mirrorDir string // the tree/d00/d00 mirror, once it matched
	scratch   string // the server-side scratch copy ("" until made)
	scratchIn string // its local mirror, once it matched
}

func (r *matrixRun) url(p string) string { return "ftp://" + r.s.Host + "/" + p }

func (r *matrixRun) do(t *testing.T, op string) cell {
	if r.s.LimitPerHost > 0 && op != "limit" {
		return skip("")
	}
	switch op {
	case "list":
		return r.list(t)
	case "text":
		return r.text(t)
	case "binary":
		return r.binary(t)
	case "type-a":
		return r.typeA(t)
	case "resume":
		return r.resume(t)
	case "missing":
		return r.missing(t)
	case "mirror":
		return r.mirror(t)
	case "rerun":
		return r.rerun(t)
	case "changed":
		return r.changed(t)
	case "delete":
		return r.delete(t)
	case "symlinks":
		return r.symlinks(t)
	case "tls":
		return r.tls(t)
	case "limit":
		return r.limit(t)
	}
	t.Fatalf("unknown operation %q", op)
	return cell{}
}

// goferRun is itest.RunIn with a deadline: gofer is killed past limit
// (a mirror of an endless tree must not stall the matrix).
func goferRun(t *testing.T, dir string, limit time.Duration, args ...string) (res itest.Result, timedOut bool) {
	t.Helper()
	cmd := itest.Command(t, nil, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting gofer: %v", err)
	}
	var mu sync.Mutex
	timer := time.AfterFunc(limit, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		cmd.Process.Kill()
	})
	cmd.Wait()
	timer.Stop()
	mu.Lock()
	defer mu.Unlock()
	return itest.Result{Code: cmd.ProcessState.ExitCode(), Stdout: out.String(), Stderr: errb.String()}, timedOut
}

const (
	getLimit     = 20 * time.Second
	mirrorLimit  = 45 * time.Second
	symlinkLimit = 90 * time.Second // links/ is tiny: longer means endless, even on a loaded machine
)

// failed describes a gofer run that did not exit 0.
func failed(res itest.Result, timedOut bool, limit time.Duration) string {
	if timedOut {
		return fmt.Sprintf("killed after %s", limit)
	}
	why := strings.TrimPrefix(res.Reason(), "gofer: ")
	// A mirror names its failures in its --json summary.
	var sum struct {
		Failures []struct {
			Error string `json:"error"`
		} `json:"failures"`
	}
	if json.Unmarshal([]byte(res.Stdout), &sum) == nil && len(sum.Failures) > 0 {
		why = fmt.Sprintf("%d failed, first: %s", len(sum.Failures), sum.Failures[0].Error)
	}
	return fmt.Sprintf("exit %d: %s", res.Code, why)
}

// differ says how got differs from want, briefly.
func differ(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("%d bytes, want %d, first difference at byte %d (got %q, want %q)",
		len(got), len(want), i, snippet(got, i), snippet(want, i))
}

func snippet(b []byte, i int) []byte {
	end := min(i+8, len(b))
	if i > end {
		return nil
	}
	return b[i:end]
}

func (r *matrixRun) archiveFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), p))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type listingJSON struct {
	Entries []struct {
		Name      string `json:"name"`
		Type      string `json:"type"`
		Size      *int64 `json:"size"`
		Modified  string `json:"modified"`
		Precision string `json:"modified_precision"`
	} `json:"entries"`
}

func (r *matrixRun) list(t *testing.T) cell {
	precisions := map[string]bool{}
	for _, dir := range []string{"archive", "archive/text"} {
		res, to := goferRun(t, t.TempDir(), getLimit, "get", "--json", r.url(dir+"/"))
		if res.Code != 0 || to {
			return fail("%s/: %s", dir, failed(res, to, getLimit))
		}
		var l listingJSON
		if err := json.Unmarshal([]byte(res.Stdout), &l); err != nil {
			return fail("%s/: not JSON: %v", dir, err)
		}
		disk, err := os.ReadDir(filepath.Join(r.s.Root, dir))
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, d := range disk {
			want = append(want, d.Name())
		}
		for _, e := range l.Entries {
			got = append(got, e.Name)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			return fail("%s/: names %q, want %q", dir, got, want)
		}
		for _, e := range l.Entries {
			fi, err := os.Stat(filepath.Join(r.s.Root, dir, e.Name))
			if err != nil {
				t.Fatal(err)
			}
			wantType := "file"
			if fi.IsDir() {
				wantType = "dir"
			}
			if e.Type != wantType {
				return fail("%s/%s: type %q, want %q", dir, e.Name, e.Type, wantType)
			}
			if wantType == "file" && (e.Size == nil || *e.Size != fi.Size()) {
				return fail("%s/%s: size %v, want %d", dir, e.Name, sizeOf(e.Size), fi.Size())
			}
			if msg := timeWithin(e.Modified, e.Precision, fi.ModTime()); msg != "" {
				return fail("%s/%s: %s", dir, e.Name, msg)
			}
			precisions[e.Precision] = true
		}
	}
	var ps []string
	for p := range precisions {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	if r.s.MLSD && !slices.Equal(ps, []string{"second"}) {
		return fail("the server has MLSD, times given to the %s", strings.Join(ps, "/"))
	}
	return pass("times to the %s", strings.Join(ps, "/"))
}

func sizeOf(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// timeWithin checks an RFC 3339 time against the file's mtime at the
// stated precision.
func timeWithin(modified, precision string, mtime time.Time) string {
	if modified == "" {
		return "no modified time"
	}
	got, err := time.Parse(time.RFC3339, modified)
	if err != nil {
		return fmt.Sprintf("modified %q: %v", modified, err)
	}
	mtime = mtime.UTC()
	var want time.Time
	switch precision {
	case "second":
		want = mtime.Truncate(time.Second)
	case "minute":
		want = mtime.Truncate(time.Minute)
	case "day":
		want = time.Date(mtime.Year(), mtime.Month(), mtime.Day(), 0, 0, 0, 0, time.UTC)
		got = time.Date(got.Year(), got.Month(), got.Day(), 0, 0, 0, 0, time.UTC)
	default:
		return fmt.Sprintf("modified_precision %q", precision)
	}
	if precision == "minute" {
		got = got.Truncate(time.Minute)
	}
	if !got.Equal(want) {
		return fmt.Sprintf("modified %s (%s), want %s", modified, precision, mtime.Format(time.RFC3339))
	}
	return ""
}

func (r *matrixRun) text(t *testing.T) cell {
	for _, p := range []string{"text/crlf.txt", "text/plain.txt"} {
		want := r.archiveFile(t, p)
		res, to := goferRun(t, t.TempDir(), getLimit, "get", "-q", r.url("archive/"+p))
		if res.Code != 0 || to {
			return fail("%s: %s", p, failed(res, to, getLimit))
		}
		if res.Stdout != string(want) {
			return fail("%s: %s", p, differ([]byte(res.Stdout), want))
		}
	}
	return pass("")
}

func (r *matrixRun) binary(t *testing.T) cell {
	manifest := itest.Manifest(t)
	dir := t.TempDir()
	for i, p := range []string{"binary/all-bytes.bin", "binary/crlf-nul.bin", "binary/random-64k.bin"} {
		out := filepath.Join(dir, strconv.Itoa(i))
		res, to := goferRun(t, dir, getLimit, "get", "-q", "-o", out, r.url("archive/"+p))
		if res.Code != 0 || to {
			return fail("%s: %s", p, failed(res, to, getLimit))
		}
		if got := sha256File(t, out); got != manifest[p] {
			return fail("%s: sha256 differs", p)
		}
	}
	return pass("")
}

func (r *matrixRun) typeA(t *testing.T) cell {
	note := ""
	for _, p := range []string{"text/plain.txt", "text/crlf.txt"} {
		disk := r.archiveFile(t, p)
		want := bytes.ReplaceAll(disk, []byte("\r\n"), []byte("\n"))
		res, to := goferRun(t, t.TempDir(), getLimit, "get", "-q", r.url("archive/"+p+";type=a"))
		if r.s.TypeABroken {
			if res.Code == 5 && !to {
				return na("the server fails RETR in TYPE A: %s", failed(res, to, getLimit))
			}
			return fail("the server fails RETR in TYPE A (125, then 550 with the data connection left open); gofer: %s", failed(res, to, getLimit))
		}
		if res.Code != 0 || to {
			return fail("%s;type=a: %s", p, failed(res, to, getLimit))
		}
		got := []byte(res.Stdout)
		// A server that turns every LF into CR LF sends a CR LF file as
		// CR CR LF: a CR, then a line end.
		if r.s.ASCIIEveryLF && !bytes.Equal(want, disk) && bytes.Equal(got, disk) {
			note = "the server sends crlf.txt as CR CR LF, which is CR LF here"
			continue
		}
		if !bytes.Equal(got, want) {
			return fail("%s;type=a: %s", p, differ(got, want))
		}
	}
	return pass("%s", note)
}

func (r *matrixRun) resume(t *testing.T) cell {
	dir := t.TempDir()
	for _, c := range []struct {
		p   string
		cut int
	}{{"binary/random-1m.bin", 300007}, {"text/plain.txt", 1001}} {
		want := r.archiveFile(t, c.p)
		out := filepath.Join(dir, filepath.Base(c.p))
		if err := os.WriteFile(out, want[:c.cut], 0o644); err != nil {
			t.Fatal(err)
		}
		res, to := goferRun(t, dir, getLimit, "get", "-q", "-C", "-o", out, r.url("archive/"+c.p))
		if res.Code != 0 || to {
			return fail("%s from byte %d: %s", c.p, c.cut, failed(res, to, getLimit))
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			return fail("%s from byte %d: %s", c.p, c.cut, differ(got, want))
		}
	}
	if !r.s.Rest {
		return pass("the server has no REST: fetched whole")
	}
	return pass("")
}

func (r *matrixRun) missing(t *testing.T) cell {
	dir := t.TempDir()
	res, to := goferRun(t, dir, getLimit, "get", "-q", "-o", filepath.Join(dir, "out"), r.url("archive/no-such-file.bin"))
	if to || res.Code != 5 {
		return fail("want exit 5, %s", failed(res, to, getLimit))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		return fail("left %d files behind", len(entries))
	}
	return pass("")
}

// mirrorSummary is the part of mirror --json the matrix reads.
type mirrorSummary struct {
	Transfers int `json:"transfers"`
	Deleted   int `json:"deleted"`
	Links     int `json:"links"`
	Failed    int `json:"failed"`
	Retries   int `json:"retries"`
	// HostConnections is the connection limit the mirror learned.
	HostConnections int `json:"host_connections"`
}

// runMirror runs gofer mirror --json; ok false with a reason when it did
// not exit 0 or printed no summary.
func runMirror(t *testing.T, limit time.Duration, args ...string) (mirrorSummary, string) {
	t.Helper()
	res, to := goferRun(t, t.TempDir(), limit, append([]string{"mirror", "-q", "--json"}, args...)...)
	var sum mirrorSummary
	if res.Code != 0 || to {
		return sum, failed(res, to, limit)
	}
	if err := json.Unmarshal([]byte(res.Stdout), &sum); err != nil {
		return sum, fmt.Sprintf("summary not JSON: %v", err)
	}
	return sum, ""
}

const mirrorPrefix = "tree/d00/d00/"

func (r *matrixRun) mirror(t *testing.T) cell {
	// The row's TempDir: rerun mirrors into it again.
	dir := r.row.TempDir()
	sum, why := runMirror(t, mirrorLimit, r.url("archive/"+mirrorPrefix), dir)
	if why != "" {
		return fail("%s", why)
	}
	if diffs := itest.DiffSubtree(t, dir, mirrorPrefix, ".gofer"); len(diffs) > 0 {
		return fail("%d differences: %s", len(diffs), strings.Join(diffs[:min(3, len(diffs))], "; "))
	}
	r.mirrorDir = dir
	// Every file gets the server's time to the second: MLSD facts, or MDTM
	// where LIST shows only the minute or the day.
	inexact := 0
	filepath.WalkDir(filepath.Join(itest.ArchiveDir(), mirrorPrefix), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(filepath.Join(itest.ArchiveDir(), mirrorPrefix), p)
		src, err1 := os.Stat(p)
		got, err2 := os.Stat(filepath.Join(dir, rel))
		if err1 != nil || err2 != nil || !got.ModTime().Equal(src.ModTime()) {
			inexact++
		}
		return nil
	})
	if inexact > 0 && r.s.MDTM {
		return fail("%d files without the server's time to the second", inexact)
	}
	note := "times to the second"
	if inexact > 0 {
		note = fmt.Sprintf("%d files with the listing's time only (no MDTM)", inexact)
	}
	if sum.Retries > 0 {
		note += fmt.Sprintf("; %d retries", sum.Retries)
	}
	return pass("%s", note)
}

func (r *matrixRun) rerun(t *testing.T) cell {
	if r.mirrorDir == "" {
		return skip("mirror failed")
	}
	sum, why := runMirror(t, mirrorLimit, r.url("archive/"+mirrorPrefix), r.mirrorDir)
	if why != "" {
		return fail("%s", why)
	}
	if sum.Transfers != 0 {
		return fail("%d transfers, want 0", sum.Transfers)
	}
	return pass("")
}

// changed copies the mirror subtree into the server's scratch directory
// with the archive's mtime, mirrors it, changes one file and mirrors again.
func (r *matrixRun) changed(t *testing.T) cell {
	sub := fmt.Sprintf("matrix-%s-%d", r.s.Name, os.Getpid())
	remote := filepath.Join(r.s.Root, "scratch", sub)
	os.RemoveAll(remote)
	r.row.Cleanup(func() { os.RemoveAll(remote) })
	src := filepath.Join(itest.ArchiveDir(), mirrorPrefix)
	if err := os.CopyFS(remote, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	old := time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)
	filepath.WalkDir(remote, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Chmod(p, map[bool]fs.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
			os.Chtimes(p, old, old)
		}
		return err
	})
	r.scratch = remote
	local := r.row.TempDir()
	u := r.url("scratch/" + sub + "/")
	if _, why := runMirror(t, mirrorLimit, u, local); why != "" {
		return fail("first mirror of the scratch copy: %s", why)
	}
	// Change one file: new bytes, new size, a time of today.
	entries, err := os.ReadDir(remote)
	if err != nil || len(entries) < 2 {
		t.Fatalf("scratch copy: %v (%d entries)", err, len(entries))
	}
	name := entries[0].Name()
	content := append(r.archiveFile(t, mirrorPrefix+name), "changed on the server\n"...)
	if err := os.WriteFile(filepath.Join(remote, name), content, 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now().Add(-2 * time.Minute)
	os.Chtimes(filepath.Join(remote, name), now, now)
	sum, why := runMirror(t, mirrorLimit, u, local)
	if why != "" {
		return fail("%s", why)
	}
	got, err := os.ReadFile(filepath.Join(local, name))
	if err != nil || !bytes.Equal(got, content) {
		return fail("%s not updated", name)
	}
	if sum.Transfers != 1 {
		return fail("%d transfers, want 1", sum.Transfers)
	}
	r.scratchIn = local
	return pass("")
}

func (r *matrixRun) delete(t *testing.T) cell {
	if r.scratchIn == "" {
		return skip("changed failed")
	}
	entries, err := os.ReadDir(r.scratch)
	if err != nil {
		t.Fatal(err)
	}
	name := entries[len(entries)-1].Name()
	if err := os.Remove(filepath.Join(r.scratch, name)); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Base(r.scratch)
	sum, why := runMirror(t, mirrorLimit, "--delete", r.url("scratch/"+sub+"/"), r.scratchIn)
	if why != "" {
		return fail("%s", why)
	}
	if _, err := os.Lstat(filepath.Join(r.scratchIn, name)); err == nil {
		return fail("%s still there (deleted %d)", name, sum.Deleted)
	}
	if sum.Deleted != 1 || sum.Transfers != 0 {
		return fail("deleted %d, transfers %d: want 1 and 0", sum.Deleted, sum.Transfers)
	}
	return pass("")
}

func (r *matrixRun) symlinks(t *testing.T) cell {
	if !r.s.Links {
		return na("links/ is not served here")
	}
	dir := t.TempDir()
	res, to := goferRun(t, t.TempDir(), symlinkLimit, "mirror", "-q", "--json", r.url("links/"), dir)
	var files, links []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == ".gofer" {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			links = append(links, rel)
		case d.Type().IsRegular():
			files = append(files, rel)
		}
		return nil
	})
	got := fmt.Sprintf("%d files", len(files))
	if len(files) <= 6 {
		got = strings.Join(files, ", ")
	}
	var sum mirrorSummary
	json.Unmarshal([]byte(res.Stdout), &sum)
	seen := fmt.Sprintf("exit %d, %s; %d links recorded", res.Code, got, sum.Links)
	if res.Code != 0 {
		seen += "; the server refused: " + failed(res, to, symlinkLimit)
	}
	if !to && res.Code == 5 && strings.Contains(res.Stderr, "550 dangling") && strings.Contains(r.s.Symlinks, "dangling") {
		return na("the server's LIST of links/ fails on the dangling link: %s", failed(res, to, symlinkLimit))
	}
	switch {
	case to:
		return fail("no end after %s; %s so far", symlinkLimit, got)
	case res.Code != 0 && !refusedOnly(res.Stdout):
		return fail("%s; %s", failed(res, to, symlinkLimit), got)
	}
	b, err := os.ReadFile(filepath.Join(dir, "2.3", "file.txt"))
	if err != nil || string(b) != "version 2.3\n" {
		return fail("2.3/file.txt missing or wrong; %s", seen)
	}
	// Every link made is relative and stays inside DIR; where the server
	// lists links with their targets, current -> 2.3 is one of them.
	made := map[string]string{}
	for _, l := range links {
		target, err := os.Readlink(filepath.Join(dir, l))
		if err != nil {
			return fail("%s: %v", l, err)
		}
		to := filepath.Clean(filepath.Join(dir, filepath.Dir(l), target))
		if filepath.IsAbs(target) || (to != dir && !strings.HasPrefix(to, dir+string(filepath.Separator))) {
			return fail("made %s -> %s, which leaves DIR", l, target)
		}
		made[l] = target
	}
	if len(made) > 0 && made["current"] != "2.3" {
		return fail("links made %v, but not current -> 2.3", made)
	}
	return pass("%s; %d links made", seen, len(made))
}

// refusedOnly: every failure a mirror summary lists is the server's 550
// (a link it lists but will not enter or send), not gofer's doing.
func refusedOnly(summary string) bool {
	var sum struct {
		Failures []struct {
			Error string `json:"error"`
		} `json:"failures"`
	}
	if json.Unmarshal([]byte(summary), &sum) != nil || len(sum.Failures) == 0 {
		return false
	}
	for _, f := range sum.Failures {
		if !strings.Contains(f.Error, ": 550 ") {
			return false
		}
	}
	return true
}

func (r *matrixRun) tls(t *testing.T) cell {
	if !r.s.TLS {
		return na("no TLS on this server")
	}
	manifest := itest.Manifest(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	const p = "binary/random-64k.bin"
	res, to := goferRun(t, dir, getLimit, "get", "-q", "--ftp-ssl", "--cacert", r.s.CertFile, "-o", out, r.url("archive/"+p))
	if res.Code != 0 || to {
		return fail("%s: %s", p, failed(res, to, getLimit))
	}
	if sha256File(t, out) != manifest[p] {
		return fail("%s: sha256 differs", p)
	}
	res, to = goferRun(t, dir, getLimit, "get", "--ftp-ssl", "--cacert", r.s.CertFile, r.url("archive/text/"))
	if res.Code != 0 || to {
		return fail("listing: %s", failed(res, to, getLimit))
	}
	if !strings.Contains(res.Stdout, r.url("archive/text/plain.txt")) {
		return fail("listing over TLS lacks plain.txt")
	}
	return pass("")
}

func (r *matrixRun) limit(t *testing.T) cell {
	if r.s.LimitPerHost == 0 {
		return skip("")
	}
	const prefix = "tree/d01/d01/"
	dir := filepath.Join(t.TempDir(), "m")
	sum, why := runMirror(t, mirrorLimit, "-j", "4", r.url("archive/"+prefix), dir)
	if why != "" {
		return fail("%s", why)
	}
	if diffs := itest.DiffSubtree(t, dir, prefix, ".gofer"); len(diffs) > 0 {
		return fail("%d differences: %s", len(diffs), strings.Join(diffs[:min(3, len(diffs))], "; "))
	}
	if sum.HostConnections != r.s.LimitPerHost {
		return fail("the summary says the server allows %d connections, want %d", sum.HostConnections, r.s.LimitPerHost)
	}
	// The next run starts within the limit the state kept.
	again, why := runMirror(t, mirrorLimit, "-j", "4", r.url("archive/"+prefix), dir)
	if why != "" {
		return fail("rerun: %s", why)
	}
	if again.HostConnections != r.s.LimitPerHost || again.Transfers != 0 {
		return fail("rerun: limit %d, %d transfers; want %d and 0", again.HostConnections, again.Transfers, r.s.LimitPerHost)
	}
	return pass("learned %d connections; %d retries", sum.HostConnections, sum.Retries)
}
