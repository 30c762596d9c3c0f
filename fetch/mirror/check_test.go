package mirror

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func checkDiffs(t *testing.T, dir string) (CheckSummary, []string) {
	t.Helper()
	var got []string
	sum, err := Check(context.Background(), dir, func(d Difference) { got = append(got, d.Change+" "+d.Path) })
	if err != nil {
		t.Fatal(err)
	}
	return sum, got
}

// TestCheck: an untouched mirror checks clean; a flipped byte, a removed
// file, an added file and a link pointed elsewhere are each one line.
func TestCheck(t *testing.T) {
	src := t.TempDir()
	for p, body := range map[string]string{"a.txt": "alpha\n", "sub/b.bin": "\x00\x01\x02", "sub/c": "c", "d": "d", "caf\xe9/x": ""} {
		os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(body), 0o644)
	}
	os.Symlink("a.txt", filepath.Join(src, "ln"))
	dir := t.TempDir()
	if _, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	sum, got := checkDiffs(t, dir)
	if len(got) != 0 || sum.Differs() || sum.Files != 5 || sum.Bytes != 11 || sum.Links != 1 {
		t.Fatalf("untouched mirror: %+v %q", sum, got)
	}
	// The same size, one bit changed.
	os.WriteFile(filepath.Join(dir, "sub", "b.bin"), []byte("\x00\x01\x03"), 0o644)
	os.Remove(filepath.Join(dir, "sub", "c"))
	os.WriteFile(filepath.Join(dir, "sub", "new"), []byte("n"), 0o644)
	os.WriteFile(filepath.Join(dir, "d"), []byte("longer"), 0o644)
	os.Remove(filepath.Join(dir, "ln"))
	os.Symlink("d", filepath.Join(dir, "ln"))
	sum, got = checkDiffs(t, dir)
	slices.Sort(got)
	want := []string{"added sub/new", "changed d", "changed ln", "changed sub/b.bin", "missing sub/c"}
	if !slices.Equal(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	if sum.Changed != 3 || sum.Missing != 1 || sum.Added != 1 || !sum.Differs() {
		t.Errorf("summary %+v", sum)
	}
}

func TestCheckNoState(t *testing.T) {
	dir := t.TempDir()
	if _, err := Check(context.Background(), dir, func(Difference) { t.Error("a difference without a state") }); err == nil {
		t.Fatal("a DIR without state checked")
	}
}
