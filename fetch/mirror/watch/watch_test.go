package watch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch/mirror"
)

// clock is a settable time for a Recorder.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// syncBuffer is a bytes.Buffer safe for the recorder's writes and the
// test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		if !strings.HasPrefix(l, `{"event":`) {
			t.Errorf("line does not begin with its event: %q", l)
		}
		out = append(out, m)
	}
	return out
}

func newTestRecorder(lines *syncBuffer) (*Recorder, *clock) {
	c := &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	r := New(Config{Job: "j", URL: "ftp://127.0.0.1/pub/", Dir: "/tmp/d", Lines: lines, Now: c.now,
		Exit: func(error) int { return 8 }, Settings: map[string]any{"jobs": 4}})
	return r, c
}

// The JSON lines follow the contract: a start, items with their fields, a
// stats line each second with the rate over the last seconds and an ETA
// once no listing is pending, warnings, and an end with the summary's
// fields; the done items' bytes add up to the end's.
func TestLinesFollowTheContract(t *testing.T) {
	var buf syncBuffer
	r, c := newTestRecorder(&buf)
	r.Start()
	r.Progress(mirror.Progress{FilesTotal: 3, Listing: true, Hosts: map[string]mirror.HostProgress{"127.0.0.1:21": {Streams: 1, Limit: 4}}})
	c.add(500 * time.Millisecond)
	r.Event(mirror.Event{Status: mirror.StatusDone, Change: "new", URL: "ftp://127.0.0.1/pub/a.txt", Path: "a.txt", Bytes: 1000, Duration: 20 * time.Millisecond})
	r.Event(mirror.Event{Status: mirror.StatusRetry, URL: "ftp://127.0.0.1/pub/b", Err: errors.New("421 busy")})
	r.Event(mirror.Event{Status: mirror.StatusFailed, URL: "ftp://127.0.0.1/pub/b", Path: "b", Err: errors.New("550\nno")})
	r.Progress(mirror.Progress{FilesTotal: 3, FilesDone: 2, New: 1, Failed: 1, Bytes: 1000, Queued: 1, Listing: true})
	c.add(600 * time.Millisecond)
	r.Event(mirror.Event{Status: mirror.StatusDone, Change: "new", URL: "ftp://127.0.0.1/pub/c.bin", Path: "c.bin", Bytes: 3000})
	r.Progress(mirror.Progress{FilesTotal: 4, FilesDone: 3, New: 2, Failed: 1, Bytes: 4000, Queued: 1,
		Hosts: map[string]mirror.HostProgress{"127.0.0.1:21": {Streams: 2, Limit: 4, ServerLimit: 3}}})
	r.WarningWriter().Write([]byte("gofer: warning: port 2121 is not ftp's\n"))
	r.End(&mirror.Summary{URL: "ftp://127.0.0.1/pub/", New: 2, Failed: 1, Bytes: 4000}, 8)

	lines := buf.lines(t)
	kinds := []string{}
	for _, l := range lines {
		kinds = append(kinds, l["event"].(string))
		if _, err := time.Parse(time.RFC3339Nano, l["time"].(string)); err != nil {
			t.Errorf("time %v: %v", l["time"], err)
		}
	}
	want := "start stats item item item item stats warning stats end"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("events %q\nwant   %q", got, want)
	}
	if lines[0]["url"] != "ftp://127.0.0.1/pub/" || lines[0]["job"] != "j" || lines[0]["settings"].(map[string]any)["jobs"] != 4.0 {
		t.Errorf("start: %v", lines[0])
	}
	item := lines[2]
	if item["status"] != "done" || item["path"] != "a.txt" || item["bytes"] != 1000.0 || item["ms"] != 20.0 || item["change"] != "new" {
		t.Errorf("done item: %v", item)
	}
	if f := lines[4]; f["status"] != "failed" || f["error"] != "550 no" || f["exit"] != 8.0 {
		t.Errorf("failed item: %v", f)
	}
	if rt := lines[3]; rt["status"] != "retry" || rt["exit"] != nil {
		t.Errorf("retry item: %v", rt)
	}
	st := lines[6]
	if st["done"] != 2.0 || st["failed"] != 1.0 || st["queued"] != 1.0 || st["bytes"] != 4000.0 {
		t.Errorf("stats: %v", st)
	}
	// 4000 bytes in the 1.1 s since the first snapshot.
	if rate := st["rate"].(float64); rate < 3600 || rate > 3650 {
		t.Errorf("rate %v, want 4000/1.1", rate)
	}
	// One file left at 3 files in 1.1 s.
	if eta, ok := st["eta"].(float64); !ok || eta < 0.3 || eta > 0.4 {
		t.Errorf("eta %v, want about 0.37 s", st["eta"])
	}
	if lines[1]["eta"] != nil {
		t.Errorf("eta %v while listings are read, want null", lines[1]["eta"])
	}
	h := st["hosts"].(map[string]any)["127.0.0.1:21"].(map[string]any)
	if h["streams"] != 2.0 || h["limit"] != 3.0 {
		t.Errorf("host: %v", h)
	}
	if h0 := lines[1]["hosts"].(map[string]any)["127.0.0.1:21"].(map[string]any); h0["limit"] != nil {
		t.Errorf("limit %v before the server's is learned, want null", h0["limit"])
	}
	if w := lines[7]; w["message"] != "port 2121 is not ftp's" {
		t.Errorf("warning: %v", w)
	}
	end := lines[9]
	if end["new"] != 2.0 || end["failed"] != 1.0 || end["exit"] != 8.0 {
		t.Errorf("end: %v", end)
	}
	var sum float64
	for _, l := range lines {
		if l["event"] == "item" && l["status"] == "done" {
			sum += l["bytes"].(float64)
		}
	}
	if sum != end["bytes"].(float64) {
		t.Errorf("done items' bytes %v, end's %v", sum, end["bytes"])
	}
}

