package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
)

// rangeServer serves content with Range support; while broken is set, the
// range that starts at cut is broken off after half its bytes.
func rangeServer(t *testing.T, content []byte, cut int64, broken *atomic.Bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var first, last int64
		if broken.Load() && r.Header.Get("Range") != "" {
			if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &first, &last); err == nil && first == cut {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(content)))
				w.Header().Set("Content-Length", fmt.Sprint(last-first+1))
				w.WriteHeader(http.StatusPartialContent)
				w.Write(content[first : first+(last-first+1)/2])
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			}
		}
		http.ServeContent(w, r, "file.bin", time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC), bytes.NewReader(content))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestGetSegments(t *testing.T) {
	content := make([]byte, 3*fetch.MinSegment+17)
	rand.New(rand.NewSource(3)).Read(content)
	var broken atomic.Bool
	srv := rangeServer(t, content, -1, &broken)
	out := filepath.Join(t.TempDir(), "file.bin")
	code, stdout, stderr := gofer(t, "", "get", "-q", "--json", "--segments", "3", srv.URL+"/file.bin", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("saved file differs (%v)", err)
	}
	var meta struct {
		Size     int64  `json:"size"`
		SHA256   string `json:"sha256"`
		Segments int    `json:"segments"`
	}
	if err := json.Unmarshal([]byte(stdout), &meta); err != nil {
		t.Fatalf("--json: %v: %q", err, stdout)
	}
	sum := sha256.Sum256(content)
	if meta.Segments != 3 || meta.Size != int64(len(content)) || meta.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("--json = %+v, want 3 segments, size %d and the file's sha256", meta, len(content))
	}
	if left, _ := filepath.Glob(out + ".*"); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestGetSegmentsFailureKeepsPrefixForResume(t *testing.T) {
	content := make([]byte, 4*fetch.MinSegment+5)
	rand.New(rand.NewSource(4)).Read(content)
	size := int64(len(content))
	cut := size * 2 / 4
	var broken atomic.Bool
	broken.Store(true)
	srv := rangeServer(t, content, cut, &broken)
	out := filepath.Join(t.TempDir(), "file.bin")
	code, _, stderr := gofer(t, "", "get", "-q", "--segments", "4", srv.URL+"/file.bin", "-o", out)
	if code == 0 {
		t.Fatal("a segment broken off mid-way, and exit 0")
	}
	if code != exitInterrupted {
		t.Errorf("exit %d, want %d (interrupted): %s", code, exitInterrupted, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("%s exists after a failed download (%v)", out, err)
	}
	if _, err := os.Stat(out + segmentsSuffix); !os.IsNotExist(err) {
		t.Errorf("the segments file is left behind (%v)", err)
	}
	part, err := os.ReadFile(out + fetch.PartSuffix)
	if err == nil && (int64(len(part)) > cut+(size/4)/2 || !bytes.Equal(part, content[:len(part)])) {
		t.Fatalf("the part kept (%d bytes) is not a prefix of the file", len(part))
	}

	broken.Store(false)
	code, _, stderr = gofer(t, "", "get", "-q", "-C", "--segments", "4", srv.URL+"/file.bin", "-o", out)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("the resumed file differs (%v)", err)
	}
}

func TestGetSegmentsUsage(t *testing.T) {
	code, _, stderr := gofer(t, "", "get", "--segments", "0", "http://127.0.0.1/x", "-o", filepath.Join(t.TempDir(), "x"))
	if code != 2 || !strings.Contains(stderr, "--segments") {
		t.Errorf("--segments 0: exit %d, %q; want 2 and the flag named", code, stderr)
	}
}
