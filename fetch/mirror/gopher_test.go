package mirror

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

func sampleGopher() *memGopher {
	g := newMemGopher()
	g.menu("",
		g.item('i', "Welcome to the hole", "fake"),
		g.item('1', "Archive", "/archive"),
		g.item('0', "About", "/about.txt"),
		g.item('1', "Private", "/private"),
		g.item('8', "Talk", "talk"),
		g.item('7', "Search", "/search"),
		g.item('h', "Elsewhere", "URL:http://127.0.0.2/"),
		g.itemAt('0', "Other host", "/x", "127.0.0.9", testGopherPort),
		g.itemAt('0', "Other port", "/x", testHost, 7071),
	)
	g.menu("/archive",
		g.item('i', "files:", ""),
		g.item('0', "Text", "/archive/text.txt"),
		g.item('9', "Binary", "/archive/bin/data.bin"),
		g.item('1', "Back home", ""),              // links back: visited once
		g.item('1', "Myself", "/archive"),         // links to itself
		g.item('0', "Again", "/archive/text.txt"), // the same item twice
		g.item('0', "Climb", "/archive/../../x"),
		g.item('0', "Nul", "/archive/a\x00b"),
		g.item('0', "Slash", "/archive/a\\b"),
		g.item('0', "Menu file", "/archive/gophermap"),
		g.item('1', "Sub", "/archive/sub/"),
	)
	g.menu("/archive/sub/", g.item('0', "Deep", "/archive/sub/deep"), g.item('1', "Up", "/archive"))
	g.menu("/private", g.item('0', "Secret", "/private/secret"))
	g.items["/about.txt"] = []byte("about\r\n.\r\n")
	g.items["/archive/text.txt"] = []byte("text line\r\n..dotted\r\n")
	g.items["/archive/bin/data.bin"] = []byte{0, 1, 2, 255}
	g.items["/archive/sub/deep"] = []byte("deep")
	g.items["/private/secret"] = []byte("secret")
	g.items["robots.txt"] = []byte("User-agent: *\nDisallow: /private\n")
	return g
}

func TestGopherMenusMappedBySelector(t *testing.T) {
	g := sampleGopher()
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(g), "x-gopher://127.0.0.1:7070/1", dir, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	want := map[string]string{
		"about.txt":             "about\r\n.\r\n",
		"archive/text.txt":      "text line\r\n..dotted\r\n",
		"archive/bin/data.bin":  "\x00\x01\x02\xff",
		"archive/sub/deep":      "deep",
		"gophermap":             string(g.raw[""]),
		"archive/gophermap":     string(g.raw["/archive"]),
		"archive/sub/gophermap": string(g.raw["/archive/sub/"]),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"gophermap.html", "archive/gophermap.html", "archive/sub/gophermap.html"} {
		if got[k] == "" {
			t.Errorf("readable index %s missing", k)
		}
	}
	if _, ok := got["private"]; ok {
		t.Errorf("robots.txt Disallow: /private was not honoured: %q", keys(got))
	}
	if sum.Skipped != 1 {
		t.Errorf("skipped = %d, want 1 (robots.txt)", sum.Skipped)
	}
	// Climb, Nul, Slash, Menu file.
	if sum.Refused != 4 {
		t.Errorf("refused = %d, want 4: %+v", sum.Refused, sum.Refusals)
	}
	// Talk, Search, URL, other host, other port.
	if sum.Recorded != 5 {
		t.Errorf("recorded = %d, want 5", sum.Recorded)
	}
	for _, sel := range []string{"", "/archive", "/archive/sub/"} {
		// One listing and one raw read per menu, however often linked.
		if n := g.count(sel); n != 2 {
			t.Errorf("menu %q requested %d times, want 2", sel, n)
		}
	}
	if n := g.count("/archive/text.txt"); n != 1 {
		t.Errorf("item linked twice fetched %d times", n)
	}
	idx := got["archive/gophermap.html"]
	for _, frag := range []string{"files:", `href="../archive/text.txt"`, `href="../archive/sub/gophermap.html"`, `href="../gophermap.html"`} {
		if !strings.Contains(idx, frag) {
			t.Errorf("archive/gophermap.html lacks %q:\n%s", frag, idx)
		}
	}
	if idx := got["gophermap.html"]; !strings.Contains(idx, "Welcome to the hole") || !strings.Contains(idx, "telnet") {
		t.Errorf("index lacks info line or telnet item:\n%s", idx)
	}
}

