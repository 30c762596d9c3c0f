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

// mlsdEntry reads one MLSD line of the directory dir (finish): an entry,
// nothing for notation (a blank line, the listed directory and its
// parent), or an unparsed entry holding a line in no form of MLSD's.
func mlsdEntry(line, dir string) (schemes.Entry, bool) {
	e, r := parseMLSD(line, dir)
	switch r {
	case entry:
		return e, true
	case notation:
		return schemes.Entry{}, false
	}
	return unparsed(line), true
}

// parseMLSD reads "fact=value;fact=value; name" (RFC 3659 §7.2: the facts
// hold no space, each ends in ";", and one space parts them from the
// name, which is everything after it). A line that begins with its space
// has no facts: a name alone. Some servers part facts and name with a
// TAB. A fact with no "=", a Modify that is no time, or facts that do not
// end in ";" make the line one of no known form (notMine): what they say
// is not read, so nothing is misread.
func parseMLSD(line, dir string) (e schemes.Entry, r result) {
	if line == "" {
		return e, notation
	}
	i := strings.IndexAny(line, " \t")
	if i < 0 {
		return e, notMine
	}
	facts, name := line[:i], line[i+1:]
	if name == "" || (facts != "" && !strings.HasSuffix(facts, ";")) {
		return e, notMine
	}
	e = schemes.Entry{Name: name, Type: schemes.TypeFile, Size: -1}
	for _, f := range strings.Split(strings.TrimSuffix(facts, ";"), ";") {
		if facts == "" {
			break
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return e, notMine
		}
		switch strings.ToLower(k) {
		case "type":
			switch lv := strings.ToLower(v); {
			case lv == "cdir" || lv == "pdir":
				return e, notation // RFC 3659 §7.5.1: the listed directory and its parent
			case lv == "dir":
				e.Type = schemes.TypeDir
			case lv == "file":
				e.Type = schemes.TypeFile
			case strings.HasPrefix(lv, "os.unix=slink") || strings.HasPrefix(lv, "os.unix=symlink"):
				e.Type = schemes.TypeLink
				if _, target, ok := strings.Cut(v, ":"); ok {
					e.Target = target
				}
			default:
				// Devices (OS.unix=chr-13/29, OS.unix=blk-...), sockets,
				// pipes and types no RFC names: not files to fetch.
				e.Type = schemes.TypeOther
			}
		case "size":
			if v == "" {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return e, notMine
			}
			e.Size = n
		case "modify":
			// RFC 3659 §2.3: YYYYMMDDHHMMSS[.sss], always UTC.
			t, ok := mlsdTime(v)
			if !ok {
				return e, notMine
			}
			e.Modified, e.Precision = t, schemes.PrecisionSecond
		default:
			if h, ok := hashFact(k, v); ok && stronger(h.Alg, e.Hash.Alg) {
				e.Hash = h
			}
		}
	}
	if e.Type == schemes.TypeDir || e.Type == schemes.TypeOther && e.Size < 0 {
		e.Size = -1
	}
	return finish(e, dir)
}

// mlsdTime reads RFC 3659's time-val: YYYYMMDDHHMMSS, then maybe "." and
// digits.
func mlsdTime(v string) (time.Time, bool) {
	if len(v) < 14 || !isDigits(v[:14]) {
		return time.Time{}, false
	}
	if rest := v[14:]; rest != "" && (rest[0] != '.' || !isDigits(rest[1:])) {
		return time.Time{}, false
	}
	t, err := time.Parse("20060102150405", v[:14])
	return t, err == nil && !t.IsZero()
}

// listParser reads the lines of one LIST reply, whatever its dialect. Each
// line is tried against the dialects in turn; what a line shows of its
// server (an MVS column header, a VMS name waiting for its second line,
// the order of an OS/400 date, the column of a Unix time) is kept for the
// lines after it.
type listParser struct {
	now time.Time
	// dir is the listed directory's path segments joined by "/" ("" when
	// not known): a full path given as a name names an entry only in it
	// (finish).
	dir string
	// pending is a VMS name line whose record goes on in the next line.
	pending string
	// members: an MVS PDS member header was seen, so a line holding one
	// word is a member without statistics; datasets: a dataset header
	// was seen, so a line whose columns overflowed or are missing
	// (VSAM, tape) is read by its last words.
	members, datasets bool
	// nonstop: a NonStop header was seen.
	nonstop bool
	// dateCol and timeCol are where the date and its time of day begin
	// on the last Unix line with a time (0: none seen): a year that
	// begins where the time did was padded to a time's width, and the
	// blank after it is no part of the name.
	dateCol, timeCol int
	// orders are the orders of an OS/400 date the listing's lines allow
	// (os400YMD ...; 0 until the first date); held are the entries of
	// the lines read while more than one was left, given out in order
	// once the listing decides, or at its end, or at maxHeld.
	orders int
	held   []heldEntry
	// bare holds the lines of one word in MVS's member-name form read
	// while the listing showed nothing else: a PDS listed without ISPF
	// statistics and without a header. They are its members if no other
	// line comes (end), or once maxHeld of them have; another line makes
	// them unparsed. other: a line that is no notation has been read.
	bare  []string
	other bool
}

