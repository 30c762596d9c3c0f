package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The gateway refuses to listen beyond loopback with nothing to keep it
// from fetching anywhere for anyone: exit 2, naming what to give.
func TestServeRefusesAnOpenListenAddress(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"serve", "--listen", "0.0.0.0:0"}, "--allow-hosts"},
		{[]string{"serve", "--listen", ":0"}, "--no-live"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--allow-hosts", "[::1"}, "--allow-hosts"},
		{[]string{"serve", "--head"}, "--head"},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), c.args, strings.NewReader(""), &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), c.says) || out.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want %d naming %s", c.args, code, errb.String(), out.String(), exitUsage, c.says)
		}
	}
}

// An archive that cannot be read ends serve before it listens, naming it,
// as gofer replay does.
func TestServeUnreadableArchive(t *testing.T) {
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"serve", "--no-live", "--listen", "127.0.0.1:0", "/nonexistent/archive.warc.gz"}, strings.NewReader(""), &out, &errb)
	if code == exitOK || !strings.Contains(errb.String(), "/nonexistent/archive.warc.gz") || out.Len() != 0 {
		t.Errorf("exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
}

// gofer serve says where it listens once it does, serves the start page,
// and ends with exit 0 when interrupted.
func TestServeListensAndEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--no-live"}, strings.NewReader(""), pw, &errb)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no ready line: %v (stderr %q)", err, errb.String())
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "gofer serve: listening on ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("ready line %q", line)
	}
	go io.Copy(io.Discard, pr)
	resp, err := http.Get(base)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "fetches nothing live") {
		t.Errorf("start page: %d %s", resp.StatusCode, b)
	}
	if resp, err := http.Get(base + "live/gopher://127.0.0.1/1/"); err != nil || resp.StatusCode != 403 {
		t.Errorf("--no-live fetched: %v %v", resp, err)
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d after the interrupt: %s", code, errb.String())
	}
}

// With --cluster the board takes /jobs/ and /api/jobs; every other path
// reaches the gateway as the browser sent it (no ServeMux cleaning of the
// "//" in /live/gopher://...).
func TestWithBoardRoutesPathsAsSent(t *testing.T) {
	var got []string
	gw := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = append(got, "gw "+r.URL.Path) })
	board := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = append(got, "board "+r.URL.Path) })
	h := withBoard(gw, board, true)
	for _, p := range []string{"/live/gopher://127.0.0.1/1/", "/jobs/", "/api/jobs", "/api/jobs/j/pause", "/"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if p == "/" && (rec.Code != 302 || rec.Header().Get("Location") != "/jobs/") {
			t.Errorf("/ alone: %d %q, want a redirect to /jobs/", rec.Code, rec.Header().Get("Location"))
		}
	}
	want := "gw /live/gopher://127.0.0.1/1/|board /jobs/|board /api/jobs|board /api/jobs/j/pause"
	if s := strings.Join(got, "|"); s != want {
		t.Errorf("routes %q\nwant   %q", s, want)
	}
}
