package integration_test

// gofer replay: what gofer mirror --warc and gofer get --warc captured of
// the harness's Gopher servers, served again on a loopback port and
// fetched back with curl and with gofer mirror.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

// startReplay runs gofer replay with args on a free loopback port and
// returns the host and port its ready line names; the replay is stopped
// (SIGINT) when the test ends, and must then exit 0. stderr receives what
// it reports.
func startReplay(t *testing.T, stderr *bytes.Buffer, args ...string) (host, port string) {
	t.Helper()
	cmd := itest.Command(t, nil, append([]string{"replay", "--gopher", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			t.Errorf("gofer replay: %v: %s", err, stderr)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("gofer replay printed no ready line: %v: %s", err, stderr)
	}
	// "gopher gopher://127.0.0.1:PORT/ HOST:PORT N selectors"
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != "gopher" || !strings.HasPrefix(f[1], "gopher://127.0.0.1:") {
		t.Fatalf("ready line %q", line)
	}
	hp := strings.TrimSuffix(strings.TrimPrefix(f[1], "gopher://"), "/")
	host, port, _ = strings.Cut(hp, ":")
	return host, port
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

	var stderr bytes.Buffer
	host, port := startReplay(t, &stderr, prefix, single)
	if !strings.Contains(stderr.String(), "readme.warc.gz: no index beside it") {
		t.Errorf("no word of the WARC file read without an index: %q", stderr.String())
	}
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
	var plusErr bytes.Buffer
	phost, pport := startReplay(t, &plusErr, plusPrefix)
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
}
