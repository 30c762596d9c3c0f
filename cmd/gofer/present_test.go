package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// gofer --help names every scheme the client speaks.
func TestHelpNamesEveryScheme(t *testing.T) {
	code, out, errOut := gofer(t, "", "--help")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	c := fetch.NewClient(fetch.Options{})
	defer c.Close()
	for _, s := range c.Schemes() {
		if !strings.Contains(out, s) {
			t.Errorf("--help does not name %s", s)
		}
	}
}

// The version line carries the VCS revision, its time, a modified tree and
// the Go version when the build information has them.
func TestVersionLine(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-27T02:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(bi, true), "v1.2.0 (revision 0123456789ab, 2026-11-27T02:00:00Z, modified) go1.26.8"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := versionLine(&debug.BuildInfo{GoVersion: "go1.26.8"}, true); got != "(devel) go1.26.8" {
		t.Errorf("no version: %q", got)
	}
	code, out, _ := gofer(t, "", "version")
	if code != 0 || !strings.HasPrefix(out, "gofer ") {
		t.Errorf("exit %d: %q", code, out)
	}
}

// gofer man writes a page for gofer and each command, from the command
// tree: every flag is in its command's page, and only there.
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := gofer(t, "", "man", dir); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for page, flag := range map[string]string{
		"gofer.1": "gofer-get", "gofer-get.1": "--verify-listing", "gofer-mirror.1": "--symlinks",
		"gofer-parse.1": "--remote-charset", "gofer-warc-merge.1": "", "gofer-browse.1": "", "gofer-version.1": "",
	} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		if !strings.Contains(string(b), ".TH \"GOFER\" \"1\"") || !strings.Contains(string(b), flag) {
			t.Errorf("%s lacks its header or %q:\n%.300s", page, flag, b)
		}
	}
	for page, flag := range map[string]string{"gofer-version.1": "--head", "gofer-mirror.1": "--smtp-user", "gofer.1": "--remote-charset"} {
		if b, _ := os.ReadFile(filepath.Join(dir, page)); strings.Contains(string(b), flag) {
			t.Errorf("%s names %s, which that command does not take", page, flag)
		}
	}
}

// A Kind prints as a word.
func TestKindWords(t *testing.T) {
	for k, want := range map[schemes.Kind]string{schemes.KindFile: "file", schemes.KindListing: "listing",
		schemes.KindRedirect: "redirect", schemes.Kind(42): "kind(42)"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", int(k), got, want)
		}
	}
}
