package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/bagit"
	"github.com/goferurl/gofer/schemes"
)

func validBag(t *testing.T, dir string) bagit.Stats {
	t.Helper()
	var probs []string
	st, err := bagit.Validate(dir, func(p bagit.Problem) { probs = append(probs, p.String()) })
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 0 {
		t.Fatalf("bag not valid: %q", probs)
	}
	return st
}

// TestBag: a mirror kept as a bag holds its tree under data/, validates,
// and still validates after a rerun that updates, adds and deletes files;
// the manifest names what the payload holds and nothing else.
func TestBag(t *testing.T) {
	src := t.TempDir()
	write := func(p, body string) {
		os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(body), 0o644)
	}
	write("a.txt", "alpha\n")
	write("sub/b%.bin", "\x00\x01\x02")
	write("sub/gone", "gone soon")
	write("sub/deep/c", "c")
	os.Symlink("a.txt", filepath.Join(src, "ln"))
	dir := t.TempDir()
	opts := Options{Bag: true, BagAgent: "gofer test"}
	sum, err := Run(context.Background(), newClient(), fileURL(src), dir, opts)
	if err != nil || sum.Failed != 0 {
		t.Fatalf("%v %+v", err, sum.Failures)
	}
	st := validBag(t, dir)
	// ln is followed: a file in the bag, with a's bytes.
	if st.Files != 5 || st.Bytes != 6+3+9+1+6 {
		t.Errorf("payload %+v", st)
	}
	for _, p := range []string{"data/a.txt", "data/sub/b%.bin", "data/ln", ".gofer/state.db", "bagit.txt", "tagmanifest-sha256.txt"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("a.txt outside data/")
	}
	info, _ := os.ReadFile(filepath.Join(dir, "bag-info.txt"))
	for _, want := range []string{"External-Identifier: " + fileURL(src) + "\n", "Bag-Software-Agent: gofer test\n", "Payload-Oxum: 25.5\n", "Bagging-Date: 20"} {
		if !strings.Contains(string(info), want) {
			t.Errorf("bag-info.txt lacks %q:\n%s", want, info)
		}
	}
	m, _ := os.ReadFile(filepath.Join(dir, "manifest-sha256.txt"))
	if !strings.Contains(string(m), "  data/sub/b%25.bin\n") {
		t.Errorf("manifest:\n%s", m)
	}
	if _, diffs := checkDiffs(t, dir); len(diffs) != 0 {
		t.Errorf("check of a fresh bag: %q", diffs)
	}

	write("a.txt", "alpha, longer\n")
	write("new", "new")
	os.Remove(filepath.Join(src, "sub/gone"))
	opts.Delete = true
	sum, err = Run(context.Background(), newClient(), fileURL(src), dir, opts)
	if err != nil || sum.Failed != 0 || sum.Deleted != 1 || sum.New != 1 {
		t.Fatalf("rerun: %v %+v", err, sum)
	}
	st = validBag(t, dir)
	if st.Files != 5 || st.Bytes != 14+3+1+14+3 {
		t.Errorf("payload after the rerun %+v", st)
	}
	m, _ = os.ReadFile(filepath.Join(dir, "manifest-sha256.txt"))
	if strings.Contains(string(m), "data/sub/gone") || !strings.Contains(string(m), "  data/new\n") {
		t.Errorf("manifest after the rerun:\n%s", m)
	}
	if _, diffs := checkDiffs(t, dir); len(diffs) != 0 {
		t.Errorf("check of the rerun bag: %q", diffs)
	}
	// A wrong manifest line fails validation.
	os.WriteFile(filepath.Join(dir, "data", "new"), []byte("NEW"), 0o644)
	n := 0
	bagit.Validate(dir, func(p bagit.Problem) {
		if strings.HasPrefix(p.String(), "data/new: sha256 is") {
			n++
		}
	})
	if n != 1 {
		t.Errorf("a changed payload file: %d problems naming it", n)
	}
}

// A bag of a single file holds it under data/.
func TestBagOfOneFile(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "one"), []byte("1"), 0o644)
	dir := t.TempDir()
	if _, err := Run(context.Background(), newClient(), "file://"+filepath.ToSlash(src)+"/one", dir, Options{Bag: true}); err != nil {
		t.Fatal(err)
	}
	if st := validBag(t, dir); st.Files != 1 {
		t.Errorf("%+v", st)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "data", "one")); err != nil || string(b) != "1" {
		t.Errorf("data/one: %q %v", b, err)
	}
}

// A bag refuses kept links, and a DIR of the other layout.
func TestBagRefusals(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "f"), []byte("f"), 0o644)
	dir := t.TempDir()
	if _, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{Bag: true, Symlinks: SymlinksKeep}); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("bag with kept links: %v", err)
	}
	if _, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), newClient(), fileURL(src), dir, Options{Bag: true}); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("bag over a plain mirror: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "bagit.txt")); err == nil {
		t.Error("bagit.txt written over a plain mirror")
	}
	bag := t.TempDir()
	if _, err := Run(context.Background(), newClient(), fileURL(src), bag, Options{Bag: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), newClient(), fileURL(src), bag, Options{}); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("plain mirror over a bag: %v", err)
	}
}
