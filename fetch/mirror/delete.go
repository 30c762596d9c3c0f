package mirror

import (
	"context"
	"sort"
	"strings"
)

// deleteVanished removes local files that vanished remotely (Options.Delete). A
// file counts as vanished only when this run did not see it and the
// listing that named it was read to its end (or itself vanished from a
// listing read to its end): a listing that failed, or lay beyond Options.Depth,
// proves nothing, and its files stay.
func (e *engine) deleteVanished(ctx context.Context) {
	if e.st == nil {
		return
	}
	e.mu.Lock()
	fails := e.listFails
	e.mu.Unlock()
	if fails > 0 {
		e.logf("%d listings could not be read to their end: their files are kept", fails)
	}
	e.st.flush()
	complete := e.listingsRead()
	dirs := map[string]bool{}
	e.st.scanFiles(func(path string, rec record) {
		if e.st.ro {
			// A dry run's own records are in the overlay.
			r, ok := e.st.getFile(path)
			if !ok {
				return
			}
			rec = r
		}
		if ctx.Err() != nil || rec.Run == e.run || !complete(rec.From) || e.keptByFilter(path) {
			return
		}
		if e.opts.DryRun {
			if rec.Kind != kindLink || rec.Created {
				e.plan("delete", rec.URL, path)
			}
			return
		}
		e.deleteFile(path, rec)
		for d := parent(path); d != ""; d = parent(d) {
			dirs[d] = true
		}
	})
	if !e.opts.DryRun {
		e.deleteEmptyDirs(dirs)
	}
}

// listingsRead returns whether a listing key was read to its end this
// run, or vanished itself (its own listing was read and named it no
// more).
func (e *engine) listingsRead() func(key string) bool {
	memo := map[string]bool{}
	var gone func(key string) bool
	complete := func(key string) bool {
		lr, ok := e.st.getListing(key)
		return ok && (lr.Listed == e.run || gone(key))
	}
	gone = func(key string) bool {
		if v, ok := memo[key]; ok {
			return v
		}
		memo[key] = false // a cycle of From links proves nothing
		lr, ok := e.st.getListing(key)
		v := ok && lr.Seen != e.run && lr.From != "" && complete(lr.From)
		memo[key] = v
		return v
	}
	return complete
}

// deleteFile deletes what the state records at path: a file, or a link
// this mirror made and still as it made it; its partial copy and its
// record go with it.
func (e *engine) deleteFile(path string, rec record) {
	switch {
	case rec.Kind != kindLink:
		if fi, err := e.root.Lstat(path); err == nil && !fi.IsDir() {
			if e.root.Remove(path) == nil {
				e.count(&e.sum.Deleted)
				e.logf("deleted %s", path)
			}
		}
	case rec.Created && e.isLink(path, rec.Target):
		if e.root.Remove(path) == nil {
			e.count(&e.sum.Deleted)
			e.logf("deleted link %s", path)
		}
	}
	if rec.Tmp != "" {
		e.root.Remove(e.tmpPath(rec.Tmp))
		e.st.delTemp(rec.Tmp)
	}
	e.st.delFile(path)
}

// deleteEmptyDirs removes the directories of dirs left empty, deepest
// first, unless the remote still has them (a listing of that path was
// seen this run).
func (e *engine) deleteEmptyDirs(dirs map[string]bool) {
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Slice(list, func(a, b int) bool { return strings.Count(list[a], "/") > strings.Count(list[b], "/") })
	for _, d := range list {
		if lr, ok := e.st.getListing(dirKey(d)); ok && lr.Seen == e.run {
			continue
		}
		if e.root.Remove(d) == nil {
			e.st.delListing(dirKey(d))
		}
	}
}
