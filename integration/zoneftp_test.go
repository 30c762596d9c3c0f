package integration_test

// zoneFTP is a scripted FTP server (RFC 959, SIZE and MDTM of RFC 3659)
// for what vsftpd will not do on demand: LIST times in a time zone other
// than UTC, replies that fail a set number of times, a file that changes
// while it is sent. It serves an in-memory tree and logs every command.

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/hostile"
)

type zoneFile struct {
	data []byte
	mod  time.Time
}

type zoneFTP struct {
	zone *time.Location // LIST times are shown in this zone; MDTM in UTC
	now  time.Time

	mu    sync.Mutex
	files map[string]*zoneFile // "/a/b.txt"
	dirs  map[string]time.Time // "/a" (the root "/" is always there)
	fails map[string][]string  // RETR path -> replies to send instead, in turn ("" drops the connection)
	churn map[string]int       // RETR path -> transfers during which the file changes
	cmds  []string             // every command line received
	at    []zoneCmd            // the same, with connection and time
	retrs map[string]int       // RETR path -> transfers started

	conns, peak, nconn int // control connections open, the most at once, ever
	// hold, when set, keeps each RETR until three run at once or it passes.
	hold    time.Duration
	inRetr  int
	crowded chan struct{}
}

type zoneCmd struct {
	conn int
	at   time.Time
	line string
}

// held is what a RETR under hold waits for: three at once, or hold.
func (z *zoneFTP) held() {
	z.mu.Lock()
	if z.hold <= 0 {
		z.mu.Unlock()
		return
	}
	z.inRetr++
	if z.inRetr == 3 {
		close(z.crowded)
	}
	crowded, hold := z.crowded, z.hold
	z.mu.Unlock()
	t := time.NewTimer(hold)
	defer t.Stop()
	select {
	case <-crowded:
	case <-t.C:
	}
	z.mu.Lock()
	z.inRetr--
	z.mu.Unlock()
}

func newZoneFTP(zone *time.Location) *zoneFTP {
	return &zoneFTP{zone: zone, now: time.Now(), files: map[string]*zoneFile{}, dirs: map[string]time.Time{},
		fails: map[string][]string{}, churn: map[string]int{}, retrs: map[string]int{}, crowded: make(chan struct{})}
}

// put adds a file (and its directories, dated dirMod).
func (z *zoneFTP) put(p, data string, mod, dirMod time.Time) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.files[p] = &zoneFile{data: []byte(data), mod: mod}
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if _, ok := z.dirs[d]; !ok {
			z.dirs[d] = dirMod
		}
	}
}

func (z *zoneFTP) commands(verb string) []string {
	z.mu.Lock()
	defer z.mu.Unlock()
	var out []string
	for _, c := range z.cmds {
		if v, _, _ := strings.Cut(c, " "); strings.EqualFold(v, verb) {
			out = append(out, c)
		}
	}
	return out
}

func (z *zoneFTP) retrCount(p string) int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.retrs[p]
}

func (z *zoneFTP) start(t *testing.T) string {
	t.Helper()
	s, err := hostile.Start("127.0.0.1:0", z.serve)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.Addr()
}

// lsTime is ls -l's date in the server's zone: the time of day for a
// file of the last six months, the year otherwise.
func (z *zoneFTP) lsTime(t time.Time) string {
	lt := t.In(z.zone)
	if z.now.Sub(t) < 180*24*time.Hour && t.Sub(z.now) < time.Hour {
		return lt.Format("Jan _2 15:04")
	}
	return lt.Format("Jan _2  2006")
}

// List sends dir's LIST lines.
func (z *zoneFTP) List(dir string, w *hostile.Conn) {
	z.mu.Lock()
	defer z.mu.Unlock()
	var lines []string
	for p, f := range z.files {
		if path.Dir(p) == dir {
			lines = append(lines, fmt.Sprintf("-rw-r--r--   1 ftp      ftp      %8d %s %s\r\n", len(f.data), z.lsTime(f.mod), path.Base(p)))
		}
	}
	for d, mod := range z.dirs {
		if path.Dir(d) == dir {
			lines = append(lines, fmt.Sprintf("drwxr-xr-x   2 ftp      ftp          4096 %s %s\r\n", z.lsTime(mod), path.Base(d)))
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		w.Send(l)
	}
}

func (z *zoneFTP) IsDir(p string) bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	_, ok := z.dirs[p]
	return ok || p == "/"
}

// file returns a copy of the file at p as it is now.
func (z *zoneFTP) file(p string) (zoneFile, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	f, ok := z.files[p]
	if !ok {
		return zoneFile{}, false
	}
	return *f, true
}

func (z *zoneFTP) Stat(p string) (int64, time.Time, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	f, ok := z.files[p]
	if !ok {
		return 0, time.Time{}, false
	}
	return int64(len(f.data)), f.mod, true
}

// Retr decides a RETR: the reply to fail with (drop: close the control
// connection), or the bytes to send.
func (z *zoneFTP) Retr(p string) (fail string, drop bool, data []byte, ok bool) {
	z.mu.Lock()
	if fs := z.fails[p]; len(fs) > 0 {
		z.fails[p] = fs[1:]
		z.mu.Unlock()
		return fs[0], fs[0] == "", nil, true
	}
	f, ok := z.files[p]
	if !ok {
		z.mu.Unlock()
		return "", false, nil, false
	}
	z.retrs[p]++
	data = f.data
	z.mu.Unlock()
	z.held()
	return "", false, data, true
}

// Sent is called after a file's bytes went out: a churning file changes
// now, as if written while it was read.
func (z *zoneFTP) Sent(p string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.churn[p] > 0 {
		z.churn[p]--
		f := z.files[p]
		f.data = append(f.data, " changed"...)
		f.mod = f.mod.Add(time.Minute + 7*time.Second)
	}
}

func (z *zoneFTP) serve(c *hostile.Conn) {
	z.mu.Lock()
	z.nconn++
	id := z.nconn
	z.conns++
	z.peak = max(z.peak, z.conns)
	z.mu.Unlock()
	defer func() {
		z.mu.Lock()
		z.conns--
		z.mu.Unlock()
	}()
	hostile.ServeFTPTree(c, z, func(line string) {
		z.mu.Lock()
		z.cmds = append(z.cmds, line)
		z.at = append(z.at, zoneCmd{id, time.Now(), line})
		z.mu.Unlock()
	})
}
