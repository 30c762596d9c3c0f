package integration_test

// gofer replay: what gofer mirror --warc and gofer get --warc captured of
// the harness's Gopher, FTP, HTTP and NNTP servers, served again on a
// loopback port and fetched back with curl, lftp, wget, Lynx, gofer mirror
// and gofer get.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

// startReplay runs gofer replay with args, its Gopher and FTP listeners
// on free loopback ports, and returns the "host:port" each ready line
// names by scheme, once a line has come for each of want, and a function
// that stops the replay (SIGINT), which must then exit 0, and returns what
// it printed on stderr. It is stopped when the test ends at the latest.
func startReplay(t *testing.T, want []string, args ...string) (map[string]string, func() string) {
	t.Helper()
	br, stop := runReplay(t, append([]string{"--gopher", "127.0.0.1:0", "--ftp", "127.0.0.1:0"}, args...)...)
	addrs := map[string]string{}
	for range want {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("gofer replay printed no ready line: %v: %s", err, stop())
		}
		// "gopher gopher://127.0.0.1:PORT/ HOST:PORT N selectors"
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[1], f[0]+"://127.0.0.1:") {
			t.Fatalf("ready line %q", line)
		}
		addrs[f[0]] = strings.TrimSuffix(strings.TrimPrefix(f[1], f[0]+"://"), "/")
	}
	for _, s := range want {
		if addrs[s] == "" {
			t.Fatalf("no %s listener: %v", s, addrs)
		}
	}
	return addrs, stop
}

