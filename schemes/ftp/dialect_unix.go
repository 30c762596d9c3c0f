package ftp

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goferurl/gofer/schemes"
)

// Unix "ls -l" lines: mode, links, owner, [group,] size (or "major, minor"
// for a device), a date, the name. The mode's letters are checked, each
// in its place. Owner and group may be several words ("Domain Users"):
// the date is looked for after them. The date is "Jan 2 15:04" or "Jan 2
// 2006" (with the month name in the server's language, before or after
// the day, "3月 2日" and "2006年" in Chinese, Japanese and Korean, and
// year first in Hungarian, "2006. márc. 2."), or ISO "2006-01-02 15:04",
// "2006-01-02", "2006/01/02" or "2006.01.02"; busybox writes "9:5" for
// 09:05. The name is everything after the single blank that follows the
// date, so names with spaces (even leading ones) survive, except where
// the year was padded to a time's width in the column the listing's
// times take; a symlink's "name -> target" is split at the first " -> ".

// monthName reads a month as ls prints it in the languages servers are set
// to: English, German, French, Spanish, Italian, Dutch, Portuguese,
// Swedish, Polish, Czech, Hungarian and Russian (abbreviated, with or
// without a dot, and German's in full), and "3月" of Chinese and
// Japanese, "3월" of Korean.
func monthName(s string) int {
	for len(s) > 0 && (s[len(s)-1] == '.' || s[len(s)-1] == ',') {
		s = s[:len(s)-1]
	}
	if len(s) < 3 || len(s) > 18 {
		return 0
	}
	if s[len(s)-1] >= 0x80 {
		for _, suffix := range [...]string{"月", "월"} {
			if n, ok := strings.CutSuffix(s, suffix); ok {
				if m, err := strconv.Atoi(n); err == nil && m >= 1 && m <= 12 && len(n) <= 2 {
					return m
				}
				return 0
			}
		}
	}
	if c := s[0]; c >= '0' && c <= '9' || c == '-' || c == '[' || c == '*' {
		return 0 // sizes, days, times, modes: no month begins so
	}
	// ASCII letters to lower case without allocating (this runs for
	// several words of every line); other letters through unicode.
	var buf [18]byte
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		} else if c >= 0x80 {
			ascii = false
		}
		buf[i] = c
	}
	if !ascii {
		return months[strings.ToLower(s)]
	}
	return months[string(buf[:len(s)])]
}

// months are the month names of monthName, lower case.
var months = func() map[string]int {
	m := map[string]int{}
	for i, names := range [12]string{
		"jan janv ene gen jän led sty januar janeiro january",
		"feb févr fev fév fevr febr úno lut februar february",
		"mar mär mars maa mrz mrt bře márc märz march",
		"apr avr abr dub kwi ápr april avril",
		"may mai mei mag mayo maj kvě máj",
		"jun juin giu čen cze jún juni june",
		"jul juil lug čec lip júl juli july",
		"aug août ago aou srp sie august",
		"sep sept set zář wrz szept september",
		"oct okt ott out říj paź október oktober october",
		"nov lis november",
		"dec dez déc dic pro gru dezember december",
	} {
		for _, n := range strings.Fields(names) {
			m[n] = i + 1
		}
	}
	for i, names := range [12]string{
		"янв января", "фев февр февраля", "мар марта", "апр апреля", "май мая", "июн июня",
		"июл июля", "авг августа", "сен сент сентября", "окт октября", "ноя нояб ноября", "дек декабря",
	} {
		for _, n := range strings.Fields(names) {
			m[n] = i + 1
		}
	}
	return m
}()

// unixMode reports ls's mode word: the type ("-", "d", "l", "b", "c",
// "p", "s", or "f" of some servers), then the nine permission letters,
// each in its place; what follows them (an ACL's "+", the link count run
// into it) is not read. The Enterprise Unix form "-C--E-----FTP" is a
// mode too.
func unixMode(s string) bool {
	if len(s) < 10 || strings.IndexByte("-dlbcpsf", s[0]) < 0 {
		return false
	}
	if len(s) == 13 && strings.HasSuffix(s, "FTP") {
		return true
	}
	for i := 1; i < 10; i++ {
		c := s[i]
		if c == '-' {
			continue
		}
		var ok bool
		switch i {
		case 1, 4, 7:
			ok = c == 'r'
		case 2, 5, 8:
			ok = c == 'w'
		case 3:
			ok = c == 'x' || c == 's' || c == 'S'
		case 6:
			ok = c == 'x' || c == 's' || c == 'S' || c == 'l' || c == 'L'
		case 9:
			ok = c == 'x' || c == 't' || c == 'T'
		}
		if !ok {
			return false
		}
	}
	return true
}