// maxHeld bounds the entries held for an undecided date order, so that
// memory does not grow with the listing.
const maxHeld = 256

// newListParser returns a parser for one listing; now is the server's
// clock as far as it is known: it places the year-less dates of Unix
// listings and rules out readings of a date that lie in its future.
func newListParser(now time.Time) *listParser { return &listParser{now: now} }

// feed reads one line (without its CR LF) and appends to out, in the
// listing's order, what the lines read so far give: entries (URL left
// empty) and, for lines in no known form, unparsed entries holding the
// raw line. A VMS name whose record does not follow is unparsed too.
// Lines that name nothing but are legitimate notation ("total 12", blank
// lines, headers and trailers, "." and "..") give nothing.
func (p *listParser) feed(out []schemes.Entry, line string) []schemes.Entry {
	if !p.members && !p.other && isMemberName(strings.TrimRight(line, " ")) {
		p.bare = append(p.bare, line)
		if len(p.bare) >= maxHeld {
			out = p.giveBare(out, true)
			p.members = true
		}
		return out
	}
	if trimmed := strings.TrimSpace(line); trimmed != "" && !isNotation(trimmed) {
		if len(p.bare) > 0 {
			out = p.giveBare(out, false)
		}
		p.other = true
	}
	if p.pending != "" {
		name := p.pending
		p.pending = ""
		if e, ok, isRMS := vmsRest(name, line); ok {
			switch named(e.Name) {
			case entry:
				return p.give(out, e)
			case notation:
				return out
			}
			return p.give(out, unparsed(name), unparsed(line))
		} else if isRMS {
			return p.give(out, unparsed(name), unparsed(line))
		}
		out = p.give(out, unparsed(name))
	}
	e, ok, isBad := p.one(line)
	if len(p.held) > 0 && p.decided() {
		out = p.release(out)
	}
	switch {
	case isBad:
		return p.give(out, unparsed(line))
	case ok:
		return p.give(out, e)
	}
	return out
}

// end appends what is left at the end of the listing: held entries, and
// a VMS name whose record never came, unparsed.
func (p *listParser) end(out []schemes.Entry) []schemes.Entry {
	if len(p.bare) > 0 {
		out = p.giveBare(out, !p.other)
	}
	out = p.release(out)
	if p.pending != "" {
		out = append(out, unparsed(p.pending))
		p.pending = ""
	}
	return out
}

// giveBare gives out the bare lines held: as members (files named by
// them), or as unparsed lines.
func (p *listParser) giveBare(out []schemes.Entry, members bool) []schemes.Entry {
	for _, l := range p.bare {
		if members {
			out = p.give(out, schemes.Entry{Name: strings.TrimRight(l, " "), Type: schemes.TypeFile, Size: -1})
		} else {
			out = p.give(out, unparsed(l))
		}
	}
	clear(p.bare)
	p.bare = p.bare[:0]
	return out
}

// isMemberName reports a PDS member's name: one to eight of A-Z, 0-9 and
// the national characters $ # @, not beginning with a digit.
func isMemberName(s string) bool {
	if s == "" || len(s) > 8 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '$' || c == '#' || c == '@') {
			return false
		}
	}
	return true
}

// give appends es to out, or holds them behind entries already held.
func (p *listParser) give(out []schemes.Entry, es ...schemes.Entry) []schemes.Entry {
	if len(p.held) == 0 {
		return append(out, es...)
	}
	for _, e := range es {
		p.held = append(p.held, heldEntry{e: e})
	}
	if len(p.held) >= maxHeld {
		out = p.release(out)
	}
	return out
}

