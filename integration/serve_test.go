package integration_test

// gofer serve, the web gateway, against the real servers: pages of links
// from gophernicus, pygopherd, vsftpd, molly-brown and INN, their links
// followed to files that arrive byte-exact, a refused upstream that is
// never dialled, and lynx reading a page.

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/hostile"
	"github.com/goferurl/gofer/integration/itest"
)

// startServe runs gofer serve on a free loopback port and returns its base
// URL, without a trailing slash; it is interrupted when the test ends, and must then exit 0.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	return startServeIn(t, t.TempDir(), args...)
}

// startServeIn is startServe with $XDG_CONFIG_HOME at config.
func startServeIn(t *testing.T, config string, args ...string) string {
	t.Helper()
	env := []string{"XDG_CONFIG_HOME=" + config}
	base, _ := runServe(t, itest.Command(t, env, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...))
	return base
}

// runServe starts cmd, a gofer serve, and returns its base URL once it
// says it listens; it is interrupted when the test ends (or when stop is
// called, which waits for it), and must then exit 0.
func runServe(t *testing.T, cmd *exec.Cmd) (base string, stop func()) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "gofer serve: listening on ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no ready line (%q, %v): %s", line, err, errb.String())
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			if err := cmd.Wait(); err != nil {
				t.Errorf("gofer serve after the interrupt: %v: %s", err, errb.String())
			}
		})
	}
	t.Cleanup(stop)
	return strings.TrimSuffix(base, "/"), stop
}

// page GETs base+path and returns the status and body.
func page(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

var liveLink = regexp.MustCompile(`<a href="(/live/[^"]+)">([^<]*)</a>`)

func TestServePagesOfEveryServer(t *testing.T) {
	itest.Parallel(t)
	for _, a := range []string{gopherAddr, gopherPlusAddr, ftpServer, geminiAddr, itest.NNTPHost + ":119"} {
		itest.Require(t, a)
	}
	base := startServe(t)
	for _, c := range []struct {
		url  string
		want []string // links the page must hold
	}{
		{"gopher://" + itest.GopherHost + "/1/archive", []string{`/live/gopher://` + itest.GopherHost + `/1/archive/binary/`}},
		{"gopher://" + itest.GopherPlusHost + "/1/archive", []string{`/live/gopher://` + itest.GopherPlusHost + `/0/archive/README.txt`}},
		{"ftp://" + itest.FTPHost + "/archive/", []string{`/live/ftp://` + itest.FTPHost + `/archive/README.txt`, `/live/ftp://` + itest.FTPHost + `/archive/binary/`}},
		{geminiRoot + "archive/", []string{`/live/` + geminiRoot + `archive/README.txt`}},
		{"nntp://" + itest.NNTPHost + "/gofer.test", []string{`/live/nntp://` + itest.NNTPHost + `/gofer.test/1`}},
	} {
		code, body := page(t, base, "/live/"+c.url)
		if code != 200 {
			t.Errorf("%s: status %d: %s", c.url, code, body)
			continue
		}
		links := map[string]bool{}
		for _, m := range liveLink.FindAllStringSubmatch(body, -1) {
			links[m[1]] = true
		}
		for _, w := range c.want {
			if !links[w] {
				t.Errorf("%s: no link to %s among %d", c.url, w, len(links))
			}
		}
	}
	// An article reads as its headers and body.
	if code, body := page(t, base, "/live/nntp://"+itest.NNTPHost+"/gofer.test/1"); code != 200 ||
		!strings.Contains(body, "Subject: Test article 1") || !strings.Contains(body, "Message-ID: <gofer-test-1@gofer.test>") {
		t.Errorf("article: %d %q", code, body)
	}
}

// Every file a listing links to arrives byte-exact, whatever its name
// (escapes, spaces, UTF-8, '%'), over FTP and over Gemini.
func TestServeFilesByteExact(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	itest.Require(t, geminiAddr)
	base := startServe(t)
	manifest := itest.Manifest(t)
	for _, dir := range []string{"ftp://" + itest.FTPHost + "/archive/names/", "ftp://" + itest.FTPHost + "/archive/binary/", geminiRoot + "archive/text/"} {
		_, body := page(t, base, "/live/"+dir)
		n := 0
		for _, m := range liveLink.FindAllStringSubmatch(body, -1) {
			rel, ok := strings.CutPrefix(m[1], "/live/"+dir)
			if !ok || rel == "" || strings.HasSuffix(rel, "/") {
				continue
			}
			name, err := url.PathUnescape(rel)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			prefix := "names/"
			switch {
			case strings.Contains(dir, "binary"):
				prefix = "binary/"
			case strings.Contains(dir, "text"):
				prefix = "text/"
			}
			want, ok := manifest[prefix+name]
			if !ok {
				continue
			}
			resp, err := http.Get(base + m[1])
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			io.Copy(h, resp.Body)
			resp.Body.Close()
			if got := hex.EncodeToString(h.Sum(nil)); resp.StatusCode != 200 || got != want {
				t.Errorf("%s%s: status %d, sha256 %s, want %s", dir, rel, resp.StatusCode, got, want)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox") {
				t.Errorf("%s%s: served without the sandbox: %q", dir, rel, csp)
			}
			n++
		}
		if n < 5 {
			t.Errorf("%s: only %d files followed", dir, n)
		}
	}
}

// A URL the guard refuses makes no connection: the listener on the
// refused port sees none.
func TestServeRefusedUpstreamNeverDialled(t *testing.T) {
	itest.Parallel(t)
	rec := listenRecorder(t, "127.0.0.252:119")
	base := startServe(t)
	for _, path := range []string{
		"/live/gopher://127.0.0.252:119/1/",                 // NNTP's port for Gopher
		"/live/gopher://127.0.0.252:119/0/a%0D%0AGROUP%20x", // and a CR LF in it
		"/raw/ftp://127.0.0.252:119/x",
	} {
		if code, body := page(t, base, path); code != 403 {
			t.Errorf("%s: status %d, want 403: %s", path, code, body)
		}
	}
	if got := rec.received(t); len(got) != 0 {
		t.Errorf("the refused upstream was dialled: %v", got)
	}
}

// A text browser reads the gateway's pages: lynx -dump of a listing shows
// its names and numbers its links.
func TestServeInLynx(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	lynx, err := exec.LookPath("lynx")
	if err != nil {
		t.Skip("lynx is not installed (integration/test installs it)")
	}
	base := startServe(t)
	out, err := exec.CommandContext(itest.Context(t), lynx, "-dump", "-nolist", base+"/live/ftp://"+itest.FTPHost+"/archive/").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"README.txt", "binary", "names", "1994-12-20"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("lynx -dump lacks %q:\n%s", want, out)
		}
	}
}

