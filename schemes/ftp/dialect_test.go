package ftp

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// The fixtures under testdata/listings are listings in the forms real
// servers answer LIST with, one file per dialect; each line's outcome is
// asserted, field by field, in order. A bad line is given as the
// unparsed entry the listing makes of it.

var fixtureNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func at(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

func bad(line string) schemes.Entry {
	return schemes.Entry{Name: line, Type: schemes.TypeUnparsed, Size: -1}
}

// fixtureLines reads a fixture's lines.
func fixtureLines(t testing.TB, dialect string) []string {
	b, err := os.ReadFile("testdata/listings/" + dialect + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// runParser feeds lines to one parser and returns what came out, bad
// lines as unparsed entries, in order.
func runParser(lines []string, now time.Time) []schemes.Entry {
	p := newListParser(now)
	var out []schemes.Entry
	for _, l := range lines {
		out = p.feed(out, l)
	}
	return p.end(out)
}

func TestListDialectFixtures(t *testing.T) {
	want := map[string][]schemes.Entry{
		"unix": {
			{Name: "pub", Type: "dir", Size: -1, Modified: at(1994, 12, 20, 0, 0, 0), Precision: "day"},
			{Name: "acl.txt", Type: "file", Size: 1024, Modified: at(2026, 3, 3, 10, 15, 0), Precision: "minute"},
			{Name: "mac-attrs", Type: "file", Size: 512, Modified: at(2024, 1, 2, 0, 0, 0), Precision: "day"},
			{Name: "null", Type: "other", Size: -1, Modified: at(2020, 1, 1, 0, 0, 0), Precision: "day"},
			{Name: "sda", Type: "other", Size: -1, Modified: at(2021, 2, 2, 0, 0, 0), Precision: "day"},
			{Name: "log.sock", Type: "other", Size: 0, Modified: at(2026, 2, 2, 9, 0, 0), Precision: "minute"},
			{Name: "fifo", Type: "other", Size: 0, Modified: at(2026, 2, 2, 9, 0, 0), Precision: "minute"},
			{Name: "glued", Type: "file", Size: -1, Modified: at(2010, 1, 10, 0, 0, 0), Precision: "day"},
			{Name: "nogroup.bin", Type: "file", Size: 4711, Modified: at(2001, 2, 28, 0, 0, 0), Precision: "day"},
			{Name: "iso-minute", Type: "file", Size: 100, Modified: at(2024, 1, 2, 15, 4, 0), Precision: "minute"},
			{Name: "iso-day", Type: "file", Size: 101, Modified: at(2024, 1, 2, 0, 0, 0), Precision: "day"},
			{Name: "full time", Type: "file", Size: 102, Modified: at(2024, 1, 2, 14, 4, 5), Precision: "second"},
			{Name: "german-maerz", Type: "file", Size: 200, Modified: at(2019, 3, 12, 0, 0, 0), Precision: "day"},
			{Name: "german-day-first", Type: "file", Size: 201, Modified: at(2018, 10, 12, 0, 0, 0), Precision: "day"},
			{Name: "french", Type: "file", Size: 202, Modified: at(2026, 2, 14, 8, 30, 0), Precision: "minute"},
			{Name: "french-dec", Type: "file", Size: 203, Modified: at(2017, 12, 24, 0, 0, 0), Precision: "day"},
			{Name: "spanish", Type: "file", Size: 204, Modified: at(2016, 1, 5, 0, 0, 0), Precision: "day"},
			{Name: "cjk", Type: "file", Size: 205, Modified: at(2025, 3, 12, 10, 0, 0), Precision: "minute"},
			{Name: "latest", Type: "link", Size: 7, Modified: at(2024, 1, 2, 0, 0, 0), Precision: "day", Target: "pub/new"},
			{Name: " leading and  two spaces", Type: "file", Size: 55, Modified: at(1994, 12, 20, 0, 0, 0), Precision: "day"},
			bad("ls: cannot open directory .: Permission denied"),
		},
		"dos": {
			{Name: "Program Files", Type: "dir", Size: -1, Modified: at(2024, 1, 2, 15, 4, 0), Precision: "minute"},
			{Name: "old.txt", Type: "file", Size: 1234, Modified: at(1999, 12, 31, 11, 59, 0), Precision: "minute"},
			{Name: "big.iso", Type: "file", Size: 1048576, Modified: at(2024, 1, 2, 15, 4, 0), Precision: "minute"},
			{Name: "empty", Type: "file", Size: 0, Modified: at(2024, 1, 2, 0, 0, 0), Precision: "minute"},
			{Name: "nt dir", Type: "dir", Size: -1, Modified: at(2024, 1, 2, 15, 4, 0), Precision: "minute"},
			{Name: "Documents and Settings", Type: "link", Size: -1, Modified: at(2024, 1, 2, 0, 15, 0), Precision: "minute", Target: "C:\\Users"},
			{Name: "link-no-target", Type: "link", Size: -1, Modified: at(2024, 1, 2, 0, 15, 0), Precision: "minute"},
			bad(" Volume in drive C has no label."),
		},
		"vms": {
			{Name: "00README.TXT", Type: "file", Size: -1, Modified: at(1999, 1, 12, 10, 11, 12), Precision: "second", Version: 3},
			{Name: "00README.TXT", Type: "file", Size: -1, Modified: at(1999, 1, 11, 9, 0, 0), Precision: "second", Version: 2},
			{Name: "CORE", Type: "dir", Size: -1, Modified: at(1996, 9, 8, 16, 9, 0), Precision: "minute"},
			{Name: "A_VERY_LONG_FILE_NAME_THAT_NEEDS_TWO_LINES.TXT", Type: "file", Size: -1, Modified: at(2001, 11, 14, 10, 15, 40), Precision: "second", Version: 12},
			bad("SECRET.DAT;1              %RMS-E-PRV, insufficient privilege or file protection violation"),
			bad("ORPHAN_NAME_WITHOUT_ITS_RECORD.LIS;1"),
			bad("ANOTHER_LONG_NAME_BEYOND_ITS_COLUMN.DAT;7"),
			bad("                          %RMS-E-PRV, insufficient privilege or file protection violation"),
			{Name: "LOWER", Type: "dir", Size: -1, Modified: at(1998, 6, 2, 7, 32, 0), Precision: "minute"},
			bad("TRAILING_NAME.TXT;4"), // End
		},
		"eplf": {
			{Name: "dev", Type: "dir", Size: -1, Modified: at(1996, 2, 13, 23, 58, 22), Precision: "second"},
			{Name: "RFCEPLF", Type: "file", Size: 10376, Modified: at(1996, 8, 13, 17, 19, 43), Precision: "second"},
			{Name: "neither", Type: "other", Size: 10, Modified: at(1996, 8, 13, 17, 19, 43), Precision: "second"},
			{Name: "with, comma", Type: "file", Size: 5},
		},
		"mvs": {
			{Name: "USER.SOURCE", Type: "dir", Size: -1, Modified: at(2024, 1, 2, 0, 0, 0), Precision: "day"},
			{Name: "USER.LOG.D231130", Type: "file", Size: -1, Modified: at(2023, 11, 30, 0, 0, 0), Precision: "day"},
			{Name: "USER.LOADLIB", Type: "dir", Size: -1, Modified: at(2022, 5, 6, 0, 0, 0), Precision: "day"},
			{Name: "USER.OLD.DATA", Type: "file", Size: -1},
			{Name: "USER.TAPE.BACKUP", Type: "file", Size: -1},
			{Name: "USER.DEEPER", Type: "dir", Size: -1},
			{Name: "USER.NEVER.READ", Type: "file", Size: -1},
			bad("this is not a dataset line at all"),
		},
		"mvs-members": {
			{Name: "MEMBER1", Type: "file", Size: -1, Modified: at(2002, 10, 11, 9, 37, 0), Precision: "minute"},
			{Name: "MEMBER2", Type: "file", Size: -1, Modified: at(2020, 2, 29, 23, 59, 58), Precision: "second"},
			{Name: "NOSTATS", Type: "file", Size: -1},
			{Name: "$HASH#@", Type: "file", Size: -1},
		},
		"netware": {
			{Name: "login", Type: "dir", Size: -1, Modified: at(2026, 1, 16, 18, 53, 0), Precision: "minute"},
			{Name: "cx.exe", Type: "file", Size: 214059, Modified: at(2025, 10, 20, 15, 27, 0), Precision: "minute"},
			{Name: "old file.txt", Type: "file", Size: 77, Modified: at(1997, 10, 20, 0, 0, 0), Precision: "day"},
		},
		"os2": {
			{Name: "jbrekke", Type: "dir", Size: -1, Modified: at(1997, 12, 30, 12, 32, 0), Precision: "minute"},
			{Name: "README.TXT", Type: "file", Size: 825, Modified: at(1997, 5, 9, 10, 32, 0), Precision: "minute"},
			{Name: "OSHELL.EXE", Type: "file", Size: 36611, Modified: at(2003, 4, 23, 10, 57, 0), Precision: "minute"},
			{Name: "hidden sys", Type: "file", Size: 1024, Modified: at(2003, 1, 2, 1, 2, 0), Precision: "minute"},
		},
		"os400": {
			{Name: "QSYS.LIB", Type: "dir", Size: -1, Modified: at(2000, 2, 23, 15, 9, 55), Precision: "second"},
			{Name: "einladung.zip", Type: "file", Size: 4019, Modified: at(2004, 3, 18, 18, 58, 16), Precision: "second"},
			{Name: "dir1", Type: "dir", Size: -1, Modified: at(2004, 3, 24, 14, 6, 34), Precision: "second"},
			{Name: "QDOC", Type: "dir", Size: -1, Modified: at(1999, 9, 20, 13, 14, 5), Precision: "second"},
			{Name: "RPGUNITC1.FILE", Type: "dir", Size: -1, Modified: at(2004, 3, 18, 13, 18, 19), Precision: "second"},
			{Name: "RUCALLTST.MBR", Type: "file", Size: -1},
			{Name: "undated", Type: "file", Size: 4096},
			bad("QPGMR         135168 04/03/18 13:18:19 *FILE"),
		},
	}
	for dialect, w := range want {
		got := runParser(fixtureLines(t, dialect), fixtureNow)
		for i := 0; i < len(got) || i < len(w); i++ {
			switch {
			case i >= len(got):
				t.Errorf("%s: missing %+v", dialect, w[i])
			case i >= len(w):
				t.Errorf("%s: extra %+v", dialect, got[i])
			case got[i] != w[i]:
				t.Errorf("%s: entry %d\n got %+v\nwant %+v", dialect, i, got[i], w[i])
			}
		}
	}
}
