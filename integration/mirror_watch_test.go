package integration_test

// Watching and steering a mirror of vsftpd while it runs: the JSON lines
// agree with the summary to the item and the byte; the dashboard's API
// pauses (no file is asked for while paused: the run goes through a
// relay whose trace is its own), takes an exclude rule that drops
// what was queued and that a rerun honours, and refuses a change without
// the run's token; the report is kept; the terminal status is drawn on a
// terminal (tmux) and nowhere else.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
)

// progressLines reads JSON lines, failing on any other line.
func progressLines(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["event"] == nil {
			t.Fatalf("a line that is not a progress object: %q", l)
		}
		out = append(out, m)
	}
	return out
}

func TestMirrorProgressJSONAgreesWithSummary(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	dir := t.TempDir()
	r := itest.Run(t, nil, nil, "mirror", "--progress", "json", "--json", "-j", "2", "--exclude", "*.dat",
		"ftp://"+itest.FTPHost+"/archive/tree/d01/", dir)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Reason())
	}
	var sum struct {
		New      int64   `json:"new"`
		Bytes    int64   `json:"bytes"`
		Excluded int64   `json:"excluded"`
		Seconds  float64 `json:"duration"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatal(err)
	}
	lines := progressLines(t, r.Stderr)
	if lines[0]["event"] != "start" || lines[len(lines)-1]["event"] != "end" {
		t.Fatalf("first %v, last %v: want start and end", lines[0]["event"], lines[len(lines)-1]["event"])
	}
	var done, excluded, stats, bytes int64
	paths := map[string]bool{}
	for _, l := range lines {
		switch l["event"] {
		case "item":
			switch l["status"] {
			case "done":
				done++
				bytes += int64(l["bytes"].(float64))
				p := l["path"].(string)
				fi, err := os.Stat(filepath.Join(dir, p))
				if err != nil || fi.Size() != int64(l["bytes"].(float64)) {
					t.Errorf("item %s: %d bytes, on disk %v %v", p, int64(l["bytes"].(float64)), fi, err)
				}
				paths[p] = true
			case "excluded":
				excluded++
			default:
				t.Errorf("item %v", l)
			}
		case "stats":
			stats++
		}
	}
	end := lines[len(lines)-1]
	if done != sum.New || bytes != sum.Bytes || excluded != sum.Excluded || int64(end["bytes"].(float64)) != sum.Bytes || end["exit"] != 0.0 {
		t.Errorf("lines: %d done, %d bytes, %d excluded; summary: %d new, %d bytes, %d excluded; end %v", done, bytes, excluded, sum.New, sum.Bytes, sum.Excluded, end)
	}
	if sum.New < 100 || excluded == 0 || len(paths) != int(done) {
		t.Errorf("%d new, %d excluded, %d paths: want the tree's d01 less its .dat files", sum.New, excluded, len(paths))
	}
	// A stats line a second at least, one at the start and one at the end.
	if min := int64(sum.Seconds/1.5) + 1; stats < min {
		t.Errorf("%d stats lines in %.1f s, want %d or more", stats, sum.Seconds, min)
	}
	reports, _ := filepath.Glob(filepath.Join(dir, ".gofer", "reports", "*.html"))
	if len(reports) != 1 {
		t.Fatalf("reports %q, want one", reports)
	}
	b, _ := os.ReadFile(reports[0])
	if !strings.Contains(string(b), fmt.Sprintf(`<td class="n" id="done">%d</td>`, done)) || strings.Contains(string(b), "<script") {
		t.Errorf("the report does not show %d done, or has a script", done)
	}
}

// dashboard is a mirror running with --serve, its lines read as they come.
type dashboard struct {
	base, token string
	lines       chan map[string]any
	cmd         *exec.Cmd
}

func startDashboard(t *testing.T, dir string, args ...string) *dashboard {
	t.Helper()
	cmd := itest.Command(t, nil, append([]string{"mirror", "--progress", "json", "--serve", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &dashboard{lines: make(chan map[string]any, 100000), cmd: cmd}
	go func() {
		defer close(d.lines)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("not a JSON line: %q", sc.Text())
				continue
			}
			d.lines <- m
		}
	}()
	start := d.next(t, func(m map[string]any) bool { return m["event"] == "start" })
	d.base = strings.TrimSuffix(start["settings"].(map[string]any)["serve"].(string), "/")
	tok, err := os.ReadFile(filepath.Join(dir, ".gofer", "serve-token"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, ".gofer", "serve-token")); fi.Mode().Perm() != 0o600 {
		t.Errorf("serve-token mode %v, want 0600", fi.Mode().Perm())
	}
	d.token = strings.TrimSpace(string(tok))
	return d
}

// next returns the first line from now on that ok takes.
func (d *dashboard) next(t *testing.T, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	for m := range d.lines {
		if ok(m) {
			return m
		}
	}
	t.Fatal("the run ended before the line looked for")
	return nil
}

func (d *dashboard) post(t *testing.T, path, token string, form url.Values) int {
	t.Helper()
	req, _ := http.NewRequest("POST", d.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("X-Gofer-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func busy(m map[string]any) float64 {
	n := 0.0
	for _, h := range m["hosts"].(map[string]any) {
		n += h.(map[string]any)["streams"].(float64)
	}
	return n
}

func TestMirrorDashboardSteersVsftpd(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	dir := t.TempDir()
	// Through a relay whose trace is this run's own conversation: vsftpd
	// and its log serve every test at once.
	var trace lockedBuffer
	rl, err := relay.Listen("127.0.0.1:0", itest.FTPHost+":21", true, relay.Config{Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	port := rl.Addr()[strings.LastIndexByte(rl.Addr(), ':')+1:]
	src := "ftp://" + rl.Addr() + "/archive/tree/"
	// d03/ to d05/ and d09/.
	others := []string{"--exclude", "d0[0126-8]/"}
	d := startDashboard(t, dir, append(append([]string{"-j", "2", "--limit-rate", "60k", "--allow-port", port}, others...), src, dir)...)

	// Without the token, or with another, nothing changes.
	if code := d.post(t, "/api/pause", "", nil); code != 403 {
		t.Errorf("pause without the token: %d, want 403", code)
	}
	if code := d.post(t, "/api/pause", "not-the-token", nil); code != 403 {
		t.Errorf("pause with a wrong token: %d, want 403", code)
	}
	d.next(t, func(m map[string]any) bool { return m["event"] == "item" && m["status"] == "done" })
	if code := d.post(t, "/api/pause", d.token, nil); code != 200 {
		t.Fatalf("pause: %d", code)
	}
	// Once the transfers under way have ended, the server is asked for
	// no file.
	quiet := d.next(t, func(m map[string]any) bool { return m["event"] == "stats" && m["paused"] == true && busy(m) == 0 })
	mark := len(trace.String())
	d.next(t, func(m map[string]any) bool { return m["event"] == "stats" })
	later := d.next(t, func(m map[string]any) bool { return m["event"] == "stats" })
	for _, l := range strings.Split(trace.String()[mark:], "\n") {
		if strings.Contains(l, ` > "RETR `) {
			t.Errorf("asked for a file while the run was paused: %s", l)
		}
	}
	if later["done"] != quiet["done"] {
		t.Errorf("paused, done went from %v to %v", quiet["done"], later["done"])
	}
	// /api/progress answers the latest stats line.
	resp, err := http.Get(d.base + "/api/progress")
	if err != nil {
		t.Fatal(err)
	}
	var progress map[string]any
	json.NewDecoder(resp.Body).Decode(&progress)
	resp.Body.Close()
	if progress["event"] != "stats" || progress["paused"] != true {
		t.Errorf("/api/progress: %v", progress)
	}
	// A rule added now drops what waits under it; the run goes on without it.
	if code := d.post(t, "/api/exclude", d.token, url.Values{"pattern": {"d09/"}}); code != 200 {
		t.Fatalf("exclude: %d", code)
	}
	if code := d.post(t, "/api/settings", d.token, url.Values{"limit_rate": {"0"}, "max_per_host": {"4"}}); code != 200 {
		t.Fatalf("settings: %d", code)
	}
	if code := d.post(t, "/api/resume", d.token, nil); code != 200 {
		t.Fatalf("resume: %d", code)
	}
	var doneAfter []string
	var excludedD09 int
	end := d.next(t, func(m map[string]any) bool {
		if m["event"] == "item" && strings.HasPrefix(fmt.Sprint(m["path"]), "d09/") {
			switch m["status"] {
			case "done":
				doneAfter = append(doneAfter, m["path"].(string))
			case "excluded":
				excludedD09++
			}
		}
		return m["event"] == "end"
	})
	if err := d.cmd.Wait(); err != nil {
		t.Fatalf("mirror: %v", err)
	}
	if end["exit"] != 0.0 || excludedD09 == 0 {
		t.Errorf("end %v, %d excluded under d09/: want exit 0 and d09/ left out", end, excludedD09)
	}
	// What was done under d09/ was done before the rule came; nothing after.
	if len(doneAfter) > 0 {
		t.Errorf("mirrored under d09/ after the rule: %q", doneAfter)
	}
	before, _ := filepath.Glob(filepath.Join(dir, "d09", "*", "*"))

	// The rule is in the state: a rerun leaves d09/ out as well.
	r := itest.Run(t, nil, nil, append(append([]string{"mirror", "--json", "--allow-port", port}, others...), src, dir)...)
	if r.Code != 0 {
		t.Fatalf("rerun: exit %d: %s", r.Code, r.Reason())
	}
	var sum struct{ New, Excluded int64 }
	json.Unmarshal([]byte(r.Stdout), &sum)
	after, _ := filepath.Glob(filepath.Join(dir, "d09", "*", "*"))
	if sum.Excluded < 4 || len(after) != len(before) {
		t.Errorf("rerun: %d excluded, d09/ files %d then %d: want the rule kept", sum.Excluded, len(before), len(after))
	}
}

