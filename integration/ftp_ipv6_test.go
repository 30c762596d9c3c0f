package integration_test

// FTP over IPv6: vsftpd on [::1]:21 (integration/lib/ftp.sh).

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// TestFTPIPv6: ftp://[::1]/ end to end: a file byte-exact from vsftpd
// ([::1]:21) and ProFTPD ([::1]:2124) in passive mode (EPSV: PASV cannot
// name an IPv6 address) and in active mode (EPRT |2|), each plain and over
// TLS, and a mirror from ProFTPD in active mode over TLS; then, from
// vsftpd, a listing whose entries' URLs keep the brackets, and a mirror.
func TestFTPIPv6(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, "[::1]:21")
	itest.Require(t, "[::1]:2124")
	manifest := itest.Manifest(t)
	base := "ftp://[::1]/archive"
	dir := t.TempDir()
	// Plain and TLS (AUTH TLS, PROT P; -k: the harness certificates name
	// no IPv6 address), each passive and active.
	for _, server := range []string{base, "ftp://[::1]:2124/archive"} {
		for _, mode := range [][]string{nil, {"--ftp-port", "-"}, {"--ftp-ssl", "-k"}, {"--ftp-ssl", "-k", "--ftp-port", "-"}} {
			out := filepath.Join(dir, "random-64k.bin")
			res := itest.RunIn(t, dir, nil, nil, append(append([]string{"get", "-v"}, mode...), "-o", out, server+"/binary/random-64k.bin")...)
			if res.Code != 0 {
				t.Fatalf("get %s %q: exit %d: %s", server, mode, res.Code, res.Reason())
			}
			if got := sha256File(t, out); got != manifest["binary/random-64k.bin"] {
				t.Errorf("get %s %q: sha256 %s", server, mode, got)
			}
			want := []string{"> EPSV"}
			if slices.Contains(mode, "--ftp-port") {
				want = []string{"> EPRT |2|::1|"}
			}
			if slices.Contains(mode, "--ftp-ssl") {
				want = append(want, "> AUTH TLS", "> PROT P")
			}
			for _, w := range want {
				if !strings.Contains(res.Stderr, w) {
					t.Errorf("get %s %q: no %q in the transcript", server, mode, w)
				}
			}
		}
	}
	pdir := filepath.Join(dir, "proftpd")
	if res := itest.RunIn(t, dir, nil, nil, "mirror", "--ftp-ssl", "-k", "--ftp-port", "-", "ftp://[::1]:2124/archive/text/", pdir); res.Code != 0 {
		t.Fatalf("mirror from ProFTPD on [::1], active, TLS: exit %d: %s", res.Code, res.Reason())
	}
	if d := itest.DiffSubtree(t, pdir, "text/", ".gofer"); len(d) != 0 {
		t.Errorf("mirror from ProFTPD on [::1] differs from the archive: %q", d)
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
	// A WARC capture names the URL with its brackets and the address
	// without (WARC 1.1: WARC-IP-Address is the address alone).
	warc := filepath.Join(dir, "cap")
	res = itest.RunIn(t, dir, nil, nil, "get", "-q", "--warc", warc, "-o", filepath.Join(dir, "dots.txt"), base+"/text/dots.txt")
	if res.Code != 0 {
		t.Fatalf("get --warc: exit %d: %s", res.Code, res.Reason())
	}
	res = itest.RunIn(t, dir, nil, nil, "warc", "list", warc)
	if res.Code != 0 || !strings.Contains(res.Stdout, "resource ") || !strings.Contains(res.Stdout, " "+base+"/text/dots.txt") {
		t.Errorf("warc list: exit %d, %q: want the resource record of %s/text/dots.txt", res.Code, res.Stdout, base)
	}
	if raw := readMaybeGzip(t, warc); !strings.Contains(raw, "WARC-IP-Address: ::1\r\n") {
		t.Errorf("the capture has no WARC-IP-Address: ::1")
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

// readMaybeGzip reads a file, gunzipped when it is gzip.
func readMaybeGzip(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if zr, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
		zr.Multistream(true)
		if plain, err := io.ReadAll(zr); err == nil {
			return string(plain)
		}
	}
	return string(b)
}
