package ftp

import (
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

func TestParseListLines(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month, d, h, mi int) time.Time { return time.Date(y, m, d, h, mi, 0, 0, time.UTC) }
	tests := []struct {
		line string
		ok   bool
		want schemes.Entry
	}{
		// vsftpd's ls form, with odd names.
		{"-rw-r--r--    1 0        0              41 Dec 20  1994 %41 not an escape.txt", true,
			schemes.Entry{Name: "%41 not an escape.txt", Type: "file", Size: 41, Modified: day(1994, 12, 20, 0, 0), Precision: "day"}},
		{"-rw-r--r--    1 0        0              55 Dec 20  1994 two  spaces and trailing space .txt", true,
			schemes.Entry{Name: "two  spaces and trailing space .txt", Type: "file", Size: 55, Modified: day(1994, 12, 20, 0, 0), Precision: "day"}},
		{"-rw-r--r--    1 0        0               9 Dec 20  1994  leading space", true,
			schemes.Entry{Name: " leading space", Type: "file", Size: 9, Modified: day(1994, 12, 20, 0, 0), Precision: "day"}},
		{"drwxr-xr-x    2 0        0            4096 Dec 20  1994 dir with space", true,
			schemes.Entry{Name: "dir with space", Type: "dir", Size: -1, Modified: day(1994, 12, 20, 0, 0), Precision: "day"}},
		{"lrwxrwxrwx    1 0        0               5 Jan 02 10:30 up -> a.txt", true,
			schemes.Entry{Name: "up", Type: "link", Target: "a.txt", Size: 5, Modified: day(2026, 1, 2, 10, 30), Precision: "minute"}},
		// A time of day later in the year than now is last year's.
		{"-rw-r--r-- 1 ftp ftp 7 Nov 30 23:59 late", true,
			schemes.Entry{Name: "late", Type: "file", Size: 7, Modified: day(2025, 11, 30, 23, 59), Precision: "minute"}},
		// No group column.
		{"-rw-r--r-- 1 owner 1234 Mar  1  2001 nogroup.bin", true,
			schemes.Entry{Name: "nogroup.bin", Type: "file", Size: 1234, Modified: day(2001, 3, 1, 0, 0), Precision: "day"}},
		// A name that looks like a date.
		{"-rw-r--r-- 1 0 0 3 Dec 20  1994 Jan 1 2000", true,
			schemes.Entry{Name: "Jan 1 2000", Type: "file", Size: 3, Modified: day(1994, 12, 20, 0, 0), Precision: "day"}},
		{"total 1234", false, schemes.Entry{}},
		{"drwxr-xr-x 2 0 0 4096 Dec 20  1994 .", false, schemes.Entry{}},
		{"drwxr-xr-x 2 0 0 4096 Dec 20  1994 ..", false, schemes.Entry{}},
		{"", false, schemes.Entry{}},
		// DOS/IIS.
		{"01-02-24  03:04PM       <DIR>          Program Files", true,
			schemes.Entry{Name: "Program Files", Type: "dir", Size: -1, Modified: day(2024, 1, 2, 15, 4), Precision: "minute"}},
		{"2024-01-02  15:04              1234 report.doc", true,
			schemes.Entry{Name: "report.doc", Type: "file", Size: 1234, Modified: day(2024, 1, 2, 15, 4), Precision: "minute"}},
	}
	for _, tc := range tests {
		got, ok := parseLine(tc.line, now)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseList(%q) = %+v, %v\nwant %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

// parseLine reads one line with a parser of its own.
func parseLine(line string, now time.Time) (schemes.Entry, bool) {
	es := newListParser(now).feed(nil, line)
	if len(es) != 1 || es[0].Type == schemes.TypeUnparsed {
		return schemes.Entry{}, false
	}
	return es[0], true
}

func TestParseMLSD(t *testing.T) {
	mod := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		line string
		ok   bool
		want schemes.Entry
	}{
		{"type=file;size=42;modify=20240102030405; read me.txt", true,
			schemes.Entry{Name: "read me.txt", Type: "file", Size: 42, Modified: mod, Precision: "second"}},
		{"Type=DIR;Modify=20240102030405.123;UNIX.mode=0755; src", true,
			schemes.Entry{Name: "src", Type: "dir", Size: -1, Modified: mod, Precision: "second"}},
		{"type=OS.unix=slink:/etc/motd;size=9; motd", true,
			schemes.Entry{Name: "motd", Type: "link", Target: "/etc/motd", Size: 9}},
		{"type=file;size=1; semi;colon; and space", true,
			schemes.Entry{Name: "semi;colon; and space", Type: "file", Size: 1}},
		{"type=cdir;modify=20240102030405; .", false, schemes.Entry{}},
		{"type=pdir; ..", false, schemes.Entry{}},
		{"no facts here", false, schemes.Entry{}},
	}
	for _, tc := range tests {
		got, r := parseMLSD(tc.line, "")
		ok := r == entry
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseMLSD(%q) = %+v, %v\nwant %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPASVAddress(t *testing.T) {
	for msg, want := range map[string]string{
		"Entering Passive Mode (127,0,0,1,156,64).": "127.0.0.1:40000",
		"Entering Passive Mode 10,0,0,5,0,21":       "10.0.0.5:21",
		"Entering Passive Mode (127,0,0,1,256,1)":   "",
		"Entering Passive Mode (1,2,3)":             "",
	} {
		got, ok := pasvAddr(msg)
		if (want == "") == ok || got != want {
			t.Errorf("pasvAddr(%q) = %q %v, want %q", msg, got, ok, want)
		}
	}
}

// FuzzParseList: no listing line makes the parsers panic, and an entry
// they accept has a name and a known type.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{
		"-rw-r--r--    1 0        0              41 Dec 20  1994 a b",
		"lrwxrwxrwx 1 0 0 5 Jan 02 10:30 up -> a.txt",
		"01-02-24  03:04PM       <DIR>          x",
		"type=file;size=42;modify=20240102030405; r",
		"d 1 2 3 4 Jan 1 1:1 ",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, line string) {
		for _, p := range []func(string) (schemes.Entry, bool){
			func(s string) (schemes.Entry, bool) { return parseLine(s, now) },
			func(s string) (schemes.Entry, bool) { e, r := parseMLSD(s, "pub"); return e, r == entry },
		} {
			e, ok := p(line)
			if !ok {
				continue
			}
			if e.Name == "" || e.Name == "." || e.Name == ".." || strings.Contains(e.Name, "/") {
				t.Errorf("%q gave name %q", line, e.Name)
			}
			switch e.Type {
			case "file", "dir", "link", "other":
			default:
				t.Errorf("%q gave type %q", line, e.Type)
			}
		}
	})
}

