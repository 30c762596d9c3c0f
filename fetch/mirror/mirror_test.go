package mirror

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// tree returns every path below dir (outside .gofer) with its content, "/"
// for directories; it fails on any symlink.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		if rel == stateDir {
			return filepath.SkipDir
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t.Errorf("symlink in the mirror: %s", rel)
		case d.IsDir():
			out[rel] = "/"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, stateDir, "tmp"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func sampleFTP() *memFTP {
	m := newMemFTP()
	m.file("README", "read me\n")
	m.file("pub/a.txt", "alpha\r\n")
	m.file("pub/b.bin", "\x00\x01\x02binary")
	m.file("pub/deep/er/c", "c")
	m.file("pub/with space", "space")
	m.file("pub/caf\xe9", "latin-1 name, not UTF-8")
	m.file("pub/Case", "upper")
	m.file("pub/case", "lower")
	m.link("pub/up", "../../etc/passwd")
	m.mkdirs("empty/x")
	delete(m.nodes, "empty/x")
	return m
}

func TestFTPTreeMirrorsByteExactSegmentBySegment(t *testing.T) {
	m := sampleFTP()
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	want := map[string]string{
		"README": "read me\n", "pub": "/", "pub/a.txt": "alpha\r\n", "pub/b.bin": "\x00\x01\x02binary",
		"pub/deep": "/", "pub/deep/er": "/", "pub/deep/er/c": "c", "pub/with space": "space",
		"pub/caf\xe9": "latin-1 name, not UTF-8", "pub/Case": "upper", "pub/case": "lower", "empty": "/",
	}
	if strings.Join(keys(got), "|") != strings.Join(keys(want), "|") {
		t.Fatalf("tree = %q\nwant %q", keys(got), keys(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if sum.New != 8 || sum.Links != 0 || sum.LinksSkipped != 1 || sum.Failed != 0 || sum.Refused != 0 || sum.Transfers != 8 {
		t.Errorf("summary %+v", sum)
	}
	if m.metaAsked != 0 {
		// The listing gave every file's size and time: no body request
		// should make the fetcher ask for them again.
		t.Errorf("%d bodies requested without SkipMetadata", m.metaAsked)
	}
	fi, err := os.Stat(filepath.Join(dir, "pub/a.txt"))
	if err != nil || !fi.ModTime().Equal(testTime) {
		t.Errorf("mtime of pub/a.txt = %v, want the listing's %v", fi.ModTime(), testTime)
	}
	if n := tempFiles(t, dir); len(n) != 0 {
		t.Errorf("temp files left: %q", n)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != stateDir && e.Name() != "README" && e.Name() != "pub" && e.Name() != "empty" {
			t.Errorf("unexpected entry in DIR: %q", e.Name())
		}
	}
}

func TestHostileListingRefusedNothingOutside(t *testing.T) {
	m := newMemFTP()
	m.file("ok", "fine")
	m.link("out", "/etc/passwd")
	m.link("up", "../../../../tmp")
	bad := []string{"../x", "/etc/x", "a/../../x", "nul\x00byte", "", "..", ".", `back\slash`, ".gofer"}
	for _, name := range bad {
		m.nodes[""].extra = append(m.nodes[""].extra, schemes.Entry{Name: name, Type: schemes.TypeFile,
			URL: "x-ftp://127.0.0.1/" + url.PathEscape(name), Size: 1, Modified: testTime})
	}
	m.nodes[""].extra = append(m.nodes[""].extra, schemes.Entry{Name: "../evil", Type: schemes.TypeDir, URL: "x-ftp://127.0.0.1/..%2Fevil/", Size: -1})
	outer := t.TempDir()
	dir := filepath.Join(outer, "mirror")
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// "." is the listing's own notation when typed dir; as a file it is refused.
	if sum.Refused != int64(len(bad)+1) {
		t.Errorf("refused %d, want %d: %+v", sum.Refused, len(bad)+1, sum.Refusals)
	}
	for _, r := range sum.Refusals {
		if !errors.Is(r.Err, security.ErrUnsafeName) {
			t.Errorf("refusal %q: %v does not match ErrUnsafeName", r.Name, r.Err)
		}
	}
	if got := keys(tree(t, dir)); strings.Join(got, "|") != "ok" {
		t.Errorf("tree = %q, want only ok", got)
	}
	if sum.Links != 0 || sum.LinksSkipped != 2 {
		// Both targets leave DIR: neither is made.
		t.Errorf("links made %d, skipped %d, want 0 and 2", sum.Links, sum.LinksSkipped)
	}
	ents, _ := os.ReadDir(outer)
	if len(ents) != 1 {
		t.Errorf("written beside DIR: %v", ents)
	}
	if m.totalBodies() != 1 {
		t.Errorf("bodies fetched = %d, want 1 (refused names are never fetched)", m.totalBodies())
	}
}

func TestSymlinkPlantedInDirIsNotWrittenThrough(t *testing.T) {
	m := newMemFTP()
	m.file("sub/file", "inside")
	m.file("top", "top")
	outer := t.TempDir()
	dir := filepath.Join(outer, "mirror")
	victim := filepath.Join(outer, "victim")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(victim, 0o755)
	if err := os.Symlink(victim, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(victim, "top"), filepath.Join(dir, "top")); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.New+sum.Updated != 2 {
		t.Errorf("summary %+v", sum)
	}
	if ents, _ := os.ReadDir(victim); len(ents) != 0 {
		t.Errorf("written through a symlink outside DIR: %v", ents)
	}
	got := tree(t, dir)
	if got["sub/file"] != "inside" || got["top"] != "top" {
		t.Errorf("tree %q", got)
	}
}

func TestSecondRunTransfersNothingAndChangedFileIsFetchedAgain(t *testing.T) {
	m := sampleFTP()
	dir := t.TempDir()
	c := newClient(m)
	if _, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{}); err != nil {
		t.Fatal(err)
	}
	before := m.totalBodies()
	sum, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.totalBodies() != before || sum.Transfers != 0 || sum.Bytes != 0 || sum.Unchanged != 8 {
		t.Fatalf("second run fetched %d bodies: %+v", m.totalBodies()-before, sum)
	}
	m.nodes["pub/a.txt"] = &memNode{data: []byte("alpha, changed"), mod: testTime.Add(time.Hour)}
	sum, err = Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.totalBodies() != before+1 || m.bodyCount("pub/a.txt") != 2 || sum.Updated != 1 || sum.Unchanged != 7 {
		t.Errorf("after one change: bodies %d, summary %+v", m.totalBodies()-before, sum)
	}
	if got := tree(t, dir)["pub/a.txt"]; got != "alpha, changed" {
		t.Errorf("pub/a.txt = %q", got)
	}
	// A local file removed by hand is fetched again, though the listing did not change.
	os.Remove(filepath.Join(dir, "README"))
	sum, _ = Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	if sum.New != 1 || tree(t, dir)["README"] != "read me\n" {
		t.Errorf("missing local file not restored: %+v", sum)
	}
}

func TestDeleteRemovesVanishedOnly(t *testing.T) {
	m := sampleFTP()
	dir := t.TempDir()
	c := newClient(m)
	if _, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{}); err != nil {
		t.Fatal(err)
	}
	m.remove("pub/b.bin")
	m.remove("pub/deep")
	sum, _ := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	if got := tree(t, dir); got["pub/b.bin"] == "" || sum.Deleted != 0 {
		t.Fatalf("without --delete a vanished file was removed: %+v", sum)
	}
	// Dry run: lists, removes nothing.
	sum, _ = Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{Delete: true, DryRun: true})
	if sum.Deleted != 2 || tree(t, dir)["pub/b.bin"] == "" {
		t.Fatalf("dry run delete: %+v", sum)
	}
	sum, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{Delete: true})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	if sum.Deleted != 2 || got["pub/b.bin"] != "" || got["pub/deep"] != "" || got["pub/a.txt"] == "" {
		t.Errorf("delete: %+v, tree %q", sum, keys(got))
	}
}