// parseUnix reads an "ls -l" line.
func (p *listParser) parseUnix(line string) (schemes.Entry, result) {
	var e schemes.Entry
	if len(line) < 10 || strings.IndexByte("-dlbcpsf", line[0]) < 0 {
		return e, notMine
	}
	// Owner and group names may hold blanks ("Domain Users"): the date is
	// looked for as far as the words go.
	var buf [32]field
	fs := fields(buf[:0], line)
	if !unixMode(fs[0].s) {
		return e, notMine
	}
	// Find the date after the size; the first place that reads as one wins,
	// so a name that looks like a date stays a name.
	for i := 3; i < len(fs); i++ {
		t, prec, last, ok := unixDate(fs, i, p.now)
		if !ok || fs[last].end+1 >= len(line) {
			continue
		}
		size, ok := unixSize(fs, i, line[0])
		if !ok {
			continue
		}
		start := fs[last].end + 1
		if last == i+2 {
			// Columns in characters: where the date and its last word
			// begin.
			dateCol := utf8.RuneCountInString(line[:fs[i].end-len(fs[i].s)])
			col := dateCol + utf8.RuneCountInString(line[fs[i].end-len(fs[i].s):fs[last].end-len(fs[last].s)])
			if prec == schemes.PrecisionMinute {
				p.dateCol, p.timeCol = dateCol, col
			} else if dateCol == p.dateCol && col == p.timeCol && line[start] == ' ' && start+1 < len(line) {
				// "Aug 24 2001  name" where the other lines have
				// "Mar  2 15:13 name": the year padded to a time's
				// width, and the blank is not the name's.
				start++
			}
		}
		name := line[start:]
		e = schemes.Entry{Name: name, Type: schemes.TypeFile, Size: size, Modified: t, Precision: prec}
		switch line[0] {
		case 'd':
			e.Type, e.Size = schemes.TypeDir, -1
		case 'l':
			e.Type = schemes.TypeLink
			if n, target, found := strings.Cut(name, " -> "); found {
				e.Name, e.Target = n, target
			}
		case 'b', 'c', 'p', 's':
			e.Type = schemes.TypeOther
		}
		return e, named(e.Name)
	}
	return e, notMine
}

// unixSize reads the size before the date at fs[i]: a number, a device's
// "major, minor" (no size: -1), or an owner or group name run into the
// size by a too narrow column (the size cannot be told: -1).
func unixSize(fs []field, i int, kind byte) (int64, bool) {
	s := fs[i-1].s
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		if (kind == 'c' || kind == 'b') && strings.HasSuffix(fs[i-2].s, ",") {
			return -1, true // "1, 3": major, minor
		}
		return n, true
	}
	if maj, min, found := strings.Cut(s, ","); found && isDigits(maj) && (min == "" || isDigits(min)) {
		return -1, true // "1,3" or "1," before a minor at fs[i]: a device
	}
	if c := s[len(s)-1]; c >= '0' && c <= '9' && !strings.ContainsAny(s, ":,.") {
		return -1, true // "johnsmith1234567890": owner and size in one word
	}
	return 0, false
}

// unixDate reads a date starting at fs[i]; last is the index of its last
// word.
func unixDate(fs []field, i int, now time.Time) (t time.Time, prec string, last int, ok bool) {
	if t, prec, last, ok = isoDate(fs, i); ok {
		return
	}
	if i+2 >= len(fs) {
		return time.Time{}, "", 0, false
	}
	if t, ok := yearFirst(fs, i); ok {
		return t, schemes.PrecisionDay, i + 2, true
	}
	m, dayWord := monthName(fs[i].s), fs[i+1].s
	if m == 0 {
		// Day first: "12 mars", "12. Mär", "26. Juli,".
		m, dayWord = monthName(fs[i+1].s), fs[i].s
	}
	// "2日" (Chinese, Japanese), "2일" (Korean), "2." and "2,".
	dayWord = strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(dayWord, "日"), "일"), ".,")
	if m == 0 || len(dayWord) > 2 || !isDigits(dayWord) {
		return time.Time{}, "", 0, false
	}
	day, _ := strconv.Atoi(dayWord)
	yt := strings.TrimSuffix(strings.TrimSuffix(fs[i+2].s, "年"), "년")
	t, prec, ok = unixTime(m, day, yt, now)
	return t, prec, i + 2, ok
}

