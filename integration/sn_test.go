package integration_test

// NNTP against sn 0.3.8 (snntpd, 127.0.0.120), a second server beside INN:
// its local group gofer.sn holds the articles integration/up placed with
// snstore from $STATE/sn/articles (integration/LAYOUT.md).

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

const snServer = itest.SNHost + ":119"

// snAdded are the header fields sn adds to what it stores: the rest of
// the head, and the whole body, are what was stored.
var snAdded = map[string]bool{"path": true, "bytes": true, "lines": true, "xref": true}

// snPlaced is article name (sn-1 ...) as placed, CR LF made LF as gofer
// writes articles.
func snPlaced(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.StateDir(), "sn", "articles", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "\r\n", "\n")
}

type snEntry struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	URL       string `json:"url"`
	NNTPURL   string `json:"nntp_url"`
	Number    int64  `json:"number"`
	Subject   string `json:"subject"`
	From      string `json:"from"`
	Date      string `json:"date"`
	MessageID string `json:"message_id"`
	Lines     int64  `json:"lines"`
	Bytes     int64  `json:"bytes"`
	Size      int64  `json:"size"`
	Modified  string `json:"modified"`
}

// snListing is gofer's --json listing of gofer.sn.
func snListing(t *testing.T) []snEntry {
	t.Helper()
	r := itest.Run(t, nil, nil, "get", "--json", "nntp://"+itest.SNHost+"/gofer.sn")
	var l struct {
		URL     string    `json:"url"`
		Entries []snEntry `json:"entries"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &l); r.Code != 0 || err != nil {
		t.Fatalf("--json listing: exit %d (%s), %v:\n%s", r.Code, r.Stderr, err, r.Stdout)
	}
	if l.URL != "nntp://"+itest.SNHost+"/gofer.sn" {
		t.Errorf("listing url %q", l.URL)
	}
	return l.Entries
}

func TestSNGroupListing(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, snServer)
	r := itest.Run(t, nil, nil, "get", "nntp://"+itest.SNHost+"/gofer.sn")
	ls := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	if r.Code != 0 || len(ls) != 5 {
		t.Fatalf("exit %d (%s), want 5 articles:\n%s", r.Code, r.Stderr, r.Stdout)
	}
	for i, l := range ls {
		id := "news:sn-" + strconv.Itoa(i+1) + "@gofer.test"
		if !strings.HasPrefix(l, "article") || !strings.Contains(l, "Gofer Tester") || !strings.HasSuffix(l, id) {
			t.Errorf("line %q does not show article %s", l, id)
		}
	}
}

// The --json listing: one entry an article, its fields from sn's
// overview (XOVER; sn has no OVER) and the article as placed.
func TestSNGroupJSON(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, snServer)
	es := snListing(t)
	if len(es) != 5 {
		t.Fatalf("%d entries, want 5: %+v", len(es), es)
	}
	for i, e := range es {
		name := "sn-" + strconv.Itoa(i+1)
		head, body, _ := strings.Cut(snPlaced(t, name), "\n\n")
		subject := ""
		for _, h := range strings.Split(head, "\n") {
			if v, ok := strings.CutPrefix(h, "Subject: "); ok {
				subject = v
			}
		}
		// sn counts Bytes on the body as sent: CR LF, dots doubled.
		wire := 0
		for _, l := range strings.SplitAfter(body, "\n") {
			if l != "" {
				wire += len(l) + 1
				if strings.HasPrefix(l, ".") {
					wire++
				}
			}
		}
		want := snEntry{
			Name: strconv.FormatInt(e.Number, 10), Type: "article",
			URL:     "news:" + name + "@gofer.test",
			NNTPURL: "nntp://" + itest.SNHost + "/gofer.sn/" + strconv.FormatInt(e.Number, 10),
			Number:  e.Number, Subject: subject, From: "Gofer Tester <tester@gofer.test>",
			Date: "Tue, 20 Dec 1994 12:00:00 GMT", MessageID: name + "@gofer.test",
			Lines: int64(strings.Count(body, "\n")), Bytes: int64(wire), Size: int64(wire),
			Modified: "1994-12-20T12:00:00Z",
		}
		if e != want {
			t.Errorf("entry %d:\n got %+v\nwant %+v", i, e, want)
		}
		if i > 0 && e.Number <= es[i-1].Number {
			t.Errorf("numbers not ascending: %d after %d", e.Number, es[i-1].Number)
		}
	}
}

// Every article, by number and by message-id, is the article as placed:
// the body byte for byte, the head field for field in order, but for the
// fields sn adds (Path, Bytes, Lines, Xref).
func TestSNArticles(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, snServer)
	es := snListing(t)
	if len(es) != 5 {
		t.Fatalf("%d entries, want 5", len(es))
	}
	for i, e := range es {
		name := "sn-" + strconv.Itoa(i+1)
		placed := snPlaced(t, name)
		byNumber := itest.Run(t, nil, nil, "get", e.NNTPURL)
		byID := itest.Run(t, nil, nil, "get", "--nntp-server", itest.SNHost, "news:"+name+"@gofer.test")
		for _, r := range []itest.Result{byNumber, byID} {
			if r.Code != 0 {
				t.Errorf("%s: exit %d: %s", name, r.Code, r.Stderr)
				continue
			}
			head, body, _ := strings.Cut(r.Stdout, "\n\n")
			var kept []string
			added := map[string]bool{}
			for _, h := range strings.Split(head, "\n") {
				field, _, _ := strings.Cut(h, ":")
				if snAdded[strings.ToLower(field)] {
					added[strings.ToLower(field)] = true
					continue
				}
				kept = append(kept, h)
			}
			if got := strings.Join(kept, "\n") + "\n\n" + body; got != placed {
				t.Errorf("%s: got\n%q\nwant (sn's own fields left out)\n%q", name, got, placed)
			}
			if len(added) != len(snAdded) {
				t.Errorf("%s: sn's own fields %v, want all of %v", name, added, snAdded)
			}
		}
		if byNumber.Stdout != byID.Stdout {
			t.Errorf("%s: by number and by message-id differ", name)
		}
	}
}
