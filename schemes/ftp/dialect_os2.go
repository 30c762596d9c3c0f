package ftp

import (
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// OS/2 lines: the size, "DIR" for a directory and attribute letters
// (A, R, H, S), the date MM-DD-YY (the year in two digits, three for
// years since 1900, or four), the time, the name:
//
//	     0           DIR   12-30-97   12:32  jbrekke
//	   825      A          05-09-97   10:32  README.TXT

// parseOS2 reads an OS/2 line.
func parseOS2(line string) (schemes.Entry, result) {
	var e schemes.Entry
	var buf [8]field
	fs := fields(buf[:0], line)
	if len(fs) < 4 || !isDigits(fs[0].s) {
		return e, notMine
	}
	size, err := strconv.ParseInt(fs[0].s, 10, 64)
	if err != nil {
		return e, notMine
	}
	dir := false
	i := 1
	for ; i < len(fs) && i < 4; i++ {
		if fs[i].s == "DIR" {
			dir = true
		} else if !isAttrs(fs[i].s) {
			break
		}
	}
	if i+2 >= len(fs) {
		return e, notMine
	}
	d := strings.Split(fs[i].s, "-")
	if len(d) != 3 || len(d[0]) != 2 || len(d[1]) != 2 || !isDigits(d[0]) || !isDigits(d[1]) {
		return e, notMine
	}
	y, ok := year2(d[2]) // "97", "103" (years since 1900), "2000"
	if !ok {
		return e, notMine
	}
	mo, _ := strconv.Atoi(d[0])
	day, _ := strconv.Atoi(d[1])
	h, m, _, prec, ok := hhmm(fs[i+1].s)
	if !ok || prec != schemes.PrecisionMinute {
		return e, notMine
	}
	t, ok := date(y, mo, day, h, m, 0)
	if !ok {
		return e, notMine
	}
	e = schemes.Entry{Name: rest(line, fs[i+1]), Type: schemes.TypeFile, Size: size, Modified: t, Precision: prec}
	if dir {
		e.Type, e.Size = schemes.TypeDir, -1
	}
	return e, named(e.Name)
}

// isAttrs reports OS/2 attribute letters ("A", "R", "HS", ...).
func isAttrs(s string) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("ARHS", s[i]) < 0 {
			return false
		}
	}
	return true
}