// runReplay starts gofer replay with args and returns its standard
// output, where its ready lines come, and a function that stops it
// (SIGINT), which must then exit 0, and returns what it printed on
// stderr. It is stopped when the test ends at the latest.
func runReplay(t *testing.T, args ...string) (*bufio.Reader, func() string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := itest.Command(t, nil, append([]string{"replay"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() string {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			if err := cmd.Wait(); err != nil {
				t.Errorf("gofer replay: %v: %s", err, stderr.String())
			}
		})
		return stderr.String()
	}
	t.Cleanup(func() { stop() })
	return bufio.NewReader(out), stop
}

// treeSums returns the SHA-256 of every file under dir but gofer's state,
// by path relative to dir; menus saved as gophermap files are compared
// with the replay's address turned back into the captured server's, and
// their HTML renderings (gophermap.html), whose links name the server
// differently, are left out.
func treeSums(t *testing.T, dir, replayed, captured string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if rel == ".gofer" {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == "gophermap.html" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if replayed != "" {
			b = bytes.ReplaceAll(b, []byte("\t"+replayed+"\t"), []byte("\t"+captured+"\t"))
			b = bytes.ReplaceAll(b, []byte("\t"+replayed+"\r\n"), []byte("\t"+captured+"\r\n"))
		}
		sum := sha256.Sum256(b)
		sums[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func compareTrees(t *testing.T, what string, want, got map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the original mirror is empty", what)
	}
	for p, sum := range want {
		switch g, ok := got[p]; {
		case !ok:
			t.Errorf("%s: %s missing from the mirror of the replay", what, p)
		case g != sum:
			t.Errorf("%s: %s differs in the mirror of the replay", what, p)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s only in the mirror of the replay", what, p)
		}
	}
}

func TestReplayGopher(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherAddr)
	itest.Require(t, gopherPlusAddr)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "cap")
	plusPrefix := filepath.Join(dir, "plus")
	// Two mirrors into one segment prefix (two segments, two indexes), a
	// Gopher+ server's mirror apart, and one item fetched into a WARC file
	// of its own (no index beside it).
	subtrees := []string{"/archive/text", "/archive/names"}
	for i, sel := range subtrees {
		mirrorWARC(t, "gopher://"+gopherAddr+"/1"+sel, prefix, filepath.Join(dir, "orig", strings.Repeat("x", i+1)), "--no-parent")
	}
	mirrorWARC(t, "gopher://"+gopherPlusAddr+"/1/archive/text", plusPrefix, filepath.Join(dir, "orig-plus"), "--no-parent")
	readme := "gopher://" + gopherAddr + "/0/archive/README.txt"
	single := filepath.Join(dir, "readme.warc.gz")
	if res := itest.Run(t, nil, nil, "get", "-q", "--warc", single, "-o", filepath.Join(dir, "readme.txt"), readme); res.Code != 0 {
		t.Fatalf("gofer get --warc: exit %d: %s", res.Code, res.Stderr)
	}

	addrs, stop := startReplay(t, []string{"gopher"}, prefix, single)
	host, port, _ := strings.Cut(addrs["gopher"], ":")
	base := "gopher://" + host + ":" + port

	// (a) curl gets the captured bytes: those the server sends.
	curl := func(url string) []byte {
		t.Helper()
		out, err := exec.Command("curl", "-sS", "--max-time", "30", url).Output()
		if err != nil {
			t.Fatalf("curl %s: %v", url, err)
		}
		return out
	}
	if got, want := curl(base+"/0/archive/README.txt"), curl(readme); !bytes.Equal(got, want) || len(want) == 0 {
		t.Errorf("curl of the replayed README.txt: %d bytes, the server's %d", len(got), len(want))
	}
	if got := string(curl(base + "/1/archive/nosuch")); got != "3'/archive/nosuch' was not captured\tfake\t(NULL)\t0\r\n.\r\n" {
		t.Errorf("curl of an uncaptured selector: %q", got)
	}
	menu := string(curl(base + "/1/archive/text"))
	if !strings.Contains(menu, "\t/archive/text/plain.txt\t"+host+"\t"+port+"\r\n") || strings.Contains(menu, "\t"+itest.GopherHost+"\t70") {
		t.Errorf("menu not rewritten to the replay:\n%s", menu)
	}

	// (b) gofer mirror of the replay makes the same trees.
	for i, sel := range subtrees {
		name := strings.Repeat("x", i+1)
		again := filepath.Join(dir, "again", name)
		mirrorWARC(t, base+"/1"+sel, filepath.Join(dir, "recap-"+name), again, "--no-parent")
		compareTrees(t, sel, treeSums(t, filepath.Join(dir, "orig", name), "", ""),
			treeSums(t, again, host+"\t"+port, itest.GopherHost+"\t70"))
	}

	// A Gopher+ capture: items, menus and "$" blocks, mirrored again
	// through the replay with Gopher+ requests.
	addrs, stopPlus := startReplay(t, []string{"gopher"}, plusPrefix)
	phost, pport, _ := strings.Cut(addrs["gopher"], ":")
	again := filepath.Join(dir, "again-plus")
	mirrorWARC(t, "gopher://"+phost+":"+pport+"/1/archive/text", filepath.Join(dir, "recap-plus"), again, "--no-parent")
	compareTrees(t, "Gopher+", treeSums(t, filepath.Join(dir, "orig-plus"), "", ""),
		treeSums(t, again, phost+"\t"+pport, itest.GopherPlusHost+"\t70"))
	want, err := os.Stat(filepath.Join(dir, "orig-plus", "archive", "text", "plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.Stat(filepath.Join(again, "archive", "text", "plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !got.ModTime().Equal(want.ModTime()) || got.ModTime().After(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("mtime from the replayed attributes: %v, the original mirror's %v", got.ModTime(), want.ModTime())
	}
	if warned := stop(); strings.TrimSpace(warned) != "gofer: warning: "+single+": no index beside it; reading its records" {
		t.Errorf("the replay's report: %q, want a word of the WARC file read without an index alone", warned)
	}
	if warned := stopPlus(); strings.TrimSpace(warned) != "" {
		t.Errorf("the Gopher+ replay warned: %s", warned)
	}
}

// TestReplayLynx walks a Gopher replay with Lynx, a text browser of the
// UMN client's kind: the menu shows every captured item, its links stay on
// the replay, a text item shows the archive's text, and each page reads
// as Lynx shows the captured server's own, the address aside.
func TestReplayLynx(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherAddr)
	lynxPath, err := exec.LookPath("lynx")
	if err != nil {
		t.Skip("lynx is not installed (integration/test installs it)")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "cap")
	mirrorWARC(t, "gopher://"+gopherAddr+"/1/archive/text", prefix, filepath.Join(dir, "orig"), "--no-parent")
	addrs, stop := startReplay(t, []string{"gopher"}, prefix)
	base := "gopher://" + addrs["gopher"]
	live := "gopher://" + itest.GopherHost // Lynx leaves the default port out

	home := t.TempDir()
	lynx := func(url string, args ...string) string {
		t.Helper()
		cmd := exec.Command(lynxPath, append(append([]string{"-dump"}, args...), url)...)
		// No proxy variables, no user configuration.
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TERM=dumb"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("lynx -dump %s: %v", url, err)
		}
		return string(out)
	}

	menu := lynx(base + "/1/archive/text")
	if want := strings.ReplaceAll(lynx(live+"/1/archive/text"), live+"/", base+"/"); menu != want {
		t.Errorf("lynx shows the replayed menu as\n%s\nand the server's (its address replaced) as\n%s", menu, want)
	}
	n := 0
	for name := range itest.Manifest(t) {
		file, ok := strings.CutPrefix(name, "text/")
		if !ok || strings.Contains(file, "/") {
			continue
		}
		n++
		if !strings.Contains(menu, "]"+file+" ") || !strings.Contains(menu, ". "+base+"/0/archive/text/"+file+"\n") {
			t.Errorf("the replayed menu lacks %s or its link to the replay:\n%s", file, menu)
		}
	}
	if n == 0 || strings.Contains(menu, itest.GopherHost) {
		t.Errorf("%d archive files; menu:\n%s", n, menu)
	}

	// Wide enough that Lynx wraps no line of the file.
	text := lynx(base+"/0/archive/text/plain.txt", "-width=1024")
	if want := lynx(live+"/0/archive/text/plain.txt", "-width=1024"); text != want {
		t.Errorf("lynx shows the replayed plain.txt as\n%s\nand the server's as\n%s", text, want)
	}
	want, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "text", "plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// gophernicus ends a text item with the "." line, which Lynx shows.
	if rest, ok := strings.CutPrefix(text, string(want)); !ok || strings.TrimSpace(rest) != "." {
		t.Errorf("lynx shows the replayed plain.txt as\n%s\nwant the archive's text and the end-of-text line", text)
	}
	if warned := stop(); strings.TrimSpace(warned) != "" {
		t.Errorf("the replay warned: %s", warned)
	}
}

func TestReplayFTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	for _, tool := range []string{"curl", "lftp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "cap")
	mirrorWARC(t, "ftp://"+itest.FTPHost+"/archive/text/", prefix, filepath.Join(dir, "orig"))
	if diffs := itest.DiffSubtree(t, filepath.Join(dir, "orig"), "text/", ".gofer"); len(diffs) > 0 {
		t.Fatalf("the captured mirror differs from the archive: %v", diffs)
	}
	addrs, stop := startReplay(t, []string{"ftp"}, prefix)
	base := "ftp://" + addrs["ftp"]
	mtime := time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)
	checkTimes := func(what, dir string) {
		t.Helper()
		fi, err := os.Stat(filepath.Join(dir, "plain.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(mtime) {
			t.Errorf("%s: plain.txt modified %v, want %v (MDTM as captured)", what, fi.ModTime().UTC(), mtime)
		}
	}

	// curl: a file's bytes, its SIZE and MDTM.
	got, err := exec.Command("curl", "-sS", "--max-time", "30", base+"/archive/text/plain.txt").Output()
	if err != nil {
		t.Fatalf("curl: %v", err)
	}
	want, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "text", "plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("curl of the replayed plain.txt: %d bytes, want the archive's %d", len(got), len(want))
	}
	head, err := exec.Command("curl", "-sS", "-I", "--max-time", "30", base+"/archive/text/plain.txt").Output()
	if err != nil {
		t.Fatalf("curl -I: %v", err)
	}
	if h := string(head); !strings.Contains(h, "Content-Length: "+strconv.Itoa(len(want))) ||
		!strings.Contains(h, "Last-Modified: Tue, 20 Dec 1994 12:00:00 GMT") {
		t.Errorf("curl -I: %q", h)
	}
	if err := exec.Command("curl", "-sS", "--max-time", "30", "-T", filepath.Join(itest.ArchiveDir(), "text", "plain.txt"),
		base+"/archive/text/upload.txt").Run(); err == nil {
		t.Error("an upload to the replay succeeded")
	}

	// lftp mirror (MLSD, MDTM) and gofer mirror give the archive's tree.
	ldir := filepath.Join(dir, "lftp")
	lftp := exec.Command("lftp", "-e", "set net:max-retries 1; set net:timeout 20; mirror /archive/text "+ldir+"; quit", base)
	lftp.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	if out, err := lftp.CombinedOutput(); err != nil {
		t.Fatalf("lftp mirror: %v: %s", err, out)
	}
	if diffs := itest.DiffSubtree(t, ldir, "text/"); len(diffs) > 0 {
		t.Errorf("lftp mirror of the replay: %v", diffs)
	}
	checkTimes("lftp", ldir)
	gdir := filepath.Join(dir, "gofer")
	mirrorWARC(t, base+"/archive/text/", filepath.Join(dir, "recap"), gdir)
	if diffs := itest.DiffSubtree(t, gdir, "text/", ".gofer"); len(diffs) > 0 {
		t.Errorf("gofer mirror of the replay: %v", diffs)
	}
	checkTimes("gofer mirror", gdir)
	if warned := stop(); strings.TrimSpace(warned) != "" {
		t.Errorf("the replay warned: %s", warned)
	}
}

