package conformance

import (
	"os"
	"path/filepath"
	"testing"
)

// fileAdapter serves the objects from a temporary directory: file: opens
// no connection, so nothing can stall, cut or hold back a tail.
func fileAdapter() Adapter {
	return Adapter{
		NoCredentials:  true,
		ListingEntries: 2,
		Setup: func(t *testing.T, _ string) string {
			dir := t.TempDir()
			must := func(err error) {
				if err != nil {
					t.Fatal(err)
				}
			}
			must(os.Mkdir(filepath.Join(dir, "dir"), 0o755))
			must(os.WriteFile(filepath.Join(dir, "dir", "small.bin"), SmallBody, 0o644))
			must(os.WriteFile(filepath.Join(dir, "dir", "other.bin"), SmallBody, 0o644))
			must(os.WriteFile(filepath.Join(dir, "small.bin"), SmallBody, 0o644))
			must(os.WriteFile(filepath.Join(dir, "large.bin"), make([]byte, LargeSize), 0o644))
			return dir
		},
		URL: func(dir string, o Object) string {
			switch o {
			case Small, Missing, Large:
				return "file://" + filepath.ToSlash(dir) + "/" + string(o) + ".bin"
			case Listing:
				return "file://" + filepath.ToSlash(dir) + "/dir/"
			}
			return ""
		},
	}
}
