package warc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// cdxj is the CDXJ line of an entry dated ts, as the writer makes them.
func cdxj(ts string, e IndexEntry) string {
	j, _ := json.Marshal(e)
	return SURT(e.URL) + " " + ts + " " + string(j)
}

// mergeAll is the rule done the plain way, holding every line: the
// records' copies by key, the least timestamp kept, the first read of
// equal ones, and the lines kept sorted.
func mergeAll(indexes [][]string) string {
	type k struct{ line, ts string }
	byKey := map[string]k{}
	for _, idx := range indexes {
		for _, line := range idx {
			var e IndexEntry
			json.Unmarshal([]byte(line[strings.IndexByte(line, '{'):]), &e)
			ts := strings.Fields(line)[1]
			if old, ok := byKey[copyKey(e)]; !ok || ts < old.ts {
				byKey[copyKey(e)] = k{line, ts}
			}
		}
	}
	var lines []string
	for _, v := range byKey {
		lines = append(lines, v.line)
	}
	slices.Sort(lines)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func mergeStrings(t *testing.T, indexes ...[]string) (string, error) {
	t.Helper()
	var rs []io.Reader
	for _, idx := range indexes {
		var text string
		for _, l := range idx {
			text += l + "\n"
		}
		rs = append(rs, strings.NewReader(text))
	}
	var out bytes.Buffer
	err := MergeIndexes(&out, rs...)
	return out.String(), err
}

func TestMergeDuplicateRule(t *testing.T) {
	u := "ftp://127.0.0.21/pub/a.txt"
	e := func(typ, mime, digest, id, file string) IndexEntry {
		return IndexEntry{URL: u, Type: typ, Mime: mime, Digest: digest, ID: id, Filename: file}
	}
	for _, tc := range []struct {
		name   string
		a, b   []string
		wantIn []string // the lines kept, by name
	}{
		{"the same file from two writers: the earlier",
			[]string{cdxj("20260102000000", e("resource", "text/plain", "sha1:A", "<1>", "w1"))},
			[]string{cdxj("20260101000000", e("resource", "text/plain", "sha1:A", "<2>", "w2"))},
			[]string{"w2"}},
		{"the same time: the first read",
			[]string{cdxj("20260101000000", e("resource", "text/plain", "sha1:A", "<1>", "w1"))},
			[]string{cdxj("20260101000000", e("resource", "text/plain", "sha1:A", "<2>", "w2"))},
			[]string{"w1"}},
		{"another payload: both",
			[]string{cdxj("20260101000000", e("resource", "text/plain", "sha1:A", "<1>", "w1"))},
			[]string{cdxj("20260102000000", e("resource", "text/plain", "sha1:B", "<2>", "w2"))},
			[]string{"w1", "w2"}},
		{"another type: both",
			[]string{cdxj("20260101000000", e("resource", "text/plain", "sha1:A", "<1>", "w1"))},
			[]string{cdxj("20260102000000", e("metadata", "text/plain", "sha1:A", "<2>", "w2"))},
			[]string{"w1", "w2"}},
		{"another media type: both",
			[]string{cdxj("20260101000000", e("resource", "text/plain", "sha1:A", "<1>", "w1"))},
			[]string{cdxj("20260102000000", e("resource", "text/html", "sha1:A", "<2>", "w2"))},
			[]string{"w1", "w2"}},
		{"no digest, other IDs: both",
			[]string{cdxj("20260101000000", e("resource", "text/plain", "", "<1>", "w1"))},
			[]string{cdxj("20260102000000", e("resource", "text/plain", "", "<2>", "w2"))},
			[]string{"w1", "w2"}},
		{"no digest, the same ID: the earlier",
			[]string{cdxj("20260102000000", e("resource", "text/plain", "", "<1>", "w1"))},
			[]string{cdxj("20260101000000", e("resource", "text/plain", "", "<1>", "w2"))},
			[]string{"w2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mergeStrings(t, tc.a, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			var files []string
			for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				var e IndexEntry
				json.Unmarshal([]byte(l[strings.IndexByte(l, '{'):]), &e)
				files = append(files, e.Filename)
			}
			slices.Sort(files)
			if !slices.Equal(files, tc.wantIn) {
				t.Errorf("kept %q, want %q:\n%s", files, tc.wantIn, got)
			}
		})
	}
}

// TestMergeAsAWhole: merged one key at a time, indexes of many keys with
// copies across them and within one give what the rule over all of them
// at once gives, byte for byte.
func TestMergeAsAWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var indexes [][]string
		for w := range 1 + r.IntN(4) {
			var idx []string
			for range r.IntN(40) {
				u := fmt.Sprintf("gopher://127.0.0.%d/0/f%d", 70+r.IntN(2), r.IntN(8))
				if r.IntN(4) == 0 {
					u = strings.Replace(u, "gopher", "http", 1) // http keys leave out the scheme
				}
				idx = append(idx, cdxj(fmt.Sprintf("202601010000%02d", r.IntN(3)), IndexEntry{
					URL: u, Type: []string{"resource", "revisit"}[r.IntN(2)], Mime: "text/plain",
					Digest: []string{"", "sha1:A", "sha1:B"}[r.IntN(3)], ID: fmt.Sprintf("<%d>", r.IntN(3)),
					Filename: fmt.Sprintf("w%d", w), Offset: int64(len(idx)),
				}))
			}
			slices.Sort(idx)
			indexes = append(indexes, idx)
		}
		got, err := mergeStrings(t, indexes...)
		if err != nil {
			t.Fatal(err)
		}
		if want := mergeAll(indexes); got != want {
			t.Fatalf("round %d:\n%s\nwant:\n%s", round, got, want)
		}
	}
}

