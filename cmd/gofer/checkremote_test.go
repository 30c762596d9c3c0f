package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMirrorCheckRemote: mirror --check --remote over a file: tree (no
// checksums: sizes and times, said so) exits 0 untouched, 1 with a line
// per file changed, gone and new at the source, 5 when the source is
// gone; --remote without --check is a usage error.
func TestMirrorCheckRemote(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(src, "a"), []byte("alpha"), 0o644)
	os.WriteFile(filepath.Join(src, "b"), []byte("beta"), 0o644)
	if code, out, errs := gofer(t, "", "mirror", "-q", "file://"+filepath.ToSlash(src)+"/", dir); code != 0 {
		t.Fatalf("mirror: exit %d %q %q", code, out, errs)
	}
	code, out, errs := gofer(t, "", "mirror", "--check", "--remote", dir)
	if code != 0 || !strings.Contains(out, "checked on the server: 1 directories, 2 files: by the server's checksum: none, by size and time: 2 (the server offers no checksum); 0 changed there, 0 gone, 0 new\n") {
		t.Fatalf("untouched: exit %d %q %q", code, out, errs)
	}
	os.WriteFile(filepath.Join(src, "a"), []byte("alpha, longer"), 0o644)
	os.Remove(filepath.Join(src, "b"))
	os.WriteFile(filepath.Join(src, "c"), nil, 0o644)
	code, out, _ = gofer(t, "", "mirror", "--check", "--remote", dir)
	for _, want := range []string{"remote-changed a (13 bytes, the mirror's listing 5 (by size and time: the server gave no checksum of it))\n", "gone b\n", "new c\n", "1 changed there, 1 gone, 1 new"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	code, out, _ = gofer(t, "", "mirror", "--check", "--remote", "--json", dir)
	if code != 1 || !strings.Contains(out, `{"change":"gone","path":"b"}`) || !strings.Contains(out, `"remote_changed":1,"gone":1,"new":1`) {
		t.Errorf("--json: exit %d %q", code, out)
	}
	if code, _, errs := gofer(t, "", "mirror", "--remote", dir); code != 2 || !strings.Contains(errs, "--remote goes with --check") {
		t.Errorf("--remote alone: exit %d %q, want 2", code, errs)
	}
	os.RemoveAll(src)
	if code, _, errs := gofer(t, "", "mirror", "--check", "--remote", dir); code != 5 {
		t.Errorf("source gone: exit %d %q, want 5", code, errs)
	}
}
