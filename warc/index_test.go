package warc

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestIndexWithoutIndexFile lists a segment's records from its CDXJ, and
// the same records from the segment itself once the index is gone and a
// torn record follows them, without changing the segment.
func TestIndexWithoutIndexFile(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "seg")
	w, err := CreateSegments(prefix, 0, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"gopher://127.0.0.70/0/a", "gopher://127.0.0.70/0/b"} {
		c := w.Capture(u)
		record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}, strings.NewReader(u))
		c.Close()
	}
	w.Close()
	segs, _ := Segments(prefix)
	if len(segs) != 1 {
		t.Fatalf("segments %v", segs)
	}
	list := func() []string {
		var out []string
		if err := Index(segs[0], func(line string, e IndexEntry) {
			out = append(out, e.URL+" "+e.Type+" "+e.Digest+" "+e.ID+" "+strconv.FormatInt(e.Offset, 10)+"+"+strconv.FormatInt(e.Length, 10))
		}); err != nil {
			t.Fatal(err)
		}
		sort.Strings(out)
		return out
	}
	fromIndex := list()
	if len(fromIndex) != 2 {
		t.Fatalf("index lists %q, want the two records", fromIndex)
	}
	os.Remove(IndexName(segs[0]))
	f, _ := os.OpenFile(segs[0], os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("\x1f\x8b\x08\x00torn"))
	f.Close()
	before, _ := os.Stat(segs[0])
	if got := list(); strings.Join(got, "\n") != strings.Join(fromIndex, "\n") {
		t.Errorf("from the segment:\n%s\nwant, as its index said:\n%s", strings.Join(got, "\n"), strings.Join(fromIndex, "\n"))
	}
	if after, _ := os.Stat(segs[0]); after.Size() != before.Size() {
		t.Errorf("Index changed the segment: %d bytes, was %d", after.Size(), before.Size())
	}
}