func TestMergeRefusesWhatIsNotASortedIndex(t *testing.T) {
	a := cdxj("20260101000000", IndexEntry{URL: "gopher://127.0.0.70/0/a"})
	b := cdxj("20260101000000", IndexEntry{URL: "gopher://127.0.0.70/0/b"})
	for _, tc := range []struct {
		idx  []string
		want string
	}{
		{[]string{b, a}, "index 2: not sorted"},
		{[]string{a, "gopher://x 2026 not json"}, "index 2: not a CDXJ line"},
	} {
		if _, err := mergeStrings(t, []string{a}, tc.idx); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.idx, err, tc.want)
		}
	}
}

// linesReader yields n sorted CDXJ lines of distinct records, made as
// they are read.
type linesReader struct {
	i, n int
	buf  []byte
}

func (r *linesReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.i == r.n {
			return 0, io.EOF
		}
		r.buf = fmt.Appendf(r.buf[:0], "127.0.0.70)/f%09d 20260101000000 {\"url\":\"gopher://127.0.0.70/0/f%09d\",\"type\":\"resource\",\"digest\":\"sha1:%d\",\"offset\":0,\"length\":1,\"filename\":\"w\",\"record_id\":\"<%d>\",\"date\":\"\"}\n",
			r.i, r.i, r.i, r.i)
		r.i++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// peakWriter notes the heap in use every MiB written.
type peakWriter struct {
	n, peak uint64
}

func (w *peakWriter) Write(p []byte) (int, error) {
	w.n += uint64(len(p))
	if w.n >= 1<<20 {
		w.n = 0
		w.note()
	}
	return len(p), nil
}

func (w *peakWriter) note() {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.peak = max(w.peak, m.HeapAlloc)
}

// TestMergeStreams: the heap a merge holds does not grow with the number
// of records.
func TestMergeStreams(t *testing.T) {
	peak := func(n int) uint64 {
		w := &peakWriter{}
		w.note()
		if err := MergeIndexes(w, &linesReader{n: n}, &linesReader{n: n}); err != nil {
			t.Fatal(err)
		}
		return w.peak
	}
	small, large := peak(10_000), peak(200_000) // 2 and 40 MiB of lines each
	if large > small+4<<20 {
		t.Errorf("peak heap %d KiB for 200000 records a side, %d KiB for 10000", large>>10, small>>10)
	}
}

// TestMergeSegments merges a segment with its index and one without
// (its writer killed), holding copies of each other's records, as the
// rule over the lines of both gives.
func TestMergeSegments(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, uris ...string) string {
		w, err := CreateSegments(filepath.Join(dir, name), 0, Info{Software: "gofer test"})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range uris {
			c := w.Capture(u)
			record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}, strings.NewReader("same body"))
			c.Close()
		}
		w.Close()
		segs, err := Segments(filepath.Join(dir, name))
		if err != nil || len(segs) != 1 {
			t.Fatalf("segments of %s: %v %v", name, segs, err)
		}
		return segs[0]
	}
	a := write("a", "gopher://127.0.0.70/0/x", "gopher://127.0.0.70/0/y")
	b := write("b", "gopher://127.0.0.70/0/z", "gopher://127.0.0.70/0/x", "gopher://127.0.0.70/0/x")
	if err := os.Remove(IndexName(b)); err != nil {
		t.Fatal(err)
	}
	var indexes [][]string
	for _, seg := range []string{a, b} {
		var idx []string
		if err := Index(seg, func(line string, _ IndexEntry) { idx = append(idx, line) }); err != nil {
			t.Fatal(err)
		}
		indexes = append(indexes, idx)
	}
	var out bytes.Buffer
	if err := MergeSegments(&out, a, b); err != nil {
		t.Fatal(err)
	}
	if want := mergeAll(indexes); out.String() != want {
		t.Errorf("merged:\n%s\nwant:\n%s", out.String(), want)
	}
	// b's writer recorded both its x as revisits of the payload it had
	// already written: copies of each other, so five records, four lines.
	if n, r := strings.Count(out.String(), "\n"), strings.Count(out.String(), `"type":"revisit"`); n != 4 || r != 1 {
		t.Errorf("%d lines, %d revisits; want 4, 1:\n%s", n, r, out.String())
	}
	if _, err := os.Stat(IndexName(b)); !os.IsNotExist(err) {
		t.Errorf("an index was written beside %s", b)
	}
	if err := MergeSegments(&out, a, filepath.Join(dir, "none-00000.warc.gz")); err == nil || !strings.Contains(err.Error(), "none-00000.warc.gz") {
		t.Errorf("a missing segment: %v", err)
	}
}
