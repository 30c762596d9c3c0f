package warc

import (
	"bufio"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// MergeIndexes writes to w one CDXJ index over the CDXJ indexes read from
// indexes, in byte order of whole lines, each record listed once.
//
// The duplicate rule: two lines are copies of one record when their
// entries have the same URL (target URI), Type, Mime and Digest, compared
// byte for byte, and, when Digest is empty (nothing else tells copies
// apart), the same ID too. Of a record's copies the line with the least
// timestamp (the line's second field, YYYYMMDDhhmmss) is kept, as it is;
// of copies with the same timestamp, the first read: from the earlier of
// indexes, else the earlier line of it. So the same file fetched by two
// writers is listed once, the earliest, and a file fetched again with a
// changed payload is listed once per payload.
//
// Each index must be sorted in byte order, as gofer writes them (beside a
// segment, or merged); a line out of order or not CDXJ is an error naming
// the index (by its place among indexes), and what was written before it
// stands. Lines are read as they are written: memory holds one line per
// index and the copies of one index key, not the indexes.
func MergeIndexes(w io.Writer, indexes ...io.Reader) error {
	ins := make([]*mergeInput, len(indexes))
	for i, r := range indexes {
		ins[i] = scanInput(fmt.Sprintf("index %d", i+1), r)
	}
	return merge(w, ins)
}

// MergeSegments is MergeIndexes over the indexes of segs: the index
// beside each segment, or, for a segment without one (its writer was
// killed, or is still writing), the lines of its whole records, as Index
// gives them, in the order of the records where timestamps tie. Nothing
// is written beside the segments. A segment that cannot be read is an
// error before anything is written.
func MergeSegments(w io.Writer, segs ...string) error {
	ins := make([]*mergeInput, 0, len(segs))
	defer func() {
		for _, in := range ins {
			if in.close != nil {
				in.close()
			}
		}
	}()
	for _, seg := range segs {
		name := IndexName(seg)
		f, err := os.Open(name)
		if err == nil {
			in := scanInput(name, f)
			in.close = f.Close
			ins = append(ins, in)
			continue
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("warc: %w", err)
		}
		// No index: the lines of the records, sorted, each with its place
		// among them for ties.
		var lines []ordered
		if err := Index(seg, func(line string, _ IndexEntry) {
			lines = append(lines, ordered{line, len(lines)})
		}); err != nil {
			return err
		}
		slices.SortStableFunc(lines, func(a, b ordered) int { return strings.Compare(a.line, b.line) })
		ins = append(ins, &mergeInput{name: seg, next: func() (string, int, bool, error) {
			if len(lines) == 0 {
				return "", 0, false, nil
			}
			l := lines[0]
			lines = lines[1:]
			return l.line, l.n, true, nil
		}})
	}
	return merge(w, ins)
}

// ordered is a line and its place in the order it was read.
type ordered struct {
	line string
	n    int
}

// mergeInput is one sorted index being merged.
type mergeInput struct {
	name  string
	next  func() (line string, n int, ok bool, err error)
	close func() error

	seq  int // the input's place among the inputs
	line string
	n    int // the line's place in the order the input was read
	e    IndexEntry
}

// scanInput reads an index's lines from r, each as long as readIndex
// allows.
func scanInput(name string, r io.Reader) *mergeInput {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	return &mergeInput{name: name, next: func() (string, int, bool, error) {
		if !sc.Scan() {
			return "", 0, false, sc.Err()
		}
		n++
		return sc.Text(), n, true, nil
	}}
}

// advance reads in's next line; false at its end.
func (in *mergeInput) advance() (bool, error) {
	prev := in.line
	line, n, ok, err := in.next()
	if err != nil {
		return false, fmt.Errorf("warc: %w", err)
	}
	if !ok {
		return false, nil
	}
	i := strings.IndexByte(line, '{')
	var e IndexEntry
	if i < 0 || json.Unmarshal([]byte(line[i:]), &e) != nil {
		return false, fmt.Errorf("warc: %s: not a CDXJ line: %.60q", in.name, line)
	}
	if line < prev {
		return false, fmt.Errorf("warc: %s: not sorted: %.60q after %.60q", in.name, line, prev)
	}
	in.line, in.n, in.e = line, n, e
	return true, nil
}

// copyKey is the duplicate rule's key of an entry.
func copyKey(e IndexEntry) string {
	k := e.URL + "\x00" + e.Type + "\x00" + e.Mime + "\x00" + e.Digest
	if e.Digest == "" {
		k += "\x00" + e.ID
	}
	return k
}

// kept is the copy of a record kept so far.
type kept struct {
	line, ts string
	seq, n   int
}

// before reports whether k is to be kept rather than old: an earlier
// timestamp, else read first.
func (k kept) before(old kept) bool {
	if k.ts != old.ts {
		return k.ts < old.ts
	}
	if k.seq != old.seq {
		return k.seq < old.seq
	}
	return k.n < old.n
}

// merge writes the lines of ins, sorted inputs, in order, each record's
// copies once. Copies share their URL and so their index key, the line's
// first field, and a sorted stream holds the lines of one key together:
// they are gathered one key at a time.
func merge(w io.Writer, ins []*mergeInput) error {
	h := mergeHeap{}
	for i, in := range ins {
		in.seq = i
		ok, err := in.advance()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, in)
		}
	}
	heap.Init(&h)
	bw := bufio.NewWriter(w)
	run := map[string]kept{}
	runKey := ""
	flush := func() {
		lines := make([]string, 0, len(run))
		for _, k := range run {
			lines = append(lines, k.line)
		}
		slices.Sort(lines)
		for _, l := range lines {
			bw.WriteString(l)
			bw.WriteByte('\n')
		}
		clear(run)
	}
	for len(h) > 0 {
		in := h[0]
		f := strings.Fields(in.line)
		if key := f[0]; key != runKey {
			flush()
			runKey = key
		}
		k := kept{line: in.line, seq: in.seq, n: in.n}
		if len(f) > 1 {
			k.ts = f[1]
		}
		ck := copyKey(in.e)
		if old, ok := run[ck]; !ok || k.before(old) {
			run[ck] = k
		}
		ok, err := in.advance()
		if err != nil {
			bw.Flush()
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	flush()
	return bw.Flush()
}

// mergeHeap orders the inputs by their current line.
type mergeHeap []*mergeInput

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if h[i].line != h[j].line {
		return h[i].line < h[j].line
	}
	return h[i].seq < h[j].seq
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*mergeInput)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
