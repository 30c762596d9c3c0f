package mirror

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

func TestFilterRules(t *testing.T) {
	ex := func(g string) Filter { return Filter{Exclude: true, Glob: g} }
	in := func(g string) Filter { return Filter{Glob: g} }
	tests := []struct {
		rules []Filter
		path  string
		dir   bool
		want  bool
	}{
		{nil, "a/b.iso", false, true},
		{[]Filter{ex("*.iso")}, "a/b/c.iso", false, false},
		{[]Filter{ex("*.iso")}, "c.txt", false, true},
		{[]Filter{ex("*.iso")}, "x.iso", true, true}, // no slash: files only
		{[]Filter{ex("tmp/")}, "a/tmp", true, false},
		{[]Filter{ex("tmp/")}, "a/tmp", false, true},
		{[]Filter{ex("pub/*.iso")}, "x/pub/a.iso", false, false},
		{[]Filter{ex("pub/*.iso")}, "x/pub/sub/a.iso", false, true},
		{[]Filter{ex("pub/*.iso")}, "pub/a.iso", false, false},
		// The first rule an include: what matches none is left out (files only).
		{[]Filter{in("*.txt")}, "a/b.txt", false, true},
		{[]Filter{in("*.txt")}, "a/b.bin", false, false},
		{[]Filter{in("*.txt")}, "a", true, true},
		// The last rule that matches decides.
		{[]Filter{in("*.txt"), ex("secret*")}, "secret.txt", false, false},
		{[]Filter{ex("*.txt"), in("keep.txt")}, "d/keep.txt", false, true},
		{[]Filter{ex("*.txt"), in("keep.txt")}, "d/other.txt", false, false},
		{[]Filter{ex("[ab]?.dat")}, "a1.dat", false, false},
	}
	for _, tc := range tests {
		if got := filters(tc.rules).allows(tc.path, tc.dir); got != tc.want {
			t.Errorf("%+v allows(%q, dir %v) = %v, want %v", tc.rules, tc.path, tc.dir, got, tc.want)
		}
	}
	if _, err := compileFilters([]Filter{{Glob: "[bad"}}); err == nil || !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), "[bad") {
		t.Errorf("bad glob: %v", err)
	}
}

func TestFTPFiltersAndDeleteKeepsExcluded(t *testing.T) {
	m := newMemFTP()
	m.file("a.txt", "a")
	m.file("b.bin", "b")
	m.file("tmp/t.txt", "t")
	m.file("sub/c.txt", "c")
	m.file("sub/d.bin", "d")
	dir := t.TempDir()
	c := newClient(m)
	if _, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys(tree(t, dir)), "|"); got != "a.txt|b.bin|sub|sub/c.txt|sub/d.bin|tmp|tmp/t.txt" {
		t.Fatalf("first run: %s", got)
	}
	// The remote loses every file; the filters leave out *.bin and tmp/:
	// --delete removes only what they take in.
	for _, p := range []string{"a.txt", "b.bin", "tmp/t.txt", "sub/d.bin"} {
		m.remove(p)
	}
	m.file("new.bin", "n")
	filt := []Filter{{Exclude: true, Glob: "*.bin"}, {Exclude: true, Glob: "tmp/"}}
	sum, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{Delete: true, Filters: filt})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys(tree(t, dir)), "|"); got != "b.bin|sub|sub/c.txt|sub/d.bin|tmp|tmp/t.txt" {
		t.Errorf("after --delete with filters: %s", got)
	}
	if sum.Deleted != 1 || sum.Excluded != 2 || m.bodyCount("new.bin") != 0 {
		t.Errorf("summary %+v, new.bin fetched %d times", sum, m.bodyCount("new.bin"))
	}
}

func TestGopherFilters(t *testing.T) {
	g := sampleGopher()
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(g), "x-gopher://127.0.0.1:7070/1/archive", dir,
		Options{NoParent: true, Filters: []Filter{{Exclude: true, Glob: "sub/"}, {Exclude: true, Glob: "*.bin"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	if got["archive/text.txt"] == "" {
		t.Errorf("archive/text.txt missing: %q", keys(got))
	}
	for _, p := range []string{"archive/bin/data.bin", "archive/sub/deep"} {
		if _, ok := got[p]; ok {
			t.Errorf("%s mirrored, but a filter excludes it", p)
		}
	}
	if g.count("/archive/sub/") != 0 || g.count("/archive/bin/data.bin") != 0 {
		t.Errorf("an excluded item was fetched")
	}
	if sum.Excluded != 2 {
		t.Errorf("excluded %d, want 2: %+v", sum.Excluded, sum)
	}
}

func TestHTTPFilters(t *testing.T) {
	h := sampleHTTP()
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(h), "x-http://127.0.0.1/archive/", dir,
		Options{Filters: []Filter{{Glob: "*.txt"}, {Glob: "*.html"}, {Exclude: true, Glob: "linked.txt"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(keys(tree(t, dir)), "|")
	if got != "a.txt|page.html|sub|sub/deep.txt" {
		t.Errorf("tree %s", got)
	}
	if sum.Excluded != 3 { // b c.bin, img/logo.png, sub/linked.txt
		t.Errorf("excluded %d: %+v", sum.Excluded, sum)
	}
}
