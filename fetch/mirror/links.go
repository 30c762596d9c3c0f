package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Symlinks a listing names (Options.Symlinks):
//
//   - keep: a link whose target, resolved lexically from the link's own
//     directory with each segment taken as a local name, stays inside
//     DIR is made as a relative symlink; any other (absolute, above DIR,
//     into .gofer, or a segment the safe-name rule refuses) is skipped.
//     A link to a directory is made as the link alone. The link is
//     recorded (kind link, Created), so that a rerun leaves it, replaces
//     it when its target changed, and Options.Delete removes it once it
//     vanished. A path in the way is replaced only when it is what an
//     earlier run wrote there.
//   - follow: the link's URL is fetched and saved, or walked when it
//     answers a listing, under the link's name. The walk keeps each
//     listing's remote directory (resolved lexically) with those of its
//     ancestors, and never lists one below itself; MaxDepth bounds the
//     rest. A link may lead anywhere on the server; with NoParent one
//     leading out of the starting directory is skipped.
//   - skip: counted, nothing made or fetched.
//
// Nothing is written through a link: every write goes through e.root,
// and a link met on the way to a file is replaced by a directory (ensureDir).

// symlink takes the link entry ent, at the local path p of listing w.
func (e *ftpWalker) symlink(w *dirWalk, p string, ent schemes.Entry) {
	switch e.opts.Symlinks {
	case SymlinksSkip:
		e.count(&e.sum.LinksSkipped)
		e.logf("link %s -> %q skipped", p, ent.Target)
	case SymlinksFollow:
		e.followLink(w, p, ent)
	default:
		e.keepLink(w, p, ent)
	}
}

// linkTarget resolves the link target from the local directory dir: the
// cleaned relative target to write, or why it may not be made.
func linkTarget(dir, target string) (string, error) {
	if target == "" {
		return "", errors.New("its target is not known")
	}
	if strings.HasPrefix(target, "/") {
		return "", errors.New("its target is absolute")
	}
	var at []string // the resolved path, from the top of DIR
	if dir != "" {
		at = strings.Split(dir, "/")
	}
	for seg := range strings.SplitSeq(target, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(at) == 0 {
				return "", errors.New("its target leaves the mirror")
			}
			at = at[:len(at)-1]
			continue
		}
		if err := security.SafeName(seg); err != nil {
			return "", fmt.Errorf("its target: %w", err)
		}
		at = append(at, seg)
	}
	if len(at) > 0 && at[0] == stateDir {
		return "", errors.New("its target is the mirror's state")
	}
	// path.Clean leaves only leading ".." segments, each of which steps
	// out of a real directory this mirror made: the system resolves the
	// link as it was resolved here.
	return path.Clean(target), nil
}

// keepLink makes (or keeps) the link p -> ent.Target.
func (e *ftpWalker) keepLink(w *dirWalk, p string, ent schemes.Entry) {
	target, err := linkTarget(w.j.Path, ent.Target)
	if err != nil {
		e.count(&e.sum.LinksSkipped)
		e.logf("link %s -> %q skipped: %v", p, ent.Target, err)
		return
	}
	if e.excluded(p, ent.URL, false) {
		return
	}
	rec := record{URL: ent.URL, Kind: kindLink, Target: target, Created: true, Run: e.run, From: w.key, Size: -1}
	if e.opts.DryRun {
		old, ok := e.st.getFile(p)
		if !ok || !old.Created || old.Target != target || !e.isLink(p, target) {
			e.mu.Lock()
			if len(e.sum.Planned) < maxPlanned {
				e.sum.Planned = append(e.sum.Planned, Planned{Action: "link", URL: ent.URL, Path: p})
			}
			e.mu.Unlock()
			e.logf("would link %s -> %s", p, target)
		}
		e.st.putFile(p, rec)
		e.count(&e.sum.Links)
		return
	}
	made, err := e.makeLink(p, target)
	if err != nil {
		e.fail(ent.URL, p, fmt.Errorf("link %s -> %s: %w", p, target, err))
		return
	}
	e.st.putFile(p, rec)
	e.count(&e.sum.Links)
	if made {
		e.logf("link %s -> %s", p, target)
	} else {
		e.logf("unchanged link %s", p)
	}
}

// isLink reports whether the local path p is a symlink to target.
func (e *engine) isLink(p, target string) bool {
	if e.root == nil {
		return false
	}
	got, err := e.root.Readlink(p)
	return err == nil && got == target
}

