package mirror

import (
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// Modification times. A mirrored file gets the server's time to the
// second: MLSD facts (RFC 3659 §7, UTC to the second), Gopher+ Mod-Dates,
// HTTP Last-Modified, and, where an FTP LIST line shows only the minute
// ("Jan  2 10:30") or the day ("Dec 20  1994"), the MDTM reply (RFC 3659
// §3) of each file this run fetches. A file the state knows unchanged is
// never asked for anything: the listing's own words are compared.
//
// LIST shows times in the server's time zone, MDTM in UTC. The first file
// whose LIST line shows the minute and whose MDTM comes back calibrates the
// server: their difference, rounded to a quarter hour, is its zone's
// offset, kept in the state (one per server) and applied to every time
// taken from a LIST line (directories, files MDTM cannot date).

// exactTime reports whether a listing time of precision prec is known to
// the second.
func exactTime(prec string) bool {
	return prec == "" || prec == schemes.PrecisionSecond
}

// zoneKey is the state's key of the server's zone offset.
func (e *ftpWalker) zoneKey() string {
	return "zone:" + e.site.scheme + "://" + net.JoinHostPort(e.site.host, strconv.Itoa(e.site.port))
}

// loadZone reads the server's offset from the state, if calibrated before.
func (e *ftpWalker) loadZone() {
	if v, ok := getJSON[int64](e.st, bucketMeta, e.zoneKey()); ok {
		e.zoneMu.Lock()
		e.zone, e.zoneKnown = time.Duration(v)*time.Second, true
		e.zoneMu.Unlock()
	}
}

// calibrate learns the server's offset from a file's LIST time (to the
// minute, in the server's zone) and its MDTM (UTC), once per server.
func (e *ftpWalker) calibrate(listed time.Time, prec string, mdtm time.Time) {
	if prec != schemes.PrecisionMinute || listed.IsZero() || mdtm.IsZero() {
		return
	}
	e.zoneMu.Lock()
	defer e.zoneMu.Unlock()
	if e.zoneKnown {
		return
	}
	// LIST truncates to the minute: mdtm - listed is the offset plus
	// 0 to 59 seconds. Zones are whole quarter hours within a day.
	d := mdtm.Sub(listed) - 30*time.Second
	off := d.Round(15 * time.Minute)
	if diff := d - off; diff < -31*time.Second || diff > 31*time.Second || off < -24*time.Hour || off > 24*time.Hour {
		return // not the same version of the file, or no zone at all
	}
	e.zone, e.zoneKnown = off, true
	e.st.write(bucketMeta, e.zoneKey(), int64(off/time.Second))
	e.logf("server time zone: LIST times are UTC%+.2g h", -off.Hours())
}

// listTime turns a listing's time into UTC: MLSD's are UTC already, LIST's
// take the calibrated offset (none known: as the server wrote them).
func (e *ftpWalker) listTime(t time.Time, prec string) time.Time {
	if t.IsZero() || exactTime(prec) || e.site.mode != modeListing {
		return t
	}
	e.zoneMu.Lock()
	defer e.zoneMu.Unlock()
	return t.Add(e.zone)
}

// sameListTime reports whether two listing times of one file agree as far
// as both are known: a LIST line turns "Jun  1 10:20" into "Jun  1  2025"
// when the file is six months old, and that is no change.
func sameListTime(a time.Time, aPrec string, b time.Time, bPrec string) bool {
	if a.Equal(b) && aPrec == bPrec {
		return true
	}
	coarse := func(p string) int {
		switch p {
		case schemes.PrecisionDay, schemes.PrecisionAmbiguous:
			// An ambiguous date (day and month order undecided) is
			// known to the day at best.
			return 2
		case schemes.PrecisionMinute:
			return 1
		}
		return 0
	}
	c := max(coarse(aPrec), coarse(bPrec))
	switch c {
	case 2:
		ay, am, ad := a.Date()
		by, bm, bd := b.Date()
		return ay == by && am == bm && ad == bd
	case 1:
		return a.Truncate(time.Minute).Equal(b.Truncate(time.Minute))
	}
	return a.Equal(b)
}

// setDirTimes gives each directory this run listed the time its parent's
// listing gave it, deepest first and after every file is written (a file
// written into a directory changes its time).
func (e *ftpWalker) setDirTimes() {
	if e.st == nil || e.root == nil || e.opts.DryRun {
		return
	}
	e.st.flush()
	type dirTime struct {
		path string
		t    time.Time
	}
	var dirs []dirTime
	scan(e.st, bucketListings, func(key string, lr listingRecord) {
		if lr.Listed == e.run && lr.Path != "" && !lr.Modified.IsZero() {
			dirs = append(dirs, dirTime{lr.Path, e.listTime(lr.Modified, lr.Precision)})
		}
	})
	sort.Slice(dirs, func(a, b int) bool {
		return strings.Count(dirs[a].path, "/") > strings.Count(dirs[b].path, "/")
	})
	for _, d := range dirs {
		if fi, err := e.root.Lstat(d.path); err == nil && fi.IsDir() {
			e.root.Chtimes(d.path, d.t, d.t)
		}
	}
}
