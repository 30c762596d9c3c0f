package ftp

import (
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// The fuzz targets, one per dialect, start from that dialect's fixture
// (whole, and line by line), and FuzzListCorpus from the cases of the
// corpus of other clients' test suites; they hold the parser to its
// invariants: no panic; every line gives an entry, notation (nothing) or
// itself unparsed, so never more outputs than lines; every entry named,
// never ".", ".." or a name holding "/", and typed; every unparsed entry
// an input line verbatim.

func FuzzListUnix(f *testing.F)    { fuzzDialect(f, "unix") }
func FuzzListDOS(f *testing.F)     { fuzzDialect(f, "dos") }
func FuzzListVMS(f *testing.F)     { fuzzDialect(f, "vms") }
func FuzzListEPLF(f *testing.F)    { fuzzDialect(f, "eplf") }
func FuzzListMVS(f *testing.F)     { fuzzDialect(f, "mvs", "mvs-members") }
func FuzzListNetware(f *testing.F) { fuzzDialect(f, "netware") }
func FuzzListOS2(f *testing.F)     { fuzzDialect(f, "os2") }
func FuzzListOS400(f *testing.F)   { fuzzDialect(f, "os400") }

func FuzzListCorpus(f *testing.F) {
	for _, path := range corpusFiles(f) {
		_, cases := readCorpus(f, path)
		for _, c := range cases {
			var lines []string
			for _, l := range c.lines {
				lines = append(lines, l.raw)
			}
			f.Add(strings.Join(lines, "\n"))
		}
	}
	f.Fuzz(func(t *testing.T, listing string) {
		checkListing(t, strings.Split(listing, "\n"))
	})
}

func fuzzDialect(f *testing.F, dialects ...string) {
	for _, d := range dialects {
		lines := fixtureLines(f, d)
		f.Add(strings.Join(lines, "\n"))
		for _, l := range lines {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, listing string) {
		checkListing(t, strings.Split(listing, "\n"))
	})
}

func checkListing(t *testing.T, lines []string) {
	left := map[string]int{}
	for _, l := range lines {
		left[l]++
	}
	out := runParser(lines, fixtureNow)
	if len(out) > len(lines) {
		t.Fatalf("%d lines gave %d entries", len(lines), len(out))
	}
	for _, e := range out {
		if e.Type == schemes.TypeUnparsed {
			if left[e.Name] == 0 {
				t.Fatalf("bad line %q is not an input line left over", e.Name)
			}
			left[e.Name]--
			continue
		}
		if e.Name == "" || e.Name == "." || e.Name == ".." || strings.Contains(e.Name, "/") {
			t.Fatalf("entry named %q: %+v", e.Name, e)
		}
		switch e.Type {
		case schemes.TypeFile, schemes.TypeDir, schemes.TypeLink, schemes.TypeOther:
		default:
			t.Fatalf("entry of type %q: %+v", e.Type, e)
		}
		if e.Size < -1 || (e.Type == schemes.TypeDir && e.Size != -1) {
			t.Fatalf("size %d: %+v", e.Size, e)
		}
		switch e.Precision {
		case "":
			if !e.Modified.IsZero() {
				t.Fatalf("a time without its precision: %+v", e)
			}
		case schemes.PrecisionDay, schemes.PrecisionMinute, schemes.PrecisionSecond, schemes.PrecisionAmbiguous:
			if e.Modified.IsZero() {
				t.Fatalf("a precision without a time: %+v", e)
			}
		default:
			t.Fatalf("precision %q", e.Precision)
		}
		if e.Version < 0 || e.Version > 0 && e.Type == schemes.TypeDir {
			t.Fatalf("version %d: %+v", e.Version, e)
		}
	}
}

// Inputs the fuzz targets found once.
func TestListInvariantRegressions(t *testing.T) {
	for _, in := range []string{
		"0\x98000;0 0 1-JAN-0001 0:00", // year 1 is the zero time
	} {
		checkListing(t, strings.Split(in, "\n"))
	}
}
