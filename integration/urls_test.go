package integration_test

// Portable URLs: every FTP URL gofer prints (listing text and JSON, the
// mirror's state) fetches the same bytes with curl and wget, whatever the
// name holds ('?', '#', ';', '%', '[', spaces, Latin-1 bytes).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
)

type printedEntry struct {
	Name    string `json:"name"`
	RawName string `json:"raw_name"`
	Type    string `json:"type"`
	URL     string `json:"url"`
}

// listedURLs walks the archive from the directory url (rel below the
// archive) with gofer get --json, following the URLs it prints, and returns
// the URL printed for each file, by path relative to the archive. tree/ is
// taken for one of its hundred directories (its names are all alike).
func listedURLs(t *testing.T, url, rel string, out map[string]string) {
	t.Helper()
	r := itest.Run(t, nil, nil, "get", "--json", url)
	if r.Code != 0 {
		t.Fatalf("gofer get --json %s: exit %d: %s", rel, r.Code, r.Reason())
	}
	var l struct {
		Entries []printedEntry `json:"entries"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
		t.Fatalf("listing %s: %v", rel, err)
	}
	text := itest.Run(t, nil, nil, "get", url)
	for _, e := range l.Entries {
		// The text listing prints the same URL, as the line's last field.
		if !strings.Contains(text.Stdout, "  "+e.URL+"\n") {
			t.Errorf("text listing of %s lacks %s", rel, e.URL)
		}
		name := e.Name
		if e.RawName != "" {
			name = schemes.Decode(e.RawName)
		}
		p := rel + name
		switch {
		case e.Type == "dir" && (rel != "tree/" || name == "d00"):
			listedURLs(t, e.URL, p+"/", out)
		case e.Type == "file":
			out[p] = e.URL
		}
	}
}

// stateURLs returns the URL the mirror's state records for each file.
func stateURLs(t *testing.T, dir, prefix string, out map[string]string) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, ".gofer", "state.db"), 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("files")).ForEach(func(k, v []byte) error {
			var rec struct {
				URL  string `json:"url"`
				Kind string `json:"kind"`
			}
			if json.Unmarshal(v, &rec) == nil && rec.Kind == "file" {
				out[prefix+string(k)] = rec.URL
			}
			return nil
		})
	})
}

func TestPrintedFTPURLsFetchWithCurlAndWget(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	for _, tool := range []string{"curl", "wget"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (integration/test installs it)", tool)
		}
	}
	manifest := itest.Manifest(t)
	listed := map[string]string{}
	listedURLs(t, "ftp://"+itest.FTPHost+"/archive/", "", listed)
	if len(listed) < 60 {
		t.Fatalf("only %d files listed", len(listed))
	}

	dir := t.TempDir()
	c := mirrorClient()
	defer c.Close()
	mirrorRun(t, c, "ftp://"+itest.FTPHost+"/archive/names/", dir, mirror.Options{Jobs: 4})
	recorded := map[string]string{}
	stateURLs(t, dir, "names/", recorded)
	if len(recorded) == 0 {
		t.Fatal("the state records no file")
	}

	out := t.TempDir()
	n := 0
	check := func(where, p, url string) {
		want, ok := manifest[p]
		if !ok {
			t.Errorf("%s: %s is not in the manifest", where, p)
			return
		}
		n++
		for _, tool := range []string{"curl", "wget"} {
			f := filepath.Join(out, tool+strconv.Itoa(n))
			var cmd *exec.Cmd
			if tool == "curl" {
				cmd = exec.Command("curl", "-sS", "--fail", "-o", f, url)
			} else {
				cmd = exec.Command("wget", "-q", "-O", f, url)
			}
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s (%s of %q): %s %s: %v %s", tool, where, p, tool, url, err, msg)
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if got := hex.EncodeToString(sum[:]); got != want {
				t.Errorf("%s %s (%s of %q): other bytes (%d)", tool, url, where, p, len(b))
			}
		}
	}
	keys := func(m map[string]string) []string {
		var k []string
		for s := range m {
			k = append(k, s)
		}
		sort.Strings(k)
		return k
	}
	for _, p := range keys(listed) {
		check("listing", p, listed[p])
	}
	for _, p := range keys(recorded) {
		check("state", p, recorded[p])
	}
	for _, must := range []string{"names/question?mark.txt", "names/hash#fragment.txt", "names/semi;colon.txt", "names/semi;type=a",
		"names/brackets[1].txt", "names/100%.txt", "names/semi;dir/file.txt", "names/percent%25dir/file.txt"} {
		if listed[must] == "" || recorded[must] == "" {
			t.Errorf("%q was not checked (listing %q, state %q)", must, listed[must], recorded[must])
		}
	}
}
