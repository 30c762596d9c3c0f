package integration_test

// The gofer command with file: URLs (RFC 1738 §3.10): a local file read and
// resumed, a directory listed as text and as --json, a path naming nothing
// (exit 5) and another host (exit 2). No server is needed, but the tests
// build and run the binary, so they run with the integration suite.

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

// runCLI runs the built gofer in dir with stdin and a clean environment and
// returns its exit code, stdout and stderr.
func runCLI(t *testing.T, dir string, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	r := itest.RunIn(t, dir, bytes.NewReader(stdin), nil, args...)
	return r.Code, r.Stdout, r.Stderr
}

func requireCLI(t *testing.T) {
	t.Helper()
	if !itest.Enabled() {
		t.Skip("integration test: run `integration/test` (or set GOFER_INTEGRATION=1)")
	}
}

// fileTree makes a directory with a text file, a Latin-1 named file, a
// subdirectory and a symlink, all with a known mtime.
func fileTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"motd.txt":           "welcome to gofer\n",
		"caf\xe9-latin1.txt": "named in Latin-1\n",
		"sub/inner.txt":      "inside\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("motd.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)
	for _, name := range []string{"motd.txt", "caf\xe9-latin1.txt", "sub"} {
		if err := os.Chtimes(filepath.Join(dir, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestGoferFileRead(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	dir := fileTree(t)
	for _, u := range []string{"file://" + dir + "/motd.txt", "file://localhost" + dir + "/motd.txt"} {
		code, out, errOut := runCLI(t, dir, nil, "get", u)
		if code != 0 || out != "welcome to gofer\n" {
			t.Errorf("%s: exit %d stdout %q stderr %q", u, code, out, errOut)
		}
	}
	// %E9 decodes to the byte 0xE9 and names the Latin-1 file as it is.
	code, out, errOut := runCLI(t, dir, nil, "get", "file://"+dir+"/caf%E9-latin1.txt")
	if code != 0 || out != "named in Latin-1\n" {
		t.Errorf("Latin-1 name: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

func TestGoferFileResume(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	dir := fileTree(t)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "motd.txt"), []byte("welcome"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, work, nil, "get", "-q", "-C", "-o", "motd.txt", "file://"+dir+"/motd.txt")
	got, _ := os.ReadFile(filepath.Join(work, "motd.txt"))
	if code != 0 || string(got) != "welcome to gofer\n" {
		t.Errorf("resume: exit %d stderr %q file %q", code, errOut, got)
	}
}

func TestGoferFileDirectoryListing(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	dir := fileTree(t)
	code, out, errOut := runCLI(t, dir, nil, "get", "file://"+dir+"/")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	for _, want := range []string{
		"file://" + dir + "/motd.txt",
		"file://" + dir + "/caf%E9-latin1.txt",
		"file://" + dir + "/sub/",
		"link -> motd.txt",
		"1994-12-20 12:00:00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = runCLI(t, dir, nil, "get", "--json", "file://"+dir+"/")
	if code != 0 {
		t.Fatalf("--json: exit %d stderr %q", code, errOut)
	}
	var doc struct {
		URL     string `json:"url"`
		Entries []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			URL      string `json:"url"`
			Size     *int64 `json:"size"`
			Modified string `json:"modified"`
			Target   string `json:"target"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	byName := map[string]string{}
	for _, e := range doc.Entries {
		byName[e.Name] = e.Type
		if e.Name == "motd.txt" && (e.Size == nil || *e.Size != 17 || e.Modified != "1994-12-20T12:00:00Z") {
			t.Errorf("motd.txt entry: %+v", e)
		}
		if e.Name == "link" && e.Target != "motd.txt" {
			t.Errorf("link entry: %+v", e)
		}
	}
	if byName["motd.txt"] != "file" || byName["sub"] != "dir" || byName["link"] != "link" || len(doc.Entries) != 4 {
		t.Errorf("entries %+v", doc.Entries)
	}

	// Every file entry's URL fetches it (JSON strings cannot carry the
	// Latin-1 name's bytes; the URL's %E9 does).
	want := map[string]string{
		"file://" + dir + "/motd.txt":          "welcome to gofer\n",
		"file://" + dir + "/caf%E9-latin1.txt": "named in Latin-1\n",
	}
	for _, e := range doc.Entries {
		if e.Type != "file" {
			continue
		}
		code, out, errOut := runCLI(t, dir, nil, "get", e.URL)
		if code != 0 || out != want[e.URL] {
			t.Errorf("%s: exit %d stdout %q stderr %q", e.URL, code, out, errOut)
		}
	}
}

func TestGoferFileMissingExit5(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	dir := t.TempDir()
	code, _, errOut := runCLI(t, dir, nil, "get", "file://"+dir+"/no-such-file")
	if code != 5 || !strings.Contains(errOut, dir+"/no-such-file") {
		t.Errorf("exit %d stderr %q, want 5 naming the path", code, errOut)
	}
}

func TestGoferFileOtherHostExit2(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	code, out, errOut := runCLI(t, t.TempDir(), nil, "get", "file://ftp.example.org/pub/README")
	if code != 2 || out != "" {
		t.Errorf("exit %d stdout %q, want 2 and nothing", code, out)
	}
	for _, want := range []string{"only reach this machine", "ftp://ftp.example.org/pub/README"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
}