// Time travel across two captures of a tree that changed between them:
// vsftpd's scratch tree mirrored into WARC, one file changed and mirrored
// again; gofer serve of both archives shows each capture at its time, its
// links at the same time, and Memento's TimeGate and TimeMap agree.
func TestServeTimeTravel(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	name := fmt.Sprintf("serve-travel-%d", os.Getpid())
	src := scratchTree(t, name) // sub0/file{0,2,4}.txt, sub1/file{1,3,5}.txt
	work := t.TempDir()
	url := "ftp://" + itest.FTPHost + "/scratch/" + name + "/"
	mirrorWARC(t, url, filepath.Join(work, "one"), filepath.Join(work, "mirror"))
	// The second capture's time must read as another second than the
	// first's (timestamps have 14 digits): wait for the clock to pass it.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	changed := filepath.Join(src, "sub0", "file2.txt")
	if err := os.WriteFile(changed, []byte("file 2, changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mirrorWARC(t, url, filepath.Join(work, "two"), filepath.Join(work, "mirror"))
	base := startServe(t, "--no-live", filepath.Join(work, "one"), filepath.Join(work, "two"))

	file := url + "sub0/file2.txt"
	_, list := page(t, base, "/web/*/"+file)
	stamps := regexp.MustCompile(`href="/web/([0-9]{14})/`+regexp.QuoteMeta(file)+`"`).FindAllStringSubmatch(list, -1)
	if len(stamps) != 2 {
		t.Fatalf("captures of %s: %d, want 2:\n%s", file, len(stamps), list)
	}
	first, second := stamps[0][1], stamps[1][1]
	for ts, want := range map[string]string{first: strings.Repeat("file 2\n", 12), second: "file 2, changed\n"} {
		if code, body := page(t, base, "/web/"+ts+"id_/"+file); code != 200 || body != want {
			t.Errorf("%s at %s: %d %q, want %q", file, ts, code, body, want)
		}
	}
	// The directory at the first time links to the files at that time.
	code, body := page(t, base, "/web/"+first+"/"+url+"sub0/")
	if code != 200 || !strings.Contains(body, `href="/web/`+first+`/`+url+`sub0/file2.txt"`) || !strings.Contains(body, "Captured ") ||
		strings.Contains(body, "not captured") {
		t.Errorf("the first capture of sub0/: %d\n%s", code, body)
	}
	// The TimeGate picks by Accept-Datetime; the TimeMap lists both.
	req, _ := http.NewRequest("GET", base+"/web/"+file, nil)
	at, _ := time.Parse("20060102150405", first)
	req.Header.Set("Accept-Datetime", at.Format(http.TimeFormat))
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "/web/"+first+"/"+file {
		t.Errorf("TimeGate at %s: %d to %q", first, resp.StatusCode, resp.Header.Get("Location"))
	}
	if code, body := page(t, base, "/timemap/link/"+file); code != 200 || strings.Count(body, `memento"; datetime=`) != 2 {
		t.Errorf("TimeMap: %d\n%s", code, body)
	}
	// The start page names the URL both mirrors started from, captured
	// twice, its link the latest capture.
	code, body = page(t, base, "/")
	latest := regexp.MustCompile(`href="/web/([0-9]{14})/` + regexp.QuoteMeta(url) + `">` + regexp.QuoteMeta(url) + `</a>`).FindStringSubmatch(body)
	if code != 200 || latest == nil || latest[1] <= first || !strings.Contains(body, `href="/web/*/`+url+`">2 captures</a>`) {
		t.Errorf("start page: %d\n%s", code, body)
	}
}

// A range of a file, through the server's own resume: vsftpd's REST and
// nginx's ranges, the bytes those of the file.
func TestServeRanges(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	itest.Require(t, itest.HTTPHost+":80")
	base := startServe(t)
	want, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "binary", "random-64k.bin"))
	if err != nil {
		t.Fatal(err)
	}
	since := itest.LogSince(t, "vsftpd.log")
	for _, u := range []string{"ftp://" + itest.FTPHost + "/archive/binary/random-64k.bin", "http://" + itest.HTTPHost + "/archive/binary/random-64k.bin"} {
		req, _ := http.NewRequest("GET", base+"/live/"+u, nil)
		req.Header.Set("Range", "bytes=40000-40999")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 206 || string(got) != string(want[40000:41000]) ||
			resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 40000-40999/%d", len(want)) {
			t.Errorf("%s: %d, %d bytes, Content-Range %q", u, resp.StatusCode, len(got), resp.Header.Get("Content-Range"))
		}
	}
	if !strings.Contains(since(), `"REST 40000"`) {
		t.Error("vsftpd saw no REST 40000: the range was not the server's resume")
	}
}

