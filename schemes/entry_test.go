package schemes

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestEntryJSON(t *testing.T) {
	cases := []struct {
		e    Entry
		want string
	}{
		{Entry{Name: "a.txt", Type: TypeFile, URL: "ftp://h/a.txt", Size: 0, Modified: time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)},
			`{"name":"a.txt","type":"file","url":"ftp://h/a.txt","size":0,"modified":"1994-12-20T12:00:00Z","modified_precision":"second"}`},
		{Entry{Name: "old", Type: TypeFile, URL: "ftp://h/old", Size: 1, Modified: time.Date(1994, 12, 20, 0, 0, 0, 0, time.UTC), Precision: PrecisionDay},
			`{"name":"old","type":"file","url":"ftp://h/old","size":1,"modified":"1994-12-20T00:00:00Z","modified_precision":"day"}`},
		{Entry{Name: "d", Type: TypeDir, URL: "ftp://h/d/", Size: -1},
			`{"name":"d","type":"dir","url":"ftp://h/d/"}`},
		{Entry{Name: "Welcome", Type: TypeInfo, Size: -1, Gopher: &GopherItem{Type: "i"}},
			`{"name":"Welcome","type":"info","url":"","gopher_type":"i","plus":"","selector":""}`},
		{Entry{Name: "caf\xe9.txt", Type: TypeFile, URL: "ftp://h/caf%E9.txt", Size: 3},
			`{"name":"caf\ufffd.txt","raw_name":"caf%E9.txt","type":"file","url":"ftp://h/caf%E9.txt","size":3}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("got  %s\nwant %s", b, c.want)
		}
	}
}

func TestDecodeKeepsMalformedEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"a%20b": "a b", "%41%zz%4": "A%zz%4", "100%": "100%", "caf%E9": "caf\xe9", "%%41": "%A", "": "",
	} {
		if got := Decode(in); got != want {
			t.Errorf("Decode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEntryLinePrintsTimeOnlyAsFarAsKnown(t *testing.T) {
	mod := time.Date(1994, 12, 20, 12, 34, 56, 0, time.UTC)
	for prec, want := range map[string]string{
		PrecisionDay: "1994-12-20 ", PrecisionMinute: "1994-12-20 12:34 ", PrecisionSecond: "1994-12-20 12:34:56 ", "": "1994-12-20 12:34:56 ",
	} {
		line := entryLine(Entry{Name: "n", Type: TypeFile, Size: 1, Modified: mod, Precision: prec, URL: "ftp://h/n"})
		if !strings.Contains(line, "  "+want) {
			t.Errorf("precision %q: %q does not show %q", prec, line, want)
		}
		if prec == PrecisionDay && strings.Contains(line, "00:00") || prec == PrecisionMinute && strings.Contains(line, ":56") {
			t.Errorf("precision %q: %q shows more than is known", prec, line)
		}
	}
}
