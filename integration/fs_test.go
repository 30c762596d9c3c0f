package integration_test

// fetch.FS over real servers: an FTP directory (vsftpd), a Gopher menu
// tree (gophernicus, pygopherd) and an HTTP directory's index pages
// (nginx autoindex) pass testing/fstest.TestFS, and a walk of each gives
// the archive's files with their bytes, under the names a mirror gives.

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/integration/itest"
)

func TestFSRealServers(t *testing.T) {
	itest.Parallel(t)
	for _, tc := range []struct {
		name, addr, url string
	}{
		{"ftp vsftpd", itest.FTPHost + ":21", "ftp://" + itest.FTPHost + "/archive/text/"},
		{"gopher gophernicus", itest.GopherHost + ":70", "gopher://" + itest.GopherHost + "/1/archive/text"},
		{"gopher pygopherd", itest.GopherPlusHost + ":70", "gopher://" + itest.GopherPlusHost + "/1/archive/text"},
		{"http nginx", itest.HTTPHost + ":80", "http://" + itest.HTTPHost + "/archive/text/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			itest.Require(t, tc.addr)
			c := fetch.NewClient(withEmail(fetch.Options{}))
			defer c.Close()
			fsys, err := fetch.FS(context.Background(), c, tc.url)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for p, sum := range itest.Manifest(t) {
				if rel, ok := strings.CutPrefix(p, "text/"); ok {
					want[rel] = sum
				}
			}
			got := map[string]string{}
			err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := fs.ReadFile(fsys, p)
				got[p] = sha(b)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			for p, sum := range want {
				if strings.HasPrefix(tc.name, "gopher gophernicus") && p == "no-final-newline.txt" {
					// The hole's text filter ends it with CR LF (gophersSkip).
					continue
				}
				if got[p] != sum {
					t.Errorf("%s: sha256 %q, want %q", p, got[p], sum)
				}
			}
			for p := range got {
				if _, ok := want[p]; !ok {
					t.Errorf("%s: in the tree, not in the archive", p)
				}
			}
			if err := fstest.TestFS(fsys, "plain.txt", "dots.txt", "empty.txt"); err != nil {
				t.Error(err)
			}
		})
	}
}