// TestReplayHTTP replays a gofer mirror --warc of the archive's text
// directory over HTTP: curl (direct and with the replay as its proxy),
// wget -r and gofer mirror get the archive's bytes back.
func TestReplayHTTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	for _, tool := range []string{"curl", "wget"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "cap")
	mirrorWARC(t, "http://"+itest.HTTPHost+"/archive/text/", prefix, filepath.Join(dir, "orig"))
	addrs, stop := startReplay(t, []string{"http"}, "--http", "127.0.0.1:0", "--nntp", "", prefix)
	base := "http://" + addrs["http"]
	want, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "text", "plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{base + "/archive/text/plain.txt"},
		{"-x", base, "http://" + itest.HTTPHost + "/archive/text/plain.txt"},
	} {
		got, err := exec.Command("curl", append([]string{"-sS", "--fail", "--max-time", "30"}, args...)...).Output()
		if err != nil {
			t.Fatalf("curl %v: %v", args, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("curl %v: %d bytes, want the archive's %d", args, len(got), len(want))
		}
	}
	head, err := exec.Command("curl", "-sS", "-I", "--max-time", "30", base+"/archive/text/plain.txt").Output()
	if err != nil {
		t.Fatalf("curl -I: %v", err)
	}
	if h := string(head); !strings.HasPrefix(h, "HTTP/1.1 200 ") || !strings.Contains(h, "Content-Length: "+strconv.Itoa(len(want))) {
		t.Errorf("curl -I: %q", h)
	}
	for _, args := range [][]string{
		{base + "/archive/README.txt"},
		{"-x", base, "http://" + itest.HTTPHost + "/archive/README.txt"},
	} {
		out, _ := exec.Command("curl", append([]string{"-sS", "--max-time", "30", "-w", "\n%{http_code}"}, args...)...).Output()
		if s := string(out); !strings.HasSuffix(s, "\n404") || !strings.Contains(s, "not captured") {
			t.Errorf("curl %v of what was not captured: %q", args, s)
		}
	}

	// wget -r and gofer mirror give the archive's tree (wget keeps the
	// directory listings as index.html).
	wdir := filepath.Join(dir, "wget")
	if out, err := exec.Command("wget", "-q", "-r", "-np", "-nH", "--cut-dirs=2", "-e", "robots=off", "-P", wdir,
		base+"/archive/text/").CombinedOutput(); err != nil {
		t.Fatalf("wget -r: %v: %s", err, out)
	}
	if diffs := itest.DiffSubtree(t, wdir, "text/", "index.html"); len(diffs) > 0 {
		t.Errorf("wget -r of the replay: %v", diffs)
	}
	gdir := filepath.Join(dir, "gofer")
	if res := itest.Run(t, nil, nil, "mirror", "-q", base+"/archive/text/", gdir); res.Code != 0 {
		t.Fatalf("gofer mirror of the replay: exit %d: %s", res.Code, res.Stderr)
	}
	if diffs := itest.DiffSubtree(t, gdir, "text/", ".gofer"); len(diffs) > 0 {
		t.Errorf("gofer mirror of the replay: %v", diffs)
	}
	if warned := stop(); strings.TrimSpace(warned) != "" {
		t.Errorf("the replay warned: %s", warned)
	}
}

