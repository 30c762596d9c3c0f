package mirror

import (
	"context"
	"crypto/md5"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

func remoteDiffs(t *testing.T, dir string, m *memFTP) (CheckSummary, []string) {
	t.Helper()
	var got []string
	sum, err := CheckRemote(context.Background(), newClient(m), dir, func(d Difference) {
		got = append(got, d.Change+" "+d.Path)
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return sum, got
}

// TestCheckRemote: the state's directories are listed again and each
// file compared by the server's checksum; one of another algorithm than
// the state keeps (MD5 here, SHA-512 kept) is compared with the local
// file hashed in it, unless the local file changed, when the listing's
// size and time decide. A file rewritten with bytes of its size and time
// is found by its checksum alone; a removed file and the files of a
// removed directory are gone, an added file and directory new.
func TestCheckRemote(t *testing.T) {
	m := newMemFTP()
	m.file("a.txt", "alpha\n")
	m.file("b.txt", "beta\n")
	m.file("sub/c.txt", "gamma\n")
	m.file("old/d.txt", "delta\n")
	m.file("old/deep/e.txt", "epsilon\n")
	m.hash = func(_ string, data []byte, _ int) schemes.ServerHash {
		h := sha512.Sum512(data)
		return schemes.ServerHash{Alg: "SHA-512", Hex: hex.EncodeToString(h[:])}
	}
	m.listHash = func(data []byte) schemes.ServerHash {
		h := md5.Sum(data)
		return schemes.ServerHash{Alg: "MD5", Hex: hex.EncodeToString(h[:])}
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), newClient(m), m.url(nil, true), dir, Options{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	sum, got := remoteDiffs(t, dir, m)
	if len(got) != 0 || sum.Differs() || sum.RemoteFiles != 5 || sum.ByHash["MD5"] != 5 || sum.ByListing != 0 || sum.Listings != 4 {
		t.Fatalf("untouched: %+v %q", sum, got)
	}

	m.file("a.txt", "ALPHA\n") // same size, same time
	m.file("b.txt", "BETA\n")  // so too, but the local copy changed as well
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("local\n"), 0o644)
	m.remove("old")
	m.file("sub/new.txt", "new\n")
	m.file("newdir/f.txt", "f\n")
	sum, got = remoteDiffs(t, dir, m)
	want := []string{"changed b.txt", "gone old/d.txt", "gone old/deep/e.txt", "new newdir/", "new sub/new.txt", "remote-changed a.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	// b.txt: the local copy changed, so the server's MD5 had nothing to be
	// compared with; its size and time did not change.
	if sum.ByHash["MD5"] != 2 || sum.ByListing != 1 || sum.RemoteChanged != 1 || sum.Gone != 2 || sum.New != 2 {
		t.Errorf("summary %+v", sum)
	}

	// Without checksums, by size and time, saying so.
	m.listHash = nil
	m.file("sub/c.txt", "gamma, longer\n")
	var details []string
	sum, err := CheckRemote(context.Background(), newClient(m), dir, func(d Difference) {
		if d.Change == DiffRemoteChanged {
			details = append(details, d.Path+": "+d.Detail)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(details) != 1 || !strings.Contains(details[0], "sub/c.txt: 14 bytes, the mirror's listing 6 (by size and time: the server gave no checksum of it)") {
		t.Errorf("without checksums: %q", details)
	}
	if sum.ByListing != 3 || len(sum.ByHash) != 0 {
		t.Errorf("without checksums: %+v", sum)
	}
}

// TestCheckRemoteVersions: of a VMS listing's versions the highest is
// compared with the file the mirror kept under the plain name, every
// version with its own file under AllVersions: the lower versions, whose
// listed sizes change after the mirror, are compared with nothing in the
// first case and found changed in the second.
func TestCheckRemoteVersions(t *testing.T) {
	for _, all := range []bool{false, true} {
		m := vmsFTP()
		dir := t.TempDir()
		if _, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{AllVersions: all}); err != nil {
			t.Fatal(err)
		}
		for i, e := range m.nodes[""].extra {
			if e.Version < 3 {
				m.nodes[""].extra[i].Size = 99
			}
		}
		sum, got := remoteDiffs(t, dir, m)
		files, want := int64(2), []string(nil)
		if all {
			files, want = 4, []string{"remote-changed README.TXT;1", "remote-changed README.TXT;2"}
		}
		if !slices.Equal(got, want) || sum.RemoteFiles != files {
			t.Errorf("all versions %v: %q, want %q; %+v", all, got, want, sum)
		}
	}
}
