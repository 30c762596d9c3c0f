package integration_test

// Mirror fidelity: modification times to the second (MDTM where LIST shows
// only minutes or days, a server's time zone calibrated once), an
// unchanged rerun that asks the server nothing per file.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	goftp "github.com/jlaffaye/ftp"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/integration/itest"
)

func mtime(t *testing.T, p string) time.Time {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// TestMirrorFTPOtherZoneExactTimes: a server whose LIST shows times at
// UTC+05:30 and MDTM in UTC; files get MDTM's second, directories the
// LIST minute moved to UTC by the calibrated offset.
func TestMirrorFTPOtherZoneExactTimes(t *testing.T) {
	itest.Parallel(t)
	z := newZoneFTP(time.FixedZone("IST", 5*3600+30*60))
	now := time.Now().UTC().Truncate(time.Second)
	recent := now.Add(-10 * 24 * time.Hour).Truncate(time.Minute).Add(37 * time.Second)
	older := now.Add(-40 * 24 * time.Hour).Truncate(time.Minute).Add(13 * time.Second)
	ancient := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	dirMod := now.Add(-5 * 24 * time.Hour).Truncate(time.Minute)
	z.put("/pub/a.txt", "alpha\n", recent, dirMod)
	z.put("/pub/sub/b.txt", "beta\n", older, dirMod)
	z.put("/pub/sub/deeper/c.txt", "gamma\n", ancient, dirMod.Add(-time.Hour))
	addr := z.start(t)
	dir := t.TempDir()
	c := mirrorClient()
	defer c.Close()
	sum := mirrorRun(t, c, "ftp://"+addr+"/pub/", dir, mirror.Options{Jobs: 2})
	if sum.New != 3 {
		t.Fatalf("summary %+v", sum)
	}
	for name, want := range map[string]time.Time{"a.txt": recent, "sub/b.txt": older, "sub/deeper/c.txt": ancient} {
		if got := mtime(t, filepath.Join(dir, name)); !got.Equal(want) {
			t.Errorf("%s: mtime %v, want the server's %v", name, got.UTC(), want)
		}
	}
	for name, want := range map[string]time.Time{"sub": dirMod, "sub/deeper": dirMod.Add(-time.Hour)} {
		if got := mtime(t, filepath.Join(dir, name)); !got.Equal(want) {
			t.Errorf("directory %s: mtime %v, want %v (LIST's minute in UTC)", name, got.UTC(), want)
		}
	}
	// Two per file fetched (before and after its transfer), and one
	// directory's, which probes whether the server dates directories
	// (this one refuses: no other directory is asked).
	if n := len(z.commands("MDTM")); n != 7 || !slices.Contains(z.commands("MDTM"), "MDTM sub") {
		t.Errorf("%d MDTM, want two per file fetched and the probe of sub: %q", n, z.commands("MDTM"))
	}
	if n := len(z.commands("SIZE")); n != 0 {
		t.Errorf("%d SIZE: the listing gave every size", n)
	}

	// Unchanged rerun: listings only, nothing asked per file.
	before := map[string]int{"RETR": len(z.commands("RETR")), "MDTM": len(z.commands("MDTM")), "SIZE": len(z.commands("SIZE"))}
	sum = mirrorRun(t, c, "ftp://"+addr+"/pub/", dir, mirror.Options{Jobs: 2})
	if sum.Unchanged != 3 || sum.Transfers != 0 {
		t.Errorf("rerun %+v", sum)
	}
	for verb, n := range before {
		if got := len(z.commands(verb)); got != n {
			t.Errorf("the unchanged rerun sent %d %s", got-n, verb)
		}
	}
	// Directory times survive the rerun (set after its writes, from the
	// offset kept in the state).
	if got := mtime(t, filepath.Join(dir, "sub")); !got.Equal(dirMod) {
		t.Errorf("after rerun: sub mtime %v, want %v", got.UTC(), dirMod)
	}
}

// TestMirrorFTPTimesEqualMDTM mirrors the sample archive from vsftpd,
// whose LIST shows only the day of these old files, and checks every
// file's mtime against the server's MDTM; then an unchanged rerun, from a
// loopback address of its own so that vsftpd's log tells its commands
// apart, sends no RETR and no MDTM.
func TestMirrorFTPTimesEqualMDTM(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	dir := t.TempDir()
	c := mirrorClient()
	defer c.Close()
	sum := mirrorRun(t, c, "ftp://"+itest.FTPHost+"/archive/", dir, mirror.Options{Jobs: 8})
	if sum.New != manifestFiles(t) {
		t.Fatalf("new = %d, want %d", sum.New, manifestFiles(t))
	}

	sc, err := goftp.Dial(itest.FTPHost+":21", goftp.DialWithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Quit()
	if err := sc.Login("anonymous", "gofer@example.org"); err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for name := range itest.Manifest(t) {
		want, err := sc.GetTime("/archive/" + name)
		if err != nil {
			t.Fatalf("MDTM %s: %v", name, err)
		}
		if got := mtime(t, filepath.Join(dir, filepath.FromSlash(name))); !got.Equal(want) {
			if wrong++; wrong <= 5 {
				t.Errorf("%s: mtime %v, MDTM says %v", name, got.UTC(), want)
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d files differ from the server's MDTM", wrong, len(itest.Manifest(t)))
	}

	// The rerun dials from an address of its own: vsftpd logs the client's.
	own := fmt.Sprintf("127.%d.%d.%d", 100+rand.IntN(100), rand.IntN(256), 1+rand.IntN(254))
	c2 := fetch.NewClient(withEmail(fetch.Options{Warn: func(string) {},
		Dialer: &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(own)}, Timeout: 10 * time.Second}}))
	defer c2.Close()
	since := itest.LogSince(t, "vsftpd.log")
	sum = mirrorRun(t, c2, "ftp://"+itest.FTPHost+"/archive/", dir, mirror.Options{Jobs: 8})
	if sum.Unchanged != manifestFiles(t) || sum.Transfers != 0 {
		t.Errorf("rerun %+v", sum)
	}
	mine := 0
	for _, line := range strings.Split(since(), "\n") {
		if !strings.Contains(line, `Client "`+own+`"`) || !strings.Contains(line, "FTP command:") {
			continue
		}
		mine++
		if strings.Contains(line, `"RETR `) || strings.Contains(line, `"MDTM `) || strings.Contains(line, `"SIZE `) {
			t.Errorf("unchanged rerun sent: %s", line)
		}
	}
	if mine == 0 {
		t.Fatalf("no command from %s in vsftpd's log: the check proves nothing", own)
	}
	// Directory times: the day LIST gives (vsftpd's MDTM dates files only).
	if got := mtime(t, filepath.Join(dir, "tree")); got.UTC().Format(time.DateOnly) != "1994-12-20" {
		t.Errorf("directory tree: mtime %v, want the listing's day 1994-12-20", got.UTC())
	}
}

// TestMirrorRetriesTransientOnly: a file whose RETR is answered 450, then
// 421, then served, is fetched after two retries; a file answered 550 is
// asked for once.
func TestMirrorRetriesTransientOnly(t *testing.T) {
	itest.Parallel(t)
	z := newZoneFTP(time.UTC)
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	z.put("/pub/flaky.txt", "served at the third try\n", old, old)
	z.put("/pub/gone.txt", "never served\n", old, old)
	z.put("/pub/fine.txt", "fine\n", old, old)
	z.fails["/pub/flaky.txt"] = []string{"450 File busy, try later", "421 Too many users, closing"}
	z.fails["/pub/gone.txt"] = []string{"550 Permission denied", "550 Permission denied", "550 Permission denied", "550 Permission denied"}
	addr := z.start(t)
	dir := t.TempDir()
	r := itest.Run(t, nil, nil, "mirror", "--json", "--retries", "3", "ftp://"+addr+"/pub/", dir)
	if r.Code != 5 {
		t.Errorf("exit %d, want 5 (the 550): %s", r.Code, r.Stderr)
	}
	var sum mirror.Summary
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, r.Stdout)
	}
	if sum.Retries != 2 || sum.New != 2 || sum.Failed != 1 {
		t.Errorf("summary: %d retries, %d new, %d failed; want 2, 2, 1", sum.Retries, sum.New, sum.Failed)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "flaky.txt")); err != nil || string(b) != "served at the third try\n" {
		t.Errorf("flaky.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); err == nil {
		t.Errorf("gone.txt exists")
	}
	count := func(name string) int {
		n := 0
		for _, c := range z.commands("RETR") {
			if strings.HasSuffix(c, name) {
				n++
			}
		}
		return n
	}
	if n := count("flaky.txt"); n != 3 {
		t.Errorf("flaky.txt asked for %d times, want 3", n)
	}
	if n := count("gone.txt"); n != 1 {
		t.Errorf("gone.txt asked for %d times: a 550 is final", n)
	}
}

