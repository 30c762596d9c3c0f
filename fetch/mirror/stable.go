package mirror

import (
	"context"
	"errors"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// Files that change while they are fetched. A file whose size or time
// differs, at the end of its transfer, from what its listing said is
// fetched again, at most maxRefetch times, and otherwise reported unstable:
// its bytes may mix two versions, so they never go under its name.
//
// What is compared: the bytes received against the size announced (the
// listing's, or the SIZE reply of a fetch again); the MDTM sent before the
// transfer against the listing's time, as far as the listing knows it and
// once the server's zone is known; and, for an FTP file whose MDTM came
// back, the MDTM once more after the transfer (one round trip: an
// If-Modified-Since fetch that stops before RETR when the time is the same).

// maxRefetch bounds the fetches again of one file that changed.
const maxRefetch = 2

// errChanged marks a file seen to change during its transfer.
var errChanged = errors.New("the remote file changed during its transfer")

// stable checks, before the file received for j is installed, that the
// remote file is still the one listed (first: this is the fetch the
// listing led to) and the one received.
func (e *ftpWalker) stable(ctx context.Context, j job, resp *fetch.Response, first bool) error {
	mdtm := resp.Modified
	if e.site.mode != modeListing || mdtm.IsZero() {
		return nil
	}
	if first && !j.Mod.IsZero() && !e.matchesListing(j, mdtm) {
		return schemes.Errorf(schemes.ErrInterrupted, "listed as of %s, its time is now %s: %w",
			j.Mod.Format(time.DateTime), mdtm.UTC().Format(time.DateTime), errChanged)
	}
	if e.site.scheme != "ftp" && e.site.scheme != "ftps" {
		// Only the FTP fetcher is known to stop before the body when
		// If-Modified-Since holds: another would send it all again.
		return nil
	}
	again, err := e.paced(ctx, &fetch.Request{URL: j.URL, Call: schemes.Call{IfModifiedSince: mdtm, SkipSize: true}})
	if err != nil {
		// The check itself failed: the transfer is tried again, as a
		// transfer that broke off would be.
		return err
	}
	defer again.Close()
	if again.NotModified || again.Modified.IsZero() || again.Modified.Equal(mdtm) {
		return nil
	}
	return schemes.Errorf(schemes.ErrInterrupted, "its time went from %s to %s: %w",
		mdtm.UTC().Format(time.DateTime), again.Modified.UTC().Format(time.DateTime), errChanged)
}

// matchesListing reports whether a file's MDTM agrees with its listing's
// time as far as the listing knows it; true when that cannot be told (a
// LIST time before the server's zone is known).
func (e *ftpWalker) matchesListing(j job, mdtm time.Time) bool {
	if exactTime(j.Prec) {
		return mdtm.Equal(j.Mod)
	}
	e.zoneMu.Lock()
	known, zone := e.zoneKnown, e.zone
	e.zoneMu.Unlock()
	if !known {
		return true
	}
	return sameListTime(mdtm.Add(-zone), schemes.PrecisionSecond, j.Mod, j.Prec)
}
