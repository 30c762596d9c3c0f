package warc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nlnwa/gowarc"
)

// generate writes a WARC file of n records, each a response linked to
// the one before by WARC-Concurrent-To, gzipped per record or not.
func generate(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("gen%d.warc", n))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	body := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nhello\n"
	fmt.Fprint(bw, rec("WARC/1.1", "info", "warcinfo", "", "software: test"))
	for i := range n {
		prev := fmt.Sprintf("WARC-Concurrent-To: <urn:x:%d>", max(i-1, 0))
		fmt.Fprint(bw, rec("WARC/1.1", fmt.Sprint(i), "response", fmt.Sprintf("http://example.org/%d", i), body, prev))
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

// peakHeap runs fn and returns the most live heap that sample saw, sample
// being called by fn as it goes.
func peakHeap(fn func(sample func())) uint64 {
	runtime.GC()
	var most uint64
	n := 0
	sample := func() {
		if n++; n%20000 != 0 {
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

// TestStreamMemory checks that list and check take the same memory for
// 200 000 records as for 20 000: nothing is held per record.
func TestStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 70 MB file")
	}
	defer func(h int) { linksHeld = h }(linksHeld)
	linksHeld = 1 << 20
	small, large := generate(t, 20000), generate(t, 200000)
	list := func(path string) uint64 {
		return peakHeap(func(sample func()) {
			n := 0
			err := Walk(path, false, func(Entry, gowarc.WarcRecord) error { n++; sample(); return nil })
			if err != nil || n < 20000 {
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
	for name, measure := range map[string]func(string) uint64{"list": list, "check": check} {
		s, l := measure(small), measure(large)
		t.Logf("%s: %d KiB for 20 000 records, %d KiB for 200 000", name, s>>10, l>>10)
		if l > s+4<<20 {
			t.Errorf("%s: %d KiB for 200 000 records, %d KiB for 20 000", name, l>>10, s>>10)
		}
	}
}
