package ftp

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// The corpus under testdata/listings/corpus holds listing lines that other
// FTP clients' test suites collected from real servers, with what those
// suites assert of them, one file per source (named at its top). Each
// case is fed to one parser as one listing, and every line's outcome is
// asserted: the entry it gives, or that it is notation, or that it is
// reported unparsed. Where gofer reads a line otherwise than the source
// asserts, the fixture says why under the outcome ("! ...").
//
// A fixture's lines:
//
//	# comment
//	@now 2026-03-10T12:00:00Z    the server's clock for the cases after it
//	@dialect unix                the dialect the cases after it are counted
//	                             under; "mlsd" reads them as MLSD lines
//	@dir DRV/DOCS                the listed directory of the cases after it
//	                             ("@dir" alone: not known)
//	> RAW LINE                   a listing line, verbatim
//	>q "RAW\tLINE "              a listing line, Go-quoted
//	= file "name" size=1 time=2024-01-02T15:04 target="t" version=2 prec=ambiguous
//	= unparsed | = notation | = continued (a VMS record's second line)
//	! why gofer differs from the source here
//
// A blank line ends a case. An entry's size is -1 and its time zero
// unless given; its precision follows the time's form (a date: day,
// HH:MM: minute, HH:MM:SS: second) unless prec says otherwise.

type corpusLine struct {
	raw     string
	outcome string        // "entry", "unparsed", "notation", "continued"
	want    schemes.Entry // for an entry
	differs string        // the fixture's reason, when gofer differs from the source
	pos     string        // file:line
}

type corpusCase struct {
	now     time.Time
	dialect string
	dir     string // the listed directory (@dir), "" when not known
	lines   []corpusLine
}

// readCorpus reads one corpus fixture.
func readCorpus(t testing.TB, path string) (source string, cases []corpusCase) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now, dialect, dir := fixtureNow, "", ""
	var cur *corpusCase
	flush := func() {
		if cur != nil && len(cur.lines) > 0 {
			cases = append(cases, *cur)
		}
		cur = nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		pos := fmt.Sprintf("%s:%d", filepath.Base(path), n)
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "# Source: ") && source == "":
			source = strings.TrimPrefix(line, "# Source: ")
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "@now "):
			now, err = time.Parse(time.RFC3339, strings.TrimPrefix(line, "@now "))
			if err != nil {
				t.Fatalf("%s: %v", pos, err)
			}
		case strings.HasPrefix(line, "@dialect "):
			dialect = strings.TrimPrefix(line, "@dialect ")
		case strings.HasPrefix(line, "@dir"):
			dir = strings.TrimSpace(strings.TrimPrefix(line, "@dir"))
		case strings.HasPrefix(line, "> ") || strings.HasPrefix(line, ">q "):
			raw := strings.TrimPrefix(line, "> ")
			if q, ok := strings.CutPrefix(line, ">q "); ok {
				if raw, err = strconv.Unquote(q); err != nil {
					t.Fatalf("%s: %v", pos, err)
				}
			}
			if cur == nil {
				cur = &corpusCase{now: now, dialect: dialect, dir: dir}
			}
			cur.lines = append(cur.lines, corpusLine{raw: raw, pos: pos})
		case strings.HasPrefix(line, "= "):
			if cur == nil || len(cur.lines) == 0 || cur.lines[len(cur.lines)-1].outcome != "" {
				t.Fatalf("%s: an outcome without its line", pos)
			}
			l := &cur.lines[len(cur.lines)-1]
			l.outcome, l.want, err = parseOutcome(strings.TrimPrefix(line, "= "))
			if err != nil {
				t.Fatalf("%s: %v", pos, err)
			}
		case strings.HasPrefix(line, "! "):
			if cur == nil || len(cur.lines) == 0 {
				t.Fatalf("%s: a reason without its line", pos)
			}
			if cur.lines[len(cur.lines)-1].differs != "" {
				t.Fatalf("%s: a second reason for one line", pos)
			}
			cur.lines[len(cur.lines)-1].differs = strings.TrimPrefix(line, "! ")
		default:
			t.Fatalf("%s: no line of a corpus fixture: %q", pos, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	flush()
	if source == "" {
		t.Fatalf("%s names no source", path)
	}
	return source, cases
}

