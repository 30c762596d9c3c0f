package integration_test

// Provable copies against vsftpd: a mirror kept as a BagIt bag validates
// and survives an incremental rerun with --delete; mirror --check finds a
// flipped byte, a removed and an added file without the network.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

func TestFixityBagitOverFTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	name := "fixity-bagit"
	src := scratchTree(t, name)
	url := "ftp://" + itest.FTPHost + "/scratch/" + name + "/"
	dir := filepath.Join(t.TempDir(), "bag")

	r := itest.Run(t, nil, nil, "mirror", "-q", "--bagit", url, dir)
	if r.Code != 0 {
		t.Fatalf("mirror --bagit: exit %d: %s", r.Code, r.Stderr)
	}
	r = itest.Run(t, nil, nil, "bag", "validate", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "valid bag: 6 files") {
		t.Fatalf("bag validate: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	// The manifest holds the sha256 of the server's bytes, under data/.
	m, err := os.ReadFile(filepath.Join(dir, "manifest-sha256.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := itest.FileSHA256(filepath.Join(src, "sub1", "file3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m), want+"  data/sub1/file3.txt\n") {
		t.Errorf("manifest lacks data/sub1/file3.txt with %s:\n%s", want, m)
	}
	info, _ := os.ReadFile(filepath.Join(dir, "bag-info.txt"))
	if !strings.Contains(string(info), "External-Identifier: "+url+"\n") || !strings.Contains(string(info), "Bag-Software-Agent: gofer ") {
		t.Errorf("bag-info.txt:\n%s", info)
	}

	// An incremental rerun: one file changed, one added, one removed.
	os.WriteFile(filepath.Join(src, "sub0", "file0.txt"), []byte("changed, and longer than before\n"), 0o644)
	os.WriteFile(filepath.Join(src, "sub0", "added.txt"), []byte("added\n"), 0o644)
	os.Remove(filepath.Join(src, "sub1", "file5.txt"))
	r = itest.Run(t, nil, nil, "mirror", "--json", "--bagit", "--delete", url, dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"new":1,"updated":1,"unchanged":4`) || !strings.Contains(r.Stdout, `"deleted":1`) {
		t.Fatalf("rerun: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = itest.Run(t, nil, nil, "bag", "validate", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "valid bag: 6 files") {
		t.Fatalf("bag validate after the rerun: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	m, _ = os.ReadFile(filepath.Join(dir, "manifest-sha256.txt"))
	if strings.Contains(string(m), "file5.txt") || !strings.Contains(string(m), "  data/sub0/added.txt\n") {
		t.Errorf("manifest after the rerun:\n%s", m)
	}

	// --check: clean, then a flipped byte, a removed and an added file.
	r = itest.Run(t, nil, nil, "mirror", "--check", dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "6 files") {
		t.Fatalf("check: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	flip := filepath.Join(dir, "data", "sub1", "file3.txt")
	b, _ := os.ReadFile(flip)
	b[len(b)/2] ^= 1
	os.WriteFile(flip, b, 0o644)
	os.Remove(filepath.Join(dir, "data", "sub0", "file2.txt"))
	os.WriteFile(filepath.Join(dir, "data", "stray"), []byte("x"), 0o644)
	r = itest.Run(t, nil, nil, "mirror", "--check", dir)
	for _, want := range []string{"changed data/sub1/file3.txt (sha256 ", "missing data/sub0/file2.txt\n", "added data/stray\n", "1 changed, 1 missing, 1 added"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, r.Stdout)
		}
	}
	if r.Code != 1 {
		t.Errorf("check of a changed bag: exit %d, want 1", r.Code)
	}
	r = itest.Run(t, nil, nil, "bag", "validate", dir)
	for _, want := range []string{dir + ": data/sub1/file3.txt: sha256 is ", dir + ": data/sub0/file2.txt: listed in manifest-sha256.txt, missing", dir + ": data/stray: in the payload, not in manifest-sha256.txt"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("bag validate lacks %q:\n%s", want, r.Stderr)
		}
	}
	if r.Code != 1 {
		t.Errorf("bag validate of a changed bag: exit %d, want 1", r.Code)
	}
}