// TestReplayNNTP replays articles gofer get --warc captured from INN, by
// number and by message-id: gofer get (nntp: and news: URLs) and a raw
// NNTP conversation get the articles as INN served them.
func TestReplayNNTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.NNTPHost+":119")
	file := filepath.Join(t.TempDir(), "news.warc.gz")
	args := []string{"get", "-q", "--warc", file}
	for n := 1; n <= 30; n++ {
		args = append(args, "nntp://"+itest.NNTPHost+"/gofer.test/"+strconv.Itoa(n))
	}
	if res := itest.Run(t, nil, nil, args...); res.Code != 0 {
		t.Fatalf("gofer get --warc: exit %d: %s", res.Code, res.Stderr)
	}
	addrs, stop := startReplay(t, []string{"nntp"}, "--http", "", "--nntp", "127.0.0.1:0", file)
	addr := addrs["nntp"]

	code, out, errOut := newsGofer(t, nil, "get", "nntp://"+addr+"/gofer.test/13")
	if code != 0 || out != newsServed(t, "gofer-test-13") {
		t.Errorf("gofer get nntp://REPLAY/gofer.test/13: exit %d: %q (%s)", code, out, errOut)
	}
	code, out, errOut = newsGofer(t, nil, "get", "--nntp-server", addr, "news:gofer-test-7@gofer.test")
	if code != 0 || out != newsServed(t, "gofer-test-7") {
		t.Errorf("gofer get news:gofer-test-7@gofer.test: exit %d: %q (%s)", code, out, errOut)
	}
	code, out, errOut = newsGofer(t, nil, "get", "--nntp-server", addr, "news:gofer.test")
	if code != 0 || !strings.Contains(out, "Test article 2") || !strings.Contains(out, "Test article 30") {
		t.Errorf("gofer get news:gofer.test: exit %d: %q (%s)", code, out, errOut)
	}

	// A raw conversation: the block on the wire is dot-stuffed.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	line := func() string {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading from the replay: %v", err)
		}
		return l
	}
	if g := line(); !strings.HasPrefix(g, "201 ") {
		t.Fatalf("greeting %q", g)
	}
	say := func(cmd string) string {
		io.WriteString(c, cmd+"\r\n")
		return line()
	}
	if r := say("GROUP gofer.test"); r != "211 30 1 30 gofer.test\r\n" {
		t.Errorf("GROUP: %q", r)
	}
	if r := say("ARTICLE 13"); r != "220 13 <gofer-test-13@gofer.test>\r\n" {
		t.Fatalf("ARTICLE 13: %q", r)
	}
	served, err := os.ReadFile(filepath.Join(itest.StateDir(), "news", "served", "gofer-test-13.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var block strings.Builder
	for {
		l := line()
		if l == ".\r\n" {
			break
		}
		block.WriteString(l)
	}
	stuffed := strings.ReplaceAll("\n"+string(served), "\n.", "\n..")[1:]
	if block.String() != stuffed {
		t.Errorf("ARTICLE 13 on the wire:\n%q\nwant\n%q", block.String(), stuffed)
	}
	if r := say("POST"); !strings.HasPrefix(r, "440 ") {
		t.Errorf("POST: %q", r)
	}
	if r := say("QUIT"); !strings.HasPrefix(r, "205 ") {
		t.Errorf("QUIT: %q", r)
	}
	// gofer get --warc writes no index: the replay reads the file once.
	for _, w := range strings.Split(strings.TrimSpace(stop()), "\n") {
		if w != "" && !strings.HasSuffix(w, "no index beside it; reading its records") {
			t.Errorf("the replay warned: %s", w)
		}
	}
}