func BenchmarkParseList(b *testing.B) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	line := "-rw-r--r--    1 ftp      ftp          1234567 Dec 20  1994 file-0001234.txt"
	p := newListParser(now)
	var out []schemes.Entry
	for b.Loop() {
		if out = p.feed(out[:0], line); len(out) != 1 || out[0].Type != schemes.TypeFile {
			b.Fatal("not parsed")
		}
	}
}

// A year-less date is placed in the latest year that is not in the future
// of the server's clock, which may run up to a day ahead of this machine's
// in its own zone.
func TestYearlessDateAgainstTheServersClock(t *testing.T) {
	for _, tc := range []struct {
		now, want time.Time
		line      string
	}{
		// Mid-year: this year.
		{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), time.Date(2026, 5, 30, 10, 20, 0, 0, time.UTC),
			"-rw-r--r-- 1 ftp ftp 3 May 30 10:20 a"},
		// Months ahead of the clock: last year.
		{time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), time.Date(2025, 11, 2, 10, 20, 0, 0, time.UTC),
			"-rw-r--r-- 1 ftp ftp 3 Nov  2 10:20 a"},
		// New Year's Eve here, already 1 January on a server east of UTC.
		{time.Date(2026, 12, 31, 15, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 30, 0, 0, time.UTC),
			"-rw-r--r-- 1 ftp ftp 3 Jan  1 00:30 a"},
		// Feb 29 in a year without one: the last year with one.
		{time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 29, 8, 0, 0, 0, time.UTC),
			"-rw-r--r-- 1 ftp ftp 3 Feb 29 08:00 a"},
	} {
		e, ok := parseLine(tc.line, tc.now)
		if !ok || !e.Modified.Equal(tc.want) || e.Precision != schemes.PrecisionMinute {
			t.Errorf("%q at %v: %v (%s), want %v", tc.line, tc.now, e.Modified, e.Precision, tc.want)
		}
	}
}
