package mirror

import (
	"path"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// Filter is one include or exclude rule (Options.Filters): a glob (path.Match syntax:
// '*' and '?' never match '/', "[...]" a class, '\' quotes) matched on an
// item's path relative to the starting directory, menu or page.
//
// The rules are those of lftp's mirror: a pattern with N slashes matches
// the last N+1 components of the path, so "*.iso" matches every ISO
// image at any depth and "pub/*.iso" those of any directory named pub; a
// directory is matched with '/' appended ("tmp/" names every directory
// tmp, "tmp" only files). Of the rules that match an item, the last one
// decides; an item no rule matches is taken unless the first rule is an
// include. A directory is left out only when an exclude decides it, so
// an include of "*.txt" alone still walks every directory for text files.
type Filter struct {
	Exclude bool
	Glob    string
}

// filters are the rules of a run, checked once for syntax.
type filters []Filter

// CheckFilters reports the first rule that is not a glob pattern (an
// error matching schemes.ErrUsage), as Run would.
func CheckFilters(fs []Filter) error {
	_, err := compileFilters(fs)
	return err
}

func compileFilters(fs []Filter) (filters, error) {
	for _, f := range fs {
		if _, err := path.Match(f.Glob, ""); err != nil || f.Glob == "" {
			what := "include pattern"
			if f.Exclude {
				what = "exclude pattern"
			}
			return nil, schemes.Errorf(schemes.ErrUsage, "%s %q: not a glob pattern", what, f.Glob)
		}
	}
	return filters(fs), nil
}

// allows reports whether the item at rel (relative to the start,
// '/'-separated) is mirrored; dir says it is a directory (menu).
func (fs filters) allows(rel string, dir bool) bool {
	if len(fs) == 0 {
		return true
	}
	if dir {
		rel += "/"
	}
	for i := len(fs) - 1; i >= 0; i-- {
		if globMatch(fs[i].Glob, rel) {
			return !fs[i].Exclude
		}
	}
	return dir || fs[0].Exclude
}

// globMatch matches pattern on the last components of p, as many as the
// pattern has.
func globMatch(pattern, p string) bool {
	start, end := 0, len(p)
	for n := strings.Count(pattern, "/"); ; n-- {
		j := strings.LastIndexByte(p[:end], '/')
		if j < 0 {
			break // fewer components than the pattern: the whole path
		}
		if n == 0 {
			start = j + 1
			break
		}
		end = j
	}
	ok, _ := path.Match(pattern, p[start:])
	return ok
}

// relPath is a local path relative to the starting directory (Gopher
// items are stored by selector, below the starting menu's own path).
func (e *engine) relPath(p string) string {
	if e.site.rootPath != "" {
		if rest, ok := strings.CutPrefix(p, e.site.rootPath+"/"); ok {
			return rest
		}
	}
	return p
}

// excluded reports whether the filters leave out the local path p (a
// directory when dir), counting and logging it when they do.
func (e *engine) excluded(p, url string, dir bool) bool {
	if e.filters().allows(e.relPath(p), dir) {
		return false
	}
	e.count(&e.sum.Excluded)
	e.logf("excluded %s (%s)", p, url)
	e.emit(Event{Status: StatusExcluded, URL: url, Path: p}, nil)
	return true
}

// filters are the run's rules now.
func (e *engine) filters() filters { return *e.filt.Load() }

// dropped reports whether the rules now leave out the queued job j, or a
// directory on its way (a rule added while the run went on), counting it
// as excluded when they do.
func (e *engine) dropped(j job) bool {
	if e.opts.Control == nil {
		return false
	}
	fs, rel := e.filters(), e.relPath(j.Path)
	out := !fs.allows(rel, j.Op == opList || j.Op == opMenu)
	for d := parent(rel); !out && d != ""; d = parent(d) {
		out = !fs.allows(d, true)
	}
	if !out {
		return false
	}
	e.count(&e.sum.Excluded)
	e.logf("excluded %s (%s)", j.Path, j.URL)
	e.emit(Event{Status: StatusExcluded, URL: j.URL, Path: j.Path}, nil)
	return true
}

// keptByFilter reports whether the filters leave out the recorded file at
// p or a directory on its way: Options.Delete never removes such a file.
func (e *engine) keptByFilter(p string) bool {
	fs := e.filters()
	if len(fs) == 0 {
		return false
	}
	rel := e.relPath(p)
	if !fs.allows(rel, false) {
		return true
	}
	for d := parent(rel); d != ""; d = parent(d) {
		if !fs.allows(d, true) {
			return true
		}
	}
	return false
}

// filteredItem is excluded for a menu item, which many menus may list:
// counted and logged once.
func (e *engine) filteredItem(p string, ent schemes.Entry, menu bool) bool {
	if e.filters().allows(e.relPath(p), menu) {
		return false
	}
	if e.visit("x:" + gopherOf(ent).Selector) {
		e.excluded(p, ent.URL, menu)
	}
	return true
}
