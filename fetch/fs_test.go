package fetch

import (
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"
)

// tree writes a small tree: files in two levels, an empty directory, and
// a symbolic link, which the file system leaves out.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"README.txt":          "read me\n",
		"text/plain.txt":      "plain\ntext\n",
		"text/deeper/end.bin": "\x00\x01\x02",
		"empty.txt":           "",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)
		os.Chtimes(p, when, when)
	}
	os.Mkdir(filepath.Join(dir, "empty dir"), 0o755)
	os.Symlink("README.txt", filepath.Join(dir, "link"))
	return dir
}

func TestFSLocal(t *testing.T) {
	dir := tree(t)
	c := NewClient(Options{})
	defer c.Close()
	fsys, err := FS(context.Background(), c, "file://"+dir+"/")
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(fsys, "README.txt", "text/plain.txt", "text/deeper/end.bin", "empty.txt", "empty dir"); err != nil {
		t.Fatal(err)
	}
	var walked []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		walked = append(walked, p)
		return nil
	})
	want := ". README.txt empty dir empty.txt text text/deeper text/deeper/end.bin text/plain.txt"
	if got := joinSpace(walked); got != want {
		t.Errorf("walked %q, want %q", got, want)
	}
	if m, _ := fs.Glob(fsys, "text/*.txt"); len(m) != 1 || m[0] != "text/plain.txt" {
		t.Errorf("Glob = %q", m)
	}
	fi, err := fs.Stat(fsys, "README.txt")
	if err != nil || fi.Size() != 8 || !fi.ModTime().Equal(time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("Stat = %v %v", fi, err)
	}
	if _, err := fsys.Open("link"); err == nil {
		t.Error("a symbolic link is in the tree")
	}
	// Seek: from the end (the size is known) and back.
	f, _ := fsys.Open("text/plain.txt")
	sk := f.(io.ReadSeeker)
	if n, err := sk.Seek(-5, io.SeekEnd); err != nil || n != 6 {
		t.Fatalf("Seek = %d, %v", n, err)
	}
	if b, _ := io.ReadAll(sk); string(b) != "text\n" {
		t.Errorf("after Seek: %q", b)
	}
	f.Close()

	// http.FileServer serves it.
	srv := httptest.NewServer(http.FileServer(http.FS(fsys)))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/text/plain.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "plain\ntext\n" {
		t.Errorf("FileServer: %d %q", resp.StatusCode, b)
	}
}

func TestFSRefusesWhatIsNoTree(t *testing.T) {
	c := NewClient(Options{})
	defer c.Close()
	for _, u := range []string{"gopher://127.0.0.1/0/file", "http://127.0.0.1/page.html", "mailto:a@b", "news:comp.x"} {
		if _, err := FS(context.Background(), c, u); err == nil {
			t.Errorf("FS(%s) made a file system", u)
		}
	}
}

func joinSpace(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
