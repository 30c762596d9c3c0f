package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// OS/400 (IBM i) lines: the owner, the size, the date and time, the object
// type, the name:
//
//	QSYS           77824 02/23/00 15:09:55 *DIR       QSYS.LIB/
//	PGMR            1234 24/03/04 14:06:34 *STMF      hello.txt
//	PGMR                                   *MEM       MYFILE.FILE/MBR1.MBR
//
// A directory's name may end in "/"; that is dropped. A member of a
// database file ("*MEM", "FILE.FILE/MEMBER.MBR") is listed inside its
// file, so its name is the member's part. The date's order
// follows the system's setting (QDATFMT): year first is read when it
// makes a date, then month first, then day first.

// parseOS400 reads an OS/400 line.
func parseOS400(line string) (schemes.Entry, result) {
	var e schemes.Entry
	var buf [6]field
	fs := fields(buf[:0], line)
	if len(fs) < 3 {
		return e, notMine
	}
	e = schemes.Entry{Type: schemes.TypeFile, Size: -1}
	var kind field
	switch {
	case len(fs) >= 3 && fs[1].s == "*MEM":
		kind = fs[1]
	case len(fs) >= 6 && strings.HasPrefix(fs[4].s, "*") && isDigits(fs[1].s):
		kind = fs[4]
		n, err := strconv.ParseInt(fs[1].s, 10, 64)
		if err != nil {
			return e, notMine
		}
		e.Size = n
		h, m, s, prec, ok := hhmm(fs[3].s)
		if !ok {
			return e, notMine
		}
		if fs[2].s != "00/00/00" {
			t, ok := os400Day(fs[2].s, h, m, s)
			if !ok {
				return e, notMine
			}
			e.Modified, e.Precision = t, prec
		}
	default:
		return e, notMine
	}
	if len(kind.s) < 2 || !isUpperWord(kind.s[1:]) {
		return e, notMine
	}
	name := rest(line, kind)
	switch kind.s {
	case "*DIR", "*FILE", "*LIB", "*FLR":
		// A *FILE holds members and is listed like a directory.
		e.Type, e.Size = schemes.TypeDir, -1
		if n := strings.TrimSuffix(name, "/"); n != "" {
			name = n
		}
	case "*MEM":
		name = os400Member(name)
	}
	e.Name = name
	return e, named(e.Name)
}

func isUpperWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < 'A' || s[i] > 'Z') && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return s != ""
}

// os400Day reads "yy/mm/dd", "mm/dd/yy" or "dd/mm/yy" (or with dots or
// dashes), in that order of preference.
func os400Day(s string, h, m, sec int) (t time.Time, ok bool) {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '.' || r == '-' })
	if len(parts) != 3 {
		return t, false
	}
	var n [3]int
	for i, p := range parts {
		if len(p) != 2 || !isDigits(p) {
			return t, false
		}
		n[i], _ = strconv.Atoi(p)
	}
	y := func(v int) int { yy, _ := year2(strconv.Itoa(v)); return yy }
	for _, o := range [...][3]int{{0, 1, 2}, {2, 0, 1}, {2, 1, 0}} { // positions of year, month, day
		if t, ok = date(y(n[o[0]]), n[o[1]], n[o[2]], h, m, sec); ok {
			return t, true
		}
	}
	return t, false
}

// os400Member turns "[LIB/]FILE.FILE/MEMBER.MBR" into "MEMBER.MBR"; a name
// in any other form is returned as it is, for the safe-name rule to judge.
func os400Member(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return name
	}
	file, member := name[:i], name[i+1:]
	if j := strings.LastIndexByte(file, '/'); j >= 0 {
		file = file[j+1:]
	}
	if member == "" || member == "." || member == ".." || len(file) <= len(".FILE") || !strings.EqualFold(file[len(file)-len(".FILE"):], ".FILE") {
		return name
	}
	return member
}