// TestMirrorFileChangingDuringTransfer: a file that changes during its
// first transfer is fetched again and ends up as its new version; one that
// changes during every transfer is reported unstable, exit 8, and nothing
// lies under its name or in the state's temp directory.
func TestMirrorFileChangingDuringTransfer(t *testing.T) {
	itest.Parallel(t)
	z := newZoneFTP(time.UTC)
	recent := time.Now().UTC().Add(-3 * 24 * time.Hour).Truncate(time.Second)
	z.put("/pub/once.txt", "first version\n", recent, recent)
	z.put("/pub/always.txt", "never still\n", recent, recent)
	z.put("/pub/still.txt", "still\n", recent, recent)
	z.churn["/pub/once.txt"] = 1
	z.churn["/pub/always.txt"] = 1000
	addr := z.start(t)
	dir := t.TempDir()
	r := itest.Run(t, nil, nil, "mirror", "--json", "-j", "1", "ftp://"+addr+"/pub/", dir)
	if r.Code != 8 {
		t.Errorf("exit %d, want 8 (unstable): %s", r.Code, r.Stderr)
	}
	var sum mirror.Summary
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, r.Stdout)
	}
	if sum.Unstable != 1 || sum.Changed != 3 || sum.New != 2 || sum.Failed != 1 {
		t.Errorf("summary: %d unstable, %d changed, %d new, %d failed; want 1, 3, 2, 1", sum.Unstable, sum.Changed, sum.New, sum.Failed)
	}
	if len(sum.Failures) != 1 || !strings.HasSuffix(sum.Failures[0].URL, "always.txt;type=i") || !strings.Contains(sum.Failures[0].Error, "unstable") {
		t.Errorf("failures %+v, want always.txt reported unstable", sum.Failures)
	}
	once, _ := z.file("/pub/once.txt")
	if b, err := os.ReadFile(filepath.Join(dir, "once.txt")); err != nil || string(b) != string(once.data) || string(b) != "first version\n changed" {
		t.Errorf("once.txt = %q (%v), want its changed version", b, err)
	}
	if got := mtime(t, filepath.Join(dir, "once.txt")); !got.Equal(once.mod) {
		t.Errorf("once.txt mtime %v, want the changed version's %v", got.UTC(), once.mod)
	}
	if _, err := os.Stat(filepath.Join(dir, "always.txt")); err == nil {
		t.Errorf("always.txt exists: an unstable file went under its name")
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, ".gofer", "tmp")); len(ents) != 0 {
		t.Errorf("temp files left: %d", len(ents))
	}
	// once.txt: the transfer, the check that found it changed (stopped
	// early), the transfer again; still.txt: one.
	if n := z.retrCount("/pub/once.txt"); n != 3 {
		t.Errorf("once.txt: %d transfers started, want 3", n)
	}
	if n := z.retrCount("/pub/still.txt"); n != 1 {
		t.Errorf("still.txt: %d transfers, want 1", n)
	}
}
