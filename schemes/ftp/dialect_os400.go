package ftp

import (
	"math/bits"
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
//	PGMR        16347136 29.06.13 15:45:09 *FILE      BACKUP.SAVF
//
// A directory's name may end in "/"; that is dropped. A name given as a
// full path ("/DIR/SUB/FILE.PDF") names its last segment. A member of a
// database file ("*MEM", "FILE.FILE/MEMBER.MBR") is listed inside its
// file, so its name is the member's part; a *FILE holds members and is
// listed like a directory, but a save file (*FILE named NAME.SAVF) is
// one file.
//
// The date's order of year, month and day follows the system's setting
// (QDATFMT), which the line does not show. It is one for the whole
// listing, so each date rules out the orders that do not make a date of
// it, and the orders that make a date in the future of the server's
// clock when another reading is not; the entries wait (up to maxHeld)
// until one order is left. One that is never decided is read in the
// first order left of year first, month first, day first, and its
// precision says it is ambiguous where the readings differ.

// The orders of an OS/400 date, in order of preference.
const (
	os400YMD = 1 << iota
	os400MDY
	os400DMY
	os400All = os400YMD | os400MDY | os400DMY
)

// os400Date is a date as an OS/400 line gives it, not yet placed in an
// order.
type os400Date struct {
	set       bool
	n         [3]int
	h, m, sec int
	prec      string
}

// at is the date read in order o, and whether it makes one.
func (d os400Date) at(o int) (time.Time, bool) {
	y := func(v int) int { yy, _ := year2(strconv.Itoa(v)); return yy }
	switch o {
	case os400YMD:
		return date(y(d.n[0]), d.n[1], d.n[2], d.h, d.m, d.sec)
	case os400MDY:
		return date(y(d.n[2]), d.n[0], d.n[1], d.h, d.m, d.sec)
	case os400DMY:
		return date(y(d.n[2]), d.n[1], d.n[0], d.h, d.m, d.sec)
	}
	return time.Time{}, false
}

// orders are the orders that make a date of d, leaving out those in the
// future of now (a day of slack for the server's zone) when another is
// not.
func (d os400Date) orders(now time.Time) int {
	valid, past := 0, 0
	for o := os400YMD; o <= os400DMY; o <<= 1 {
		if t, ok := d.at(o); ok {
			valid |= o
			if now.IsZero() || !t.After(now.Add(24*time.Hour)) {
				past |= o
			}
		}
	}
	if past != 0 {
		return past
	}
	return valid
}

// heldEntry is an entry given out in the listing's order once the order
// of OS/400 dates is decided; d is its date, when it has one.
type heldEntry struct {
	e schemes.Entry
	d os400Date
}

// holdOS400 notes what e's date allows of the listing's order and holds e
// until the order is decided.
func (p *listParser) holdOS400(e schemes.Entry, d os400Date) {
	if p.orders == 0 {
		p.orders = os400All
	}
	if o := p.orders & d.orders(p.now); o != 0 {
		p.orders = o
	}
	p.held = append(p.held, heldEntry{e: e, d: d})
}

// decided reports that the listing's lines have left one order of dates.
func (p *listParser) decided() bool { return bits.OnesCount(uint(p.orders)) == 1 }

// release gives out the held entries, their dates read in the orders
// left.
func (p *listParser) release(out []schemes.Entry) []schemes.Entry {
	for _, h := range p.held {
		if h.d.set {
			h.e.Modified, h.e.Precision = h.d.read(p.orders, p.now)
		}
		out = append(out, h.e)
	}
	clear(p.held)
	p.held = p.held[:0]
	return out
}

// read places d in the first of orders that makes a date of it (its own
// orders when none does), ambiguous when another order left reads it as
// another time.
func (d os400Date) read(orders int, now time.Time) (time.Time, string) {
	own := d.orders(now)
	if orders&own != 0 {
		own &= orders
	}
	var first time.Time
	prec := d.prec
	for o := os400YMD; o <= os400DMY; o <<= 1 {
		if own&o == 0 {
			continue
		}
		t, _ := d.at(o)
		if first.IsZero() {
			first = t
		} else if !t.Equal(first) {
			prec = schemes.PrecisionAmbiguous
		}
	}
	return first, prec
}

// parseOS400 reads an OS/400 line; its date, when it has one, is placed
// by the listing (d).
func parseOS400(line string) (e schemes.Entry, d os400Date, r result) {
	var buf [6]field
	fs := fields(buf[:0], line)
	if len(fs) < 3 {
		return e, d, notMine
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
			return e, d, notMine
		}
		e.Size = n
		h, m, s, prec, ok := hhmm(fs[3].s)
		if !ok {
			return e, d, notMine
		}
		if fs[2].s != "00/00/00" {
			if d, ok = os400Day(fs[2].s, h, m, s, prec); !ok {
				return e, d, notMine
			}
		}
	default:
		return e, d, notMine
	}
	if len(kind.s) < 2 || !isUpperWord(kind.s[1:]) {
		return e, d, notMine
	}
	name := rest(line, kind)
	switch kind.s {
	case "*FILE":
		if n := len(name) - len(".SAVF"); n > 0 && strings.EqualFold(name[n:], ".SAVF") {
			break // a save file: one file
		}
		fallthrough
	case "*DIR", "*LIB", "*FLR":
		// A *FILE holds members and is listed like a directory.
		e.Type, e.Size = schemes.TypeDir, -1
		if n := strings.TrimSuffix(name, "/"); n != "" {
			name = n
		}
	case "*MEM":
		name = os400Member(name)
	}
	e.Name = name
	return e, d, named(e.Name)
}

func isUpperWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < 'A' || s[i] > 'Z') && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return s != ""
}

// os400Day reads "nn/nn/nn" (or with dots or dashes) as a date in any
// order that makes one.
func os400Day(s string, h, m, sec int, prec string) (d os400Date, ok bool) {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '.' || r == '-' })
	if len(parts) != 3 {
		return d, false
	}
	for i, p := range parts {
		if len(p) != 2 || !isDigits(p) {
			return d, false
		}
		d.n[i], _ = strconv.Atoi(p)
	}
	d.set, d.h, d.m, d.sec, d.prec = true, h, m, sec, prec
	return d, d.orders(time.Time{}) != 0
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
