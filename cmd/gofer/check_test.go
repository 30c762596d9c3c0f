package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMirrorCheck: gofer mirror --check DIR exits 0 on an untouched
// mirror, 1 with one line per flipped, removed and added file.
func TestMirrorCheck(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(src, "a"), []byte("alpha"), 0o644)
	os.WriteFile(filepath.Join(src, "b"), []byte("beta"), 0o644)
	if code, out, errs := gofer(t, "", "mirror", "-q", "file://"+filepath.ToSlash(src)+"/", dir); code != 0 {
		t.Fatalf("mirror: exit %d %q %q", code, out, errs)
	}
	code, out, errs := gofer(t, "", "mirror", "--check", dir)
	if code != 0 || !strings.Contains(out, ": 2 files, 9 bytes, 0 links: 0 changed, 0 missing, 0 added") {
		t.Fatalf("untouched: exit %d %q %q", code, out, errs)
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("alphA"), 0o644)
	os.Remove(filepath.Join(dir, "b"))
	os.WriteFile(filepath.Join(dir, "c"), nil, 0o644)
	code, out, _ = gofer(t, "", "mirror", "--check", dir)
	for _, want := range []string{"changed a (sha256 ", "missing b\n", "added c\n", "1 changed, 1 missing, 1 added"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	code, out, _ = gofer(t, "", "mirror", "--check", "--json", dir)
	if code != 1 || !strings.Contains(out, `{"change":"missing","path":"b"}`) || !strings.Contains(out, `"added":1`) {
		t.Errorf("--json: exit %d %q", code, out)
	}
	if code, _, _ := gofer(t, "", "mirror", "--check", "file:///x/", dir); code != 2 {
		t.Errorf("--check with a URL: exit %d, want 2", code)
	}
	if code, _, errs := gofer(t, "", "mirror", "--check", t.TempDir()); code != 1 || !strings.Contains(errs, "no mirror state") {
		t.Errorf("--check without state: exit %d %q", code, errs)
	}
}

// TestMirrorBagit: --bagit keeps the tree as a bag that gofer bag
// validate accepts, naming gofer's version; --check reads it clean.
func TestMirrorBagit(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(src, "a"), []byte("alpha"), 0o644)
	os.Symlink("a", filepath.Join(src, "ln"))
	if code, out, errs := gofer(t, "", "mirror", "-q", "--bagit", "file://"+filepath.ToSlash(src)+"/", dir); code != 0 {
		t.Fatalf("mirror --bagit: exit %d %q %q", code, out, errs)
	}
	code, out, errs := gofer(t, "", "bag", "validate", dir)
	if code != 0 || !strings.Contains(out, "valid bag: 2 files, 10 bytes (sha256)") {
		t.Fatalf("bag validate: exit %d %q %q", code, out, errs)
	}
	info, _ := os.ReadFile(filepath.Join(dir, "bag-info.txt"))
	if !strings.Contains(string(info), "Bag-Software-Agent: gofer ") {
		t.Errorf("bag-info.txt:\n%s", info)
	}
	if code, out, _ := gofer(t, "", "mirror", "--check", dir); code != 0 {
		t.Errorf("--check of a bag: exit %d %q", code, out)
	}
	if code, _, errs := gofer(t, "", "mirror", "--bagit", "--symlinks", "keep", "file://"+filepath.ToSlash(src)+"/", t.TempDir()); code != 2 || !strings.Contains(errs, "no symbolic links") {
		t.Errorf("--bagit --symlinks keep: exit %d %q", code, errs)
	}
}
