package integration_test

// gofer browse end to end: the built binary in a real terminal (a tmux
// pane) against the harness's pygopherd (127.0.0.70) and gophernicus
// (127.0.0.71), and over TLS against the stunnel4 front (127.0.0.72).

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

// tmuxPane is one gofer browse run in a detached tmux session of its own
// server (a private socket).
type tmuxPane struct {
	t    *testing.T
	sock string
	dir  string
}

// startBrowse runs gofer browse with args in a 120x40 tmux pane. The pane
// records the terminal's settings (stty -g) before and after, and gofer's
// exit code.
func startBrowse(t *testing.T, args ...string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is not installed (integration/test installs it): %v", err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		// tmux's server cannot detach without it ("server exited unexpectedly").
		t.Fatalf("%s is not a device (something replaced it with a file): tmux cannot start", os.DevNull)
	}
	dir := t.TempDir()
	p := &tmuxPane{t: t, sock: filepath.Join(dir, "tmux.sock"), dir: dir}
	for _, d := range []string{"config", "downloads", "home"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "run.sh")
	quoted := []string{shellQuote(itest.Gofer(t)), "browse", "--download-dir", shellQuote(filepath.Join(dir, "downloads"))}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	body := "#!/bin/sh\n" +
		"cd " + shellQuote(dir) + "\n" +
		"stty -g >stty.before\n" +
		"env -i PATH=\"$PATH\" TERM=\"$TERM\" HOME=" + shellQuote(filepath.Join(dir, "home")) +
		" XDG_CONFIG_HOME=" + shellQuote(filepath.Join(dir, "config")) + " " + strings.Join(quoted, " ") + " 2>stderr\n" +
		"echo $? >rc.tmp\n" +
		"stty -g >stty.after\n" +
		"mv rc.tmp rc\n" +
		"sleep 600\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	p.tmux("-f", "/dev/null", "new-session", "-d", "-s", "browse", "-x", "120", "-y", "40", script)
	t.Cleanup(func() { exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	return p
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// screen is what the pane shows now.
func (p *tmuxPane) screen() string { return p.tmux("capture-pane", "-p", "-t", "browse") }

// waitFor polls the pane until every one of subs shows, or fails after a
// deadline with the screen.
func (p *tmuxPane) waitFor(subs ...string) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := p.screen()
		missing := ""
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				missing = sub
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(p.dir, "stderr"))
			p.t.Fatalf("the pane never showed %q:\n%s\nstderr: %s", missing, s, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// keys sends tmux key names (Enter, Tab, Left, ...).
func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", "browse"}, keys...)...)
}

// typeText sends text literally.
func (p *tmuxPane) typeText(s string) {
	p.t.Helper()
	p.tmux("send-keys", "-t", "browse", "-l", s)
}

// find selects the item whose name holds name, with the listing's / key.
func (p *tmuxPane) find(name string) {
	p.t.Helper()
	p.waitFor(name) // the listing is the page the keys go to
	p.typeText("/")
	p.waitFor("Find item:")
	p.typeText(name)
	p.keys("Enter")
	p.waitFor(`found "` + name + `"`)
}

// open finds an item and opens it.
func (p *tmuxPane) open(name string) {
	p.t.Helper()
	p.find(name)
	p.keys("Enter")
}

// exit waits for gofer to end and returns its exit code and the stty
// settings from before and after.
func (p *tmuxPane) exit() (rc, before, after string) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(p.dir, "rc"))
		if err == nil {
			bb, _ := os.ReadFile(filepath.Join(p.dir, "stty.before"))
			ab, _ := os.ReadFile(filepath.Join(p.dir, "stty.after"))
			return strings.TrimSpace(string(b)), strings.TrimSpace(string(bb)), strings.TrimSpace(string(ab))
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("gofer browse did not exit:\n%s", p.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBrowseEndToEnd(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherAddr)
	itest.Require(t, gopherPlusAddr)
	p := startBrowse(t, "gopher://"+itest.GopherHost+"/")

	// The root menu of gophernicus; a directory; a text item in it.
	p.waitFor("Welcome to gofer's plain Gopher test hole.", "Nested menus", "A telnet link")
	p.open("Nested menus")
	p.waitFor("gopher://127.0.0.71/1/menus", "one")
	p.open("one")
	p.waitFor("level1.txt", "two")
	p.open("level1.txt")
	p.waitFor("level one", "10 bytes")

	// Search inside it.
	p.typeText("/")
	p.waitFor("Search for:")
	p.typeText("ONE")
	p.keys("Enter")
	p.waitFor(`match 1 of "ONE", line 1`)

	// Back to the directory, then to the root.
	p.keys("Left")
	p.waitFor("level1.txt", "two")
	p.keys("BSpace", "BSpace")
	p.waitFor("Welcome to gofer's plain Gopher test hole.")

	// pygopherd: the +ASK form, every field kind, submitted.
	p.typeText("g")
	p.waitFor("Open URL:")
	p.typeText("gopher://" + itest.GopherPlusHost + "/")
	p.keys("Enter")
	p.waitFor("Search archive file names", "form")
	p.open("form")
	p.waitFor("What is your name?", "Password:", "Comments:", "File to send:", "Favourite colour?", "Extra cheese?", "answers are not acted upon", "Submit")
	p.keys("Tab")
	p.typeText("s3cret-pw")
	p.keys("Tab")
	p.typeText("a comment")
	p.keys("Tab")
	p.typeText("f.txt")
	p.waitFor("*********", "a comment", "f.txt")
	if strings.Contains(p.screen(), "s3cret-pw") {
		t.Errorf("the AskP answer shows on the screen")
	}
	p.keys("Tab", "Tab", "Tab", "Enter") // colour, cheese, Submit
	p.waitFor("The document behind the form.")
	p.keys("Left")

	// A type-7 search.
	p.open("Search archive")
	p.waitFor("Search for:")
	p.typeText("level03")
	p.keys("Enter")
	p.waitFor("level03/marker.txt", "Search archive file names: level03")

	// A bookmark, kept in $XDG_CONFIG_HOME/gofer.
	p.typeText("a")
	p.waitFor("bookmarked")
	p.typeText("v")
	p.waitFor("Bookmarks")
	b, err := os.ReadFile(filepath.Join(p.dir, "config", "gofer", "bookmarks"))
	if err != nil || !strings.Contains(string(b), "gopher://127.0.0.70/0/archive/deep/level01/level02/level03/") {
		t.Errorf("bookmarks: %q, %v", b, err)
	}

	p.typeText("q")
	rc, before, after := p.exit()
	if rc != "0" {
		t.Errorf("exit code %s", rc)
	}
	if before == "" || before != after {
		t.Errorf("terminal settings changed:\nbefore %s\nafter  %s", before, after)
	}
}

// gophers in the browser: the TLS front's menu and a text item; an
// unknown certificate is an error on the status line.
func TestBrowseGophers(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gophersAddr)
	p := startBrowse(t, "--cacert", gophersCA(), "gophers://"+itest.GophersHost+"/")
	p.waitFor("Welcome to gofer's plain Gopher test hole.", "gophers://127.0.0.72/1")
	p.open("About this hole")
	p.waitFor("This is gofer's integration test hole.", "gophers://127.0.0.72/0/about.txt")
	p.keys("q")
	if rc, before, after := p.exit(); rc != "0" || before != after {
		t.Errorf("exit %s, stty before %q after %q", rc, before, after)
	}

	p = startBrowse(t, "gophers://"+itest.GophersHost+"/")
	p.waitFor("error:", "certificate")
	p.keys("q")
	if rc, _, _ := p.exit(); rc != "0" {
		t.Errorf("exit %s", rc)
	}
}

