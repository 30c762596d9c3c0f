package mirror

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// mappedRSS is how much of the file fi this process's mappings hold
// resident, from /proc/self/smaps.
func mappedRSS(t *testing.T, fi os.FileInfo) int64 {
	t.Helper()
	ino := strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10)
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = fields[4] == ino
			continue
		}
		if in && len(fields) == 3 && fields[0] == "Rss:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			total += kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// A rerun reads the record of every file and writes it back with the new
// generation, which touches every page of the state file, and commits a few
// records at a time, each commit writing new pages: the share of the file
// the process holds resident stays near releaseAfter instead of growing to
// the whole file, so a mirror of a million files costs no more memory than
// one of a thousand. So does a walk of every record (--delete, and the
// directory times at the end of a run).
func TestStateFileStaysOutOfMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := openStore(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	const n = 30000
	pad := strings.Repeat("x", 1500)
	key := func(i int) string { return fmt.Sprintf("d%03d/f%06d.bin", i/100, i) }
	for i := range n {
		s.putFile(key(i), record{URL: "ftp://127.0.0.1/" + pad + key(i), Kind: kindFile, Size: int64(i), Run: 1})
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	const limit = 16 << 20
	var peak int64
	for i := range n {
		r, ok := s.getFile(key(i))
		if !ok || r.Size != int64(i) {
			t.Fatalf("record %s: %+v, %v", key(i), r, ok)
		}
		r.Run = 2
		s.putFile(key(i), r)
		if i%8 == 0 {
			// Commits of a few records each, as workers make them: each
			// rewrites whole pages.
			if err := s.flush(); err != nil {
				t.Fatal(err)
			}
		}
		if i%500 == 0 {
			peak = max(peak, mappedRSS(t, s.fi))
		}
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	peak = max(peak, mappedRSS(t, s.fi))
	// A walk of every record in key order (--delete) reads the whole file
	// too, through read transactions only.
	seen := 0
	err = s.scanFiles(func(path string, r record) {
		if seen%500 == 0 {
			peak = max(peak, mappedRSS(t, s.fi))
		}
		seen++
	})
	if err != nil || seen != n {
		t.Fatalf("scan: %d records, %v", seen, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// bbolt's file grows by its own steps (60 to 70 MiB here): at three
	// times the limit, a resident set that follows the file fails.
	if fi.Size() < 3*limit {
		t.Fatalf("the state file is only %d bytes: too small to show anything", fi.Size())
	}
	t.Logf("state file %.1f MiB, at most %.1f MiB of it resident", float64(fi.Size())/(1<<20), float64(peak)/(1<<20))
	if peak > limit {
		t.Errorf("%.1f MiB of the %.1f MiB state file resident, want at most %.1f", float64(peak)/(1<<20), float64(fi.Size())/(1<<20), float64(limit)/(1<<20))
	}
}
