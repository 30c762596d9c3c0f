package integration_test

// --include and --exclude through the gofer binary against vsftpd,
// pygopherd and nginx serving the sample archive, and --delete keeping
// what a filter leaves out (FTP and HTTP over a scratch tree).

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// filesUnder lists the regular files below dir (relative, '/'-separated),
// leaving out .gofer and the Gopher menu files.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".gofer" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && d.Name() != "gophermap" && d.Name() != "gophermap.html" {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func TestMirrorIncludeExcludeFTPGopherHTTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	itest.Require(t, itest.GopherPlusHost+":70")
	itest.Require(t, itest.HTTPHost+":80")
	// Expected: every file but tree/, deep/ and *.bin, though
	// random-64k.bin is taken back in by the last rule.
	var want []string
	for p := range itest.Manifest(t) {
		if strings.HasPrefix(p, "tree/") || strings.HasPrefix(p, "deep/") ||
			strings.HasSuffix(p, ".bin") && p != "binary/random-64k.bin" {
			continue
		}
		want = append(want, p)
	}
	sort.Strings(want)
	if len(want) < 30 {
		t.Fatalf("only %d files expected", len(want))
	}
	args := []string{"mirror", "--json", "--exclude", "tree/", "--exclude", "deep/", "--exclude", "*.bin", "--include", "random-64k.bin"}
	for _, tc := range []struct{ name, url, sub string }{
		{"ftp", "ftp://" + itest.FTPHost + "/archive/", ""},
		{"gopher", "gopher://" + itest.GopherPlusHost + "/1/archive", "archive"},
		{"http", "http://" + itest.HTTPHost + "/archive/", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a := append(append([]string{}, args...), tc.url, dir)
			if tc.name == "gopher" {
				a = append([]string{a[0], "--no-parent"}, a[1:]...)
			}
			r := itest.Run(t, nil, nil, a...)
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Reason())
			}
			got := filesUnder(t, filepath.Join(dir, tc.sub))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("mirrored %d files, want %d\ngot  %q\nwant %q", len(got), len(want), got, want)
			}
			if !strings.Contains(r.Stdout, `"excluded":`) || strings.Contains(r.Stdout, `"excluded":0`) {
				t.Errorf("summary counts no exclusion: %s", r.Stdout)
			}
		})
	}
}

func TestMirrorDeleteKeepsExcludedFTPHTTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	itest.Require(t, itest.HTTPHost+":80")
	for _, base := range []string{"ftp://" + itest.FTPHost, "http://" + itest.HTTPHost} {
		scheme := base[:strings.IndexByte(base, ':')]
		t.Run(scheme, func(t *testing.T) {
			name := fmt.Sprintf("mirror-filter-delete-%s-%d", scheme, os.Getpid())
			src := scratchTree(t, name) // sub0/file{0,2,4}.txt, sub1/file{1,3,5}.txt
			dir := t.TempDir()
			url := base + "/scratch/" + name + "/"
			if r := itest.Run(t, nil, nil, "mirror", url, dir); r.Code != 0 {
				t.Fatalf("first run: exit %d: %s", r.Code, r.Reason())
			}
			if got := len(filesUnder(t, dir)); got != 6 {
				t.Fatalf("first run mirrored %d files", got)
			}
			// Every remote file goes; the filters leave out sub1/ and file0.txt.
			for _, f := range []string{"sub0/file0.txt", "sub0/file2.txt", "sub1/file1.txt", "sub1/file3.txt"} {
				if err := os.Remove(filepath.Join(src, f)); err != nil {
					t.Fatal(err)
				}
			}
			r := itest.Run(t, nil, nil, "mirror", "--delete", "--exclude", "sub1/", "--exclude", "file0.txt", url, dir)
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Reason())
			}
			got := strings.Join(filesUnder(t, dir), " ")
			want := "sub0/file0.txt sub0/file4.txt sub1/file1.txt sub1/file3.txt sub1/file5.txt"
			if got != want {
				t.Errorf("after --delete: %s\nwant %s", got, want)
			}
		})
	}
}