// One view for every listing: an FTP directory (vsftpd) with sizes and
// dates, a download that lands byte for byte and never over an existing
// file, a newsgroup (INN) and an article in the pager, the server's group
// list, and a telnet item
// that suspends the browser for the session and comes back.
func TestBrowseListingsDownloadsSessions(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	itest.Require(t, itest.NNTPHost+":119")
	itest.Require(t, telnetServer)
	itest.Require(t, gopherAddr)
	p := startBrowse(t, "--nntp-server", itest.NNTPHost, "ftp://"+itest.FTPHost+"/archive/binary/")
	p.waitFor("all-bytes.bin", "1.0 KiB", "1994-12-20", "random-64k.bin", "64.0 KiB")
	p.find("all-bytes.bin")
	p.typeText("d")
	p.waitFor("saved all-bytes.bin (1.0 KiB)")
	got, err := os.ReadFile(filepath.Join(p.dir, "downloads", "all-bytes.bin"))
	if err != nil || sha(got) != itest.Manifest(t)["binary/all-bytes.bin"] {
		t.Errorf("download: %d bytes, %v", len(got), err)
	}
	p.keys("Enter") // the same item again: the file is there
	p.waitFor("exists; not overwritten")
	if ents, _ := os.ReadDir(filepath.Join(p.dir, "downloads")); len(ents) != 1 {
		t.Errorf("the download directory holds %d entries, want 1", len(ents))
	}

	p.typeText("g")
	p.waitFor("Open URL:")
	p.typeText("nntp://" + itest.NNTPHost + "/gofer.test")
	p.keys("Enter")
	p.waitFor("Test article 1  Gofer Tester <tester@gofer.test>", "1994-12-20 12:01")
	p.open("Test article 13")
	p.waitFor("Subject: Test article 13", "Article 13 has lines that begin with a dot:", "\n..\n.leading dot\n")

	// The group list of the news server, and a group from it.
	p.typeText("g")
	p.waitFor("Open URL:")
	p.typeText("news:*")
	p.keys("Enter")
	p.waitFor("gofer.test  Thirty test articles", "group")
	p.open("gofer.test  Thirty")
	p.waitFor("Test article 30  Gofer Tester <tester@gofer.test>")

	p.typeText("g")
	p.waitFor("Open URL:")
	p.typeText("gopher://" + itest.GopherHost + "/")
	p.keys("Enter")
	p.open("A telnet link")
	p.waitFor("login:")
	p.keys("C-]")
	p.waitFor("session with telnet://gofer@127.0.0.23/ ended", "Welcome to gofer's plain Gopher test hole.")
	p.typeText("q")
	if rc, before, after := p.exit(); rc != "0" || before == "" || before != after {
		t.Errorf("exit %s, stty before %q after %q", rc, before, after)
	}
}
