package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// MVS and z/OS listings come in two forms, each under its column header.
//
// Datasets (a listing of a high-level qualifier):
//
//	Volume Unit    Referred Ext Used Recfm Lrecl BlkSz Dsorg Dsname
//	WYSE01 3390   2024/01/02  1   15  FB      80  3120  PO  USER.SOURCE
//	Migrated                                                USER.OLD.DATA
//
// A partitioned dataset (Dsorg PO, PO-E) holds members and is listed like
// a directory; every other dataset is a file. Sizes are in tracks, not
// bytes: Size is -1. A migrated dataset is a file of which nothing else
// is known until it is recalled. Under the header, a line whose columns
// overflowed ("1+++++" for a large dataset's extents and tracks) or ran
// together, or are blank (a VSAM cluster, "VSAM USER.KSDS"; a dataset on
// tape) is read by its Dsorg and name, and its date where one stands
// alone.
//
// Members of a partitioned dataset:
//
//	 Name     VV.MM   Created       Changed      Size  Init   Mod   Id
//	MEMBER1   01.03 2002/09/12 2002/10/11 09:37    11    11     0 USER1
//	LOADMOD
//
// Members are files; the Size column counts lines (records), not bytes,
// so Size is -1. A member saved without statistics is its name alone,
// read as one under a member header, or without one when every line of
// the listing is a name in a member's form (a PDS none of whose members
// has statistics, which z/OS lists so: listParser.bare); a line with ISPF
// statistics is a member with or without the header, since no other
// listing has its form.

// isMVSDatasetHeader reports the header of a dataset listing.
func isMVSDatasetHeader(s string) bool {
	return strings.HasPrefix(s, "Volume Unit") && strings.HasSuffix(s, "Dsname")
}

// isMVSMemberHeader reports the header of a member listing, source
// (statistics) or load module (TTR and attributes).
func isMVSMemberHeader(s string) bool {
	return strings.HasPrefix(s, "Name ") && (strings.Contains(s, " VV.MM ") || strings.Contains(s, " TTR "))
}

// parseMVSDataset reads a dataset line. Under a dataset header, a line
// whose columns ran together or overflowed ("1+++++" for the extents and
// tracks of a large dataset) or are left blank (a VSAM cluster or its
// components, a dataset on tape) is read by its last words: the Dsorg
// and the name.
func (p *listParser) parseMVSDataset(line string) (schemes.Entry, result) {
	var e schemes.Entry
	var buf [11]field
	fs := fields(buf[:0], line)
	switch {
	case len(fs) == 2 && fs[0].s == "Migrated":
		e = schemes.Entry{Name: fs[1].s, Type: schemes.TypeFile, Size: -1}
		return e, mvsNamed(e.Name)
	case len(fs) == 3 && fs[0].s == "Pseudo" && fs[1].s == "Directory":
		e = schemes.Entry{Name: fs[2].s, Type: schemes.TypeDir, Size: -1}
		return e, mvsNamed(e.Name)
	case len(fs) >= 5 && fs[1].s == "Not" && strings.HasPrefix(rest(line, fs[0]), "Not Direct Access Device"):
		// On tape: nothing but the name.
		e = schemes.Entry{Name: fs[len(fs)-1].s, Type: schemes.TypeFile, Size: -1}
		return e, mvsNamed(e.Name)
	case len(fs) == 10:
		t, ok := mvsDay(fs[2].s)
		if ok && isDigits(fs[3].s) && isDigits(fs[4].s) {
			return mvsDataset(fs[9].s, fs[8].s, t)
		}
	}
	if !p.datasets || len(fs) < 2 || len(fs) > 10 {
		return e, notMine
	}
	if len(fs) <= 3 && strings.EqualFold(fs[len(fs)-2].s, "Tape") && isDsname(fs[len(fs)-1].s) {
		// On tape: "VOL001 Tape  USER.TAPE.DATA".
		return mvsDataset(fs[len(fs)-1].s, "", time.Time{})
	}
	// Under the header: the Dsorg before the name, the date where there
	// is one, and every other word a column's.
	dsorg, name := fs[len(fs)-2].s, fs[len(fs)-1].s
	if !isDsorg(dsorg) || !isDsname(name) {
		return e, notMine
	}
	var t time.Time
	for _, f := range fs[:len(fs)-2] {
		if d, ok := mvsDay(f.s); ok && strings.IndexByte(f.s, '/') > 0 {
			t = d
		}
	}
	return mvsDataset(name, dsorg, t)
}

