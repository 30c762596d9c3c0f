package schemes

import (
	"encoding/json"
	"reflect"
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

// TestEntryViewsJSON: each view's fields travel flat in the --json form,
// in the order and under the names scripts read, and come back into the
// same view; an entry of no such scheme has no view either way.
func TestEntryViewsJSON(t *testing.T) {
	mod := time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		e    Entry
		want string
	}{
		{Entry{Name: "About", Type: TypeText, URL: "gopher://h/0/about", Size: -1,
			Gopher: &GopherItem{Type: "0", Plus: "+", Selector: "/about", Host: "h", Port: 70}},
			`{"name":"About","type":"text","url":"gopher://h/0/about","gopher_type":"0","plus":"+","selector":"/about","host":"h","port":70}`},
		{Entry{Name: "Form", Type: TypeAsk, URL: "gopher://h/0form%09%09?", Size: 12,
			Gopher: &GopherItem{Type: "0", Plus: "?", Selector: "form", Host: "h", Port: 7070}},
			`{"name":"Form","type":"ask","url":"gopher://h/0form%09%09?","size":12,"gopher_type":"0","plus":"?","selector":"form","host":"h","port":7070}`},
		{Entry{Name: "12", Type: TypeArticle, URL: "news:a@b", Size: 1234, Modified: mod, Precision: PrecisionSecond,
			News: &NewsItem{Number: 12, Subject: "Café talk", From: "T <t@b>", Date: "Tue, 20 Dec 1994 12:00:00 +0000",
				MessageID: "a@b", Lines: 17, Bytes: 1234, URL: "nntp://h/g/12"}},
			`{"name":"12","type":"article","url":"news:a@b","size":1234,"modified":"1994-12-20T12:00:00Z","modified_precision":"second","number":12,"subject":"Café talk","from":"T \u003ct@b\u003e","date":"Tue, 20 Dec 1994 12:00:00 +0000","message_id":"a@b","lines":17,"bytes":1234,"nntp_url":"nntp://h/g/12"}`},
		{Entry{Name: "gofer.test", Type: TypeGroup, URL: "news:gofer.test", Size: -1,
			News: &NewsItem{Description: "Test articles", Low: 1, High: 30, Status: "y"}},
			`{"name":"gofer.test","type":"group","url":"news:gofer.test","description":"Test articles","low":1,"high":30,"status":"y"}`},
		{Entry{Name: "doc /srv/", Type: TypeText, URL: "wais://h/db/TEXT/x", Size: 40,
			WAIS: &WAISHit{Score: 1000, Type: "TEXT", Lines: 2, Date: "941220"}},
			`{"name":"doc /srv/","type":"text","url":"wais://h/db/TEXT/x","size":40,"date":"941220","lines":2,"score":1000,"wais_type":"TEXT"}`},
		{Entry{Name: "nothing", Type: TypeText, URL: "wais://h/db/TEXT/y", Size: -1, WAIS: &WAISHit{Type: "TEXT"}},
			`{"name":"nothing","type":"text","url":"wais://h/db/TEXT/y","score":0,"wais_type":"TEXT"}`},
		{Entry{Name: "Title", Type: TypeInfo, Size: -1, Gemini: &GeminiLine{Kind: "heading", Level: 2}},
			`{"name":"Title","type":"info","url":"","gemini":"heading","level":2}`},
		{Entry{Name: "a link", Type: TypeDir, URL: "gemini://127.0.0.1/dir/", Size: -1,
			Gemini: &GeminiLine{Kind: "link", Host: "127.0.0.1"}},
			`{"name":"a link","type":"dir","url":"gemini://127.0.0.1/dir/","host":"127.0.0.1","gemini":"link"}`},
		{Entry{Name: "caf\xe9.txt", Type: TypeFile, URL: "ftp://h/caf%E9.txt", Size: 3, Modified: mod, Precision: PrecisionMinute,
			Target: "x", Version: 2},
			`{"name":"caf\ufffd.txt","raw_name":"caf%E9.txt","type":"file","url":"ftp://h/caf%E9.txt","size":3,"modified":"1994-12-20T12:00:00Z","modified_precision":"minute","target":"x","version":2}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("got  %s\nwant %s", b, c.want)
		}
		var back Entry
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(back, c.e) {
			t.Errorf("%s read back as\n %+v %+v %+v %+v %+v\nwant\n %+v %+v %+v %+v %+v", b,
				back, back.Gopher, back.News, back.WAIS, back.Gemini, c.e, c.e.Gopher, c.e.News, c.e.WAIS, c.e.Gemini)
		}
	}
}

// TestPlainEntryHasNoViews: an FTP listing line read back from JSON is no
// Gopher item, article, WAIS hit or gemtext line.
func TestPlainEntryHasNoViews(t *testing.T) {
	var e Entry
	in := `{"name":"README","type":"file","url":"ftp://h/README","size":1234,"modified":"2024-03-01T12:30:00Z","modified_precision":"minute"}`
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	if e.Gopher != nil || e.News != nil || e.WAIS != nil || e.Gemini != nil {
		t.Errorf("views %+v %+v %+v %+v, want none", e.Gopher, e.News, e.WAIS, e.Gemini)
	}
	want := Entry{Name: "README", Type: TypeFile, URL: "ftp://h/README", Size: 1234,
		Modified: time.Date(2024, 3, 1, 12, 30, 0, 0, time.UTC), Precision: PrecisionMinute}
	if e != want {
		t.Errorf("got %+v\nwant %+v", e, want)
	}
	if b, err := json.Marshal(e); err != nil || string(b) != in {
		t.Errorf("written again as %s, %v", b, err)
	}
}