func TestDeleteKeepsFilesOfAFailedListing(t *testing.T) {
	m := sampleFTP()
	dir := t.TempDir()
	c := newClient(m)
	Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	// pub/deep can no longer be listed (the server refuses it): its files stay.
	m.nodes["pub/deep"] = &memNode{data: nil, mod: testTime.Add(time.Hour)}
	delete(m.nodes, "pub/deep/er")
	delete(m.nodes, "pub/deep/er/c")
	m.nodes["pub/deep"].dir = false
	m.nodes["pub/deep"].target = "x" // now a symlink, where a directory was
	sum, _ := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{Delete: true})
	got := tree(t, dir)
	if got["pub/deep/er/c"] != "" {
		// The directory vanished from a listing read to its end: its files go.
		t.Errorf("pub/deep/er/c kept, summary %+v", sum)
	}
	m2 := sampleFTP()
	dir2 := t.TempDir()
	c2 := newClient(m2)
	Run(context.Background(), c2, "x-ftp://127.0.0.1/", dir2, Options{})
	delete(m2.nodes, "pub/deep/er") // pub/deep/er/c is orphaned: listing pub/deep/er fails
	m2.nodes["pub/deep"].extra = []schemes.Entry{{Name: "er", Type: schemes.TypeDir, URL: "x-ftp://127.0.0.1/pub/deep/er/", Size: -1}}
	delete(m2.nodes, "pub/deep/er/c")
	sum, _ = Run(context.Background(), c2, "x-ftp://127.0.0.1/", dir2, Options{Delete: true})
	if tree(t, dir2)["pub/deep/er/c"] != "c" || sum.Failed != 1 || sum.Deleted != 0 {
		t.Errorf("a failed listing's file was deleted: %+v", sum)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	m := sampleFTP()
	dir := filepath.Join(t.TempDir(), "never")
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dry run created DIR: %v", err)
	}
	if sum.New != 8 || len(sum.Planned) != 8 || m.totalBodies() != 0 {
		t.Errorf("dry run: %+v, bodies %d", sum, m.totalBodies())
	}
	// Over an existing mirror, a dry run lists only what changed.
	dir = t.TempDir()
	c := newClient(m)
	Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	m.nodes["README"] = &memNode{data: []byte("new"), mod: testTime.Add(time.Minute)}
	sum, _ = Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{DryRun: true})
	if sum.Updated != 1 || len(sum.Planned) != 1 || sum.Planned[0].Path != "README" || tree(t, dir)["README"] != "read me\n" {
		t.Errorf("dry run over a mirror: %+v", sum)
	}
}

