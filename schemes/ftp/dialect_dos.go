package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// DOS, IIS and Windows NT lines: a date ("01-02-24", "01-02-2024",
// "2024-01-02", "01/02/2024"), a time ("03:04PM", "03:04 PM", "15:04"),
// "<DIR>", "<JUNCTION>" or a size (thousands maybe separated by
// commas), the name. A junction or symbolic link's name may end in
// " [target]".

// parseDOS reads a DOS/IIS/NT line.
func parseDOS(line string) (schemes.Entry, result) {
	var e schemes.Entry
	var buf [4]field
	fs := fields(buf[:0], line)
	if len(fs) < 3 {
		return e, notMine
	}
	day, ok := dosDay(fs[0].s)
	if !ok {
		return e, notMine
	}
	clock, next := fs[1].s, 2
	if len(fs) == 4 && (strings.EqualFold(fs[2].s, "AM") || strings.EqualFold(fs[2].s, "PM")) {
		clock, next = clock+fs[2].s, 3
	}
	h, m, ok := dosClock(clock)
	if !ok || next >= len(fs) {
		return e, notMine
	}
	kind := fs[next]
	if kind.end >= len(line) {
		return e, notMine
	}
	name := strings.TrimLeft(line[kind.end:], " \t")
	e = schemes.Entry{Name: name, Type: schemes.TypeFile, Size: -1,
		Modified: day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute), Precision: schemes.PrecisionMinute}
	if e.Modified.IsZero() {
		// "0001-01-01 0:00" is Go's zero time, which means no time: the
		// entry has none, and so no precision.
		e.Precision = ""
	}
	switch strings.ToUpper(kind.s) {
	case "<DIR>":
		e.Type = schemes.TypeDir
	case "<JUNCTION>", "<SYMLINKD>", "<SYMLINK>":
		e.Type = schemes.TypeLink
		if i := strings.LastIndex(name, " ["); i > 0 && strings.HasSuffix(name, "]") {
			e.Name, e.Target = name[:i], name[i+2:len(name)-1]
		}
	default:
		n, err := strconv.ParseInt(strings.ReplaceAll(kind.s, ",", ""), 10, 64)
		if err != nil || n < 0 {
			return e, notMine
		}
		e.Size = n
	}
	return e, named(e.Name)
}

// dosDay reads "01-02-24", "01-02-2024", "01/02/2024" (month first) or
// "2024-01-02".
func dosDay(s string) (time.Time, bool) {
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		t, err := time.Parse("2006-01-02", s)
		return t, err == nil
	}
	sep := byte('-')
	if strings.IndexByte(s, '/') >= 0 {
		sep = '/'
	}
	parts := strings.Split(s, string(sep))
	if len(parts) != 3 || len(parts[0]) != 2 || len(parts[1]) != 2 || (len(parts[2]) != 2 && len(parts[2]) != 4) {
		return time.Time{}, false
	}
	if !isDigits(parts[0]) || !isDigits(parts[1]) {
		return time.Time{}, false
	}
	y, ok := year2(parts[2])
	if !ok {
		return time.Time{}, false
	}
	mo, _ := strconv.Atoi(parts[0])
	d, _ := strconv.Atoi(parts[1])
	return date(y, mo, d, 0, 0, 0)
}

// dosClock reads "03:04PM" or "15:04".
func dosClock(s string) (h, m int, ok bool) {
	pm, am := false, false
	if len(s) > 2 {
		switch strings.ToUpper(s[len(s)-2:]) {
		case "PM":
			pm, s = true, s[:len(s)-2]
		case "AM":
			am, s = true, s[:len(s)-2]
		}
	}
	h, m, _, prec, ok := hhmm(s)
	if !ok || prec != schemes.PrecisionMinute {
		return 0, 0, false
	}
	if am || pm {
		if h < 1 || h > 12 {
			return 0, 0, false
		}
		h %= 12
		if pm {
			h += 12
		}
	}
	return h, m, true
}
