package warc

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nlnwa/gowarc"
)

// generate writes a WARC file of n records, each a response linked to
// the one before by WARC-Concurrent-To: uncompressed, or, indexed, a
// segment gzipped per record with its CDXJ index beside it.
func generate(t testing.TB, n int, indexed bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("gen%d.warc", n))
	if indexed {
		path += ".gz"
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	zw := gzip.NewWriter(bw)
	write := func(s string) {
		if !indexed {
			bw.WriteString(s)
			return
		}
		zw.Reset(bw)
		zw.Write([]byte(s))
		zw.Close()
	}
	body := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nhello\n"
	write(rec("WARC/1.1", "info", "warcinfo", "", "software: test"))
	for i := range n {
		prev := fmt.Sprintf("WARC-Concurrent-To: <urn:x:%d>", max(i-1, 0))
		write(rec("WARC/1.1", fmt.Sprint(i), "response", fmt.Sprintf("http://example.org/%d", i), body, prev))
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if indexed {
		var lines []string
		if err := ScanFile(path, func(l string, _ IndexEntry) { lines = append(lines, l) }, nil); err != nil {
			t.Fatal(err)
		}
		if err := writeIndex(path, lines); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// peakHeap runs fn and returns the most live heap that sample saw, sample
// being called by fn as it goes.
func peakHeap(fn func(sample func())) uint64 {
	runtime.GC()
	var most uint64
	n := 0
	sample := func() {
		if n++; n%5000 != 0 {
			return
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		most = max(most, m.HeapAlloc)
	}
	fn(sample)
	return most
}

// TestStreamMemory checks that list and check (of a file alone, and of a
// segment with its index) take the same memory for 50 000 records as for
// 5 000: nothing is held per record, so a million take it too.
func TestStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 30 MB of files")
	}
	defer func(h int) { linksHeld = h }(linksHeld)
	linksHeld = 1 << 20
	small, large := generate(t, 5000, false), generate(t, 50000, false)
	smallIdx, largeIdx := generate(t, 5000, true), generate(t, 50000, true)
	list := func(path string) uint64 {
		return peakHeap(func(sample func()) {
			n := 0
			err := Walk(path, false, func(Entry, gowarc.WarcRecord) error { n++; sample(); return nil })
			if err != nil || n < 5000 {
				t.Fatalf("%s: %d records, %v", path, n, err)
			}
		})
	}
	check := func(path string) uint64 {
		return peakHeap(func(sample func()) {
			checkedRecord = sample
			defer func() { checkedRecord = nil }()
			var problems []string
			if err := Check([]string{path}, func(p Problem) { problems = append(problems, p.String()) }); err != nil {
				t.Fatal(err)
			}
			if len(problems) != 0 {
				t.Fatalf("%s: %d problems, the first %s", path, len(problems), problems[0])
			}
		})
	}
	for name, measure := range map[string]func(string) uint64{"list": list, "check": check, "check indexed": check} {
		s, l := measure(small), measure(large)
		if name == "check indexed" {
			s, l = measure(smallIdx), measure(largeIdx)
		}
		t.Logf("%s: %d KiB for 5 000 records, %d KiB for 50 000", name, s>>10, l>>10)
		if l > s+4<<20 {
			t.Errorf("%s: %d KiB for 50 000 records, %d KiB for 5 000", name, l>>10, s>>10)
		}
	}
}