func TestResumeOnlyWhatStateMarksPartial(t *testing.T) {
	m := newMemFTP()
	big := strings.Repeat("0123456789abcdef", (resumeMin+4096)/16)
	m.file("big", big)
	m.file("small", "small file")
	m.breakAt["big"] = resumeMin / 2
	m.breakAt["small"] = 3
	dir := t.TempDir()
	c := newClient(m)
	sum, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 2 || !errors.Is(sum.Failures[0].Err, schemes.ErrInterrupted) {
		t.Fatalf("first run: %+v", sum)
	}
	if got := tree(t, dir); got["big"] != "" || got["small"] != "" {
		t.Fatalf("a broken file reached the tree: %q", keys(got))
	}
	if n := tempFiles(t, dir); len(n) != 1 {
		t.Fatalf("temp files %q, want the one partial file", n)
	}
	sum, err = Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	if err != nil || sum.Failed != 0 || sum.New != 2 {
		t.Fatalf("second run: %v %+v", err, sum)
	}
	if m.offs["big"] != resumeMin/2 {
		t.Errorf("big resumed at %d, want %d", m.offs["big"], resumeMin/2)
	}
	if m.offs["small"] != 0 {
		t.Errorf("small (not marked partial) resumed at %d", m.offs["small"])
	}
	got := tree(t, dir)
	if got["big"] != big || got["small"] != "small file" {
		t.Errorf("resumed files differ")
	}
	if n := tempFiles(t, dir); len(n) != 0 {
		t.Errorf("temp files left: %q", n)
	}
	// A partial whose remote file changed meanwhile starts over.
	m.breakAt["big"] = 1000
	m.nodes["big"].mod = testTime.Add(time.Hour)
	Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	m.nodes["big"].mod = testTime.Add(2 * time.Hour)
	Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	if m.offs["big"] != 0 || tree(t, dir)["big"] != big {
		t.Errorf("a partial of another version was resumed at %d", m.offs["big"])
	}
}

