package ftp

import (
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// VMS lines (MultiNet, UCX, TCPware):
//
//	NAME.EXT;VERSION  used[/allocated]  DD-MON-YYYY HH:MM[:SS]  [owner]  (RWED,RWED,RE,)
//
// A name too long for its column stands alone on its line and the rest of
// the record follows on the next. A size too wide for its column runs
// into the date ("1234567/12345672-JUN-1998": day 2); where the day could
// be one digit or two, the line is reported. The time may be missing (the
// owner follows the date: known to the day) or on a twelve-hour clock
// ("12:45:27 PM"). "NAME.DIR;1" is the directory NAME.
//
// Sizes are counts of 512-byte blocks: the byte size of a file is
// anywhere in the last block, and for record-structured files (variable
// length records, the common case) not even that, since a transfer turns
// records into lines. Size is therefore -1 (unknown) and left to SIZE or
// to the transfer itself.
//
// A record the server could not read ("NAME;1  %RMS-E-PRV, insufficient
// privilege ...") names a file but tells nothing else of it, and fetching
// it would be refused: its lines come back as bad lines, so the listing
// shows them instead of inventing an entry.

// vmsName splits "NAME.EXT;12" into its name and version.
func vmsName(s string) (name string, version int, ok bool) {
	i := strings.LastIndexByte(s, ';')
	if i <= 0 || i+1 >= len(s) || len(s)-i > 6 || !isDigits(s[i+1:]) {
		return "", 0, false
	}
	v, _ := strconv.Atoi(s[i+1:])
	return s[:i], v, true
}

// vmsNameOnly reports a line that holds only a VMS name: the first line of
// a record spread over two.
func vmsNameOnly(line string) (string, bool) {
	if strings.IndexByte(line, ';') < 0 {
		return "", false
	}
	var buf [2]field
	fs := fields(buf[:0], line)
	if len(fs) != 1 || line[0] == ' ' || line[0] == '\t' {
		return "", false
	}
	if _, _, ok := vmsName(fs[0].s); !ok {
		return "", false
	}
	return line, true
}

// parseVMS reads a record on one line.
func parseVMS(line string) (schemes.Entry, result) {
	if strings.IndexByte(line, ';') < 0 {
		return schemes.Entry{}, notMine
	}
	var buf [1]field
	fs := fields(buf[:0], line)
	if len(fs) == 0 || line[0] == ' ' || line[0] == '\t' {
		return schemes.Entry{}, notMine
	}
	if _, _, ok := vmsName(fs[0].s); !ok {
		return schemes.Entry{}, notMine
	}
	e, ok, _ := vmsRest(fs[0].s, rest(line, fs[0]))
	if !ok {
		return e, notMine
	}
	return e, named(e.Name)
}

// vmsSplitOverflow parts a size run into its date: the day is the one or
// two digits before the month that make a day; when both would, or
// neither, the word cannot be told.
func vmsSplitOverflow(w string) (size, date string, ok bool) {
	i := strings.IndexByte(w, '-')
	if i < 2 {
		return "", "", false
	}
	n := 0
	for k := 1; k <= 2 && k < i; k++ {
		if d, err := strconv.Atoi(w[i-k : i]); err == nil && d >= 1 && d <= 31 && w[i-k] != '0' && isDigits(w[i-k-1:i-k]) {
			size, date = w[:i-k], w[i-k:]
			n++
		}
	}
	return size, date, n == 1
}

// vmsRest reads the record of name whose remainder is line: the size,
// date and time (owner and protection follow and are not needed).
// isRMS reports a remainder that is an RMS error instead.
func vmsRest(nameField, line string) (e schemes.Entry, ok, isRMS bool) {
	name, version, ok := vmsName(strings.TrimSpace(nameField))
	if !ok {
		return e, false, false
	}
	var buf [4]field
	fs := fields(buf[:0], line)
	if len(fs) > 0 && strings.HasPrefix(fs[0].s, "%") {
		return e, false, true
	}
	// The size, then the date; a size too wide for its column runs into
	// the date ("1234567/12345672-JUN-1998").
	if len(fs) == 0 {
		return e, false, false
	}
	sizeWord, dw, after := fs[0].s, "", fs[1:]
	if strings.Count(sizeWord, "-") == 2 {
		if sizeWord, dw, ok = vmsSplitOverflow(sizeWord); !ok {
			return e, false, false
		}
	} else if len(fs) >= 2 {
		dw, after = fs[1].s, fs[2:]
	} else {
		return e, false, false
	}
	used, alloc, _ := strings.Cut(sizeWord, "/")
	if !isDigits(used) || (alloc != "" && !isDigits(alloc)) {
		return e, false, false
	}
	d := strings.Split(dw, "-")
	if len(d) != 3 || len(d[0]) > 2 || !isDigits(d[0]) || len(d[2]) != 4 || !isDigits(d[2]) {
		return e, false, false
	}
	mo := monthName(d[1])
	day, _ := strconv.Atoi(d[0])
	y, _ := strconv.Atoi(d[2])
	if mo == 0 {
		return e, false, false
	}
	var h, mi, sec int
	prec := schemes.PrecisionDay
	if len(after) > 0 {
		if h, mi, sec, prec, ok = hhmm(after[0].s); !ok {
			// No time: the owner or the protection follows the date.
			if c := after[0].s[0]; c != '[' && c != '(' {
				return e, false, false
			}
			h, mi, sec, prec = 0, 0, 0, schemes.PrecisionDay
		} else if len(after) > 1 && (strings.EqualFold(after[1].s, "AM") || strings.EqualFold(after[1].s, "PM")) {
			// A twelve-hour clock: "12:45:27 PM".
			if h < 1 || h > 12 {
				return e, false, false
			}
			h %= 12
			if strings.EqualFold(after[1].s, "PM") {
				h += 12
			}
		}
	}
	t, ok := date(y, mo, day, h, mi, sec)
	if !ok {
		return e, false, false
	}
	e = schemes.Entry{Name: name, Type: schemes.TypeFile, Size: -1, Modified: t, Precision: prec, Version: version}
	if n := len(name) - len(".DIR"); n > 0 && strings.EqualFold(name[n:], ".DIR") {
		e.Name, e.Type, e.Version = name[:n], schemes.TypeDir, 0
	}
	return e, true, false
}
