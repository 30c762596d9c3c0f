package integration_test

// Symlinks kept from a server whose MLSD names links without targets:
// ProFTPD writes type=OS.unix=symlink alone, and gofer reads the targets
// from its LIST, so that --symlinks keep (the default) makes the same
// links from ProFTPD as from Pure-FTPd, whose MLSD names them.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/integration/itest"
)

func TestMirrorKeepsLinksMLSDNamesWithoutTargets(t *testing.T) {
	itest.Parallel(t)
	for _, host := range []string{"127.0.0.31", "127.0.0.32"} { // ProFTPD, Pure-FTPd
		t.Run(host, func(t *testing.T) {
			dir := t.TempDir()
			c := mirrorClient()
			defer c.Close()
			sum, err := mirror.Run(itest.Context(t), c, "ftp://"+host+"/links/", dir, mirror.Options{Jobs: 1, Symlinks: mirror.SymlinksKeep})
			if err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "2.3", "file.txt")); err != nil || string(b) != "version 2.3\n" {
				t.Fatalf("2.3/file.txt: %q, %v (summary %+v)", b, err, sum)
			}
			for link, want := range map[string]string{"current": "2.3", "file-link.txt": "2.3/file.txt"} {
				if got, err := os.Readlink(filepath.Join(dir, link)); err != nil || got != want {
					t.Errorf("%s -> %q (%v), want -> %q as the server's listing names it", link, got, err, want)
				}
			}
		})
	}
}
