package integration_test

// FTP over IPv6: vsftpd on [::1]:21 (integration/lib/ftp.sh).

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// TestFTPIPv6: ftp://[::1]/ end to end: a file byte-exact in passive
// mode (EPSV: PASV cannot name an IPv6 address) and in active mode (EPRT
// |2|), a listing whose entries' URLs keep the brackets, and a mirror.
func TestFTPIPv6(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, "[::1]:21")
	manifest := itest.Manifest(t)
	base := "ftp://[::1]/archive"
	dir := t.TempDir()
	for _, mode := range [][]string{nil, {"--ftp-port", "-"}} {
		out := filepath.Join(dir, "random-64k.bin")
		res := itest.RunIn(t, dir, nil, nil, append(append([]string{"get", "-v"}, mode...), "-o", out, base+"/binary/random-64k.bin")...)
		if res.Code != 0 {
			t.Fatalf("get %q: exit %d: %s", mode, res.Code, res.Reason())
		}
		if got := sha256File(t, out); got != manifest["binary/random-64k.bin"] {
			t.Errorf("get %q: sha256 %s", mode, got)
		}
		want := "> EPSV"
		if mode != nil {
			want = "> EPRT |2|::1|"
		}
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("get %q: no %q in the transcript", mode, want)
		}
	}
	res := itest.RunIn(t, dir, nil, nil, "get", "--json", base+"/text/")
	if res.Code != 0 {
		t.Fatalf("listing: exit %d: %s", res.Code, res.Reason())
	}
	var listing struct {
		URL     string `json:"url"`
		Entries []struct {
			Name string `json:"name"`
			URL  string `json:"url"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &listing); err != nil {
		t.Fatalf("--json: %v: %s", err, res.Stdout)
	}
	if len(listing.Entries) != len(listDir(t, "text")) {
		t.Errorf("listing: %d entries, want %d", len(listing.Entries), len(listDir(t, "text")))
	}
	for _, e := range listing.Entries {
		if e.URL != base+"/text/"+e.Name {
			t.Errorf("entry %s: URL %q, want it under %s/text/", e.Name, e.URL, base)
		}
	}
	mdir := filepath.Join(dir, "m")
	res = itest.RunIn(t, dir, nil, nil, "mirror", "-j", "2", base+"/tree/d01/", mdir)
	if res.Code != 0 {
		t.Fatalf("mirror: exit %d: %s", res.Code, res.Reason())
	}
	if d := itest.DiffSubtree(t, mdir, "tree/d01/", ".gofer"); len(d) != 0 {
		t.Errorf("mirror differs from the archive (%d): %q", len(d), d[:min(len(d), 10)])
	}
}
