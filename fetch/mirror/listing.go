package mirror

import (
	"context"
	"io"
	"path"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// ftpWalker walks trees of directory listings: FTP, and any fetcher
// that answers a directory with a Listing (file:, an FTP listing reached
// over HTTP). Its methods read a listing, queue what it lists, keep or
// follow symbolic links, and date what LIST dates to the minute by the
// server's zone, which only it keeps; the rest (queue, state, workers,
// politeness, retries, saving files) is the engine's, the core every
// walker shares.
type ftpWalker struct {
	*engine
	// zone is the FTP server's offset of LIST times from UTC, once known.
	zoneMu    sync.Mutex
	zone      time.Duration
	zoneKnown bool
}

// listDir walks one directory listing (FTP, file, or any fetcher that
// answers with a Listing): files become file jobs, directories listing
// jobs, symlinks what Options.Symlinks says. The listing is drained as fast
// as it streams (the queue spills to disk), so its connection is freed at
// once.
//
// Its first loopCheckMax entries are held back until the listing ends, so
// that a directory whose listing repeats an ancestor's (a server that
// lists a symlink such as "a -> ." as the directory it names; see
// listingHash.proof) is found before anything in it is queued: it is counted as a loop, not
// created, and not entered. Versioned entries (VMS "NAME;N") are held back too,
// and only the highest version of each name is queued (all of them with
// Options.AllVersions).
func (e *ftpWalker) listDir(ctx context.Context, j job, pre *fetch.Response) {
	key := j.dir()
	lr := e.seenListing(key, j)
	resp := e.openListing(ctx, j, pre, "directory")
	if resp == nil {
		return
	}
	defer func() { resp.Close() }()
	w := &dirWalk{j: j, key: key, deeper: e.opts.Depth == 0 || j.Depth+1 < e.opts.Depth, anc: j.Anc}
	d := newDirRead()
	r := e.retrier()
	for {
		ent, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil && d.holding && r.again(ctx, err, j.URL) {
			// Broken off (a reset, a stalled data connection) before
			// anything of it was queued: read it again from the start.
			again := e.openListing(ctx, j, nil, "directory")
			if again == nil {
				return
			}
			resp.Close()
			resp = again
			d, w.partial = newDirRead(), false
			continue
		}
		if err != nil {
			e.fail(j.URL, j.Path, err)
			e.listingFailed()
			// What was read is taken, as it streamed before; the listing
			// proves nothing, so no loop is claimed and no file is gone.
			if e.enter(w) {
				e.dispatch(w, d.held, d.versions)
			}
			return
		}
		if !e.readEntry(w, d, ent) {
			return
		}
	}
	if d.holding {
		h := d.lh.sum64()
		if repeats(j.Anc, h) >= d.lh.proof() {
			e.count(&e.sum.Loops)
			e.logf("loop %s: its listing repeats an ancestor's, not entered", j.Path)
			return
		}
		w.anc = append(slices.Clip(j.Anc), h)
	}
	if !e.enter(w) {
		return
	}
	e.dispatch(w, d.held, d.versions)
	if !w.partial {
		lr.Listed = e.run
		e.st.putListing(key, lr)
	}
}

// dirRead is what reading one listing holds: its entries, held back
// while the listing may yet prove to repeat an ancestor's (a loop), the
// highest version of each name a versioned listing gives, and the
// listing's hash.
type dirRead struct {
	held     []schemes.Entry
	holding  bool
	versions map[string]schemes.Entry
	lh       listingHash
}

func newDirRead() *dirRead {
	return &dirRead{holding: true, versions: map[string]schemes.Entry{}}
}

// readEntry takes one entry of w's listing: held, or walked at once once
// the listing is too long to hold; false when the walk ends here.
func (e *ftpWalker) readEntry(w *dirWalk, d *dirRead, ent schemes.Entry) bool {
	if ent.Type == schemes.TypeDir && (ent.Name == "." || ent.Name == "..") {
		// A listing's own "current" and "parent" entries (LIST -a, MLSD
		// cdir/pdir): notation, not content.
		return true
	}
	d.lh.add(ent)
	switch {
	case ent.Type == schemes.TypeUnparsed:
		e.unparsed(w.j, ent.Name)
		w.partial = true
	case ent.Version > 0 && !e.opts.AllVersions:
		if v, ok := d.versions[ent.Name]; !ok || ent.Version > v.Version {
			d.versions[ent.Name] = ent
		}
	case d.holding:
		d.held = append(d.held, ent)
		if len(d.held) > loopCheckMax {
			// Too long to hold: taken as it streams, not compared.
			d.holding = false
			if !e.enter(w) {
				return false
			}
			e.dispatch(w, d.held, nil)
			d.held = nil
		}
	default:
		e.dirEntry(w, ent)
	}
	return true
}

// repeats counts the ancestors whose listing hashed as h.
func repeats(anc []uint64, h uint64) int {
	n := 0
	for _, a := range anc {
		if a == h {
			n++
		}
	}
	return n
}

// loopCheckMax bounds the entries of one listing held back to compare it
// with its ancestors' (as many as the queue holds in memory); a longer
// listing streams, and MaxDepth bounds a loop through it.
const loopCheckMax = memJobs

// dirWalk is one listing being walked.
type dirWalk struct {
	j       job
	key     string
	deeper  bool     // its directories are listed (Options.Depth)
	anc     []uint64 // Anc of its directories' jobs
	entered bool
	// partial: something it named was left out (too deep, an unparsed
	// line), so it proves no file gone.
	partial bool
}

// enter makes the listing's directory, once; false (the failure recorded)
// when it cannot be made.
func (e *ftpWalker) enter(w *dirWalk) bool {
	if w.entered || e.opts.DryRun {
		w.entered = true
		return true
	}
	if err := e.ensureDir(w.j.Path); err != nil {
		e.fail(w.j.URL, w.j.Path, err)
		e.listingFailed()
		return false
	}
	w.entered = true
	return true
}

// dispatch queues held entries, then the chosen version of each name.
func (e *ftpWalker) dispatch(w *dirWalk, held []schemes.Entry, versions map[string]schemes.Entry) {
	for _, ent := range held {
		e.dirEntry(w, ent)
	}
	names := make([]string, 0, len(versions))
	for n := range versions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ent := versions[n]
		e.logf("version %s;%d is the highest of %s", ent.Name, ent.Version, join(w.j.Path, ent.Name))
		e.dirEntry(w, ent)
	}
}

