package mirror

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// resumeMin is the size from which a file is marked partial before its
// body starts, so that even a killed run resumes it. Smaller files are
// simply fetched again: a resume would cost more than it saves.
const resumeMin = 1 << 20

// file mirrors one file. pre is the response when Run fetched it already
// (the starting URL named a file).
func (e *engine) file(ctx context.Context, j job, pre *fetch.Response) {
	defer e.filesDone.Add(1)
	j.track = e.track()
	if j.Path == "" {
		// The starting URL names a file: it lands in DIR under its own name.
		if pre == nil {
			return
		}
		p, err := child("", pre.Name)
		if err != nil {
			pre.Close()
			e.refuse(pre.Name, j.URL, err)
			return
		}
		j.Path, j.Name = join(e.payload, p), pre.Name
		e.filesTotal.Add(1)
	}
	rec, had := e.st.getFile(j.Path)
	complete := had && rec.Kind == kindFile && !rec.Partial && e.held(j.Path, rec)
	if pre == nil && complete && listingUnchanged(j, rec) && !listedHashDiffers(j, rec) {
		e.keep(j, rec)
		return
	}
	if !complete && e.shared != nil {
		// Another worker of the crawl may have written it (into its own
		// DIR): unchanged by the listing, it is not fetched again.
		if r, ok := e.sharedRecord(ctx, j.Path); ok {
			if pre == nil && listingUnchanged(j, r) {
				e.keep(j, r)
				return
			}
			j.sharedSum = r.SHA256
		}
	}
	if e.opts.DryRun {
		if pre != nil {
			pre.Close()
		}
		e.plan(planAction(e.exists(j.Path)), j.URL, j.Path)
		return
	}
	tmp := tmpName(j.Path)
	offset := int64(0)
	if had && rec.Partial && rec.Tmp == tmp && j.Size > 0 && rec.ListSize == j.Size &&
		!j.Mod.IsZero() && rec.ListModified.Equal(j.Mod) {
		// Resume only what the state marks partial, and only while the
		// listing still describes the same remote file.
		offset = e.partialSize(j, tmp)
	}
	e.transfer(ctx, j, pre, rec, complete, tmp, offset)
}

// partialSize is how much of j the partial copy tmp holds, when it is a
// regular file shorter than j; 0 otherwise.
func (e *engine) partialSize(j job, tmp string) int64 {
	if fi, err := e.root.Lstat(e.tmpPath(tmp)); err == nil && fi.Mode().IsRegular() && fi.Size() < j.Size {
		return fi.Size()
	}
	return 0
}

// transfer fetches j (pre, when the response is already there) into tmp
// from offset on and saves it: fetched again while it changes during its
// transfer or its bytes do not match the server's checksum, and tried
// again while it fails transiently, going on from where it stopped when
// the bytes were kept.
func (e *engine) transfer(ctx context.Context, j job, pre *fetch.Response, rec record, complete bool, tmp string, offset int64) {
	resp := pre
	listed := listedHash(j)
	r := e.retrier()
	refetched, mismatches := 0, 0
	for {
		if resp == nil {
			var err error
			// With size and time from the listing, the body alone is asked for
			// (FTP then skips SIZE and MDTM: half the round trips of a small
			// file); a time known only to the minute or day is asked for
			// (MDTM), and both after the file was seen to change.
			known := j.Size >= 0 && !j.Mod.IsZero() && refetched == 0
			// A checksum the listing gave (an MLSD fact) proves the
			// file without asking the server for one.
			resp, err = e.get(ctx, r, &fetch.Request{
				URL:  j.URL,
				Call: schemes.Call{Offset: offset, SkipMetadata: known && exactTime(j.Prec), SkipSize: known, Hash: e.opts.Verify != VerifyNever && listed.Alg == ""},
			})
			if err != nil {
				e.failed(j, err)
				return
			}
		}
		if listed.Alg != "" && resp.Hash.Alg == "" {
			resp.Hash = listed
		}
		err := e.save(j, resp, rec, complete, tmp, offset, func(resp *fetch.Response) error {
			return e.ftp.stable(ctx, j, resp, refetched == 0)
		})
		resp = nil
		switch {
		case err == nil:
			return
		case errors.Is(err, errChanged):
			if refetched >= maxRefetch {
				e.count(&e.sum.Unstable)
				e.failed(j, schemes.Errorf(schemes.ErrInterrupted,
					"unstable: it changed during each of %d transfers, the last: %w", refetched+1, err))
				return
			}
			refetched++
			e.count(&e.sum.Changed)
			e.logf("changed %s during its transfer (%v): fetching it again", j.Path, err)
			offset = 0
		case errors.Is(err, errMismatch):
			// Bytes the server's own checksum disowns: fetched again from
			// the start, and never kept when no try matches.
			if mismatches >= e.maxRetries() || ctx.Err() != nil {
				e.failed(j, schemes.Errorf(schemes.ErrRefused, "%v, in each of %d transfers: not kept", err, mismatches+1))
				return
			}
			mismatches++
			e.countRetryKind("verify")
			e.logf("retry %d of %d: %s: %v", mismatches, e.maxRetries(), j.URL, err)
			offset = 0
		case !r.again(ctx, err, j.URL):
			e.failed(j, err)
			return
		default:
			// A transfer that broke off goes on from where it stopped when
			// its bytes were kept (a large file the listing dates), else
			// starts over.
			prev := offset
			offset = 0
			if j.Size >= resumeMin && !j.Mod.IsZero() {
				offset = e.partialSize(j, tmp)
			}
			if offset > prev {
				r.progressed()
			}
		}
	}
}

