package main

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// sliceListing yields fixed entries.
type sliceListing struct{ entries []schemes.Entry }

func (s *sliceListing) Next() (schemes.Entry, error) {
	if len(s.entries) == 0 {
		return schemes.Entry{}, io.EOF
	}
	e := s.entries[0]
	s.entries = s.entries[1:]
	return e, nil
}

func (s *sliceListing) Close() error { return nil }

func unparsedFixture() *sliceListing {
	return &sliceListing{entries: []schemes.Entry{
		{Name: "a.txt", Type: schemes.TypeFile, URL: "ftp://127.0.0.1/a.txt", Size: 3},
		{Name: "+i8388621.29609,m824255902,/,\tdev odd", Type: schemes.TypeUnparsed, Size: -1},
		{Name: "b.txt", Type: schemes.TypeFile, URL: "ftp://127.0.0.1/b.txt", Size: 4},
	}}
}

// A listing line gofer could not read is warned about with its raw text
// and kept out of the entries.
func TestListingWarnsAboutUnparsedLines(t *testing.T) {
	var out bytes.Buffer
	var warned []string
	if err := writeListing(&out, "ftp://127.0.0.1/", unparsedFixture(), false, func(s string) { warned = append(warned, s) }); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "m824255902") || strings.Count(out.String(), "\n") != 2 {
		t.Errorf("text listing:\n%s", out.String())
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `m824255902,/,\tdev odd`) {
		t.Errorf("warnings %q", warned)
	}
}

// --json lists unparsed lines under "unparsed", verbatim.
func TestListingJSONUnparsed(t *testing.T) {
	var out bytes.Buffer
	if err := writeListing(&out, "ftp://127.0.0.1/", unparsedFixture(), true, func(string) {}); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Entries  []map[string]any `json:"entries"`
		Unparsed []string         `json:"unparsed"`
	}
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if len(l.Entries) != 2 || len(l.Unparsed) != 1 || l.Unparsed[0] != "+i8388621.29609,m824255902,/,\tdev odd" {
		t.Errorf("entries %v, unparsed %q", l.Entries, l.Unparsed)
	}
}