// hostileMenu is a Gopher menu whose display strings, selectors and URL
// items carry script in every form a page could run it.
const hostileMenu = "0<script>window.pwned='script'</script>\t/a\tHOST\tPORT\r\n" +
	"1\"><img src=x onerror=\"window.pwned='onerror'\">\t/b\"><img src=x onerror=window.pwned=1>\tHOST\tPORT\r\n" +
	"hA javascript: link\tURL:javascript:window.pwned='href'\tHOST\tPORT\r\n" +
	"iAn info line <svg onload=\"window.pwned='svg'\">\t\terror.host\t1\r\n" +
	"0A plain item\t/plain\tHOST\tPORT\r\n.\r\n"

// seen is what browse.cjs saw after a step.
type seen struct {
	Name, URL, Title, Text string
	Status                 int
	Pwned                  any
}

// browse runs integration/gateway/browse.cjs over steps in headless
// Chromium (puppeteer-core under drv), keeping each step's screenshot in
// the state directory's log/SHOTS/, and returns what each step saw, by
// name.
func browse(t *testing.T, drv, shots string, steps []map[string]any) map[string]seen {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("GOFER_REPLAYWEBPAGE is set but node is missing: %v", err)
	}
	dir := filepath.Join(itest.LogDir(), shots)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(steps)
	ctx := itest.Context(t) // the test's deadline bounds the browser
	cmd := exec.CommandContext(ctx, node, filepath.Join("gateway", "browse.cjs"), dir, string(js))
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(drv, "node_modules"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("browse.cjs: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	got := map[string]seen{}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var s seen
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("browse.cjs printed %q: %v", l, err)
		}
		got[s.Name] = s
	}
	return got
}