func TestGopherNoParentAndRerun(t *testing.T) {
	g := sampleGopher()
	dir := t.TempDir()
	c := newClient(g)
	sum, err := Run(context.Background(), c, "x-gopher://127.0.0.1:7070/1/archive", dir, Options{NoParent: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 3 {
		t.Errorf("first run new = %d, want 3", sum.New)
	}
	got := tree(t, dir)
	if _, ok := got["about.txt"]; ok {
		t.Errorf("--no-parent fetched outside /archive: %q", keys(got))
	}
	if got["archive/text.txt"] == "" || got["archive/sub/deep"] != "deep" || got["archive/gophermap"] == "" {
		t.Errorf("tree %q", keys(got))
	}
	if g.count("") != 0 {
		t.Errorf("parent menu requested with --no-parent")
	}
	fi1, _ := os.Stat(filepath.Join(dir, "archive/text.txt"))
	// Plain Gopher: fetched again, replaced only if the bytes differ.
	g.items["/archive/sub/deep"] = []byte("deeper")
	sum, err = Run(context.Background(), c, "x-gopher://127.0.0.1:7070/1/archive", dir, Options{NoParent: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 1 || sum.Unchanged != 2 || sum.Transfers != 3 {
		t.Errorf("second run %+v", sum)
	}
	fi2, _ := os.Stat(filepath.Join(dir, "archive/text.txt"))
	if !os.SameFile(fi1, fi2) {
		t.Errorf("unchanged item was replaced")
	}
	if tree(t, dir)["archive/sub/deep"] != "deeper" {
		t.Errorf("changed item not replaced")
	}
}

func TestGopherPlusModDateSkipsUnchanged(t *testing.T) {
	g := newMemGopher()
	it := g.item('0', "Doc", "/doc")
	it.Gopher.Plus = "+"
	g.menu("", it)
	g.items["/doc"] = []byte("document")
	g.modDate["/doc"] = testTime
	dir := t.TempDir()
	c := newClient(g)
	Run(context.Background(), c, "x-gopher://127.0.0.1:7070/1", dir, Options{})
	sum, _ := Run(context.Background(), c, "x-gopher://127.0.0.1:7070/1", dir, Options{})
	if g.count("/doc") != 1 || sum.Unchanged != 1 || sum.Transfers != 0 {
		t.Errorf("an item with an unchanged Mod-Date was fetched again: %d fetches, %+v", g.count("/doc"), sum)
	}
	if g.attrs != 2 {
		t.Errorf("%d \"$\" requests, want one per run", g.attrs)
	}
	g.items["/doc"] = []byte("document, revised")
	g.modDate["/doc"] = testTime.Add(time.Hour)
	sum, _ = Run(context.Background(), c, "x-gopher://127.0.0.1:7070/1", dir, Options{})
	if sum.Updated != 1 || tree(t, dir)["doc"] != "document, revised" {
		t.Errorf("an item with a new Mod-Date was not fetched: %+v", sum)
	}
}

func TestGopherSelfLinkingEndlessMenu(t *testing.T) {
	g := newMemGopher()
	// Every menu links to itself and to a "next" menu that is the same
	// selector with another spelling would be endless; here the hole links
	// a menu to itself and to its parent only.
	g.menu("/loop", g.item('1', "me", "/loop"), g.item('1', "again", "/loop"), g.item('1', "root", ""))
	g.menu("", g.item('1', "loop", "/loop"))
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(g), "x-gopher://127.0.0.1:7070/1/loop", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.count("/loop") != 2 || g.count("") != 2 || sum.Failed != 0 {
		t.Errorf("loop: /loop %d requests, root %d, %+v", g.count("/loop"), g.count(""), sum)
	}
}

func TestGopherMenuUnparsedLineCounted(t *testing.T) {
	g := newMemGopher()
	g.menu("", g.item('0', "About", "/about"), schemes.Entry{Type: schemes.TypeUnparsed, Name: "no tab here"})
	g.items["/about"] = []byte("about")
	sum, err := Run(context.Background(), newClient(g), "x-gopher://127.0.0.1:7070/1", t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unparsed != 1 || len(sum.UnparsedLines) != 1 || sum.UnparsedLines[0].Line != "no tab here" || sum.New != 1 {
		t.Errorf("summary %+v", sum)
	}
}
