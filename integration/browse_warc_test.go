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
	itest.Parallel(t)
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

// FTP, HTTP and Gemini captures (gofer get --warc, one WARC file each)
// browsed together offline: each --warc adds an archive.
func TestBrowseWARCOfflineFTPWebGemini(t *testing.T) {
	itest.Parallel(t)
	for _, a := range []string{itest.FTPHost + ":21", itest.HTTPHost + ":80", geminiAddr} {
		itest.Require(t, a)
	}
	dir := t.TempDir()
	env, _ := geminiEnv(t)
	gets := map[string][]string{
		"ftp.warc.gz":    {"ftp://" + itest.FTPHost + "/archive/", "ftp://" + itest.FTPHost + "/archive/README.txt"},
		"http.warc.gz":   {"http://" + itest.HTTPHost + "/archive/README.txt"},
		"gemini.warc.gz": {geminiRoot},
	}
	var args []string
	for name, urls := range gets {
		file := filepath.Join(dir, name)
		if r := itest.Run(t, nil, env, append([]string{"get", "-q", "--warc", file}, urls...)...); r.Code != 0 {
			t.Fatalf("get --warc %s: exit %d (%s)", name, r.Code, r.Reason())
		}
		args = append(args, "--warc", file)
	}
	p := startBrowse(t, append(args, "ftp://"+itest.FTPHost+"/archive/")...)

	p.waitFor("README.txt", "ftp://127.0.0.21/archive/", "captured 20")
	p.open("README.txt")
	p.waitFor("gofer sample archive", "captured 20")

	p.typeText("g")
	p.waitFor("Open URL:")
	p.typeText("http://" + itest.HTTPHost + "/archive/README.txt")
	p.keys("Enter")
	p.waitFor("gofer sample archive", "http://127.0.0.80/archive/README.txt", "captured 20")

	p.typeText("g")
	p.waitFor("Open URL:")
	p.typeText(geminiRoot)
	p.keys("Enter")
	p.waitFor("# gofer integration capsule", "The sample archive", "captured 20")
	p.open("The sample archive")
	p.waitFor("not captured")

	p.typeText("q")
	if rc, before, after := p.exit(); rc != "0" || before != after {
		t.Errorf("exit %s, stty before %q after %q", rc, before, after)
	}
}

// A Gopher+ server's capture (pygopherd): its items, captured with their
// "+" requests, open from the menu, and = shows an item's attributes from
// the menu's captured "$" block.
func TestBrowseWARCOfflineGopherPlus(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	dir := t.TempDir()
	prefix := filepath.Join(dir, "plus")
	mirrorWARC(t, "gopher://"+gopherPlusAddr+"/1/archive/text", prefix, filepath.Join(dir, "mirror"), "--no-parent")
	p := startBrowse(t, "--warc", prefix)

	p.waitFor("plain", "dots", "captured 20")
	p.find("plain")
	p.typeText("=")
	p.waitFor("Gopher+ attributes:", "gofer integration <root@localhost>")
	p.keys("Left")
	p.open("plain")
	p.waitFor("protocol protocol gopher text wais menu jughead", "2162 bytes", "captured 20")

	p.typeText("q")
	if rc, before, after := p.exit(); rc != "0" || before != after {
		t.Errorf("exit %s, stty before %q after %q", rc, before, after)
	}
}
