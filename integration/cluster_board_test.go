package integration_test

// gofer serve --cluster: the board of the shared crawls on the test's NATS
// server, used by the FTP kill test of cluster_test.go.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

// board is a gofer serve --cluster process.
type board struct {
	base, token string
}

func startBoard(t *testing.T) *board {
	t.Helper()
	cmd := itest.Command(t, nil, "serve", "--no-live", "--listen", "127.0.0.1:0", "--cluster", natsURL)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	br := bufio.NewReader(out)
	first, _ := br.ReadString('\n')
	second, _ := br.ReadString('\n')
	b := &board{}
	if _, rest, ok := strings.Cut(first, "listening on "); ok {
		b.base = strings.TrimSuffix(strings.TrimSpace(rest), "/")
	}
	if i := strings.LastIndex(second, "(token "); i >= 0 {
		b.token = strings.TrimSuffix(strings.TrimSpace(second[i+len("(token "):]), ")")
	}
	if b.base == "" || b.token == "" {
		t.Fatalf("gofer serve --cluster said %q %q", first, second)
	}
	go io.Copy(io.Discard, br)
	return b
}

type boardJob struct {
	Job     string
	Done    int64
	Paused  bool
	Workers []struct {
		Name    string
		State   string
		Paused  bool
		Holding []string
	}
	Reassigned      int64
	ReassignSeconds float64 `json:"reassign_seconds"`
}

func (b *board) job(t *testing.T, job string) (boardJob, bool) {
	t.Helper()
	resp, err := http.Get(b.base + "/api/jobs?job=" + job)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var jobs []boardJob
	if err := json.NewDecoder(resp.Body).Decode(&jobs); err != nil {
		t.Fatalf("/api/jobs: %v", err)
	}
	for _, j := range jobs {
		if j.Job == job {
			return j, true
		}
	}
	return boardJob{}, false
}

// until asks the board about job until ok takes the answer.
func (b *board) until(t *testing.T, job, what string, ok func(boardJob) bool) boardJob {
	t.Helper()
	ctx := itest.Context(t)
	for {
		if j, found := b.job(t, job); found && ok(j) {
			return j
		}
		select {
		case <-ctx.Done():
			j, _ := b.job(t, job)
			t.Fatalf("the board never showed %s: %+v", what, j)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (b *board) post(t *testing.T, job, action, token string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/jobs/%s/%s", b.base, job, action), nil)
	if token != "" {
		req.Header.Set("X-Gofer-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// steer checks that the board shows the job's three workers, and that a
// pause reaches every one of them and a resume too; a pause without the
// token is refused.
func (b *board) steer(t *testing.T, job string) {
	t.Helper()
	if code := b.post(t, job, "pause", ""); code != 403 {
		t.Errorf("pause without the token: %d, want 403", code)
	}
	// Paused as soon as the job exists (404 until then), so that it
	// cannot end first.
	for ctx := itest.Context(t); ; {
		code := b.post(t, job, "pause", b.token)
		if code == 200 {
			break
		}
		if code != 404 {
			t.Fatalf("pause: %d", code)
		}
		select {
		case <-ctx.Done():
			t.Fatal("the job never came to be")
		case <-time.After(50 * time.Millisecond):
		}
	}
	b.until(t, job, "every worker paused", func(j boardJob) bool {
		n := 0
		for _, w := range j.Workers {
			if w.Paused {
				n++
			}
		}
		return j.Paused && n == 3 && len(j.Workers) == 3
	})
	if code := b.post(t, job, "resume", b.token); code != 200 {
		t.Fatalf("resume: %d", code)
	}
	b.until(t, job, "every worker running again", func(j boardJob) bool {
		for _, w := range j.Workers {
			if w.Paused {
				return false
			}
		}
		return !j.Paused
	})
	resp, err := http.Get(b.base + "/jobs/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, w := range []string{"w1", "w2", "w3", "Job " + job} {
		if !strings.Contains(string(page), w) {
			t.Errorf("the board's page does not name %s", w)
		}
	}
}

// reassigned checks that the board counts as reassigned the items the
// workers took over from the killed one, want as the job's status counts
// them, and how long they waited.
func (b *board) reassigned(t *testing.T, job string, want int64) {
	t.Helper()
	j := b.until(t, job, fmt.Sprintf("%d items reassigned", want), func(j boardJob) bool { return j.Reassigned == want })
	if want > 0 && j.ReassignSeconds <= 0 {
		t.Errorf("reassigned %d items after 0 s", j.Reassigned)
	}
	t.Logf("the board: %d items reassigned, the longest after %.1f s", j.Reassigned, j.ReassignSeconds)
}
