package integration_test

// ReplayWeb.page, Webrecorder's replay in the browser, opening a WACZ that
// gofer warc pack made of a gofer mirror --warc of the HTTP server, as an
// archivist opens one: headless Chromium loads ReplayWeb.page from a
// loopback origin, its service worker reads the package, and the replayed
// pages must be the archive's (integration/replaywebpage/replay.cjs drives
// the browser; integration/test installs what it needs and names it in
// $GOFER_REPLAYWEBPAGE).

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// replayedPage is what replay.cjs saw of one replayed URL.
type replayedPage struct {
	URL    string `json:"url"`
	Frame  string `json:"frame"`
	Title  string `json:"title"`
	Shown  string `json:"shown"`
	Status int    `json:"status"`
	Body   string `json:"body"`
}

// TestReplayWebPage mirrors http://127.0.0.80/archive/text/ into WARC,
// packs it, serves ReplayWeb.page's static site and the package from one
// loopback origin and opens a text file and the directory listing in
// ReplayWeb.page: each must come from the service worker's replay path,
// the file with the archive's bytes (its sha256 in the manifest) and its
// text shown, the listing with nginx's title and every file's name.
//
// $GOFER_REPLAYWEBPAGE is a directory holding site/ (the replaywebpage npm
// package: index.html, ui.js, sw.js) and node_modules/puppeteer-core;
// Chromium is $CHROMIUM or /usr/bin/chromium.
func TestReplayWebPage(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	rwp := os.Getenv("GOFER_REPLAYWEBPAGE")
	if rwp == "" {
		t.Skip("GOFER_REPLAYWEBPAGE is not set (integration/test installs ReplayWeb.page, puppeteer-core and Chromium): the WACZ is not opened in a browser")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("GOFER_REPLAYWEBPAGE is set but node is missing: %v", err)
	}

	work := t.TempDir()
	root := "http://" + itest.HTTPHost + "/archive/text/"
	mirrorWARC(t, root, filepath.Join(work, "web"), filepath.Join(work, "tree"), "--warc-only")
	wacz := filepath.Join(work, "gofer.wacz")
	if r := itest.Run(t, nil, nil, "warc", "pack", "-o", wacz, "--title", "gofer in ReplayWeb.page", filepath.Join(work, "web")); r.Code != 0 {
		t.Fatalf("warc pack: exit %d (%s)", r.Code, r.Reason())
	}

	// One origin for the site and the package: the service worker's scope
	// is the site, and http://127.0.0.1 is a secure context.
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(rwp, "site"))))
	mux.HandleFunc("/gofer.wacz", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, wacz) })
	site := httptest.NewServer(mux)
	defer site.Close()

	file := root + "plain.txt"
	ctx := itest.Context(t) // the test's deadline bounds the browser
	cmd := exec.CommandContext(ctx, node, filepath.Join("replaywebpage", "replay.cjs"), site.URL, "/gofer.wacz", file, root)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(rwp, "node_modules"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("replay.cjs: %v\n%s", err, stderr.String())
	}
	pages := map[string]replayedPage{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p replayedPage
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("replay.cjs printed %q: %v", sc.Text(), err)
		}
		pages[p.URL] = p
	}

	manifest := itest.Manifest(t)
	want, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "text", "plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{file, root} {
		p, ok := pages[u]
		if !ok {
			t.Fatalf("ReplayWeb.page did not replay %s (stderr:\n%s)", u, stderr.String())
		}
		if !strings.Contains(p.Frame, "/w/") || !strings.HasSuffix(p.Frame, "mp_/"+u) || p.Status != http.StatusOK {
			t.Errorf("%s: replay frame %s, status %d; want ReplayWeb.page's /w/.../mp_/%s, 200", u, p.Frame, p.Status, u)
		}
	}

	p := pages[file]
	sum := sha256.Sum256([]byte(p.Body))
	if got := hex.EncodeToString(sum[:]); got != manifest["text/plain.txt"] {
		t.Errorf("plain.txt replayed: %d bytes, sha256 %s; the archive's: %d bytes, %s", len(p.Body), got, len(want), manifest["text/plain.txt"])
	}
	first, _, _ := strings.Cut(string(want), "\n")
	if shown, _, _ := strings.Cut(p.Shown, "\n"); shown != first {
		t.Errorf("plain.txt shown starts %q, want %q", shown, first)
	}

	l := pages[root]
	if l.Title != "Index of /archive/text/" {
		t.Errorf("listing title %q, want nginx's %q", l.Title, "Index of /archive/text/")
	}
	n := 0
	for name := range manifest {
		if dir, base := path.Split(name); dir == "text/" {
			n++
			if !strings.Contains(l.Shown, base) {
				t.Errorf("listing shown does not name %s:\n%s", base, l.Shown)
			}
		}
	}
	if n == 0 {
		t.Error("the manifest lists no file under text/")
	}
}
