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

// parse keeps the bytes of a name that is not UTF-8: --json adds
// raw_segments and raw_requests, percent-encoded, and the text shows the
// byte as \xe9, never U+FFFD.
func TestParseNonUTF8Name(t *testing.T) {
	const u = "ftp://127.0.0.21/names/caf%E9.txt"
	code, out, errOut := gofer(t, "", "parse", "--json", "--email", "a@example.org", u)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		RawSegments []string `json:"raw_segments"`
		RawRequests []string `json:"raw_requests"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.RawSegments) != 2 || p.RawSegments[1] != "caf%E9.txt" {
		t.Errorf("raw_segments %q", p.RawSegments)
	}
	if n := len(p.RawRequests); n == 0 || p.RawRequests[n-1] != "RETR%20caf%E9.txt" {
		t.Errorf("raw_requests %q", p.RawRequests)
	}
	code, out, _ = gofer(t, "", "parse", "--email", "a@example.org", u)
	if code != 0 || !strings.Contains(out, `RETR caf\xe9.txt`) || !strings.Contains(out, `"caf%E9.txt"`) || strings.ContainsRune(out, '\uFFFD') {
		t.Errorf("text:\n%s", out)
	}
	code, out, _ = gofer(t, "", "parse", "--json", "ftp://127.0.0.21/names/caf%C3%A9.txt")
	if code != 0 || strings.Contains(out, "raw_") {
		t.Errorf("a UTF-8 name needs no raw_ fields:\n%s", out)
	}
}