// one reads a line with no record pending: an entry, notation (neither
// ok nor bad), or bad. An OS/400 entry whose date's order is not yet
// decided is held, and is neither.
func (p *listParser) one(line string) (e schemes.Entry, ok, bad bool) {
	trimmed := strings.TrimSpace(line)
	if trimmed == "" || isNotation(trimmed) {
		return e, false, false
	}
	if isMVSMemberHeader(trimmed) {
		p.members, p.datasets = true, false
		return e, false, false
	}
	if isMVSDatasetHeader(trimmed) {
		p.members, p.datasets = false, true
		return e, false, false
	}
	if isNonStopHeader(trimmed) {
		p.nonstop = true
		return e, false, false
	}
	if name, ok := vmsNameOnly(line); ok {
		p.pending = name
		return e, false, false
	}
	// Each parser refuses quickly what is not its form; the common forms
	// go first.
	for i := 0; i < 10; i++ {
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
			var d os400Date
			e, d, r = parseOS400(line)
			if r == entry {
				if e, r = finish(e, p.dir); r == entry && d.set {
					p.holdOS400(e, d)
					return schemes.Entry{}, false, false
				}
			}
		case 7:
			e, r = p.parseMVSDataset(line)
		case 8:
			e, r = p.parseMVSMember(line)
		case 9:
			e, r = p.parseNonStop(line)
		}
		if r == entry && i != 6 {
			e, r = finish(e, p.dir)
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

// finish gives an entry its last word on its name. A full path given as
// the name ("/DRV/DIR/FILE.PDF" of OS/400, "/pub/a" of MLSD) names its
// last segment when the path's directory is the one listed (dir, the
// listed directory's path segments joined by "/", which the path ends
// with; "" when it is not known); and a "/" that ends a directory's name
// ("dir/" of OS/400 and of ls -F) is dropped. Any other name that holds
// a "/" ("a/b", "../escape", "/etc/x" in a listing of /pub) names no
// entry of this directory: the line is in no form (notMine), reported
// unparsed, never fetched under another name. What is left is notation
// when it is "." or "..".
func finish(e schemes.Entry, dir string) (schemes.Entry, result) {
	if strings.IndexByte(e.Name, '/') < 0 {
		return e, named(e.Name)
	}
	name := e.Name
	if e.Type == schemes.TypeDir || e.Type == schemes.TypeLink {
		name = strings.TrimRight(name, "/")
	}
	if name == "" || strings.HasSuffix(name, "/") {
		return e, notMine
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		parent := strings.Trim(name[:i], "/")
		dir = strings.Trim(dir, "/")
		if name[0] != '/' || dir == "" || parent != dir && !strings.HasSuffix(parent, "/"+dir) {
			return e, notMine
		}
		for _, seg := range strings.Split(name[1:], "/") {
			if seg == "" || seg == "." || seg == ".." {
				return e, notMine
			}
		}
		name = name[i+1:]
	}
	e.Name = name
	return e, named(e.Name)
}

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
// dialect: "total 12" of ls in the languages of monthName ("insgesamt
// 12", "итого 12", "合計 12" ...), VMS's "Directory DISK$X:[DIR]" header
// and "Total of N files" trailer.
func isNotation(s string) bool {
	if word, n, ok := strings.Cut(s, " "); ok && (word[0] >= 0x80 || word[0]|0x20 >= 'a' && word[0]|0x20 <= 'z') && totalWords[strings.ToLower(word)] {
		n = strings.TrimSpace(n)
		if i := len(n) - 1; i > 0 && strings.IndexByte("KMGTkmgt", n[i]) >= 0 {
			n = n[:i] // ls -h: "total 1.5M"
			n = strings.Replace(n, ".", "", 1)
			n = strings.Replace(n, ",", "", 1)
		}
		if isDigits(n) {
			return true
		}
	}
	if rest, ok := cutPrefixFold(s, "total "); ok {
		// VMS: "Total 14 files", "Total of 5 files, 19/27 blocks."
		rest = strings.TrimPrefix(rest, "of ")
		n, what, _ := strings.Cut(rest, " ")
		if isDigits(n) && strings.HasPrefix(strings.ToLower(what), "file") {
			return true
		}
	}
	if hasPrefixFold(s, "directory ") && strings.HasSuffix(s, "]") {
		return true // VMS: "Directory DISK$USER:[SMITH]"
	}
	return hasPrefixFold(s, "total of ") || hasPrefixFold(s, "grand total of ")
}

// totalWords are the words ls begins its "total" line with, lower case.
var totalWords = map[string]bool{
	"total": true, "insgesamt": true, "totale": true, "totaal": true, "totalt": true,
	"razem": true, "celkem": true, "összesen": true, "итого": true, "всего": true,
	"合計": true, "合计": true, "总用量": true, "總用量": true, "총": true, "합계": true,
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if !hasPrefixFold(s, prefix) {
		return s, false
	}
	return s[len(prefix):], true
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
// not have. Years before 1900 are read as written (servers list files
// dated 1601 or 1800 by a clock or an archive that said so); the first
// instant of year 1 is the zero time, which means "unknown", and is
// refused.
func date(y, mo, d, h, mi, s int) (time.Time, bool) {
	if mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1 || y > 9999 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
	return t, t.Day() == d && !t.IsZero()
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