// mvsDataset is the entry of a dataset: a partitioned one (PO, PO-E) is
// listed like a directory, every other one is a file.
func mvsDataset(name, dsorg string, t time.Time) (schemes.Entry, result) {
	e := schemes.Entry{Name: name, Type: schemes.TypeFile, Size: -1, Modified: t, Precision: schemes.PrecisionDay}
	if t.IsZero() {
		e.Precision = ""
	}
	if dsorg == "PO" || dsorg == "PO-E" {
		e.Type = schemes.TypeDir
	}
	return e, mvsNamed(e.Name)
}

// isDsorg reports a dataset organisation as the Dsorg column shows it.
func isDsorg(s string) bool {
	switch s {
	case "PS", "PO", "PO-E", "DA", "IS", "VS", "VSAM", "?":
		return true
	}
	return false
}

// isDsname reports a dataset name: qualifiers of letters, digits and
// national characters, parted by dots.
func isDsname(s string) bool {
	if s == "" || len(s) > 44 || s[0] == '.' || s[len(s)-1] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("$#@.-{}_", c) >= 0) {
			return false
		}
	}
	return true
}

// mvsNamed is named for a dataset or member name. Names are not checked
// against MVS's own rules: what the server said is returned, and the
// mirror's safe-name rule judges it.
func mvsNamed(s string) result { return named(s) }

// mvsDay reads "2024/01/02"; "**NONE**" (never referred to) is a zero
// time.
func mvsDay(s string) (time.Time, bool) {
	if s == "**NONE**" {
		return time.Time{}, true
	}
	if len(s) != 10 || s[4] != '/' || s[7] != '/' || !isDigits(s[:4]) || !isDigits(s[5:7]) || !isDigits(s[8:]) {
		return time.Time{}, false
	}
	y, _ := strconv.Atoi(s[:4])
	mo, _ := strconv.Atoi(s[5:7])
	d, _ := strconv.Atoi(s[8:])
	return date(y, mo, d, 0, 0, 0)
}

// parseMVSMember reads a member line, under a member header only: a
// name alone, a name and its statistics, or a load module's name, size
// and TTR (hexadecimal).
func (p *listParser) parseMVSMember(line string) (schemes.Entry, result) {
	var e schemes.Entry
	var buf [10]field
	fs := fields(buf[:0], line)
	if len(fs) == 0 || line[0] == ' ' || !p.members && !isISPFStats(fs) {
		return e, notMine
	}
	e = schemes.Entry{Name: fs[0].s, Type: schemes.TypeFile, Size: -1}
	switch {
	case len(fs) == 1:
	case len(fs) >= 5 && strings.Contains(fs[1].s, "."):
		created, ok1 := mvsDay(fs[2].s)
		changed, ok2 := mvsDay(fs[3].s)
		if !ok1 || !ok2 || created.IsZero() && changed.IsZero() {
			return e, notMine
		}
		if changed.IsZero() {
			break
		}
		e.Modified, e.Precision = changed, schemes.PrecisionDay
		if h, m, s, prec, ok := hhmm(fs[4].s); ok {
			e.Modified, e.Precision = changed.Add(time.Duration(h)*time.Hour+time.Duration(m)*time.Minute+time.Duration(s)*time.Second), prec
		}
	case len(fs) >= 3 && isHex(fs[1].s) && isHex(fs[2].s):
	default:
		return e, notMine
	}
	return e, mvsNamed(e.Name)
}

// isISPFStats reports a member line with ISPF statistics, a form no
// other listing has, so that it is read without its header: "NAME VV.MM
// CREATED CHANGED HH:MM SIZE INIT MOD USER".
func isISPFStats(fs []field) bool {
	if len(fs) != 9 {
		return false
	}
	vv, mm, ok := strings.Cut(fs[1].s, ".")
	if !ok || len(vv) != 2 || len(mm) != 2 || !isDigits(vv) || !isDigits(mm) {
		return false
	}
	if _, ok := mvsDay(fs[2].s); !ok {
		return false
	}
	if _, ok := mvsDay(fs[3].s); !ok {
		return false
	}
	if _, _, _, _, ok := hhmm(fs[4].s); !ok {
		return false
	}
	return isDigits(fs[5].s) && isDigits(fs[6].s) && isDigits(fs[7].s)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'A' && s[i] <= 'F') {
			return false
		}
	}
	return s != ""
}
