package integration_test

// WAIS against the harness's scripted server (schemes/wais/waistest on
// 127.0.0.210:210, the database "test" of integration/LAYOUT.md): through
// the library's front door (fetch.Get) and through the gofer command.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/wais"
	"github.com/goferurl/gofer/schemes/wais/waistest"
)

const waisURL = "wais://" + itest.WAISHost + "/test"

type waisListing struct {
	URL     string `json:"url"`
	Entries []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		URL      string `json:"url"`
		Size     int64  `json:"size"`
		Score    *int64 `json:"score"`
		WAISType string `json:"wais_type"`
		Lines    int64  `json:"lines"`
	} `json:"entries"`
}

func waisSearchJSON(t *testing.T, args ...string) waisListing {
	t.Helper()
	r := itest.Run(t, nil, nil, append([]string{"get", "--json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("gofer get --json %v: exit %d: %s", args, r.Code, r.Stderr)
	}
	var l waisListing
	if err := json.Unmarshal([]byte(r.Stdout), &l); err != nil {
		t.Fatalf("--json output: %v\n%s", err, r.Stdout)
	}
	if r.Stderr != "" {
		t.Errorf("stderr on the default port: %q", r.Stderr)
	}
	return l
}

// TestWAISSearchCLI: a search lists both documents about a fox with
// headline, score, size, type and a URL that retrieves each byte for byte.
func TestWAISSearchCLI(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.WAISHost+":210")
	l := waisSearchJSON(t, waisURL+"?fox")
	docs := waistest.TestDocuments()
	if len(l.Entries) != 2 {
		t.Fatalf("%d entries: %+v", len(l.Entries), l.Entries)
	}
	for i, want := range []struct {
		doc   waistest.Document
		score int64
	}{{docs[0], 1000}, {docs[1], 666}} {
		e := l.Entries[i]
		if !strings.HasPrefix(e.Name, want.doc.Name+" ") || e.Score == nil || *e.Score != want.score ||
			e.Size != int64(len(want.doc.Text)) || e.Type != "text" || e.WAISType != "TEXT" || e.Lines != 2 {
			t.Errorf("entry %d: %+v", i, e)
		}
		if !strings.HasPrefix(e.URL, waisURL+"/TEXT/1=") {
			t.Errorf("entry %d URL %s does not name the server dialled", i, e.URL)
		}
		r := itest.Run(t, nil, nil, "get", e.URL)
		if r.Code != 0 || r.Stdout != string(want.doc.Text) {
			t.Errorf("get %s: exit %d, %q (%s)", e.URL, r.Code, r.Stdout, r.Stderr)
		}
	}
	// The readable listing: type, score, size, headline, URL.
	r := itest.Run(t, nil, nil, "get", waisURL+"?fox")
	first := strings.Fields(strings.SplitN(r.Stdout, "\n", 2)[0])
	if r.Code != 0 || len(first) < 5 || first[0] != "text" || first[1] != "1000" || first[2] != "91" || first[3] != "fox.txt" {
		t.Errorf("listing: exit %d\n%s", r.Code, r.Stdout)
	}
}

// TestWAISQueryCLI: --query supplies the words of a database URL and
// replaces those of a search URL; no words and no terminal is exit 2.
func TestWAISQueryCLI(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.WAISHost+":210")
	l := waisSearchJSON(t, "--query", "garden", waisURL)
	if len(l.Entries) != 1 || !strings.HasPrefix(l.Entries[0].Name, "garden.txt") {
		t.Errorf("--query garden: %+v", l.Entries)
	}
	l = waisSearchJSON(t, "--query", "hounds", waisURL+"?unicorn")
	if len(l.Entries) != 1 || !strings.HasPrefix(l.Entries[0].Name, "hounds.txt") {
		t.Errorf("--query hounds: %+v", l.Entries)
	}
	r := itest.Run(t, strings.NewReader(""), nil, "get", waisURL+"?")
	if r.Code != 2 || !strings.Contains(r.Reason(), "--query") {
		t.Errorf("no words: exit %d, %q", r.Code, r.Reason())
	}
}

