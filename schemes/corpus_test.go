package schemes

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// corpusCase is one entry of testdata/urls/seeds.json.
type corpusCase struct {
	URL    string         `json:"url"`
	Source string         `json:"source"`
	Error  string         `json:"error"`
	Parts  map[string]any `json:"parts"`
}

func loadCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	b, err := os.ReadFile("../testdata/urls/seeds.json")
	if err != nil {
		tb.Fatal(err)
	}
	var cs []corpusCase
	if err := json.Unmarshal(b, &cs); err != nil {
		tb.Fatal(err)
	}
	if len(cs) < 50 {
		tb.Fatalf("only %d corpus URLs", len(cs))
	}
	return cs
}

// TestCorpus parses every URL example of the seed documents and compares
// its JSON parts (the parts of gofer parse --json) with the corpus.
func TestCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		u, err := Parse(c.URL)
		if c.Error != "" {
			if err == nil || !strings.Contains(err.Error(), c.Error) {
				t.Errorf("%q (%s): err %v, want %q", c.URL, c.Source, err, c.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q (%s): %v", c.URL, c.Source, err)
			continue
		}
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.Parts) {
			t.Errorf("%q (%s):\n parts %s\n want  %v", c.URL, c.Source, b, c.Parts)
		}
	}
}

func TestJSONMasksPassword(t *testing.T) {
	b, err := json.Marshal(mustParse(t, "ftp://u:s3cret@h/x"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cret") || !strings.Contains(string(b), `"password":"****"`) {
		t.Errorf("JSON %s", b)
	}
}
