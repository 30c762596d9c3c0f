package integration_test

// Segmented downloads (gofer get --segments N, fetch.Client.Download)
// against vsftpd and nginx: the file is the one the manifest names, byte
// for byte, and the servers' logs show one ranged request per segment.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
)

// segmentBounds are the first bytes of segments 2..n of size bytes.
func segmentBounds(size int64, n int) []int64 {
	var b []int64
	for i := 1; i < n; i++ {
		b = append(b, size*int64(i)/int64(n))
	}
	return b
}

// getSegmented runs gofer get --segments n --json into a fresh file and
// checks the file and the JSON against the big file's sha256.
func getSegmented(t *testing.T, u string, n int, sum string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "big.bin")
	code, stdout, stderr := runCLI(t, "", nil, "get", "-q", "--json", "--segments", strconv.Itoa(n), "-o", out, u)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := sha256File(t, out); got != sum {
		t.Fatalf("sha256 %s, want %s", got, sum)
	}
	var meta struct {
		SHA256   string `json:"sha256"`
		Segments int    `json:"segments"`
	}
	if err := json.Unmarshal([]byte(stdout), &meta); err != nil {
		t.Fatalf("--json: %v: %q", err, stdout)
	}
	if meta.Segments != n || meta.SHA256 != sum {
		t.Errorf("--json says %d segments, sha256 %s; want %d and %s", meta.Segments, meta.SHA256, n, sum)
	}
	if left, _ := filepath.Glob(out + ".*"); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestGoferSegmentsFTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	const size = 64 << 20
	_, sum := itest.BigFile(t, size)
	since := itest.LogSince(t, "vsftpd.log")
	getSegmented(t, "ftp://"+itest.FTPHost+"/big/"+strconv.Itoa(size)+".bin", 4, sum)
	log := since()
	for _, b := range segmentBounds(size, 4) {
		if !strings.Contains(log, fmt.Sprintf(`"REST %d"`, b)) {
			t.Errorf("vsftpd's log has no REST %d", b)
		}
	}
}

func TestGoferSegmentsHTTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	const size = 64 << 20
	_, sum := itest.BigFile(t, size)
	since := itest.LogSince(t, "nginx-access.log")
	getSegmented(t, "http://"+itest.HTTPHost+"/big/"+strconv.Itoa(size)+".bin", 4, sum)
	log := since()
	b := append(segmentBounds(size, 4), size)
	for i := range 3 {
		if want := fmt.Sprintf(`206 %d "bytes=%d-%d"`, b[i+1]-b[i], b[i], b[i+1]-1); !strings.Contains(log, want) {
			t.Errorf("nginx's log has no %s", want)
		}
	}
}

// TestGoferSegmentsServerLimit asks the ProFTPD that allows 2 connections
// per address for 4 segments: the streams beyond its limit wait for a
// connection, the file is whole, and --json says why not 4 at once.
func TestGoferSegmentsServerLimit(t *testing.T) {
	itest.Parallel(t, itest.ProFTPDLimitedHost)
	itest.Require(t, itest.ProFTPDLimitedHost+":21")
	dir := filepath.Join(itest.FTPMoreDir(), "scratch", "TestGoferSegmentsServerLimit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	content := make([]byte, 6<<20)
	for i := range content {
		content[i] = byte(i*7 + i>>11)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.bin"), content, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "f.bin")
	u := "ftp://" + itest.ProFTPDLimitedHost + "/scratch/TestGoferSegmentsServerLimit/f.bin"
	code, stdout, stderr := runCLI(t, "", nil, "get", "-q", "--json", "--segments", "4", "-o", out, u)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, want := sha256File(t, out), sha256File(t, filepath.Join(dir, "f.bin")); got != want {
		t.Fatalf("sha256 %s, want %s", got, want)
	}
	var meta struct {
		Segments int    `json:"segments"`
		Fallback string `json:"segments_fallback"`
	}
	if err := json.Unmarshal([]byte(stdout), &meta); err != nil {
		t.Fatalf("--json: %v: %q", err, stdout)
	}
	if meta.Segments != 4 || !strings.Contains(meta.Fallback, fmt.Sprintf("allows %d", itest.FTPMoreLimitPerHost)) {
		t.Errorf("--json says %d segments, %q; want 4, and the server's limit of %d", meta.Segments, meta.Fallback, itest.FTPMoreLimitPerHost)
	}
}

// TestSegmentsLibraryThroughRelay downloads with fetch.Client.Download into
// an *os.File through a rate-limited relay (data connections relayed too),
// where every stream is cut off at its range's end by closing it.
func TestSegmentsLibraryThroughRelay(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	const size = 10 << 20
	_, sum := itest.BigFile(t, size)
	r, err := relay.Listen("127.0.0.1:0", ftpServer, true, relay.Config{Rate: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := fetch.NewClient(fetch.Options{})
	defer c.Close()
	out := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Download(context.Background(), &fetch.Request{URL: "ftp://" + r.Addr() + "/big/" + strconv.Itoa(size) + ".bin"}, f, 5)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if d.Segments != 5 || d.Contiguous != size {
		t.Errorf("download = %+v, want 5 segments to byte %d", d, size)
	}
	if got := sha256File(t, out); got != sum {
		t.Fatalf("sha256 %s, want %s", got, sum)
	}
	// Five control connections and five data connections.
	if n := r.Counts().Conns; n < 10 {
		t.Errorf("the relay saw %d connections, want at least 10", n)
	}
}