func TestCancelMidBodyThenRerunSameTree(t *testing.T) {
	m := sampleFTP()
	ref := t.TempDir()
	if _, err := Run(context.Background(), newClient(sampleFTP()), "x-ftp://127.0.0.1/", ref, Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	m.gate = func(path string) {
		if path == "pub/b.bin" {
			cancel()
		}
	}
	sum, err := Run(ctx, newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 1})
	if !errors.Is(err, schemes.ErrInterrupted) || sum == nil {
		t.Fatalf("cancelled run: %v", err)
	}
	m.gate = nil
	if _, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{}); err != nil {
		t.Fatal(err)
	}
	want, got := tree(t, ref), tree(t, dir)
	if strings.Join(keys(got), "|") != strings.Join(keys(want), "|") {
		t.Errorf("tree after rerun %q, want %q", keys(got), keys(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s differs", k)
		}
	}
	if n := tempFiles(t, dir); len(n) != 0 {
		t.Errorf("temp files left: %q", n)
	}
}

func TestStartingAtAFile(t *testing.T) {
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(sampleFTP()), "x-ftp://127.0.0.1/pub/a.txt", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); got["a.txt"] != "alpha\r\n" || len(got) != 1 || sum.New != 1 {
		t.Errorf("tree %q, summary %+v", keys(got), sum)
	}
}

func TestUnusableDirAndBadURL(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Run(context.Background(), newClient(sampleFTP()), "x-ftp://127.0.0.1/", f, Options{}); err == nil {
		t.Error("a file as DIR was accepted")
	}
	if _, err := Run(context.Background(), newClient(sampleFTP()), "x-ftp://127.0.0.1/nothing/", t.TempDir(), Options{}); !errors.Is(err, schemes.ErrRefused) {
		t.Errorf("unreachable start: %v, want ErrRefused", err)
	}
	if _, err := Run(context.Background(), newClient(), "ftp://%zz", t.TempDir(), Options{}); err == nil {
		t.Error("a malformed URL was accepted")
	}
}

func TestDepthLimit(t *testing.T) {
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(sampleFTP()), "x-ftp://127.0.0.1/", dir, Options{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	if got["pub/a.txt"] == "" || got["README"] == "" {
		t.Errorf("depth 2 lost a level: %q", keys(got))
	}
	if _, ok := got["pub/deep/er/c"]; ok || sum.New != 7 {
		t.Errorf("depth 2 went deeper: %q %+v", keys(got), sum)
	}
}

func TestProgressAndLog(t *testing.T) {
	var last Progress
	calls, lines := 0, 0
	sum, err := Run(context.Background(), newClient(sampleFTP()), "x-ftp://127.0.0.1/", t.TempDir(), Options{
		Jobs:     2,
		Progress: func(p Progress) { calls++; last = p },
		Log:      func(string, ...any) { lines++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last.FilesDone != 8 || last.FilesTotal != 8 || last.Bytes != sum.Bytes || len(last.Workers) != 2 {
		t.Errorf("last progress %+v after %d calls (summary %+v)", last, calls, sum)
	}
	// One line per file and one for the symlink.
	if lines != 9 {
		t.Errorf("%d log lines, want 9", lines)
	}
}