// TestServeInChromium uses the gateway as a person does, in headless
// Chromium: the URL box, a menu link, a Gopher search form, a Gopher+ +ASK
// form, a Gemini input form, and a menu written to run script, which must
// not run. Screenshots of each step are kept in the state directory's
// log/serve-chromium/; the last, a menu, is the README's picture
// (docs/gateway.png), and must stay small enough for it.
func TestServeInChromium(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	itest.Require(t, geminiAddr)
	drv := os.Getenv("GOFER_REPLAYWEBPAGE") // puppeteer-core, installed with ReplayWeb.page
	if drv == "" {
		t.Skip("GOFER_REPLAYWEBPAGE is not set (integration/test installs puppeteer-core and Chromium)")
	}
	evil, err := hostile.Start("127.0.0.1:0", func(c *hostile.Conn) {
		if _, ok := c.ReadLine(); ok {
			host, port, _ := net.SplitHostPort(c.LocalAddr().String())
			c.Send(strings.NewReplacer("HOST", host, "PORT", port).Replace(hostileMenu))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer evil.Close()
	base := startServe(t, "--allow-port", portOf(evil.Addr()))
	got := browse(t, drv, "serve-chromium", []map[string]any{
		{"name": "start", "goto": base + "/"},
		{"name": "url-box", "type": []string{"input[name=url]", "gopher://" + itest.GopherPlusHost + "/"}},
		{"name": "menu-link", "click": "archive"},
		{"name": "search-page", "goto": base + "/live/gopher://" + itest.GopherPlusHost + "/"},
		{"name": "search", "type": []string{"input[name=q]", "plain"}},
		{"name": "ask-form", "goto": base + "/ask/gopher://" + itest.GopherPlusHost + "/0/form.txt%09%09%3F"},
		{"name": "ask-answer", "type": []string{"input[name=a1]", " Lovelace"}},
		{"name": "gemini-input", "goto": base + "/live/" + geminiRoot + "cgi-bin/ask"},
		{"name": "gemini-answer", "type": []string{"input[name=q]", "Ada"}},
		{"name": "hostile", "goto": base + "/live/gopher://" + evil.Addr() + "/1/"},
		// The README's screenshot (docs/gateway.png is this step's
		// picture): a Gopher+ menu at a phone-to-laptop width.
		{"name": "readme", "goto": base + "/live/gopher://" + itest.GopherPlusHost + "/", "viewport": []int{760, 560}},
	})
	check := func(name, url, text string) {
		t.Helper()
		checkStep(t, got, name, url, text)
	}
	check("start", "/", "type a gopher://")
	check("url-box", "/live/gopher://"+itest.GopherPlusHost+"/", "Search archive file names")
	check("menu-link", "/live/gopher://"+itest.GopherPlusHost+"/1/archive", "README")
	check("search", "/live/gopher://"+itest.GopherPlusHost+"/7/search%09plain", "plain.txt")
	check("ask-form", "/ask/gopher://"+itest.GopherPlusHost+"/0/form.txt%09%09%3F", "Favourite colour?")
	check("ask-answer", "&a5=red&a6=0&a6=1", "The document behind the form.")
	check("gemini-input", "/live/"+geminiRoot+"cgi-bin/ask", "What is your name?")
	check("gemini-answer", "/live/"+geminiRoot+"cgi-bin/ask?Ada", "Hello, Ada")
	check("hostile", "/1/", "<script>window.pwned='script'</script>")
	if s := got["hostile"]; !strings.Contains(s.Text, "A plain item") || !strings.Contains(s.Text, "javascript:window.pwned='href'") {
		t.Errorf("the hostile menu is not shown as text:\n%s", s.Text)
	}
	check("readme", "/live/gopher://"+itest.GopherPlusHost+"/", "Search archive file names")
	if fi, err := os.Stat(filepath.Join(itest.LogDir(), "serve-chromium", "readme.png")); err != nil {
		t.Error(err)
	} else if fi.Size() > 150<<10 {
		t.Errorf("the README's screenshot is %d bytes, more than 150 KiB", fi.Size())
	}
}

// checkStep checks that browse.cjs's step name ended at a page of status
// 200 whose URL ends in url and whose text holds text, and that no script
// of a server ran.
func checkStep(t *testing.T, got map[string]seen, name, url, text string) {
	t.Helper()
	s, ok := got[name]
	if !ok {
		t.Errorf("step %s: not run", name)
		return
	}
	if s.Status != 200 || !strings.HasSuffix(s.URL, url) || !strings.Contains(s.Text, text) || s.Pwned != nil {
		t.Errorf("step %s: status %d at %s (want …%s), pwned %v, text:\n%.600s\n(want %q)", name, s.Status, s.URL, url, s.Pwned, s.Text, text)
	}
}

// Hostile servers behind the gateway: a menu line that never ends, a menu
// of a million items and an item that goes silent each end as a page or
// a response cut short, in bounded memory; the gateway serves on.
func TestServeHostileServers(t *testing.T) {
	itest.Parallel(t)
	var args []string
	addrs := map[string]string{}
	for _, mode := range []string{hostile.GopherEndlessLine, hostile.GopherMillion, hostile.GopherSilent} {
		s, err := hostile.Start("127.0.0.1:0", hostile.Gopher(mode))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		addrs[mode] = s.Addr()
		args = append(args, "--allow-port", portOf(s.Addr()))
	}
	cmd, peak := itest.MeasuredCommand(t, []string{"XDG_CONFIG_HOME=" + t.TempDir()},
		append([]string{"serve", "--listen", "127.0.0.1:0", "--idle-timeout", "2s"}, args...)...)
	base, stop := runServe(t, cmd)

	code, body := page(t, base, "/live/gopher://"+addrs[hostile.GopherEndlessLine]+"/1/")
	if code != 200 || !strings.Contains(body, "The page ends early") {
		t.Errorf("endless line: %d %.300s", code, body)
	}
	code, body = page(t, base, "/live/gopher://"+addrs[hostile.GopherMillion]+"/1/")
	if n := strings.Count(body, "Item number "); code != 200 || n != 10000 || !strings.Contains(body, "The whole of it") {
		t.Errorf("a million items: status %d, %d shown, want 10000 and a notice", code, n)
	}
	// Cut short: no response at all, or a body that fails.
	if resp, err := http.Get(base + "/live/gopher://" + addrs[hostile.GopherSilent] + "/0/"); err == nil {
		if b, err := io.ReadAll(resp.Body); err == nil {
			t.Errorf("an item that went silent read as whole: %q", b)
		}
		resp.Body.Close()
	}
	// The gateway serves on.
	if code, _ := page(t, base, "/"); code != 200 {
		t.Errorf("start page after the hostile servers: %d", code)
	}
	stop()
	if rss, ok := peak(); !ok || rss > 128<<20 {
		t.Errorf("peak RSS %d MiB (measured: %v), want at most 128 MiB", rss>>20, ok)
	} else {
		t.Logf("gofer serve peak RSS: %.1f MiB", float64(rss)/(1<<20))
	}
}

// What a real server says does not exist is 404 through the gateway:
// vsftpd's 550, pygopherd's error item and Gopher+ error 1, molly-brown's
// 51, INN's 423 and 430; a server that is not there is 502.
// (gophernicus answers a missing selector with plain text, no error item:
// nothing tells it from a document.)
func TestServeNotFound(t *testing.T) {
	itest.Parallel(t)
	for _, a := range []string{ftpServer, gopherPlusAddr, geminiAddr, itest.NNTPHost + ":119"} {
		itest.Require(t, a)
	}
	base := startServe(t, "--nntp-server", itest.NNTPHost)
	for path, want := range map[string]int{
		"/live/ftp://" + itest.FTPHost + "/archive/no-such-file.txt":   404,
		"/live/gopher://" + itest.GopherPlusHost + "/1/no-such-dir":    404,
		"/live/gopher://" + itest.GopherPlusHost + "/0/no-such%09%09+": 404,
		"/live/" + geminiRoot + "no-such-page.gmi":                     404,
		"/live/nntp://" + itest.NNTPHost + "/gofer.test/9999":          404,
		"/live/news:no-such-article@gofer.test":                        404,
		"/live/gopher://127.0.0.253/1/":                                502,
	} {
		if code, body := page(t, base, path); code != want {
			t.Errorf("%s: status %d, want %d: %.400s", path, code, want, body)
		}
	}
}

// The gateway pins Gemini certificates in a store of its own, apart from
// the person's: $XDG_CONFIG_HOME/gofer/gateway/known_hosts.
func TestServeGeminiPinsApart(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	config := t.TempDir()
	base := startServeIn(t, config)
	if code, body := page(t, base, "/live/"+geminiRoot); code != 200 {
		t.Fatalf("gemini page: %d %.300s", code, body)
	}
	pins, err := os.ReadFile(filepath.Join(config, "gofer", "gateway", "known_hosts"))
	if err != nil || !strings.Contains(string(pins), geminiAddr+" SHA256:") {
		t.Errorf("the gateway's pins: %v %q", err, pins)
	}
	if _, err := os.Stat(filepath.Join(config, "gofer", "known_hosts")); err == nil {
		t.Error("the gateway pinned in the person's own known_hosts")
	}
}

// Gopher+ through the gateway, against pygopherd: an item's attributes,
// and a +ASK form drawn with a field of each kind, then answered.
func TestServeGopherPlus(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	base := startServe(t)
	root := "gopher://" + itest.GopherPlusHost + "/"
	_, menu := page(t, base, "/live/"+root)
	form := `/ask/` + root + `0/form.txt%09%09%3F`
	if !strings.Contains(menu, `href="`+form+`"`) || !strings.Contains(menu, `href="/info/`+root+`0/about.txt`) {
		t.Fatalf("the menu has no form or attributes link:\n%s", menu)
	}
	code, body := page(t, base, form)
	for _, want := range []string{`name="a1" value="gofer"`, `type="password" name="a2"`, `<textarea name="a3"`, `<option>green</option>`, `type="checkbox" name="a6"`} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("the form (%d) lacks %s:\n%.2000s", code, want, body)
		}
	}
	if code, body := page(t, base, form+"?sent=1&a1=Ada&a2=pw&a3=x&a4=&a5=green&a6=1"); code != 200 || !strings.Contains(body, "The document behind the form.") {
		t.Errorf("the answered form: %d %.300s", code, body)
	}
	if code, body := page(t, base, "/info/"+root+"0/about.txt"); code != 200 || !strings.Contains(body, "Mod-Date") || !strings.Contains(body, "text/plain") {
		t.Errorf("attributes: %d %.1000s", code, body)
	}
	// Each +VIEWS view is a link to the item fetched in it.
	code, body = page(t, base, "/info/"+root+"0/views.txt")
	views := regexp.MustCompile(`<a href="(/live/[^"]+)">([^<]+)</a>`).FindAllStringSubmatch(body, -1)
	var labels []string
	for _, v := range views {
		labels = append(labels, v[2])
	}
	if code != 200 || strings.Join(labels, "|") != "text/plain|text/plain (De_DE)|application/postscript|application/pdf (Es_ES)" {
		t.Fatalf("views of views.txt: %d %q\n%.2000s", code, labels, body)
	}
	link := strings.ReplaceAll(views[1][1], "&#43;", "+")
	if code, body := page(t, base, link); code != 200 || body != "The default view of an item with alternate views.\n" {
		t.Errorf("the view %s: %d %q", link, code, body)
	}
}

// A server that allows two connections from one address (ProFTPD's
// MaxClientsPerHost 2) behind a gateway that would fetch from it eight at
// once: six browsers at once each get the file whole, the gateway keeping
// to the limit its fetcher learned rather than failing those past it.
func TestServeLearnedConnLimit(t *testing.T) {
	itest.Parallel(t, itest.ProFTPDLimitedHost)
	itest.Require(t, itest.ProFTPDLimitedHost+":21")
	want, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "binary", "random-64k.bin"))
	if err != nil {
		t.Fatal(err)
	}
	base := startServe(t, "--max-per-host", "8")
	u := base + "/live/ftp://" + itest.ProFTPDLimitedHost + "/archive/binary/random-64k.bin"
	var wg sync.WaitGroup
	errs := make(chan string, 6)
	for i := range 6 {
		wg.Go(func() {
			resp, err := http.Get(u)
			if err != nil {
				errs <- err.Error()
				return
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(got) != string(want) {
				errs <- fmt.Sprintf("browser %d: %d, %d bytes: %.200s", i, resp.StatusCode, len(got), got)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// capturedPage is an HTML page of the site TestServeCapturedHTML captures:
// links relative and absolute, an image, a script and a handler that must
// not run, and a link out of the capture.
const capturedPage = `<!DOCTYPE html>
<html><head><title>A captured page</title></head><body>
<h1>The CAPTURE capture</h1>
<script>window.pwned = 'captured script'</script>
<img src="dot.gif" alt="a dot" onerror="window.pwned = 'onerror'">
<p><a href="other.html">The other page</a> <a href="/elsewhere/never.html">Never captured</a></p>
</body></html>
`

// Captured HTML through the gateway: a site on nginx mirrored twice, the
// page and the page it links to changed between the captures. Each
// capture of the page is served with its links leading to the archive at
// its time, under the sandbox policy and a banner; a link followed
// arrives at the capture of the same time, one never captured says so
// beside the live link; in Chromium, no script of the page runs and the
// banner leads to the next capture.
func TestServeCapturedHTML(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	name := fmt.Sprintf("serve-html-%d", os.Getpid())
	dir := filepath.Join(itest.ScratchDir(), name)
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	write := func(capture string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, text := range map[string]string{
			"page.html":  strings.ReplaceAll(capturedPage, "CAPTURE", capture),
			"other.html": "<p>the " + capture + " other page</p>\n",
			"dot.gif":    "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;",
		} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	work := t.TempDir()
	site := "http://" + itest.HTTPHost + "/scratch/" + name + "/"
	write("first")
	mirrorWARC(t, site, filepath.Join(work, "one"), filepath.Join(work, "m1"), "--no-parent")
	// The second capture's time must read as another second than the
	// first's (timestamps have 14 digits): wait for the clock to pass it.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	write("second")
	mirrorWARC(t, site, filepath.Join(work, "two"), filepath.Join(work, "m2"), "--no-parent")
	base := startServe(t, filepath.Join(work, "one"), filepath.Join(work, "two"))

	pageURL, other := site+"page.html", site+"other.html"
	_, list := page(t, base, "/web/*/"+pageURL)
	stamps := regexp.MustCompile(`href="/web/([0-9]{14})/`+regexp.QuoteMeta(pageURL)+`"`).FindAllStringSubmatch(list, -1)
	if len(stamps) != 2 {
		t.Fatalf("captures of %s: %d, want 2:\n%s", pageURL, len(stamps), list)
	}
	first, second := stamps[0][1], stamps[1][1]
	resp, err := http.Get(base + "/web/" + first + "/" + pageURL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	for _, want := range []string{
		"The first capture", `<a href="/web/` + first + `/` + other + `">The other page</a>`,
		`<img src="/web/` + first + `/` + site + `dot.gif"`, `<a href="/web/` + first + `/http://` + itest.HTTPHost + `/elsewhere/never.html">`,
		`href="/web/` + second + `/` + pageURL + `">Next capture</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the first capture of the page lacks %s:\n%s", want, body)
		}
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("the first capture: %d, Content-Security-Policy %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
	}
	// The link followed: the other page as it was at the first capture.
	if code, body := page(t, base, "/web/"+first+"/"+other); code != 200 || body != "<p>the first other page</p>\n" {
		t.Errorf("the other page at the first capture: %d %q", code, body)
	}
	if code, body := page(t, base, "/web/"+first+"/http://"+itest.HTTPHost+"/elsewhere/never.html"); code != 404 ||
		!strings.Contains(body, `<a href="/live/http://`+itest.HTTPHost+`/elsewhere/never.html">`) {
		t.Errorf("never captured: %d\n%s", code, body)
	}

	drv := os.Getenv("GOFER_REPLAYWEBPAGE")
	if drv == "" {
		t.Log("GOFER_REPLAYWEBPAGE is not set: the captured page is not opened in Chromium")
		return
	}
	got := browse(t, drv, "serve-captured-html", []map[string]any{
		{"name": "page", "goto": base + "/web/" + first + "/" + pageURL},
		{"name": "link", "click": "The other page"},
		{"name": "again", "goto": base + "/web/" + first + "/" + pageURL},
		{"name": "next", "click": "Next capture"},
	})
	checkStep(t, got, "page", "/web/"+first+"/"+pageURL, "The first capture")
	checkStep(t, got, "link", "/"+other, "the first other page")
	checkStep(t, got, "next", "/web/"+second+"/"+pageURL, "The second capture")
	if s := got["page"]; !strings.Contains(s.Text, "gofer: captured") {
		t.Errorf("no banner on the captured page:\n%s", s.Text)
	}
}