// A stats line comes once a second, however often snapshots come.
func TestStatsOnceASecond(t *testing.T) {
	var buf syncBuffer
	r, c := newTestRecorder(&buf)
	for range 50 {
		r.Progress(mirror.Progress{})
		c.add(100 * time.Millisecond)
	}
	n := 0
	for _, l := range buf.lines(t) {
		if l["event"] == "stats" {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d stats lines in 5 s of snapshots every 100 ms, want 5", n)
	}
}

// The history stays bounded however long the run.
func TestHistoryBounded(t *testing.T) {
	r, c := newTestRecorder(&syncBuffer{})
	for i := range 5000 {
		r.Progress(mirror.Progress{Bytes: int64(i)})
		c.add(time.Second)
	}
	if n := len(r.series); n > maxPoints || n < maxPoints/2 {
		t.Errorf("%d points after 5000 s, want between %d and %d", n, maxPoints/2, maxPoints)
	}
	if last := r.series[len(r.series)-1]; last.Bytes != 4999 {
		t.Errorf("last point %+v, want the latest snapshot", last)
	}
}

func serve(t *testing.T, r *Recorder, ctl *mirror.Control) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(r.Handler(ctl, "secret"))
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, srv *httptest.Server, path, token string, form url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		req.Header.Set("X-Gofer-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// A change needs the token; with it, pause, resume and rules reach the
// Control; a form is answered by a redirect to the page.
func TestSteeringNeedsTheToken(t *testing.T) {
	r, _ := newTestRecorder(&syncBuffer{})
	ctl := mirror.NewControl()
	srv := serve(t, r, ctl)
	if resp := post(t, srv, "/api/pause", "", nil); resp.StatusCode != 403 || ctl.Paused() {
		t.Fatalf("pause without a token: %d, paused %v; want 403 and not paused", resp.StatusCode, ctl.Paused())
	}
	if resp := post(t, srv, "/api/pause", "wrong", nil); resp.StatusCode != 403 || ctl.Paused() {
		t.Fatalf("pause with a wrong token: %d", resp.StatusCode)
	}
	if resp := post(t, srv, "/api/pause", "secret", nil); resp.StatusCode != 200 || !ctl.Paused() {
		t.Fatalf("pause with the token: %d, paused %v", resp.StatusCode, ctl.Paused())
	}
	if resp := post(t, srv, "/api/exclude", "secret", url.Values{"pattern": {"*.iso"}}); resp.StatusCode != 200 {
		t.Fatalf("exclude: %d", resp.StatusCode)
	}
	if resp := post(t, srv, "/api/include", "secret", url.Values{"pattern": {"["}}); resp.StatusCode != 400 {
		t.Errorf("a bad glob: %d, want 400", resp.StatusCode)
	}
	if fs := ctl.Filters(); len(fs) != 1 || fs[0] != (mirror.Filter{Exclude: true, Glob: "*.iso"}) {
		t.Errorf("rules %v", fs)
	}
	req, _ := http.NewRequest("DELETE", srv.URL+"/api/exclude?pattern=*.iso", nil)
	req.Header.Set("X-Gofer-Token", "secret")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 || len(ctl.Filters()) != 0 {
		t.Errorf("DELETE of the rule: %v %v, rules %v", resp, err, ctl.Filters())
	}
	// The page's form: the token as a field, answered by a redirect.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(srv.URL+"/api/resume", url.Values{"token": {"secret"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 303 || ctl.Paused() {
		t.Errorf("resume from the form: %d, paused %v; want 303 and running", resp.StatusCode, ctl.Paused())
	}
}

// The dashboard answers loopback names only.
func TestDashboardRefusesOtherHosts(t *testing.T) {
	r, _ := newTestRecorder(&syncBuffer{})
	srv := serve(t, r, nil)
	req, _ := http.NewRequest("GET", srv.URL+"/api/progress", nil)
	req.Host = "attacker.example:8080"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("Host attacker.example: %d, want 403", resp.StatusCode)
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:8071", "localhost:1"} {
		if err := CheckListen(addr); err != nil {
			t.Errorf("CheckListen(%q): %v", addr, err)
		}
	}
	for _, addr := range []string{"0.0.0.0:8071", "192.0.2.1:80", ":8071", "example.org:80", "nonsense"} {
		if err := CheckListen(addr); err == nil {
			t.Errorf("CheckListen(%q) took it", addr)
		}
	}
}

