package mirror

import (
	"context"
	"io"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// listDir walks one directory listing (FTP, file, or any fetcher that
// answers with a Listing): files become file jobs, directories listing
// jobs, symlinks records. The listing is drained as fast as it streams
// (the queue spills to disk), so its connection is freed at once.
func (e *engine) listDir(ctx context.Context, j job, pre *fetch.Response) {
	key := j.dir()
	lr := e.seenListing(key, j)
	resp := e.openListing(ctx, j, pre, "directory")
	if resp == nil {
		return
	}
	defer resp.Close()
	if !e.opts.DryRun {
		if err := e.ensureDir(j.Path); err != nil {
			e.fail(j.URL, j.Path, err)
			e.listingFailed()
			return
		}
	}
	deeper := e.opts.Depth == 0 || j.Depth+1 < e.opts.Depth
	for {
		ent, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			e.fail(j.URL, j.Path, err)
			e.listingFailed()
			return
		}
		e.dirEntry(j, key, ent, deeper)
	}
	lr.Listed = e.run
	e.st.putListing(key, lr)
}

// openListing fetches j's listing (or takes pre, fetched already); nil,
// with the failure recorded, when it cannot be had or is not a listing.
func (e *engine) openListing(ctx context.Context, j job, pre *fetch.Response, what string) *fetch.Response {
	resp := pre
	if resp == nil {
		var err error
		if resp, err = e.get(ctx, nil, &fetch.Request{URL: j.URL}); err != nil {
			e.fail(j.URL, j.Path, err)
			e.listingFailed()
			return nil
		}
	}
	if resp.Kind != schemes.KindListing || resp.Listing == nil {
		resp.Close()
		e.fail(j.URL, j.Path, schemes.Errorf(schemes.ErrRefused, "%s is not a %s", j.URL, what))
		e.listingFailed()
		return nil
	}
	return resp
}

// dirEntry turns one listing entry into work.
func (e *engine) dirEntry(j job, key string, ent schemes.Entry, deeper bool) {
	if ent.Type == schemes.TypeDir && (ent.Name == "." || ent.Name == "..") {
		// A listing's own "current" and "parent" entries (LIST -a, MLSD
		// cdir/pdir): notation, not content.
		return
	}
	p, err := child(j.Path, ent.Name)
	if err != nil {
		e.refuse(ent.Name, ent.URL, err)
		return
	}
	switch ent.Type {
	case schemes.TypeLink:
		// Recorded, never created, never followed: a link could point
		// anywhere, inside the tree or out of it.
		e.st.putFile(p, record{URL: ent.URL, Kind: kindLink, Target: ent.Target, Run: e.run, From: key, Size: -1})
		e.count(&e.sum.Links)
		e.logf("link %s -> %q (recorded, not followed)", p, ent.Target)
		return
	case schemes.TypeInfo, schemes.TypeSearch, schemes.TypeTelnet, schemes.TypeTN3270, schemes.TypeAsk, schemes.TypeError:
		e.count(&e.sum.Recorded)
		return
	}
	if ent.URL == "" || !e.site.sameServer(ent.URL) {
		e.count(&e.sum.Recorded)
		e.logf("recorded %s (%s, another server)", p, ent.URL)
		return
	}
	if e.excluded(p, ent.URL, ent.Type == schemes.TypeDir) {
		return
	}
	if ent.Type == schemes.TypeDir {
		if deeper {
			e.q.push(job{Op: opList, URL: ent.URL, Path: p, From: key, Depth: j.Depth + 1, Name: ent.Name, Size: -1,
				Mod: ent.Modified, Prec: ent.Precision})
		}
		return
	}
	e.filesTotal.Add(1)
	e.q.push(job{Op: opFile, URL: binaryFTP(ent.URL), Path: p, From: key, Depth: j.Depth + 1,
		Name: ent.Name, Size: ent.Size, Mod: ent.Modified, Prec: ent.Precision})
}

// seenListing records that this run's walk reached the listing key (its
// parent named it), whether or not it can be read.
func (e *engine) seenListing(key string, j job) listingRecord {
	lr := listingRecord{URL: j.URL, Path: j.Path, From: j.From, Seen: e.run, Modified: j.Mod, Precision: j.Prec}
	if old, ok := e.st.getListing(key); ok {
		lr.Listed = old.Listed
	}
	e.st.putListing(key, lr)
	return lr
}
