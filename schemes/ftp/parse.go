package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// The listing parsers turn one line of MLSD (RFC 3659 §7), or of LIST in
// the two forms servers use (Unix "ls -l" and DOS/IIS), into an entry
// without its URL. ok is false for a line that names nothing ("total 12",
// ".", "..", a line in no known form).

// parseMLSD reads "fact=value;fact=value; name" (RFC 3659 §7.2: the facts
// hold no space, so the first space ends them).
func parseMLSD(line string) (e schemes.Entry, ok bool) {
	facts, name, found := strings.Cut(line, " ")
	if !found || name == "" || !strings.Contains(facts, "=") {
		return e, false
	}
	e = schemes.Entry{Name: name, Type: schemes.TypeFile, Size: -1}
	for _, f := range strings.Split(facts, ";") {
		k, v, _ := strings.Cut(f, "=")
		switch strings.ToLower(k) {
		case "type":
			switch lv := strings.ToLower(v); {
			case lv == "cdir" || lv == "pdir":
				return e, false // RFC 3659 §7.5.1: the listed directory and its parent
			case lv == "dir":
				e.Type = schemes.TypeDir
			case strings.HasPrefix(lv, "os.unix=slink") || strings.HasPrefix(lv, "os.unix=symlink"):
				e.Type = schemes.TypeLink
				if _, target, ok := strings.Cut(v, ":"); ok {
					e.Target = target
				}
			}
		case "size":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				e.Size = n
			}
		case "modify":
			// RFC 3659 §2.3: YYYYMMDDHHMMSS[.sss], always UTC.
			if len(v) >= 14 {
				if t, err := time.Parse("20060102150405", v[:14]); err == nil {
					e.Modified, e.Precision = t, schemes.PrecisionSecond
				}
			}
		}
	}
	if e.Type == schemes.TypeDir {
		e.Size = -1
	}
	return e, name != "." && name != ".."
}

var months = [...]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

func month(s string) int {
	if len(s) != 3 {
		return 0
	}
	s = strings.ToLower(s)
	for i, m := range months {
		if m == s {
			return i + 1
		}
	}
	return 0
}

// field is one blank-separated word of a line and where it ends.
type field struct {
	s   string
	end int
}

// fields splits line into at most cap(fs) words, appending to fs.
func fields(fs []field, line string) []field {
	max := cap(fs)
	i := 0
	for len(fs) < max {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' {
			j++
		}
		fs = append(fs, field{line[i:j], j})
		i = j
	}
	return fs
}

// parseUnix reads an "ls -l" line: mode, links, owner, [group,] size,
// month, day, year or time, name. The name is everything after the single
// space that follows the date, so names with spaces (even leading ones)
// survive; a symlink's "name -> target" is split at the first " -> ".
func parseUnix(line string, now time.Time) (e schemes.Entry, ok bool) {
	if len(line) < 10 || strings.IndexByte("-dlbcps", line[0]) < 0 {
		return e, false
	}
	var buf [9]field
	fs := fields(buf[:0], line)
	// Find the date: month, day, then HH:MM or a year, after the size.
	for i := 3; i+2 < len(fs); i++ {
		m := month(fs[i].s)
		if m == 0 {
			continue
		}
		day, err := strconv.Atoi(fs[i+1].s)
		if err != nil || day < 1 || day > 31 {
			continue
		}
		size, err := strconv.ParseInt(fs[i-1].s, 10, 64)
		if err != nil {
			continue
		}
		t, prec, ok := unixTime(m, day, fs[i+2].s, now)
		if !ok || fs[i+2].end+1 >= len(line) {
			continue
		}
		name := line[fs[i+2].end+1:]
		e = schemes.Entry{Name: name, Type: schemes.TypeFile, Size: size, Modified: t, Precision: prec}
		switch line[0] {
		case 'd':
			e.Type, e.Size = schemes.TypeDir, -1
		case 'l':
			e.Type = schemes.TypeLink
			if n, target, found := strings.Cut(name, " -> "); found {
				e.Name, e.Target = n, target
			}
		}
		return e, e.Name != "." && e.Name != ".." && e.Name != ""
	}
	return e, false
}

// unixTime reads ls's date: "1994" for an old file, "12:00" for one of the
// last six months, whose year is the latest that does not lie in the future.
// The first is known to the day, the second to the minute (prec). Both are
// in the server's time zone, read here as UTC: only an MDTM of the same
// file tells the zone.
func unixTime(m, day int, yt string, now time.Time) (time.Time, string, bool) {
	if h, mi, found := strings.Cut(yt, ":"); found {
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(mi)
		if err1 != nil || err2 != nil || hh > 23 || mm > 59 {
			return time.Time{}, "", false
		}
		t := time.Date(now.Year(), time.Month(m), day, hh, mm, 0, 0, time.UTC)
		if t.After(now.Add(24 * time.Hour)) {
			t = t.AddDate(-1, 0, 0)
		}
		return t, schemes.PrecisionMinute, true
	}
	y, err := strconv.Atoi(yt)
	if err != nil || y < 1900 || y > 9999 {
		return time.Time{}, "", false
	}
	return time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC), schemes.PrecisionDay, true
}

// parseDOS reads a DOS/IIS line: "01-02-24  03:04PM  <DIR>  name" or
// "2024-01-02  15:04  1234 name".
func parseDOS(line string) (e schemes.Entry, ok bool) {
	var buf [3]field
	fs := fields(buf[:0], line)
	if len(fs) < 3 || fs[2].end+1 >= len(line) {
		return e, false
	}
	var t time.Time
	var err error
	for _, layout := range [...]string{"01-02-06 03:04PM", "01-02-2006 03:04PM", "01-02-06 15:04", "01-02-2006 15:04", "2006-01-02 15:04"} {
		if t, err = time.Parse(layout, fs[0].s+" "+fs[1].s); err == nil {
			break
		}
	}
	if err != nil {
		return e, false
	}
	name := strings.TrimLeft(line[fs[2].end:], " ")
	e = schemes.Entry{Name: name, Type: schemes.TypeFile, Size: -1, Modified: t, Precision: schemes.PrecisionMinute}
	if fs[2].s == "<DIR>" {
		e.Type = schemes.TypeDir
	} else if n, err := strconv.ParseInt(fs[2].s, 10, 64); err == nil {
		e.Size = n
	} else {
		return e, false
	}
	return e, name != "" && name != "." && name != ".."
}

// parseList reads one LIST line in whichever form it is.
func parseList(line string, now time.Time) (schemes.Entry, bool) {
	if e, ok := parseUnix(line, now); ok {
		return e, true
	}
	return parseDOS(line)
}
