package ftp

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// Verifying a listing. A server that has MLSD (RFC 3659 §7) lists a
// directory two ways: MLSD, whose facts gofer reads, and LIST, the lines
// an older client saw. They can disagree: a link MLSD shows as what it
// points to, a file one of them leaves out. With Fetcher.VerifyListing the
// LIST of the same directory is read on the same connection as soon as the
// MLSD listing ends, and every difference is sent to Request.Warn: a name
// only one of them shows, a type, a size, a time that cannot be the same
// (LIST times are in the server's zone and known to the minute or the day).

// listCheck holds what an MLSD listing said, by name, for the comparison.
type listCheck struct {
	ctx  context.Context
	req  *schemes.Request
	mlsd map[string]schemes.Entry
}

func newListCheck(ctx context.Context, req *schemes.Request) *listCheck {
	return &listCheck{ctx: ctx, req: req, mlsd: map[string]schemes.Entry{}}
}

// note keeps an MLSD entry.
func (k *listCheck) note(e schemes.Entry) {
	if e.Type != schemes.TypeUnparsed {
		k.mlsd[e.Name] = schemes.Entry{Name: e.Name, Type: e.Type, Size: e.Size, Modified: e.Modified, Precision: e.Precision}
	}
}

// compare lists the directory of the ended MLSD listing l with LIST on its
// connection and warns of every difference.
func (k *listCheck) compare(l *listing) {
	where := l.base.Redacted()
	warn := func(format string, args ...any) {
		k.req.Warnf("ftp: MLSD and LIST of " + where + " differ: " + fmt.Sprintf(format, args...))
	}
	req := *k.req
	req.Capture = nil // the check is no part of an archive's record
	in, err := l.f.startList(k.ctx, &req, l.c, func() bool { return true }, "LIST")
	if err != nil {
		k.req.Warnf("ftp: verifying the listing: LIST of " + where + " failed: " + err.Error())
		return
	}
	in.nested, in.base, in.dir = true, l.base, l.dir
	seen := map[string]bool{}
	n := 0
	for {
		e, err := in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			k.req.Warnf("ftp: verifying the listing: LIST of " + where + " failed: " + err.Error())
			return
		}
		if e.Type == schemes.TypeUnparsed {
			warn("LIST line in no form gofer reads: %s", strconv.Quote(e.Name))
			n++
			continue
		}
		seen[e.Name] = true
		m, ok := k.mlsd[e.Name]
		if !ok {
			warn("%s is only in LIST (%s)", strconv.Quote(e.Name), e.Type)
			n++
			continue
		}
		if d := entryDiff(m, e); d != "" {
			warn("%s: %s", strconv.Quote(e.Name), d)
			n++
		}
	}
	var only []string
	for name := range k.mlsd {
		if !seen[name] {
			only = append(only, name)
		}
	}
	slices.Sort(only)
	for _, name := range only {
		warn("%s is only in MLSD (%s)", strconv.Quote(name), k.mlsd[name].Type)
		n++
	}
	if n == 0 {
		k.req.Warnf(fmt.Sprintf("ftp: MLSD and LIST of %s agree (%d entries)", where, len(k.mlsd)))
	}
}

// entryDiff says how an MLSD entry and the LIST entry of the same name
// differ, "" when they agree as far as both tell.
func entryDiff(m, l schemes.Entry) string {
	if m.Type != l.Type {
		return fmt.Sprintf("type %s in MLSD, %s in LIST", m.Type, l.Type)
	}
	if m.Type != schemes.TypeDir && m.Size >= 0 && l.Size >= 0 && m.Size != l.Size {
		return fmt.Sprintf("size %d in MLSD, %d in LIST", m.Size, l.Size)
	}
	if !m.Modified.IsZero() && !l.Modified.IsZero() && !sameTimeAnyZone(m.Modified, l.Modified, l.Precision) {
		return fmt.Sprintf("time %s in MLSD, %s in LIST", m.Modified.UTC().Format(time.DateTime), l.FormatModified())
	}
	return ""
}

// sameTimeAnyZone reports whether a time to the second in UTC (MLSD) can
// be what a LIST line shows in the server's zone, an unknown whole number
// of quarter hours within 14 hours of UTC, truncated to prec.
func sameTimeAnyZone(utc, listed time.Time, prec string) bool {
	d := utc.Sub(listed)
	const zone = 14 * time.Hour
	switch prec {
	case schemes.PrecisionDay:
		return d >= -zone && d < zone+24*time.Hour
	case schemes.PrecisionMinute:
		if d < -zone || d >= zone+time.Minute {
			return false
		}
		off := ((d % (15 * time.Minute)) + 15*time.Minute) % (15 * time.Minute)
		return off < time.Minute
	}
	return utc.Equal(listed)
}
