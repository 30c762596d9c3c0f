package mirror

import (
	"context"
	"testing"
	"time"
)

func sampleHTTP() *memHTTP {
	h := newMemHTTP()
	h.pages["/"] = `<a href="/archive/">archive</a>`
	h.pages["/archive/"] = `<html><body>
<a href="../">parent</a>
<a href="a.txt">a</a> <a href="/archive/b%20c.bin">b c</a>
<a href="sub/">sub</a> <a href="page.html#top">page</a>
<a href="a.txt?C=N;O=D">sort</a> <a href="http://127.0.0.9/archive/x">other host</a>
<a href="%2e%2e/secret">climb</a> <a href="x%2Fy">slash</a>
<img src="img/logo.png">
</body></html>`
	h.pages["/archive/sub/"] = `<a href="deep.txt">deep</a><a href="/archive/">up</a>`
	h.pages["/archive/page.html"] = `<base href="/archive/sub/"><a href="linked.txt">linked</a>`
	h.mod["/archive/page.html"] = testTime
	h.files["/archive/a.txt"] = []byte("A")
	h.files["/archive/b c.bin"] = []byte("BC")
	h.files["/archive/img/logo.png"] = []byte("PNG")
	h.files["/archive/sub/deep.txt"] = []byte("deep")
	h.files["/archive/sub/linked.txt"] = []byte("linked")
	h.files["/secret"] = []byte("must not be fetched")
	for p := range h.files {
		h.mod[p] = testTime
	}
	return h
}

func TestHTTPFollowsLinksUnderStartingPath(t *testing.T) {
	h := sampleHTTP()
	dir := t.TempDir()
	c := newClient(h)
	sum, err := Run(context.Background(), c, "x-http://127.0.0.1/archive/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, dir)
	want := map[string]string{"a.txt": "A", "b c.bin": "BC", "img/logo.png": "PNG", "sub/deep.txt": "deep",
		"sub/linked.txt": "linked", "page.html": h.pages["/archive/page.html"]}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["index.html"]; ok {
		t.Errorf("a generated directory page was saved")
	}
	if h.bodies["/secret"] != 0 || h.bodies["/"] != 0 {
		t.Errorf("fetched outside the starting path")
	}
	if h.bodies["/archive/a.txt"] != 1 {
		t.Errorf("a.txt fetched %d times", h.bodies["/archive/a.txt"])
	}
	if sum.Refused != 2 || sum.Failed != 0 || sum.New != 6 {
		t.Errorf("summary %+v", sum)
	}
	// Second run: conditional requests only; the unchanged page's links
	// come from the local copy.
	sum, err = Run(context.Background(), c, "x-http://127.0.0.1/archive/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Transfers != 0 || sum.Bytes != 0 || sum.Unchanged != 6 || h.ims["/archive/sub/linked.txt"] != 1 {
		t.Errorf("second run %+v, ims %v", sum, h.ims)
	}
	h.files["/archive/a.txt"] = []byte("A2")
	h.mod["/archive/a.txt"] = testTime.Add(time.Hour)
	sum, _ = Run(context.Background(), c, "x-http://127.0.0.1/archive/", dir, Options{})
	if sum.Transfers != 1 || sum.Updated != 1 || tree(t, dir)["a.txt"] != "A2" {
		t.Errorf("changed file: %+v", sum)
	}
}

func TestHTTPStartingAtAFile(t *testing.T) {
	h := sampleHTTP()
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(h), "x-http://127.0.0.1/archive/b%20c.bin", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); got["b c.bin"] != "BC" || len(got) != 1 || sum.New != 1 {
		t.Errorf("tree %q, summary %+v", keys(got), sum)
	}
}