// unparsed notes a listing line the client could not read.
func (e *engine) unparsed(j job, line string) {
	e.mu.Lock()
	e.sum.Unparsed++
	if len(e.sum.UnparsedLines) < maxListed {
		e.sum.UnparsedLines = append(e.sum.UnparsedLines, UnparsedLine{URL: j.URL, Path: j.Path, Line: line})
	}
	e.mu.Unlock()
	e.logf("unparsed line in %s: %q", j.URL, line)
}

// listingHash sums a listing's names, types, sizes and times, in any
// order: two listings of one directory hash alike.
type listingHash struct{ sum, n, files uint64 }

func (h *listingHash) add(ent schemes.Entry) {
	if ent.Type != schemes.TypeDir {
		h.files++
	}
	v := fnv64(ent.Name + "\x00" + ent.Type + "\x00" + strconv.FormatInt(ent.Size, 10) + "\x00" + strconv.Itoa(ent.Version) +
		"\x00" + strconv.FormatInt(ent.Modified.Unix(), 10))
	// A mix per entry, so that sums of different entries rarely meet.
	v ^= v >> 31
	v *= 0x9e3779b97f4a7c15
	v ^= v >> 29
	h.sum += v
	h.n++
}

func (h *listingHash) sum64() uint64 { return h.sum ^ (h.n * 0xbf58476d1ce4e5b9) }

// proof is how many ancestors' listings a listing must repeat to be taken
// for a loop. One, when it names a file: the same files, with the same
// sizes and times, a level down are a directory that contains itself. Two
// when it names directories only: a generated tree repeats its directory
// names (and times) a level down (tree/d00/ lists d00 ... d09 as tree/
// does), but only a directory that contains itself goes on repeating, at
// the cost of one level walked twice.
func (h *listingHash) proof() int {
	if h.files > 0 {
		return 1
	}
	return 2
}

// openListing fetches j's listing (or takes pre, fetched already); nil,
// with the failure recorded, when it cannot be had or is not a listing.
func (e *engine) openListing(ctx context.Context, j job, pre *fetch.Response, what string) *fetch.Response {
	resp := pre
	if resp == nil {
		var err error
		if resp, err = e.get(ctx, nil, &fetch.Request{URL: j.URL, Call: schemes.Call{DirTimes: true}}); err != nil {
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
func (e *ftpWalker) dirEntry(w *dirWalk, ent schemes.Entry) {
	j := w.j
	name := ent.Name
	if ent.Version > 0 && e.opts.AllVersions {
		name += ";" + strconv.Itoa(ent.Version)
	}
	p, err := child(j.Path, name)
	if err != nil {
		e.refuse(name, ent.URL, err)
		return
	}
	switch ent.Type {
	case schemes.TypeLink:
		e.symlink(w, p, ent)
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
	if ent.Type == schemes.TypeDir && !w.deeper {
		return
	}
	if e.tooDeep(w, p) {
		return
	}
	if ent.Type == schemes.TypeDir {
		sub := job{Op: opList, URL: ent.URL, Path: p, From: w.key, Depth: j.Depth + 1, Name: name, Size: -1,
			Mod: ent.Modified, Prec: ent.Precision, Anc: w.anc}
		if j.Remote != "" && !e.followed(w, &sub, path.Join(j.Remote, ent.Name)) {
			return
		}
		e.q.push(sub)
		return
	}
	e.filesTotal.Add(1)
	fj := job{Op: opFile, URL: binaryFTP(ent.URL), Path: p, From: w.key, Depth: j.Depth + 1,
		Name: name, Size: ent.Size, Mod: ent.Modified, Prec: ent.Precision}
	if ent.Hash.Alg != "" {
		fj.Hash = ent.Hash.Alg + ":" + ent.Hash.Hex
	}
	e.q.push(fj)
}

// maxDepth is the run's Options.MaxDepth, 0 for none.
func (e *ftpWalker) maxDepth() int { return bound(e.opts.MaxDepth, DefaultMaxDepth) }

// bound reads an option whose zero value means def and whose negative
// values mean none (0).
func bound(v, def int) int {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	}
	return v
}

// tooDeep reports, counting it, that the item p of w lies deeper than
// MaxDepth.
func (e *ftpWalker) tooDeep(w *dirWalk, p string) bool {
	if m := e.maxDepth(); m == 0 || w.j.Depth+1 <= m {
		return false
	}
	w.partial = true
	e.count(&e.sum.TooDeep)
	e.logf("too deep %s (more than %d levels)", p, e.maxDepth())
	return true
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
