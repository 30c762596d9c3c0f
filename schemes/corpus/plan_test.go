package corpus_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/file"
	"github.com/goferurl/gofer/schemes/ftp"
	"github.com/goferurl/gofer/schemes/gopher"
	"github.com/goferurl/gofer/schemes/http"
	"github.com/goferurl/gofer/schemes/nntp"
)

type corpusCase struct {
	URL             string   `json:"url"`
	Source          string   `json:"source"`
	Error           string   `json:"error"`
	Requests        []string `json:"requests"`
	RequestsInOrder []string `json:"requests_in_order"`
}

func planner(scheme string) schemes.Planner {
	switch scheme {
	case "ftp", "ftps":
		return &ftp.Fetcher{Email: "gofer@example.org"}
	case "gopher":
		return gopher.New()
	case "news", "nntp", "nntps":
		return nntp.New()
	case "http", "https":
		return http.New()
	case "file":
		return file.New()
	}
	return nil
}

// subsequence reports whether want appears in got in order.
func subsequence(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestCorpusRequests plans every corpus URL that names expected requests
// and compares: "requests" exactly, "requests_in_order" as a subsequence.
func TestCorpusRequests(t *testing.T) {
	b, err := os.ReadFile("../../testdata/urls/seeds.json")
	if err != nil {
		t.Fatal(err)
	}
	var urls []json.RawMessage
	if err := json.Unmarshal(b, &urls); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, raw := range urls {
		var c corpusCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		var keys map[string]json.RawMessage
		_ = json.Unmarshal(raw, &keys)
		_, exact := keys["requests"]
		if c.Error != "" || !exact && c.RequestsInOrder == nil {
			continue
		}
		u, err := schemes.Parse(c.URL)
		if err != nil {
			t.Errorf("%q: %v", c.URL, err)
			continue
		}
		pl := planner(u.Scheme)
		if pl == nil {
			if exact && len(c.Requests) == 0 {
				continue // nothing is sent: no planner needed (telnet)
			}
			t.Errorf("%q: no planner for %s", c.URL, u.Scheme)
			continue
		}
		p, err := pl.Plan(&schemes.Request{URL: u, Settings: &schemes.Settings{}})
		if err != nil {
			t.Errorf("%q (%s): %v", c.URL, c.Source, err)
			continue
		}
		checked++
		if exact && !slices.Equal(p.Requests, c.Requests) && !(len(p.Requests) == 0 && len(c.Requests) == 0) {
			t.Errorf("%q (%s):\n requests %q\n want     %q", c.URL, c.Source, p.Requests, c.Requests)
		}
		if !subsequence(p.Requests, c.RequestsInOrder) {
			t.Errorf("%q (%s):\n requests %q\n want in order %q", c.URL, c.Source, p.Requests, c.RequestsInOrder)
		}
	}
	t.Logf("%d corpus URLs planned", checked)
	if checked < 20 {
		t.Errorf("only %d corpus URLs planned", checked)
	}
}
