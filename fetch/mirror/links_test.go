package mirror

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// srcTree builds a local tree to mirror over file: URLs. files maps a
// '/'-separated path to its content, links a path to its target.
func srcTree(t *testing.T, files, links map[string]string) string {
	t.Helper()
	src := t.TempDir()
	for p, data := range files {
		full := filepath.Join(src, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, target := range links {
		full := filepath.Join(src, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, full); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

func fileURL(dir string) string { return "file://" + filepath.ToSlash(dir) + "/" }

// snapshot lists every path below dir but skip (a directory below dir),
// with its kind, size and link target: what must not change.
func snapshot(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fmt.Sprintf("%v %d", fi.Mode(), fi.Size())
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			v += " -> " + target
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// links returns every symlink below dir (outside .gofer) with its target,
// and the regular files with their content.
func linksAndFiles(t *testing.T, dir string) (links, files map[string]string) {
	t.Helper()
	links, files = map[string]string{}, map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == stateDir:
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			links[rel] = target
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return links, files
}

func sortedKeys(m map[string]string) string { return strings.Join(keys(m), "|") }

func TestSymlinksKeepMakesRelativeLinksInsideDirOnly(t *testing.T) {
	src := srcTree(t, map[string]string{"a.txt": "alpha", "sub/b.txt": "beta", "kind": "a file, then a link"},
		map[string]string{
			"rel":      "a.txt",
			"sub/up":   "../a.txt",
			"dirlink":  "sub",
			"self":     ".",
			"messy":    "./sub//../a.txt",
			"out":      "../../outside",
			"abs":      "/etc/passwd",
			"sub/top":  "../..",
			"state":    ".gofer/state.db",
			"sub/back": "..",
		})
	outer := t.TempDir()
	dir := filepath.Join(outer, "mirror")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A link someone else made in DIR is never replaced.
	if err := os.Symlink(filepath.Join(outer, "elsewhere"), filepath.Join(dir, "planted")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(src, "planted")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, outer, dir)
	c := newClient()
	sum, err := Run(context.Background(), c, fileURL(src), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	links, files := linksAndFiles(t, dir)
	want := map[string]string{"rel": "a.txt", "sub/up": "../a.txt", "dirlink": "sub", "self": ".", "messy": "a.txt", "sub/back": "..",
		"planted": filepath.Join(outer, "elsewhere")}
	if sortedKeys(links) != sortedKeys(want) {
		t.Fatalf("links %q, want %q", links, want)
	}
	for k, v := range want {
		if links[k] != v {
			t.Errorf("%s -> %q, want %q", k, links[k], v)
		}
	}
	// Only real files: nothing was fetched through a link (dirlink/b.txt is not a file of its own).
	if sortedKeys(files) != "a.txt|kind|sub/b.txt" {
		t.Errorf("files %q", sortedKeys(files))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "up")); err != nil || string(b) != "alpha" {
		t.Errorf("sub/up does not lead to a.txt: %q, %v", b, err)
	}
	if sum.Links != 6 || sum.LinksSkipped != 4 || sum.Failed != 1 || sum.New != 3 {
		t.Errorf("summary: links %d skipped %d failed %d new %d, want 6 4 1 3 (%+v)", sum.Links, sum.LinksSkipped, sum.Failed, sum.New, sum.Failures)
	}
	if after := snapshot(t, outer, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("outside DIR changed:\n%v\nwas\n%v", after, before)
	}

	// A rerun leaves unchanged links alone, replaces a changed one, and
	// replaces a file it wrote that became a link.
	os.Remove(filepath.Join(src, "rel"))
	os.Symlink("sub/b.txt", filepath.Join(src, "rel"))
	os.Remove(filepath.Join(src, "kind"))
	os.Symlink("a.txt", filepath.Join(src, "kind"))
	sum, err = Run(context.Background(), c, fileURL(src), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	links, _ = linksAndFiles(t, dir)
	if links["rel"] != "sub/b.txt" || links["kind"] != "a.txt" || links["self"] != "." || sum.Links != 7 {
		t.Errorf("rerun: links %q, summary links %d", links, sum.Links)
	}
	// Vanished links go with --delete; one the mirror did not make stays.
	os.Remove(filepath.Join(src, "rel"))
	os.Remove(filepath.Join(src, "planted"))
	sum, err = Run(context.Background(), c, fileURL(src), dir, Options{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	links, _ = linksAndFiles(t, dir)
	if _, ok := links["rel"]; ok || sum.Deleted != 1 || links["planted"] == "" {
		t.Errorf("delete: links %q, deleted %d", links, sum.Deleted)
	}
	if after := snapshot(t, outer, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("outside DIR changed by the reruns")
	}
}

func TestSymlinksFollowFetchesWhatLinksNameAndEndsLoops(t *testing.T) {
	src := srcTree(t, map[string]string{"a.txt": "alpha", "sub/b.txt": "beta"},
		map[string]string{
			"filelink": "a.txt",
			"dirlink":  "sub",
			"loop":     ".",
			"sub/back": "..",
		})
	outer := t.TempDir()
	dir := filepath.Join(outer, "mirror")
	before := snapshot(t, outer, dir)
	sum, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{Symlinks: SymlinksFollow})
	if err != nil {
		t.Fatal(err)
	}
	links, files := linksAndFiles(t, dir)
	if len(links) != 0 {
		t.Errorf("links made while following: %q", links)
	}
	want := map[string]string{"a.txt": "alpha", "sub/b.txt": "beta", "filelink": "alpha", "dirlink/b.txt": "beta"}
	if fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("files %q, want %q", files, want)
	}
	// loop -> . and sub/back -> .. name directories they lie in, and so
	// does dirlink/back (dirlink is sub): none is listed.
	if sum.Loops != 3 || sum.Links != 2 || sum.Failed != 0 {
		t.Errorf("summary: loops %d links %d failed %d, want 3 2 0 (%+v)", sum.Loops, sum.Links, sum.Failed, sum.Failures)
	}
	if after := snapshot(t, outer, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("outside DIR changed")
	}
}

func TestSymlinksSkip(t *testing.T) {
	src := srcTree(t, map[string]string{"a.txt": "alpha"}, map[string]string{"l1": "a.txt", "l2": "."})
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{Symlinks: SymlinksSkip})
	if err != nil {
		t.Fatal(err)
	}
	links, files := linksAndFiles(t, dir)
	if len(links) != 0 || sortedKeys(files) != "a.txt" || sum.Links != 0 || sum.LinksSkipped != 2 {
		t.Errorf("links %q files %q, summary links %d skipped %d", links, files, sum.Links, sum.LinksSkipped)
	}
	if _, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{Symlinks: "maybe"}); err == nil {
		t.Error("an unknown --symlinks mode was accepted")
	}
}

// loopFTP is a server that lists a link to a directory as the directory
// it names: every path is a directory holding "a" (itself again) and a
// file. With grow, each level's file has its own name, so no listing
// repeats another.
type loopFTP struct {
	grow     bool
	listings int
}

func (l *loopFTP) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	u, err := schemes.Parse("ftp:" + req.URL.Opaque)
	if err != nil {
		return nil, err
	}
	u.Scheme = "x-loop"
	segs := u.FTP.Segments
	if n := len(segs); n > 0 && segs[n-1] == "" {
		segs = segs[:n-1]
	}
	if n := len(segs); n > 0 && strings.HasPrefix(segs[n-1], "f") {
		return &schemes.Response{URL: u, Kind: schemes.KindFile, Body: io.NopCloser(strings.NewReader("f")), Size: 1,
			Name: segs[n-1], Type: schemes.TypeFile, Modified: testTime}, nil
	}
	l.listings++
	name := "f"
	if l.grow {
		name = fmt.Sprintf("f%d", len(segs))
	}
	at := func(n string, dir bool) string {
		s := append(append([]string(nil), segs...), n)
		if dir {
			s = append(s, "")
		}
		return (&schemes.URL{Scheme: "x-loop", Host: testHost, FTP: &schemes.FTP{Segments: s}}).String()
	}
	ents := []schemes.Entry{
		{Name: "a", Type: schemes.TypeDir, URL: at("a", true), Size: -1, Modified: testTime},
		{Name: name, Type: schemes.TypeFile, URL: at(name, false), Size: 1, Modified: testTime},
	}
	return &schemes.Response{URL: u, Kind: schemes.KindListing, Size: -1, Listing: &genListing{ents: ents}}, nil
}

func TestLoopListedAsDirectoryEnds(t *testing.T) {
	l := &loopFTP{}
	c := newClient()
	c.Register("x-loop", l)
	dir := t.TempDir()
	sum, err := Run(context.Background(), c, "x-loop://127.0.0.1/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// "a" lists as the root did, the same file included: a probable loop,
	// neither created nor entered.
	if got := keys(tree(t, dir)); strings.Join(got, "|") != "f" || sum.Loops != 1 || sum.New != 1 || l.listings != 2 {
		t.Errorf("tree %q, loops %d, new %d, listings %d", got, sum.Loops, sum.New, l.listings)
	}
}

// A directory that names directories only and lists as its parent did,
// once, is walked: generated trees repeat their directory names a level
// down (tree/ and tree/d00/ both list d00 ... d09, with the same times).
func TestListingLikeItsParentOnceIsNoLoop(t *testing.T) {
	m := newMemFTP()
	for _, d := range []string{"d0", "d1"} {
		for _, e := range []string{"d0", "d1"} {
			m.file("tree/"+d+"/"+e+"/f", d+e)
		}
	}
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/tree/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	if got["d0/d0/f"] != "d0d0" || got["d0/d1/f"] != "d0d1" || got["d1/d0/f"] != "d1d0" || got["d1/d1/f"] != "d1d1" || sum.Loops != 0 {
		t.Errorf("tree %q, loops %d", keys(got), sum.Loops)
	}
}

func TestMaxDepthEndsALoopThatNeverRepeats(t *testing.T) {
	for _, max := range []int{5, 0} {
		l := &loopFTP{grow: true}
		cl := newClient()
		cl.Register("x-loop", l)
		dir := t.TempDir()
		sum, err := Run(context.Background(), cl, "x-loop://127.0.0.1/", dir, Options{MaxDepth: max})
		if err != nil {
			t.Fatal(err)
		}
		levels := max
		if max == 0 {
			levels = DefaultMaxDepth
		}
		// Each level's file is fetched, down to the limit; the listing at
		// the limit names two items (a and its file) too deep.
		if sum.New != int64(levels) || sum.TooDeep != 2 || sum.Loops != 0 || l.listings != levels+1 {
			t.Errorf("max depth %d: new %d, too deep %d, loops %d, listings %d; want %d, 2, 0, %d",
				max, sum.New, sum.TooDeep, sum.Loops, l.listings, levels, levels+1)
		}
		deepest := strings.Repeat("a/", levels-1) + fmt.Sprintf("f%d", levels-1)
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(deepest))); err != nil {
			t.Errorf("max depth %d: deepest file missing: %v", max, err)
		}
	}
	// --exclude a/ still leaves the directory out at once.
	l := &loopFTP{grow: true}
	cl := newClient()
	cl.Register("x-loop", l)
	sum, err := Run(context.Background(), cl, "x-loop://127.0.0.1/", t.TempDir(), Options{Filters: []Filter{{Exclude: true, Glob: "a/"}}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 1 || sum.Excluded != 1 || sum.TooDeep != 0 || l.listings != 1 {
		t.Errorf("--exclude a/: new %d excluded %d too deep %d listings %d", sum.New, sum.Excluded, sum.TooDeep, l.listings)
	}
}

func TestUnparsedLinesCountedListedAndKeepFilesFromDelete(t *testing.T) {
	m := newMemFTP()
	m.file("a", "a")
	m.file("b", "b")
	m.file("sub/c", "c")
	dir := t.TempDir()
	c := newClient(m)
	if _, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{}); err != nil {
		t.Fatal(err)
	}
	m.remove("b")
	m.remove("sub/c")
	m.nodes[""].extra = []schemes.Entry{{Name: "-rw-r--r-- what is this", Type: schemes.TypeUnparsed, Size: -1}}
	var logged []string
	sum, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{Delete: true,
		Log: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unparsed != 1 || len(sum.UnparsedLines) != 1 || sum.UnparsedLines[0].Line != "-rw-r--r-- what is this" {
		t.Errorf("unparsed %d: %+v", sum.Unparsed, sum.UnparsedLines)
	}
	if !strings.Contains(strings.Join(logged, "\n"), "what is this") {
		t.Errorf("the unparsed line was not logged: %q", logged)
	}
	got := tree(t, dir)
	// b's directory had an unparsed line: b stays. sub's listing was read
	// whole: its vanished c goes.
	if got["b"] != "b" || got["sub/c"] != "" || sum.Deleted != 1 {
		t.Errorf("tree %q, deleted %d", keys(got), sum.Deleted)
	}
	m.nodes[""].extra = nil
	sum, _ = Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{Delete: true})
	if _, ok := tree(t, dir)["b"]; ok || sum.Unparsed != 0 || sum.Deleted != 1 {
		t.Errorf("once the listing reads whole, b goes: deleted %d, unparsed %d", sum.Deleted, sum.Unparsed)
	}
}

// vmsFTP lists three versions of README.TXT and one of a plain name, each
// version's URL naming it exactly.
func vmsFTP() *memFTP {
	m := newMemFTP()
	m.file("PLAIN.TXT", "plain")
	for _, v := range []int{1, 3, 2} {
		name := fmt.Sprintf("README.TXT;%d", v)
		m.file("v/"+name, fmt.Sprintf("version %d", v))
		m.nodes["v/"+name].hidden = true
		m.nodes[""].extra = append(m.nodes[""].extra, schemes.Entry{Name: "README.TXT", Version: v, Type: schemes.TypeFile,
			URL: m.url([]string{"v", name}, false), Size: 9, Modified: testTime})
	}
	m.nodes["v"].hidden = true
	return m
}

func TestVMSHighestVersionUnderThePlainName(t *testing.T) {
	m := vmsFTP()
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	if sortedKeys(got) != "PLAIN.TXT|README.TXT" || got["README.TXT"] != "version 3" || sum.New != 2 {
		t.Errorf("tree %q, summary %+v", got, sum)
	}
	if m.bodyCount("v/README.TXT;1")+m.bodyCount("v/README.TXT;2") != 0 {
		t.Error("a lower version was fetched")
	}
}

func TestVMSAllVersions(t *testing.T) {
	m := vmsFTP()
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{AllVersions: true})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	want := map[string]string{"PLAIN.TXT": "plain", "README.TXT;1": "version 1", "README.TXT;2": "version 2", "README.TXT;3": "version 3"}
	if fmt.Sprint(got) != fmt.Sprint(want) || sum.New != 4 {
		t.Errorf("tree %q, summary %+v", got, sum)
	}
}

func TestSymlinksFollowLeavingTheStartOnlyWithoutNoParent(t *testing.T) {
	other := srcTree(t, map[string]string{"elsewhere.txt": "other"}, nil)
	src := srcTree(t, map[string]string{"a.txt": "alpha"}, map[string]string{"away": other, "near": "a.txt"})
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{Symlinks: SymlinksFollow, NoParent: true})
	if err != nil {
		t.Fatal(err)
	}
	_, files := linksAndFiles(t, dir)
	if sortedKeys(files) != "a.txt|near" || sum.LinksSkipped != 1 || sum.Links != 1 {
		t.Errorf("--no-parent: files %q, links %d skipped %d", files, sum.Links, sum.LinksSkipped)
	}
	dir = t.TempDir()
	sum, err = Run(context.Background(), newClient(), fileURL(src), dir, Options{Symlinks: SymlinksFollow})
	if err != nil {
		t.Fatal(err)
	}
	_, files = linksAndFiles(t, dir)
	if files["away/elsewhere.txt"] != "other" || sum.Links != 2 {
		t.Errorf("without --no-parent: files %q, links %d", files, sum.Links)
	}
}

func TestSymlinksKeepDryRunMakesNothing(t *testing.T) {
	src := srcTree(t, map[string]string{"a.txt": "alpha"}, map[string]string{"l": "a.txt"})
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	links, files := linksAndFiles(t, dir)
	if len(links) != 0 || len(files) != 0 || sum.Links != 1 || len(sum.Planned) != 2 {
		t.Fatalf("dry run: links %q files %q, summary %+v", links, files, sum)
	}
	for _, p := range sum.Planned {
		if p.Path == "l" && p.Action != "link" {
			t.Errorf("planned %+v, want a link", p)
		}
	}
}

func TestSymlinksFollowUnknownTargetIsNoLoop(t *testing.T) {
	m := newMemFTP()
	m.file("a", "alpha")
	// A listing that says a name is a link but not where it points.
	m.nodes[""].extra = []schemes.Entry{{Name: "l", Type: schemes.TypeLink, URL: "x-ftp://127.0.0.1/a", Size: -1}}
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Symlinks: SymlinksFollow})
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); got["l"] != "alpha" || sum.Loops != 0 || sum.Links != 1 {
		t.Errorf("tree %q, loops %d, links %d", got, sum.Loops, sum.Links)
	}
}