// listingUnchanged reports whether the listing's size and time show the
// remote file is the one recorded. A time is required: a size alone cannot
// tell two versions apart.
func listingUnchanged(j job, rec record) bool {
	if j.Mod.IsZero() || !sameListTime(j.Mod, j.Prec, rec.ListModified, rec.ListPrec) {
		return false
	}
	return j.Size < 0 || j.Size == rec.ListSize
}

// listedHash is the server's checksum j's listing gave, zero when none.
func listedHash(j job) schemes.ServerHash {
	alg, hex, ok := strings.Cut(j.Hash, ":")
	if !ok {
		return schemes.ServerHash{}
	}
	return schemes.ServerHash{Alg: alg, Hex: hex}
}

// listedHashDiffers reports that j's listing gave a checksum of the
// algorithm the state keeps for the file, and another one: the file
// changed, whatever its size and time say.
func listedHashDiffers(j job, rec record) bool {
	if j.Hash == "" || rec.ServerHash == "" {
		return false
	}
	alg, _, _ := strings.Cut(j.Hash, ":")
	kept, _, _ := strings.Cut(rec.ServerHash, ":")
	return alg == kept && j.Hash != rec.ServerHash
}

func planAction(exists bool) string {
	if exists {
		return "update"
	}
	return "new"
}

// keep records that an unchanged file was seen by this run.
func (e *engine) keep(j job, rec record) {
	rec.Run, rec.From, rec.URL = e.run, j.From, j.URL
	if !exactTime(rec.ModPrec) && !j.Mod.IsZero() && exactTime(j.Prec) && e.root != nil && !e.opts.DryRun && !e.opts.StateOnly {
		// The file got a time known to the minute or the day; this
		// listing knows it to the second (MLSD now, or a better server):
		// the time is refined, the file is not fetched again.
		if err := e.root.Chtimes(j.Path, j.Mod, j.Mod); err == nil {
			rec.Modified, rec.ModPrec = j.Mod, ""
			e.logf("time of %s refined to %s", j.Path, j.Mod.UTC().Format(time.DateTime))
		}
	}
	if !j.Mod.IsZero() {
		rec.ListModified, rec.ListPrec = j.Mod, j.Prec
	}
	if j.Size >= 0 {
		rec.ListSize = j.Size
	}
	e.st.putFile(j.Path, rec)
	e.share(j.Path, rec)
	e.count(&e.sum.Unchanged)
	e.logf("unchanged %s", j.Path)
	e.emit(Event{Status: StatusDone, Change: "unchanged", URL: j.URL, Path: j.Path}, j.track)
}

