package warc

import (
	"bufio"
	"container/heap"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// links collects what checking the links between records needs (each
// record's ID, what it names, and where it is) as lines sorted on disk
// past a bound, so that checking a set of any size takes the same memory:
// a record's definition line and the lines of the links to it sort
// together under its ID.
//
//	ID \t 0 \t SEQ \t TYPE \t URI \t DATE \t PAYLOAD \t FILE \t RECORD \t OFFSET
//	ID \t 1 \t SEQ \t KIND \t TYPE \t FROM-ID \t REFERS-URI \t REFERS-DATE \t PAYLOAD \t FILE \t RECORD \t OFFSET \t URI
type links struct {
	dir   string
	buf   []string
	size  int
	runs  []string
	seq   int
	limit int // bytes held before a run is written
}

// linksHeld bounds the bytes of link lines held in memory before they
// are sorted onto disk.
var linksHeld = 16 << 20

func newLinks() *links { return &links{limit: linksHeld} }

// field keeps a header value to one field of a line.
func field(s string) string {
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

func (l *links) add(parts ...string) error {
	line := strings.Join(parts, "\t")
	l.buf = append(l.buf, line)
	l.size += len(line) + 16
	if l.size >= l.limit {
		return l.spill()
	}
	return nil
}

// record notes a record and the links it makes.
func (l *links) record(c checked) error {
	l.seq++
	seq := fmt.Sprintf("%012d", l.seq)
	at := []string{field(c.at.File), strconv.Itoa(c.at.Record), strconv.FormatInt(c.at.Offset, 10)}
	if c.id != "" {
		if err := l.add(append([]string{field(c.id), "0", seq, field(c.typ), field(c.at.URI), field(c.date), field(c.payload)}, at...)...); err != nil {
			return err
		}
	}
	ref := func(target, kind string) error {
		return l.add(append(append([]string{field(target), "1", seq, kind, field(c.typ), field(c.id), field(c.refersToURI),
			field(c.refersDate), field(c.payload)}, at...), field(c.at.URI))...)
	}
	for _, t := range c.concurrent {
		if err := ref(t, "c"); err != nil {
			return err
		}
	}
	if c.refersTo != "" {
		return ref(c.refersTo, "r")
	}
	return nil
}

// spill writes the lines held, sorted, as a run.
func (l *links) spill() error {
	if l.dir == "" {
		d, err := os.MkdirTemp("", "gofer-check-")
		if err != nil {
			return fmt.Errorf("warc: check: %w", err)
		}
		l.dir = d
	}
	slices.Sort(l.buf)
	name := filepath.Join(l.dir, strconv.Itoa(len(l.runs)))
	f, err := os.Create(name)
	if err != nil {
		return fmt.Errorf("warc: check: %w", err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	for _, s := range l.buf {
		bw.WriteString(s)
		bw.WriteByte('\n')
	}
	err = bw.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("warc: check: %w", err)
	}
	l.runs = append(l.runs, name)
	l.buf, l.size = l.buf[:0], 0
	return nil
}

// close removes the runs.
func (l *links) close() {
	if l.dir != "" {
		os.RemoveAll(l.dir)
	}
}

// each calls fn with every line in order.
func (l *links) each(fn func(string)) error {
	if len(l.runs) == 0 {
		slices.Sort(l.buf)
		for _, s := range l.buf {
			fn(s)
		}
		return nil
	}
	if len(l.buf) > 0 {
		if err := l.spill(); err != nil {
			return err
		}
	}
	h := &runHeap{}
	for _, name := range l.runs {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("warc: check: %w", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 4*DefaultMaxHeader)
		if sc.Scan() {
			heap.Push(h, &run{sc: sc, line: sc.Text()})
		} else if err := sc.Err(); err != nil {
			return fmt.Errorf("warc: check: %w", err)
		}
	}
	for h.Len() > 0 {
		r := (*h)[0]
		fn(r.line)
		if r.sc.Scan() {
			r.line = r.sc.Text()
			heap.Fix(h, 0)
		} else {
			if err := r.sc.Err(); err != nil {
				return fmt.Errorf("warc: check: %w", err)
			}
			heap.Pop(h)
		}
	}
	return nil
}

type run struct {
	sc   *bufio.Scanner
	line string
}

type runHeap []*run

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return h[i].line < h[j].line }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*run)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// linkLine is one line of links read back.
type linkLine struct {
	id, seq, typ, uri, date, payload    string // a definition
	kind, fromID, refersURI, refersDate string // a link
	at                                  Problem
}

func parseLinkLine(s string) (def bool, ll linkLine) {
	f := strings.Split(s, "\t")
	pos := func(i int) Problem {
		rec, _ := strconv.Atoi(f[i+1])
		off, _ := strconv.ParseInt(f[i+2], 10, 64)
		return Problem{File: f[i], Record: rec, Offset: off}
	}
	if f[1] == "0" && len(f) >= 10 {
		ll = linkLine{id: f[0], seq: f[2], typ: f[3], uri: f[4], date: f[5], payload: f[6], at: pos(7)}
		ll.at.URI = ll.uri
		return true, ll
	}
	if len(f) < 13 {
		return false, linkLine{}
	}
	ll = linkLine{id: f[0], seq: f[2], kind: f[3], typ: f[4], fromID: f[5], refersURI: f[6], refersDate: f[7],
		payload: f[8], at: pos(9)}
	ll.at.URI = f[12]
	return false, ll
}

// check reports what the links name that is not there or not so: an ID
// used twice, a WARC-Concurrent-To or WARC-Refers-To naming no record (a
// warning), a revisit whose target URI, date or payload digest are not
// those of the record it refers to, and revisits that refer to each other
// in a loop.
func (l *links) check(report func(Problem)) error {
	var def *linkLine
	type edge struct {
		to  string
		seq string
		at  Problem
	}
	edges := map[string]edge{} // revisit to revisit
	err := l.each(func(s string) {
		isDef, ll := parseLinkLine(s)
		if isDef {
			if def != nil && def.id == ll.id {
				p := ll.at
				p.Text = fmt.Sprintf("WARC-Record-ID %s is also that of %s record %d", ll.id, def.at.File, def.at.Record)
				report(p)
				return
			}
			def = &ll
			return
		}
		if ll.at.File == "" {
			return
		}
		p := ll.at
		target := def
		if target != nil && target.id != ll.id {
			target = nil
		}
		if ll.kind == "c" {
			if target == nil {
				p.Text, p.Warning = fmt.Sprintf("WARC-Concurrent-To %s names no record of the archive", ll.id), true
				report(p)
			}
			return
		}
		if target == nil {
			// Common practice: a revisit deduplicated against an
			// earlier crawl's files, a WAT or WET record naming the
			// record of the WARC it was made from.
			p.Text, p.Warning = fmt.Sprintf("WARC-Refers-To %s names no record of the archive", ll.id), true
			report(p)
			return
		}
		if ll.typ != "revisit" {
			return
		}
		if target.typ == "revisit" {
			edges[ll.fromID] = edge{to: ll.id, seq: ll.seq, at: ll.at}
			return
		}
		bad := func(format string, args ...any) {
			q := p
			q.Text = fmt.Sprintf(format, args...)
			report(q)
		}
		if ll.refersURI != "" && target.uri != TrimURI(ll.refersURI) {
			bad("WARC-Refers-To-Target-URI %s, but the record it refers to is of %s", ll.refersURI, target.uri)
		}
		if ll.refersDate != "" && target.date != ll.refersDate {
			bad("WARC-Refers-To-Date %s, but the record it refers to is of %s", ll.refersDate, target.date)
		}
		if ll.payload != "" && target.payload != "" && !sameDigest(ll.payload, target.payload) {
			bad("revisit payload digest %s, but the record it refers to has %s", ll.payload, target.payload)
		}
	})
	if err != nil {
		return err
	}
	// Loops among revisits, each reported once, at its first record.
	starts := make([]string, 0, len(edges))
	for id := range edges {
		starts = append(starts, id)
	}
	slices.SortFunc(starts, func(a, b string) int { return strings.Compare(edges[a].seq, edges[b].seq) })
	done := map[string]bool{}
	for _, start := range starts {
		if done[start] {
			continue
		}
		chain := []string{start}
		seen := map[string]bool{start: true}
		for id := edges[start].to; ; id = edges[id].to {
			chain = append(chain, id)
			if _, ok := edges[id]; !ok || seen[id] {
				break
			}
			seen[id] = true
		}
		for _, id := range chain {
			done[id] = true
		}
		last := chain[len(chain)-1]
		if _, ok := edges[last]; !ok || !seen[last] {
			continue
		}
		i := slices.Index(chain, last)
		loop := chain[i:]
		first := loop[0]
		for _, id := range loop {
			if edges[id].seq < edges[first].seq {
				first = id
			}
		}
		j := slices.Index(loop, first)
		ordered := append(slices.Clone(loop[j:len(loop)-1]), loop[:j+1]...)
		p := edges[first].at
		p.Text = "revisits refer to each other in a loop: " + strings.Join(ordered, " -> ")
		report(p)
	}
	return nil
}
