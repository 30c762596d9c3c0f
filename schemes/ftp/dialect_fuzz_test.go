package ftp

import (
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// The fuzz targets, one per dialect, start from that dialect's fixture
// (whole, and line by line) and hold the parser to its invariants: no
// panic, every entry named and typed, every bad line an input line
// verbatim, never more bad lines than input lines.

func FuzzListUnix(f *testing.F)    { fuzzDialect(f, "unix") }
func FuzzListDOS(f *testing.F)     { fuzzDialect(f, "dos") }
func FuzzListVMS(f *testing.F)     { fuzzDialect(f, "vms") }
func FuzzListEPLF(f *testing.F)    { fuzzDialect(f, "eplf") }
func FuzzListMVS(f *testing.F)     { fuzzDialect(f, "mvs", "mvs-members") }
func FuzzListNetware(f *testing.F) { fuzzDialect(f, "netware") }
func FuzzListOS2(f *testing.F)     { fuzzDialect(f, "os2") }
func FuzzListOS400(f *testing.F)   { fuzzDialect(f, "os400") }

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
	for _, e := range runParser(lines, fixtureNow) {
		if e.Type == schemes.TypeUnparsed {
			if left[e.Name] == 0 {
				t.Fatalf("bad line %q is not an input line left over", e.Name)
			}
			left[e.Name]--
			continue
		}
		if e.Name == "" || e.Name == "." || e.Name == ".." {
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