// yearFirst reads a date that begins with its year and has no time:
// Hungarian's "2019. márc. 2." and "2019年 3月 2日" of Chinese, Japanese
// and Korean ("2019년 3월 2일").
func yearFirst(fs []field, i int) (time.Time, bool) {
	if i+2 >= len(fs) {
		return time.Time{}, false
	}
	yw := fs[i].s
	if yw == "" || yw[len(yw)-1] != '.' && yw[len(yw)-1] < 0x80 {
		return time.Time{}, false
	}
	for _, mark := range [...]string{".", "年", "년"} {
		if y, ok := strings.CutSuffix(yw, mark); ok {
			yw = y
			break
		}
	}
	if len(yw) != 4 || yw == fs[i].s || !isDigits(yw) {
		return time.Time{}, false
	}
	m := monthName(fs[i+1].s)
	dw := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(fs[i+2].s, "日"), "일"), ".")
	if m == 0 || len(dw) > 2 || !isDigits(dw) {
		return time.Time{}, false
	}
	y, _ := strconv.Atoi(yw)
	d, _ := strconv.Atoi(dw)
	return date(y, m, d, 0, 0, 0)
}

// isoDate reads "2006-01-02", then "15:04" or "15:04:05[.nnn]" and a zone
// "+0100" as ls --full-time gives it, when they follow.
func isoDate(fs []field, i int) (time.Time, string, int, bool) {
	// "2006/01/02" and "2006.01.02" are read as well.
	d := fs[i].s
	if len(d) != 10 || d[4] != d[7] || strings.IndexByte("-/.", d[4]) < 0 || !isDigits(d[:4]) || !isDigits(d[5:7]) || !isDigits(d[8:]) {
		return time.Time{}, "", 0, false
	}
	y, _ := strconv.Atoi(d[:4])
	mo, _ := strconv.Atoi(d[5:7])
	day, _ := strconv.Atoi(d[8:])
	if i+1 < len(fs) {
		if h, mi, sec, prec, ok := hhmm(fs[i+1].s); ok {
			t, ok := date(y, mo, day, h, mi, sec)
			if !ok {
				return time.Time{}, "", 0, false
			}
			last := i + 1
			if i+2 < len(fs) {
				if off, ok := zoneOffset(fs[i+2].s); ok {
					t, last = t.Add(-off), i+2
				}
			}
			return t, prec, last, true
		}
	}
	t, ok := date(y, mo, day, 0, 0, 0)
	return t, schemes.PrecisionDay, i, ok
}

// zoneOffset reads "+0100" or "-0530".
func zoneOffset(s string) (time.Duration, bool) {
	if len(s) != 5 || (s[0] != '+' && s[0] != '-') || !isDigits(s[1:]) {
		return 0, false
	}
	h, _ := strconv.Atoi(s[1:3])
	m, _ := strconv.Atoi(s[3:])
	if h > 14 || m > 59 {
		return 0, false
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute
	if s[0] == '-' {
		d = -d
	}
	return d, true
}

// unixTime reads ls's date: "1994" for an old file, "12:00" for one of the
// last six months, whose year is the latest that does not lie in the future
// of the server's clock. The first is known to the day, the second to the minute (prec). Both are
// in the server's time zone, read here as UTC: only an MDTM of the same
// file tells the zone.
func unixTime(m, day int, yt string, now time.Time) (time.Time, string, bool) {
	if strings.Contains(yt, ":") {
		if h, m, ok := strings.Cut(yt, ":"); ok && len(m) == 1 {
			yt = h + ":0" + m // busybox: "9:5" is 09:05
		}
		hh, mm, _, prec, ok := hhmm(yt)
		if !ok || prec != schemes.PrecisionMinute {
			return time.Time{}, "", false
		}
		// The latest year in which the date is not in the future. The
		// server's clock is in its own zone, up to 14 hours ahead of or
		// behind UTC: a date up to a day ahead of this machine's clock is
		// the server's today, which on New Year's Eve here may be next
		// year's 1 January there. (Feb 29 skips the years without one.)
		limit := now.Add(24 * time.Hour)
		for y := now.Year() + 1; y >= now.Year()-4; y-- {
			if t, ok := date(y, m, day, hh, mm, 0); ok && !t.After(limit) {
				return t, schemes.PrecisionMinute, true
			}
		}
		return time.Time{}, "", false
	}
	if len(yt) != 4 || !isDigits(yt) {
		return time.Time{}, "", false
	}
	y, _ := strconv.Atoi(yt)
	t, ok := date(y, m, day, 0, 0, 0)
	if !ok {
		return time.Time{}, "", false
	}
	return t, schemes.PrecisionDay, true
}
