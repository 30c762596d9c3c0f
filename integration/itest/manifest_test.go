package itest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBigFileDeterministicAndCached(t *testing.T) {
	t.Setenv("GOFER_IT_STATE", t.TempDir())
	p1, s1 := BigFile(t, 3<<20+5)
	fi, err := os.Stat(p1)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 3<<20+5 {
		t.Fatalf("size %d, want %d", fi.Size(), 3<<20+5)
	}
	if got, err := FileSHA256(p1); err != nil || got != s1 {
		t.Fatalf("sha256 of %s = %s, %v; BigFile said %s", p1, got, err, s1)
	}
	if err := os.Remove(p1); err != nil {
		t.Fatal(err)
	}
	p2, s2 := BigFile(t, 3<<20+5)
	if p2 != p1 || s2 != s1 {
		t.Fatalf("regenerated file differs: %s %s vs %s %s", p2, s2, p1, s1)
	}
	if filepath.Base(p1) != "3145733.bin" {
		t.Fatalf("name %q", filepath.Base(p1))
	}
}

func TestManifestAndDiffTree(t *testing.T) {
	state := t.TempDir()
	t.Setenv("GOFER_IT_STATE", state)
	tree := filepath.Join(state, "mirror")
	for name, body := range map[string]string{"a b.txt": "hello\n", "d/caf\xe9": "x", ".gofer/state": "skip me"} {
		p := filepath.Join(tree, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03  a b.txt\n" +
		"2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  d/caf\xe9\n"
	if err := os.WriteFile(ManifestPath(), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if m := Manifest(t); len(m) != 2 || m["d/caf\xe9"] == "" {
		t.Fatalf("manifest %v", m)
	}
	if d := DiffTree(t, tree, ".gofer"); len(d) != 0 {
		t.Fatalf("identical tree reported different: %q", d)
	}
	if err := os.WriteFile(filepath.Join(tree, "a b.txt"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(tree, "d/caf\xe9")); err != nil {
		t.Fatal(err)
	}
	d := DiffTree(t, tree)
	want := []string{`content differs: "a b.txt"`, `extra: ".gofer/state"`, `missing: "d/caf\xe9"`}
	if len(d) != len(want) {
		t.Fatalf("diffs %q, want %q", d, want)
	}
	for i := range want {
		if d[i] != want[i] {
			t.Fatalf("diffs %q, want %q", d, want)
		}
	}
}

func TestLogSince(t *testing.T) {
	t.Setenv("GOFER_IT_STATE", t.TempDir())
	if err := os.MkdirAll(LogDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(LogDir(), "x.log")
	if err := os.WriteFile(p, []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	since := LogSince(t, "x.log")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new line\n")
	f.Close()
	if got := since(); got != "new line\n" {
		t.Fatalf("since() = %q", got)
	}
	// integration/up starts a restarted server with an empty log.
	if err := os.WriteFile(p, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := since(); got != "new\n" {
		t.Fatalf("after truncation since() = %q", got)
	}
}