// The terminal status is drawn on a terminal, erased at the end; -q and a
// pipe get none.
func TestMirrorTerminalStatusUnderTmux(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (integration/up installs it)")
	}
	bin := itest.Gofer(t)
	work := t.TempDir()
	sock := filepath.Join(work, "tmux.sock")
	src := "ftp://" + itest.FTPHost + "/archive/tree/d02/"
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(itest.Context(t), "tmux", append([]string{"-S", sock}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	// What the pane is sent goes to a file too (pipe-pane); the quiet run
	// follows the first after a marker.
	drawn := filepath.Join(work, "drawn")
	done := filepath.Join(work, "done")
	script := fmt.Sprintf("%s mirror --limit-rate 200k %s %s/m > %s/out; echo '== quiet'; %s mirror -q --limit-rate 200k %s %s/q; echo $? > %s; sleep 600",
		bin, src, work, work, bin, src, work, done)
	tmux("new-session", "-d", "-x", "200", "-y", "50", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-S", sock, "kill-server").Run() })
	tmux("pipe-pane", "-o", "cat >> "+drawn)
	// Wait for the runs to end (the exit code in the file).
	for ctx := itest.Context(t); ; {
		if b, err := os.ReadFile(done); err == nil && len(b) > 0 {
			if strings.TrimSpace(string(b)) != "0" {
				t.Fatalf("mirror exit %s", b)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the mirror under tmux did not end")
		case <-time.After(100 * time.Millisecond):
		}
	}
	raw, _ := os.ReadFile(drawn)
	first, quiet, _ := strings.Cut(string(raw), "== quiet")
	if !strings.Contains(first, "queued (") || !strings.Contains(first, "\x1b[") || !strings.Contains(first, "streams") {
		t.Errorf("no status drawn on the terminal; the pane got %q", tail(first, 500))
	}
	if strings.Contains(quiet, "queued (") {
		t.Errorf("-q drew a status: %q", tail(quiet, 500))
	}
	// At the end the status is erased: the screen holds no status line.
	if screen := tmux("capture-pane", "-p"); strings.Contains(screen, "queued (") {
		t.Errorf("the status is left on the screen:\n%s", screen)
	}
	out, _ := os.ReadFile(filepath.Join(work, "out"))
	if !strings.Contains(string(out), "mirrored ") {
		t.Errorf("summary %q", out)
	}

	// Piped: no status.
	r := itest.Run(t, nil, nil, "mirror", src, filepath.Join(work, "p"))
	if r.Code != 0 || strings.Contains(r.Stderr, "queued (") || strings.Contains(r.Stderr, "\x1b[") {
		t.Errorf("piped: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// In Chromium the dashboard redraws itself as the run goes on (its count
// and its chart), and its Pause and Resume buttons steer the run: Pause
// pressed with the mouse held down while the page redraws twice, which
// must not redraw the button away between press and release.
func TestMirrorDashboardInChromium(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	drv := os.Getenv("GOFER_REPLAYWEBPAGE") // puppeteer-core, installed with ReplayWeb.page
	if drv == "" {
		t.Skip("GOFER_REPLAYWEBPAGE is not set (integration/test installs puppeteer-core and Chromium)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("GOFER_REPLAYWEBPAGE is set but node is missing: %v", err)
	}
	dir := t.TempDir()
	// d06/ to d08/ only: the other tests' directories stay out of it.
	// Slow enough that the run cannot end while a loaded machine starts
	// the browser; let go once the browser is done.
	d := startDashboard(t, dir, "-j", "2", "--limit-rate", "3k", "--exclude", "d0[0-59]/", "ftp://"+itest.FTPHost+"/archive/tree/", dir)
	go func() {
		for range d.lines {
		}
	}()
	shots := filepath.Join(itest.LogDir(), "dashboard-chromium")
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := itest.Context(t) // the test's deadline bounds the browser
	cmd := exec.CommandContext(ctx, node, filepath.Join("watch", "dashboard.cjs"), shots, d.base+"/?token="+d.token)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(drv, "node_modules"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dashboard.cjs: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	var got struct {
		Done0, Done1     int
		Points0, Points1 string
		Paused, Resumed  string
		Presses          map[string]int
		HeldThrough      int
		Errors           []string
	}
	if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
		t.Fatalf("dashboard.cjs printed %q: %v", stdout.String(), err)
	}
	if got.Done1 <= got.Done0 || got.Points1 == got.Points0 || got.Points1 == "" {
		t.Errorf("the page did not redraw: done %d then %d, chart %q then %q", got.Done0, got.Done1, got.Points0, got.Points1)
	}
	if !strings.HasPrefix(got.Paused, "Paused") || !strings.HasPrefix(got.Resumed, "Running") {
		t.Errorf("after Pause the page says %q, after Resume %q", got.Paused, got.Resumed)
	}
	// Pause was pressed as a person presses, the mouse held down while the
	// page redrew twice: the one press paused the run.
	if got.Presses["#pause"] != 1 || got.HeldThrough != 2 {
		t.Errorf("Pause held through %d redraws took %d presses, want 1", got.HeldThrough, got.Presses["#pause"])
	}
	if len(got.Errors) > 0 {
		t.Errorf("script errors on the page: %q", got.Errors)
	}
	if code := d.post(t, "/api/settings", d.token, url.Values{"limit_rate": {"0"}}); code != 200 {
		t.Errorf("limit_rate=0: %d", code)
	}
	if err := d.cmd.Wait(); err != nil {
		t.Errorf("mirror: %v", err)
	}
}
