package warc

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRecover: whatever bytes a segment holds, the scan Recover makes
// ends at a point within them, and the prefix it would keep scans to the
// same records with nothing more to cut.
func FuzzRecover(f *testing.F) {
	dir := f.TempDir()
	w, err := Create(filepath.Join(dir, "seed.warc.gz"), Info{Software: "gofer fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	w.Close()
	seed, _ := os.ReadFile(filepath.Join(dir, "seed.warc.gz"))
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	f.Add(append(append([]byte{}, seed...), seed[:10]...))
	f.Add([]byte("WARC/1.1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4<<10 {
			// A deflate stream expands up to a thousandfold: keep each
			// run short.
			return
		}
		scan := func(data []byte) (lines []string, good int64) {
			good = scanMembers(bytes.NewReader(data), "x.warc.gz", func(l string, _ IndexEntry) { lines = append(lines, l) })
			return lines, good
		}
		lines, good := scan(data)
		if good < 0 || good > int64(len(data)) {
			t.Fatalf("whole records end at %d of %d bytes", good, len(data))
		}
		// What is kept reads the same again, and holds nothing to cut.
		lines2, good2 := scan(data[:good])
		if good2 != good || len(lines2) != len(lines) {
			t.Fatalf("kept prefix scans to %d, %d lines; first %d, %d lines", good2, len(lines2), good, len(lines))
		}
	})
}