// TestWAISUnknownDatabaseCLI: the server's diagnostic, exit 5.
func TestWAISUnknownDatabaseCLI(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.WAISHost+":210")
	r := itest.Run(t, nil, nil, "get", "wais://"+itest.WAISHost+"/nosuch?fox")
	if r.Code != 5 || !strings.Contains(r.Reason(), "The following database is not available: nosuch") {
		t.Errorf("exit %d, %q", r.Code, r.Reason())
	}
}

// TestWAISNoHitsCLI: a search that matches nothing lists the catalogue
// record, whose URL retrieves the catalogue; the database URL lists the
// same record.
func TestWAISNoHitsCLI(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.WAISHost+":210")
	for _, u := range []string{waisURL + "?unicorn", waisURL} {
		l := waisSearchJSON(t, u)
		if len(l.Entries) != 1 || !strings.Contains(l.Entries[0].Name, "Catalog for database: test") {
			t.Fatalf("%s: %+v", u, l.Entries)
		}
		r := itest.Run(t, nil, nil, "get", l.Entries[0].URL)
		if r.Code != 0 || !strings.HasPrefix(r.Stdout, "Catalog for database: test\n4 total documents\n") ||
			!strings.Contains(r.Stdout, "Headline: long.txt") {
			t.Errorf("%s: the catalogue: exit %d\n%s", u, r.Code, r.Stdout)
		}
	}
}

// TestWAISLongDocumentCLI: long.txt, several ranges long, lands whole
// with -o, and -C resumes a cut copy.
func TestWAISLongDocumentCLI(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.WAISHost+":210")
	long := waistest.TestDocuments()[3].Text
	if len(long) <= 3*wais.RangeSize {
		t.Fatalf("long.txt is %d bytes", len(long))
	}
	l := waisSearchJSON(t, waisURL+"?long")
	if len(l.Entries) != 1 || l.Entries[0].Size != int64(len(long)) {
		t.Fatalf("%+v", l.Entries)
	}
	out := filepath.Join(t.TempDir(), "long.txt")
	r := itest.Run(t, nil, nil, "get", "-o", out, l.Entries[0].URL)
	got, err := os.ReadFile(out)
	if r.Code != 0 || err != nil || !bytes.Equal(got, long) {
		t.Fatalf("-o: exit %d (%s), %d bytes, want %d", r.Code, r.Stderr, len(got), len(long))
	}
	if err := os.WriteFile(out, long[:12345], 0o644); err != nil {
		t.Fatal(err)
	}
	r = itest.Run(t, nil, nil, "get", "-C", "-o", out, l.Entries[0].URL)
	got, _ = os.ReadFile(out)
	if r.Code != 0 || !bytes.Equal(got, long) {
		t.Fatalf("-C: exit %d (%s), %d bytes", r.Code, r.Stderr, len(got))
	}
}

// TestWAISLibrary: fetch.Get searches and retrieves as a program would.
func TestWAISLibrary(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.WAISHost+":210")
	ctx := context.Background()
	resp, err := fetch.Get(ctx, waisURL+"?long")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != schemes.KindListing {
		t.Fatalf("kind %d", resp.Kind)
	}
	e, err := resp.Listing.Next()
	resp.Close()
	if err != nil || !strings.HasPrefix(e.Name, "long.txt") || e.WAIS == nil || e.WAIS.Score != 1000 {
		t.Fatalf("%+v, %v", e, err)
	}
	resp, err = fetch.Get(ctx, e.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(got, waistest.TestDocuments()[3].Text) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	if _, err := fetch.Get(ctx, "wais://"+itest.WAISHost+"/nosuch?fox"); err == nil ||
		!strings.Contains(err.Error(), "The following database is not available: nosuch") {
		t.Fatalf("unknown database: %v", err)
	}
}
