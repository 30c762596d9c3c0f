package ftp

import (
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// HP NonStop (Tandem Guardian) lines, under their header:
//
//	File         Code             EOF  Last Modification    Owner  RWEP
//	FILE1 101 528 12-Jan-14 14:21:18 255, 0 "extra1"
//
// The name, the file code, the end of file (the size in bytes), the
// date and time, the owner's group and user numbers and the security
// string. Guardian has no directories: every entry is a file.

// isNonStopHeader reports the header of a NonStop listing.
func isNonStopHeader(s string) bool {
	return strings.HasPrefix(s, "File ") && strings.Contains(s, " Code ") && strings.Contains(s, " EOF ") &&
		strings.Contains(s, "Last Modification")
}

// parseNonStop reads a NonStop line, under its header only.
func (p *listParser) parseNonStop(line string) (schemes.Entry, result) {
	var e schemes.Entry
	if !p.nonstop {
		return e, notMine
	}
	var buf [6]field
	fs := fields(buf[:0], line)
	if len(fs) < 5 || !isDigits(fs[1].s) || !isDigits(fs[2].s) {
		return e, notMine
	}
	size, err := strconv.ParseInt(fs[2].s, 10, 64)
	if err != nil {
		return e, notMine
	}
	d := strings.Split(fs[3].s, "-")
	if len(d) != 3 || len(d[0]) > 2 || !isDigits(d[0]) || len(d[2]) != 2 || !isDigits(d[2]) {
		return e, notMine
	}
	mo := monthName(d[1])
	day, _ := strconv.Atoi(d[0])
	y, _ := year2(d[2])
	h, mi, sec, prec, ok := hhmm(fs[4].s)
	if mo == 0 || !ok {
		return e, notMine
	}
	t, ok := date(y, mo, day, h, mi, sec)
	if !ok {
		return e, notMine
	}
	e = schemes.Entry{Name: fs[0].s, Type: schemes.TypeFile, Size: size, Modified: t, Precision: prec}
	return e, named(e.Name)
}
