package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// The listing parsers turn the lines of an MLSD reply (RFC 3659 §7), or of
// a LIST reply in any of the forms servers still answer with (RFC 959
// leaves LIST's format to the server), into entries without their URL.

// mlsdForm reports a line in MLSD's form, "facts name", whether or not it
// names an entry.
func mlsdForm(line string) bool {
	facts, name, found := strings.Cut(line, " ")
	return found && name != "" && strings.Contains(facts, "=")
}

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

// listParser reads the lines of one LIST reply, whatever its dialect. Each
// line is tried against the dialects in turn; what a line shows of its
// server (an MVS column header, a VMS name waiting for its second line)
// is kept for the lines after it.
type listParser struct {
	now time.Time
	// pending is a VMS name line whose record goes on in the next line.
	pending string
	// members: an MVS PDS member header was seen, so a line holding one
	// word is a member without statistics.
	members bool
}

// newListParser returns a parser for one listing; now places the year-less
// dates of Unix listings.
func newListParser(now time.Time) *listParser { return &listParser{now: now} }

// Line reads one line (without its CR LF). ok reports an entry (URL left
// empty). bad holds raw lines in no known form, verbatim: usually nil, and
// also a pending VMS name line that this line does not complete. Lines
// that name nothing but are legitimate notation ("total 12", blank lines,
// headers and trailers, "." and "..") are neither.
func (p *listParser) Line(line string) (e schemes.Entry, ok bool, bad []string) {
	if p.pending != "" {
		name := p.pending
		p.pending = ""
		if e, ok, isRMS := vmsRest(name, line); ok {
			switch named(e.Name) {
			case entry:
				return e, true, nil
			case notation:
				return schemes.Entry{}, false, nil
			}
			return schemes.Entry{}, false, []string{name, line}
		} else if isRMS {
			return e, false, []string{name, line}
		}
		bad = []string{name}
	}
	e, ok, isBad := p.one(line)
	if isBad {
		bad = append(bad, line)
	}
	return e, ok, bad
}

// End returns what is pending at the end of the listing as bad lines.
func (p *listParser) End() []string {
	if p.pending == "" {
		return nil
	}
	name := p.pending
	p.pending = ""
	return []string{name}
}

// one reads a line with no record pending: an entry, notation (neither
// ok nor bad), or bad.
func (p *listParser) one(line string) (e schemes.Entry, ok, bad bool) {
	trimmed := strings.TrimSpace(line)
	if trimmed == "" || isNotation(trimmed) {
		return e, false, false
	}
	if isMVSMemberHeader(trimmed) {
		p.members = true
		return e, false, false
	}
	if isMVSDatasetHeader(trimmed) {
		p.members = false
		return e, false, false
	}
	if name, ok := vmsNameOnly(line); ok {
		p.pending = name
		return e, false, false
	}
	// Each parser refuses quickly what is not its form; the common forms
	// go first.
	for i := 0; i < 9; i++ {
		var r result
		switch i {
		case 0:
			e, r = p.parseNetware(line) // before Unix: "d [RWCEAFMS] ..."
		case 1:
			e, r = p.parseUnix(line)
		case 2:
			e, r = parseDOS(line)
		case 3:
			e, r = parseVMS(line)
		case 4:
			e, r = parseEPLF(line)
		case 5:
			e, r = parseOS2(line)
		case 6:
			e, r = parseOS400(line)
		case 7:
			e, r = parseMVSDataset(line)
		case 8:
			e, r = p.parseMVSMember(line)
		}
		switch r {
		case entry:
			return e, true, false
		case notation:
			return schemes.Entry{}, false, false
		}
	}
	return e, false, true
}

// result is what a dialect's parser made of a line.
type result int

const (
	notMine  result = iota // not in this dialect's form
	entry                  // an entry
	notation               // in this dialect's form, but naming nothing ("." or "..")
)

// named is entry for a name that is an entry, notation for "." and "..".
func named(name string) result {
	switch name {
	case "":
		return notMine
	case ".", "..":
		return notation
	}
	return entry
}

// isNotation reports the lines of a listing that name nothing in any
// dialect: "total 12" of ls, VMS's "Directory DISK$X:[DIR]" header and
// "Total of N files" trailer.
func isNotation(s string) bool {
	if n, ok := strings.CutPrefix(s, "total "); ok {
		return isDigits(strings.TrimSpace(n))
	}
	if hasPrefixFold(s, "directory ") && strings.HasSuffix(s, "]") {
		return true // VMS: "Directory DISK$USER:[SMITH]"
	}
	return hasPrefixFold(s, "total of ") || hasPrefixFold(s, "grand total of ")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// field is one blank-separated word of a line and where it ends.
type field struct {
	s   string
	end int
}

// fields splits line into at most cap(fs) words, appending to fs. Only
// spaces and tabs separate: every other byte belongs to a word.
func fields(fs []field, line string) []field {
	max := cap(fs)
	i := 0
	for len(fs) < max {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		fs = append(fs, field{line[i:j], j})
		i = j
	}
	return fs
}

// rest is line after the word f and the blanks that follow it.
func rest(line string, f field) string {
	return strings.TrimLeft(line[f.end:], " \t")
}

// hhmm reads "15:04" or "15:04:05" and says how far it went.
func hhmm(s string) (h, m, sec int, prec string, ok bool) {
	hs, ms, found := strings.Cut(s, ":")
	if !found {
		return 0, 0, 0, "", false
	}
	ms, ss, hasSec := strings.Cut(ms, ":")
	prec = schemes.PrecisionMinute
	if hasSec {
		if i := strings.IndexByte(ss, '.'); i >= 0 && isDigits(ss[i+1:]) {
			ss = ss[:i] // fractions of a second: known to the second
		}
		if len(ss) != 2 || !isDigits(ss) {
			return 0, 0, 0, "", false
		}
		sec, _ = strconv.Atoi(ss)
		prec = schemes.PrecisionSecond
	}
	if len(hs) < 1 || len(hs) > 2 || !isDigits(hs) || len(ms) != 2 || !isDigits(ms) {
		return 0, 0, 0, "", false
	}
	h, _ = strconv.Atoi(hs)
	m, _ = strconv.Atoi(ms)
	if h > 23 || m > 59 || sec > 60 {
		return 0, 0, 0, "", false
	}
	return h, m, sec, prec, true
}

// date makes a time of parts already read, refusing a day the month does
// not have and years before 1900 (no listing dates a file earlier; year 1
// would be the zero time, which means "unknown").
func date(y, mo, d, h, mi, s int) (time.Time, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1900 || y > 9999 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
	return t, t.Day() == d
}

// year2 widens a two-digit year: 70-99 are 19xx, the rest 20xx. Three
// digits are years since 1900, as some servers print tm_year.
func year2(s string) (int, bool) {
	if !isDigits(s) || len(s) > 4 {
		return 0, false
	}
	y, _ := strconv.Atoi(s)
	switch len(s) {
	case 1, 2:
		if y < 70 {
			return 2000 + y, true
		}
		return 1900 + y, true
	case 3:
		return 1900 + y, true
	}
	return y, true
}