// parseOutcome reads what follows "= ".
func parseOutcome(s string) (string, schemes.Entry, error) {
	switch s {
	case "unparsed", "notation", "continued":
		return s, schemes.Entry{}, nil
	}
	typ, rest, _ := strings.Cut(s, " ")
	switch typ {
	case schemes.TypeFile, schemes.TypeDir, schemes.TypeLink, schemes.TypeOther:
	default:
		return "", schemes.Entry{}, fmt.Errorf("unknown outcome %q", s)
	}
	name, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", schemes.Entry{}, fmt.Errorf("name: %v", err)
	}
	e := schemes.Entry{Type: typ, Size: -1}
	e.Name, _ = strconv.Unquote(name)
	rest = strings.TrimSpace(rest[len(name):])
	for rest != "" {
		k, v, ok := strings.Cut(rest, "=")
		if !ok {
			return "", e, fmt.Errorf("field %q", rest)
		}
		if strings.HasPrefix(v, `"`) {
			q, err := strconv.QuotedPrefix(v)
			if err != nil {
				return "", e, fmt.Errorf("%s: %v", k, err)
			}
			rest = strings.TrimSpace(v[len(q):])
			v, _ = strconv.Unquote(q)
		} else {
			v, rest, _ = strings.Cut(v, " ")
		}
		switch k {
		case "size":
			e.Size, err = strconv.ParseInt(v, 10, 64)
		case "version":
			e.Version, err = strconv.Atoi(v)
		case "target":
			e.Target = v
		case "prec":
			e.Precision = v
		case "time":
			for _, layout := range []struct{ l, prec string }{
				{"2006-01-02T15:04:05", schemes.PrecisionSecond},
				{"2006-01-02T15:04", schemes.PrecisionMinute},
				{"2006-01-02", schemes.PrecisionDay},
			} {
				if len(v) == len(layout.l) {
					e.Modified, err = time.Parse(layout.l, v)
					if e.Precision == "" {
						e.Precision = layout.prec
					}
					break
				}
			}
			if e.Modified.IsZero() && err == nil {
				err = fmt.Errorf("time %q", v)
			}
		default:
			err = fmt.Errorf("unknown field %q", k)
		}
		if err != nil {
			return "", e, err
		}
	}
	return "entry", e, nil
}

// want is what the case's lines give, in order.
func (c corpusCase) want() []schemes.Entry {
	var out []schemes.Entry
	for _, l := range c.lines {
		switch l.outcome {
		case "entry":
			out = append(out, l.want)
		case "unparsed":
			out = append(out, unparsed(l.raw))
		}
	}
	return out
}

// runCorpusCase reads a case's lines as one listing: MLSD lines (dialect
// "mlsd") as an MLSD listing, every other one as a LIST listing.
func runCorpusCase(dialect, dir string, lines []string, now time.Time) []schemes.Entry {
	if dialect != "mlsd" {
		p := newListParser(now)
		p.dir = dir
		var out []schemes.Entry
		for _, l := range lines {
			out = p.feed(out, l)
		}
		return p.end(out)
	}
	var out []schemes.Entry
	for _, l := range lines {
		if e, ok := mlsdEntry(l, dir); ok {
			out = append(out, e)
		}
	}
	return out
}

func corpusFiles(t testing.TB) []string {
	files, err := filepath.Glob("testdata/listings/corpus/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus fixtures: %v", err)
	}
	return files
}

// corpusCount counts a corpus's lines by outcome.
type corpusCount struct{ entry, unparsed, notation, differs int }

func TestListingCorpus(t *testing.T) {
	counts := map[string]*corpusCount{}
	for _, path := range corpusFiles(t) {
		checkCorpusFile(t, path, counts)
	}
	logCounts(t, counts)
}

// TestListingForms reads gofer's own samples of the forms servers write
// that the corpus lacks (each language's month names and "total", padded
// years, overflowed columns, OS/400 date orders ...), in the corpus's
// format.
func TestListingForms(t *testing.T) {
	counts := map[string]*corpusCount{}
	checkCorpusFile(t, "testdata/listings/forms.txt", counts)
	logCounts(t, counts)
}

