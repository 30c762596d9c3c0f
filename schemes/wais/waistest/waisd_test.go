package waistest

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// TestParseObservedSearch: the server reads the search freeWAIS-sf's
// client was seen to send (database test, words fox) as that search.
func TestParseObservedSearch(t *testing.T) {
	body, _ := hex.DecodeString(strings.Join(strings.Fields(`
		0016 16 00001e 001388 00001e 01 1100 1204 74657374 140133
		630b 6a03 666f78 6f0101 720128`), ""))
	msg := append([]byte("0000000037z2wais        0"), body...)
	q, err := ReadRequest(bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	if q.Database != "test" || q.QueryType != "3" || q.Words != "fox" || q.DateFactor != 1 || q.MaxDocs != 40 || q.ResultSet != "" {
		t.Fatalf("%+v", q)
	}
	s := NewTestServer("self:210")
	answer := s.Answer(q)
	if string(answer[10:12]) != "z2" || !bytes.Contains(answer, []byte("fox.txt /srv/wais/test/")) ||
		!bytes.Contains(answer, []byte("hounds.txt")) || bytes.Contains(answer, []byte("garden.txt")) {
		t.Fatalf("answer %q", answer)
	}
}

func TestUnknownDatabaseAnswer(t *testing.T) {
	s := NewTestServer("self:210")
	a := s.Answer(&Request{Database: "nosuch", QueryType: "3", Words: "fox"})
	if !bytes.Contains(a, []byte("\x1c\x00\x32S1The following database is not available: nosuch\x00\x1d")) {
		t.Fatalf("%q", a)
	}
}
