package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch"
)

// These tests go through file: URLs, the one scheme that needs no server,
// to prove the CLI's own output rules: atomic writes, -O naming, -C resume,
// listings as text and JSON.

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileURL(p string) string { return "file://" + p }

func TestGetFileToOutput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	data := make([]byte, 300_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	writeFile(t, src, data)
	dst := filepath.Join(dir, "out.bin")
	code, out, errOut := gofer(t, "", "get", "--json", "-o", dst, fileURL(src))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, err := os.ReadFile(dst)
	if err != nil || string(got) != string(data) {
		t.Fatalf("output differs (%v)", err)
	}
	if _, err := os.Stat(dst + fetch.PartSuffix); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(out), &meta); err != nil {
		t.Fatalf("metadata %q: %v", out, err)
	}
	sum := sha256.Sum256(data)
	if meta["sha256"] != hex.EncodeToString(sum[:]) || meta["size"] != float64(len(data)) {
		t.Errorf("metadata %v", meta)
	}
}

func TestGetResume(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	data := []byte(strings.Repeat("0123456789abcdef", 5000))
	writeFile(t, src, data)
	dst := filepath.Join(dir, "out.txt")
	// A transfer cut at an odd offset leaves NAME.part; -C continues it.
	writeFile(t, dst+fetch.PartSuffix, data[:12345])
	code, _, errOut := gofer(t, "", "get", "-C", "-o", dst, fileURL(src))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(dst); string(got) != string(data) {
		t.Fatalf("resumed file differs: %d bytes", len(got))
	}
	// A partial file under the final name (curl -C style) is continued too.
	writeFile(t, dst, data[:777])
	if code, _, errOut := gofer(t, "", "get", "-C", "-o", dst, fileURL(src)); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(dst); string(got) != string(data) {
		t.Fatalf("resumed file differs: %d bytes", len(got))
	}
}

func TestGetRemoteNameRefused(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// The name is "..": the safe-name rule refuses it before anything is read.
	code, _, errOut := gofer(t, "", "get", "-O", "file:///tmp/..")
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, errOut)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

func TestGetRemoteName(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "remote name.txt")
	writeFile(t, src, []byte("hello\n"))
	work := filepath.Join(dir, "work")
	os.Mkdir(work, 0o755)
	t.Chdir(work)
	if code, _, errOut := gofer(t, "", "get", "-O", "file://"+strings.ReplaceAll(src, " ", "%20")); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got, err := os.ReadFile(filepath.Join(work, "remote name.txt")); err != nil || string(got) != "hello\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestGetDirectoryListing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), []byte("abc"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	code, out, errOut := gofer(t, "", "get", "--json", fileURL(dir+"/"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var listing struct {
		URL     string `json:"url"`
		Entries []struct {
			Name string `json:"name"`
			Type string `json:"type"`
			URL  string `json:"url"`
			Size *int64 `json:"size"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &listing); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	types := map[string]string{}
	for _, e := range listing.Entries {
		types[e.Name] = e.Type
		if e.URL == "" {
			t.Errorf("entry %s has no URL", e.Name)
		}
	}
	if types["a.txt"] == "" || types["sub"] != "dir" {
		t.Errorf("entries %v", types)
	}
	code, out, _ = gofer(t, "", "get", fileURL(dir+"/"))
	if code != 0 || !strings.Contains(out, "a.txt") || !strings.Contains(out, "sub") {
		t.Errorf("text listing exit %d: %q", code, out)
	}
}

func TestGetMissingFile(t *testing.T) {
	code, _, errOut := gofer(t, "", "get", "file:///nonexistent/gofer-test")
	if code != 5 {
		t.Fatalf("exit %d, want 5: %s", code, errOut)
	}
}

func TestGetForeignFileHost(t *testing.T) {
	code, _, errOut := gofer(t, "", "get", "file://127.0.0.9/etc/hostname")
	if code != 2 || !strings.Contains(errOut, "ftp://") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