// save receives resp's body as the file at j.Path: into a temporary file,
// verified against the announced size, and renamed into place only when
// its bytes differ from what is there. It returns nil when the file is now
// complete on disk, else why not (the caller records the failure).
//
// check, if set, is asked before the file is installed whether the remote
// file still is the one received; an error wrapping errChanged says it is not.
func (e *engine) save(j job, resp *fetch.Response, rec record, complete bool, tmp string, offset int64, check func(*fetch.Response) error) error {
	defer resp.Close()
	if resp.NotModified {
		e.keep(j, rec)
		return nil
	}
	if resp.Kind != schemes.KindFile || resp.Body == nil {
		return schemes.Errorf(schemes.ErrRefused, "%s is not a file", j.URL)
	}
	e.count(&e.sum.Transfers)
	size := resp.Size
	if size < 0 {
		size = j.Size
	}
	mod, modPrec := e.fileTime(j, resp)
	resumable := size >= resumeMin && !j.Mod.IsZero()
	partial := record{URL: j.URL, Kind: kindFile, Partial: true, Tmp: tmp, ListSize: j.Size,
		ListModified: j.Mod, ListPrec: j.Prec, Run: e.run, From: j.From}
	if resumable && !(rec.Partial && rec.Tmp == tmp) {
		e.st.putFile(j.Path, partial)
		e.st.putTemp(tmp, j.Path)
	}
	vh := e.serverHash(resp)
	got, sum, err := e.receive(resp, tmp, offset, true, j.track, vh)
	if err == nil && size >= 0 && got != size {
		// The transfer ended cleanly, with other bytes than announced.
		err = schemes.Errorf(schemes.ErrInterrupted, "received %d of %d bytes: %w", got, size, errChanged)
	}
	if err == nil && check != nil {
		err = check(resp)
	}
	if err == nil {
		err = e.verify(j, resp, vh)
	}
	if err != nil {
		if resumable && got > 0 && !errors.Is(err, errChanged) && !errors.Is(err, errMismatch) && !errors.Is(err, errUnproven) {
			// Kept to go on from where it stopped.
			e.st.putFile(j.Path, partial)
			e.st.putTemp(tmp, j.Path)
		} else {
			e.root.Remove(e.tmpPath(tmp))
			if rec.Partial {
				e.st.delFile(j.Path)
				e.st.delTemp(tmp)
			}
		}
		return err
	}
	done := record{URL: j.URL, Kind: kindFile, Size: got, Modified: mod, ModPrec: modPrec, SHA256: sum,
		ListSize: j.Size, ListModified: j.Mod, ListPrec: j.Prec, HTML: resp.Page != nil, Run: e.run, From: j.From}
	if vh != nil {
		done.ServerHash = resp.Hash.Alg + ":" + resp.Hash.Hex
	}
	if err := e.settleFile(j, tmp, done, complete && rec.SHA256 == sum && rec.Size == got); err != nil {
		return err
	}
	if resumable || rec.Partial {
		e.st.delTemp(tmp)
	}
	return nil
}

// fileTime is the time a file fetched is given: the server's, else the
// listing's (with its precision when coarser than the second). A server's
// time beside the listing's calibrates the listing's zone.
func (e *engine) fileTime(j job, resp *fetch.Response) (time.Time, string) {
	if !resp.Modified.IsZero() {
		e.ftp.calibrate(j.Mod, j.Prec, resp.Modified)
		return resp.Modified, ""
	}
	if exactTime(j.Prec) {
		return e.ftp.listTime(j.Mod, j.Prec), ""
	}
	return e.ftp.listTime(j.Mod, j.Prec), j.Prec
}

// settleFile puts a file received whole into tmp where it belongs, and
// records it as done: same is a copy of the bytes already kept (a plain
// Gopher item fetched again), which stays as it is.
func (e *engine) settleFile(j job, tmp string, done record, same bool) error {
	change := "unchanged"
	if same {
		e.root.Remove(e.tmpPath(tmp))
		e.count(&e.sum.Unchanged)
		e.logf("unchanged %s", j.Path)
	} else {
		existed, err := e.install(tmp, j.Path, done.Modified)
		if err != nil {
			e.root.Remove(e.tmpPath(tmp))
			return fmt.Errorf("writing %s: %w", j.Path, err)
		}
		switch {
		case !existed && j.sharedSum == done.SHA256:
			// New in this DIR, but the crawl had these bytes already.
			e.count(&e.sum.Unchanged)
			e.logf("unchanged %s (in the crawl), installed here", j.Path)
		case existed:
			change = "updated"
			e.count(&e.sum.Updated)
			e.logf("updated %s (%d bytes)", j.Path, done.Size)
		default:
			change = "new"
			e.count(&e.sum.New)
			e.logf("new %s (%d bytes)", j.Path, done.Size)
		}
	}
	e.st.putFile(j.Path, done)
	e.share(j.Path, done)
	e.emit(Event{Status: StatusDone, Change: change, URL: j.URL, Path: j.Path}, j.track)
	return nil
}
