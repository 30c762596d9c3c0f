package schemes

import (
	"encoding/json"
	"testing"
	"time"
)

func TestEntryJSON(t *testing.T) {
	cases := []struct {
		e    Entry
		want string
	}{
		{Entry{Name: "a.txt", Type: TypeFile, URL: "ftp://h/a.txt", Size: 0, Modified: time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)},
			`{"name":"a.txt","type":"file","url":"ftp://h/a.txt","size":0,"modified":"1994-12-20T12:00:00Z"}`},
		{Entry{Name: "d", Type: TypeDir, URL: "ftp://h/d/", Size: -1},
			`{"name":"d","type":"dir","url":"ftp://h/d/"}`},
		{Entry{Name: "Welcome", Type: TypeInfo, Size: -1, Gopher: true, GopherType: "i"},
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