// checkCorpusFile asserts every case of one fixture, counting its lines
// into counts by dialect.
func checkCorpusFile(t *testing.T, path string, counts map[string]*corpusCount) {
	{
		source, cases := readCorpus(t, path)
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			own := map[string]*corpusCount{}
			defer func() {
				for d, k := range own {
					if counts[d] == nil {
						counts[d] = &corpusCount{}
					}
					c := counts[d]
					c.entry, c.unparsed, c.notation, c.differs = c.entry+k.entry, c.unparsed+k.unparsed, c.notation+k.notation, c.differs+k.differs
				}
				t.Logf("%s", source)
				logCounts(t, own)
			}()
			counts := own
			if len(cases) == 0 {
				t.Fatalf("%s (%s): no cases", path, source)
			}
			for _, c := range cases {
				var lines []string
				for _, l := range c.lines {
					if l.outcome == "" {
						t.Fatalf("%s: a line without its outcome", l.pos)
					}
					lines = append(lines, l.raw)
					k := counts[c.dialect]
					if k == nil {
						k = &corpusCount{}
						counts[c.dialect] = k
					}
					switch l.outcome {
					case "entry":
						k.entry++
					case "unparsed":
						k.unparsed++
					case "notation", "continued":
						k.notation++
					}
					if l.differs != "" {
						k.differs++
					}
				}
				got, want := runCorpusCase(c.dialect, c.dir, lines, c.now), c.want()
				for i := 0; i < len(got) || i < len(want); i++ {
					switch {
					case i >= len(got):
						t.Errorf("%s: missing %s", c.lines[0].pos, entryText(want[i]))
					case i >= len(want):
						t.Errorf("%s: extra %s", c.lines[0].pos, entryText(got[i]))
					case !got[i].Modified.Equal(want[i].Modified) || got[i].Name != want[i].Name || got[i].Type != want[i].Type ||
						got[i].Size != want[i].Size || got[i].Target != want[i].Target || got[i].Version != want[i].Version ||
						got[i].Precision != want[i].Precision:
						t.Errorf("%s: case line %d\n got %s\nwant %s", c.lines[0].pos, i, entryText(got[i]), entryText(want[i]))
					}
				}
			}
		})
	}
}

// logCounts logs the lines of each dialect by outcome, and all of them.
func logCounts(t *testing.T, counts map[string]*corpusCount) {
	var dialects []string
	total := corpusCount{}
	for d, k := range counts {
		dialects = append(dialects, d)
		total.entry += k.entry
		total.unparsed += k.unparsed
		total.notation += k.notation
		total.differs += k.differs
	}
	sort.Strings(dialects)
	for _, d := range dialects {
		k := counts[d]
		t.Logf("%-10s %4d lines: %4d entries, %3d notation, %3d unparsed; %3d read otherwise than the source", d,
			k.entry+k.unparsed+k.notation, k.entry, k.notation, k.unparsed, k.differs)
	}
	t.Logf("%-10s %4d lines: %4d entries, %3d notation, %3d unparsed; %3d read otherwise than the source", "all",
		total.entry+total.unparsed+total.notation, total.entry, total.notation, total.unparsed, total.differs)
}

// entryText is an entry as a fixture's outcome writes it.
func entryText(e schemes.Entry) string {
	switch e.Type {
	case schemes.TypeUnparsed:
		return "unparsed " + strconv.Quote(e.Name)
	}
	s := e.Type + " " + strconv.Quote(e.Name)
	if e.Size >= 0 {
		s += " size=" + strconv.FormatInt(e.Size, 10)
	}
	if !e.Modified.IsZero() {
		layout := "2006-01-02T15:04:05"
		switch e.Precision {
		case schemes.PrecisionDay:
			layout = "2006-01-02"
		case schemes.PrecisionMinute:
			layout = "2006-01-02T15:04"
		}
		s += " time=" + e.Modified.UTC().Format(layout)
		if e.Precision == schemes.PrecisionAmbiguous {
			s += " prec=ambiguous"
		}
	}
	if e.Target != "" {
		s += " target=" + strconv.Quote(e.Target)
	}
	if e.Version != 0 {
		s += " version=" + strconv.Itoa(e.Version)
	}
	return s
}
