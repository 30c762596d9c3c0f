package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestClusterUsage: flags that cannot work are refused with one line and
// exit 2 before anything is opened (no DIR is made).
func TestClusterUsage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	src := "file://" + filepath.ToSlash(t.TempDir()) + "/"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--job", "j", src, dir}, "need --cluster"},
		{[]string{"--status", src, dir}, "need --cluster"},
		{[]string{"--cluster", "nats://127.0.0.1:1", src, dir}, "--job"},
		{[]string{"--cluster", "nats://127.0.0.1:1", "--job", "a.b", src, dir}, "--job \"a.b\""},
		{[]string{"--cluster", "nats://127.0.0.1:1", "--job", "j", "--worker", "w/1", src, dir}, "--worker"},
		{[]string{"--cluster", "nats://127.0.0.1:1", "--job", "j", "--dry-run", src, dir}, "--dry-run"},
		{[]string{"--cluster", "nats://127.0.0.1:1", "--job", "j", "--ack-wait", "10ms", src, dir}, "--ack-wait"},
		{[]string{"--cluster", "http://127.0.0.1:1", "--job", "j", src, dir}, "nats://HOST:PORT"},
		{[]string{"--cluster", "nats://127.0.0.1:1", "--job", "j", "--status", src, dir}, "takes no URL"},
		{[]string{"--cluster", "nats://127.0.0.1:1", "--job", "j", "--cluster-creds", filepath.Join(dir, "none.creds"), src, dir}, "--cluster-creds"},
	}
	for _, c := range cases {
		code, _, stderr := gofer(t, "", append([]string{"mirror"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("%v: made %s", c.args, dir)
		}
	}
}

// TestClusterPasswordNotShown: a server that cannot be reached is exit 4,
// and the URL's password appears nowhere.
func TestClusterPasswordNotShown(t *testing.T) {
	src := "file://" + filepath.ToSlash(t.TempDir()) + "/"
	for _, extra := range [][]string{nil, {"--status"}} {
		args := append([]string{"mirror", "--cluster", "nats://gofer:top-secret@127.0.0.1:1", "--job", "j"}, extra...)
		if extra == nil {
			args = append(args, src, filepath.Join(t.TempDir(), "out"))
		}
		code, stdout, stderr := gofer(t, "", args...)
		if code != exitConnect || strings.Contains(stdout+stderr, "top-secret") || !strings.Contains(stderr, "****") {
			t.Errorf("%v: exit %d, %q %q; want exit 4 with the password masked", extra, code, stdout, stderr)
		}
	}
}

// TestClusterStatus: a worker mirrors a file: tree through an in-process
// NATS server; --status then shows the job done (two listings and three
// files), in text and --json.
func TestClusterStatus(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Shutdown()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats server not ready")
	}
	url := s.ClientURL()
	src := t.TempDir()
	for _, n := range []string{"a.txt", "b.txt", "sub/c.txt"} {
		os.MkdirAll(filepath.Join(src, filepath.Dir(n)), 0o755)
		os.WriteFile(filepath.Join(src, n), []byte(n), 0o644)
	}
	if code, _, stderr := gofer(t, "", "mirror", "--cluster", url, "--job", "none", "--status"); code != exitServer || !strings.Contains(stderr, "no job none") {
		t.Errorf("status of an unknown job: exit %d, %q", code, stderr)
	}
	dir := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := gofer(t, "", "mirror", "--cluster", url, "--job", "files", "--worker", "w1",
		"file://"+filepath.ToSlash(src)+"/", dir)
	if code != 0 || !strings.Contains(stdout, "3 new") {
		t.Fatalf("worker: exit %d: %s %s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "c.txt")); err != nil || string(b) != "sub/c.txt" {
		t.Errorf("sub/c.txt: %q, %v", b, err)
	}
	code, stdout, stderr = gofer(t, "", "mirror", "--cluster", url, "--job", "files", "--status")
	if code != 0 || !strings.Contains(stdout, "job files: run 1, done") || !strings.Contains(stdout, "queued 0, in flight 0, done 5") ||
		!strings.Contains(stdout, "w1") {
		t.Errorf("status: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, _ = gofer(t, "", "mirror", "--cluster", url, "--job", "files", "--status", "--json")
	var st struct {
		State   string `json:"state"`
		Done    int    `json:"done"`
		Workers []struct {
			Worker string `json:"worker"`
			State  string `json:"state"`
		} `json:"workers"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &st) != nil || st.State != "done" || st.Done != 5 ||
		len(st.Workers) != 1 || st.Workers[0].Worker != "w1" || st.Workers[0].State != "finished" {
		t.Errorf("status --json: exit %d: %s", code, stdout)
	}
}
