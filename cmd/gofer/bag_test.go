package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/bagit"
)

// TestBagValidate: a valid bag exits 0 with one line on stdout; the same
// bag with a wrong manifest line exits 1 with a line naming the file.
func TestBagValidate(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	os.WriteFile(filepath.Join(dir, "data", "a.txt"), []byte("a"), 0o644)
	if err := bagit.WriteDeclaration(dir); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a"))
	good := hex.EncodeToString(sum[:])
	write := func(s string) {
		err := bagit.WriteManifest(dir, "sha256", func(yield func(string, string) bool) { yield("data/a.txt", s) })
		if err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	code, out, errs := gofer(t, "", "bag", "validate", dir)
	if code != 0 || !strings.Contains(out, "valid bag: 1 files, 1 bytes (sha256)") || errs != "" {
		t.Fatalf("valid bag: exit %d, %q, %q", code, out, errs)
	}
	write(strings.Repeat("0", 64))
	code, out, errs = gofer(t, "", "bag", "validate", dir)
	if code != 1 || out != "" || !strings.Contains(errs, dir+": data/a.txt: sha256 is "+good+", manifest-sha256.txt says 000") {
		t.Fatalf("wrong manifest line: exit %d, %q, %q", code, out, errs)
	}
	if code, _, errs := gofer(t, "", "bag", "validate", filepath.Join(dir, "none")); code != 1 || !strings.Contains(errs, "none") {
		t.Errorf("no such directory: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"bag"}, {"bag", "validate"}} {
		if code, _, _ := gofer(t, "", args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
