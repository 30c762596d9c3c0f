package integration_test

// gofer browse --warc end to end: a capture of gophernicus's
// /archive/text (gofer mirror --warc) browsed offline in a real terminal,
// with gophernicus's access log showing that nothing reached it.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

func TestBrowseWARCOffline(t *testing.T) {
	itest.Require(t, gopherAddr)
	dir := t.TempDir()
	prefix := filepath.Join(dir, "text")
	mirrorWARC(t, "gopher://"+gopherAddr+"/1/archive/text", prefix, filepath.Join(dir, "mirror"), "--no-parent")

	log := itest.LogSince(t, "gophernicus-access.log")
	// A selector only this test names: the log is shared with other tests.
	sel := fmt.Sprintf("/browse-warc-%d.txt", os.Getpid())
	p := startBrowse(t, "--warc", prefix)

	// No URL: the archive's first captured menu, with its capture time.
	p.waitFor("plain.txt", "dots.txt", "gopher://127.0.0.71:70/1/archive/text", "captured 20", " UTC")
	p.open("plain.txt")
	p.waitFor("protocol protocol gopher text wais menu jughead", "captured 20")
	p.keys("Left")

	// The parent menu was left out of the capture (--no-parent).
	p.waitFor("plain.txt")
	p.typeText("/")
	p.waitFor("Find item:")
	p.typeText("..")
	p.keys("Enter")
	p.waitFor(`found ".."`)
	p.keys("Enter")
	p.waitFor("not captured")
	p.waitFor("plain.txt")

	// A URL typed: what the archive does not hold is not fetched.
	p.typeText("g")
	p.waitFor("Open URL:")
	p.typeText("gopher://" + itest.GopherHost + "/0" + sel)
	p.keys("Enter")
	p.waitFor("not captured")

	p.typeText("q")
	if rc, before, after := p.exit(); rc != "0" || before != after {
		t.Errorf("exit %s, stty before %q after %q", rc, before, after)
	}
	if got := log(); strings.Contains(got, sel) {
		t.Errorf("browsing the archive reached gophernicus:\n%s", got)
	}
}