// makeLink makes p a symlink to target; made is false when it was one
// already. What is in the way is replaced only when an earlier run wrote
// it: a link it made (and still as it made it), or a file it recorded.
func (e *ftpWalker) makeLink(p, target string) (made bool, err error) {
	if err := e.ensureDir(parent(p)); err != nil {
		return false, err
	}
	fi, err := e.root.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case fi.Mode()&fs.ModeSymlink != 0:
		got, err := e.root.Readlink(p)
		if err != nil {
			return false, err
		}
		if got == target {
			return false, nil
		}
		if rec, ok := e.st.getFile(p); !ok || rec.Kind != kindLink || !rec.Created || rec.Target != got {
			return false, fmt.Errorf("local path %q is a symlink this mirror did not make", p)
		}
	case fi.IsDir():
		// A directory the remote turned into a link: only an empty one
		// goes (Options.Delete empties one whose listing vanished).
		if err := e.root.Remove(p); err != nil {
			return false, fmt.Errorf("local path %q is a directory", p)
		}
	default:
		if rec, ok := e.st.getFile(p); !ok || rec.Kind != kindFile || rec.Run == e.run {
			return false, fmt.Errorf("local path %q is a file this mirror did not write", p)
		}
	}
	// Made beside the state's temporary files, then renamed into place:
	// rename(2) replaces a link or file at p itself, never its target.
	tmp := tmpName(p)
	e.tmp.Remove(tmp)
	if err := e.tmp.Symlink(target, tmp); err != nil {
		return false, err
	}
	if err := e.root.Rename(e.tmpPath(tmp), p); err != nil {
		e.tmp.Remove(tmp)
		return false, err
	}
	return true, nil
}

// followLink queues the link ent at p to be fetched as what it names.
func (e *ftpWalker) followLink(w *dirWalk, p string, ent schemes.Entry) {
	j := w.j
	if ent.URL == "" || !e.site.sameServer(ent.URL) {
		e.count(&e.sum.Recorded)
		e.logf("recorded %s (%s, another server)", p, ent.URL)
		return
	}
	// Whether it names a file or a directory is known once it is fetched:
	// the filters leave it out here only when they would either way.
	rel := e.relPath(p)
	if fs := e.filters(); !fs.allows(rel, false) && !fs.allows(rel, true) {
		e.excluded(p, ent.URL, false)
		return
	}
	if e.tooDeep(w, p) {
		return
	}
	sub := job{Op: opFollow, URL: ent.URL, Path: p, From: w.key, Depth: j.Depth + 1, Name: ent.Name, Size: -1,
		Anc: w.anc}
	// A link whose target the listing does not give is followed without a
	// remote path: below it the listing hash and MaxDepth end loops.
	if j.Remote != "" && ent.Target != "" {
		remote := ent.Target
		if !strings.HasPrefix(remote, "/") {
			remote = path.Join(j.Remote, remote)
		}
		remote = path.Clean(remote)
		if e.opts.NoParent && e.rootRemote != "" && !under(remote, e.rootRemote) {
			e.count(&e.sum.LinksSkipped)
			e.logf("link %s -> %q skipped: it leads out of the starting directory", p, ent.Target)
			return
		}
		if !e.followed(w, &sub, remote) {
			return
		}
	}
	e.count(&e.sum.Links)
	e.q.push(sub)
}

// followed sets the remote directory of sub, a listing below w (or a link
// to follow from it), and reports whether it may be walked: false, the
// loop counted, when it is w's own directory or one above it.
func (e *ftpWalker) followed(w *dirWalk, sub *job, remote string) bool {
	sub.Remote = remote
	sub.Real = append(slices.Clip(w.j.Real), fnv64(w.j.Remote))
	if slices.Contains(sub.Real, fnv64(remote)) {
		e.count(&e.sum.Loops)
		e.logf("loop %s: it names %s, a directory it lies in, not entered", sub.Path, remote)
		return false
	}
	return true
}

// follow fetches a link to follow: a listing is walked, anything else
// saved as a file. The link's URL is asked for as a binary file first
// (FTP), and as a directory when the server refuses that.
func (e *ftpWalker) follow(ctx context.Context, j job) {
	resp, err := e.get(ctx, nil, &fetch.Request{URL: binaryFTP(j.URL), Call: schemes.Call{DirTimes: true}})
	if err != nil && errors.Is(err, schemes.ErrRefused) && !strings.HasSuffix(j.URL, "/") && isFTP(j.URL) {
		resp, err = e.get(ctx, nil, &fetch.Request{URL: j.URL + "/", Call: schemes.Call{DirTimes: true}})
	}
	if err != nil {
		e.fail(j.URL, j.Path, err)
		// What an earlier run took through the link, file or directory,
		// is not proved gone: Options.Delete keeps it.
		if rec, ok := e.st.getFile(j.Path); ok {
			rec.Run = e.run
			e.st.putFile(j.Path, rec)
		}
		if _, ok := e.st.getListing(dirKey(j.Path)); ok {
			j.Op = opList
			e.seenListing(dirKey(j.Path), j)
		}
		e.listingFailed()
		return
	}
	if resp.Kind == schemes.KindListing && resp.Listing != nil {
		if e.excluded(j.Path, j.URL, true) {
			resp.Close()
			return
		}
		j.Op = opList
		e.listDir(ctx, j, resp)
		return
	}
	if e.excluded(j.Path, j.URL, false) {
		resp.Close()
		return
	}
	e.filesTotal.Add(1)
	j.Op = opFile
	e.file(ctx, j, resp)
}

// under reports whether the remote path p is dir or lies below it.
func under(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

func isFTP(ref string) bool {
	u, err := url.Parse(ref)
	return err == nil && (strings.EqualFold(u.Scheme, "ftp") || strings.EqualFold(u.Scheme, "ftps"))
}

// remotePath is the path of a URL, as the remote directory a listing
// walk starts from; "" when it cannot be read (no loop is then looked for
// by path, MaxDepth alone bounds the walk).
func remotePath(ref string) string {
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	return path.Clean("/" + u.Path)
}