// The page shows the numbers and the charts, its script is its own, the
// events stream begins with the latest stats and ends with the end line,
// and the report has no script and no forms.
func TestPageEventsAndReport(t *testing.T) {
	r, c := newTestRecorder(&syncBuffer{})
	ctl := mirror.NewControl()
	srv := serve(t, r, ctl)
	for i := range 3 {
		r.Event(mirror.Event{Status: mirror.StatusDone, Change: "new", Path: "f" + string(rune('a'+i)) + ".txt", Bytes: 2048})
		r.Progress(mirror.Progress{New: int64(i + 1), FilesDone: int64(i + 1), FilesTotal: 5, Bytes: int64(2048 * (i + 1))})
		c.add(time.Second)
	}
	resp, err := http.Get(srv.URL + "/?token=secret")
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	page.ReadFrom(resp.Body)
	resp.Body.Close()
	body := page.String()
	for _, want := range []string{`<td class="n" id="done">3</td>`, `<polyline class="series" data-name="done"`, `<script src="/dashboard.js"`,
		`name="token" value="secret"`, `<td>.txt</td><td class="n">3</td><td class="n">6144</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("CSP %q", csp)
	}
	if resp, _ := http.Get(srv.URL + "/"); resp != nil {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		if strings.Contains(b.String(), "secret") {
			t.Error("the page without ?token= shows the token")
		}
	}

	ev, err := http.Get(srv.URL + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Body.Close()
	if ct := ev.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("events Content-Type %q", ct)
	}
	sc := bufio.NewScanner(ev.Body)
	next := func() map[string]any {
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(d), &m); err != nil {
					t.Fatal(err)
				}
				return m
			}
		}
		return nil
	}
	if first := next(); first["event"] != "stats" || first["done"] != 3.0 {
		t.Errorf("first event %v, want the latest stats", first)
	}
	go r.End(&mirror.Summary{New: 3, Bytes: 6144}, 0)
	var last map[string]any
	for m := next(); m != nil; m = next() {
		last = m
	}
	if last["event"] != "end" || last["new"] != 3.0 {
		t.Errorf("last event %v, want the end", last)
	}

	var rep bytes.Buffer
	if err := r.WriteReport(&rep, []mirror.Filter{{Exclude: true, Glob: "*.iso"}}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<form", "refresh"} {
		if strings.Contains(rep.String(), bad) {
			t.Errorf("the report has %s", bad)
		}
	}
	for _, want := range []string{"Mirrored", `<td class="n" id="done">3</td>`, "exclude *.iso", "<svg"} {
		if !strings.Contains(rep.String(), want) {
			t.Errorf("the report lacks %s", want)
		}
	}
}

// Remote text (names, URLs, errors) is escaped on the page and in the
// report: a hostile server's names run no script and make no element.
func TestPageEscapesRemoteText(t *testing.T) {
	r, _ := newTestRecorder(&syncBuffer{})
	evil := `<script>window.pwned=1</script>`
	r.Event(mirror.Event{Status: mirror.StatusDone, Change: "new", Path: "dir/x.<b>", URL: "ftp://h/" + evil, Bytes: 1})
	r.Event(mirror.Event{Status: mirror.StatusFailed, Path: evil, URL: "ftp://h/\"><img src=x onerror=alert(1)>", Err: errors.New(evil)})
	r.Progress(mirror.Progress{New: 1, Failed: 1, Head: []string{evil}, LastFailure: &mirror.Failure{Path: evil, Error: evil}})
	srv := serve(t, r, mirror.NewControl())
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	page.ReadFrom(resp.Body)
	resp.Body.Close()
	var rep bytes.Buffer
	r.WriteReport(&rep, nil)
	for name, body := range map[string]string{"page": page.String(), "report": rep.String()} {
		if strings.Contains(body, "<script>window") || strings.Contains(body, "<img") || strings.Contains(body, "<b>") {
			t.Errorf("%s holds remote text as markup", name)
		}
		if !strings.Contains(body, "&lt;script&gt;window.pwned=1&lt;/script&gt;") {
			t.Errorf("%s does not show the remote text escaped", name)
		}
	}
}
