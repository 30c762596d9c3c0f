package schemes

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// sliceListing yields its entries, then end (io.EOF or a failure); it
// counts Next and Close calls.
type sliceListing struct {
	entries []Entry
	end     error
	nexts   int
	closes  int
}

func (l *sliceListing) Next() (Entry, error) {
	l.nexts++
	if len(l.entries) == 0 {
		return Entry{}, l.end
	}
	e := l.entries[0]
	l.entries = l.entries[1:]
	return e, nil
}

func (l *sliceListing) Close() error { l.closes++; return nil }

var mod = time.Date(2024, 3, 1, 12, 30, 0, 0, time.UTC)

// listingEntries covers every line shape of the text form.
func listingEntries() []Entry {
	return []Entry{
		{Gopher: &GopherItem{Type: "i"}, Type: TypeInfo, Name: "Welcome\x1b[2J"},
		{Gopher: &GopherItem{Type: "0"}, Type: TypeText, Name: "About", URL: "gopher://h/0/about"},
		{Gopher: &GopherItem{Type: "3"}, Type: TypeError, Name: "oops"},
		{Gopher: &GopherItem{Type: "1"}, Type: TypeDir, Name: "Más", URL: "gopher://h/1/mas"},
		{Type: TypeFile, Name: "README", Size: 1234, Modified: mod, URL: "ftp://h/README"},
		{Type: TypeLink, Name: "latest", Size: -1, Target: "v2", URL: "ftp://h/latest"},
		{Type: TypeArticle, News: &NewsItem{Number: 42, Subject: "Hi", From: "a@b"}, URL: "news:x@y"},
		{Type: TypeGroup, Name: "comp.lang.go", News: &NewsItem{Low: 1, High: 9, Description: "Go"}, URL: "nntp://h/comp.lang.go"},
	}
}

const wantListingText = "     Welcome\\x1b[2J\n" +
	"   1 text    About  gopher://h/0/about\n" +
	"     oops\n" +
	"   2 dir     Más  gopher://h/1/mas\n" +
	"file            1234  2024-03-01 12:30:00  README  ftp://h/README\n" +
	"link               -  -                    latest -> v2  ftp://h/latest\n" +
	"article     42  Hi  a@b  news:x@y\n" +
	"group   comp.lang.go  1-9  Go  nntp://h/comp.lang.go\n"

func TestWriteListing(t *testing.T) {
	var b bytes.Buffer
	if err := WriteListing(&b, &sliceListing{entries: listingEntries(), end: io.EOF}); err != nil {
		t.Fatal(err)
	}
	if b.String() != wantListingText {
		t.Errorf("text form:\n%s\nwant:\n%s", b.String(), wantListingText)
	}
}

// A listing's Body reads exactly the text form, one entry at a time, and
// closing it closes the listing once however often either is closed.
func TestListingBody(t *testing.T) {
	l := &sliceListing{entries: listingEntries(), end: io.EOF}
	r := &Response{Kind: KindListing, Listing: l}
	r.SetBody()
	line := make([]byte, 256)
	n, err := r.Body.Read(line)
	if err != nil || string(line[:n]) != "     Welcome\\x1b[2J\n" || l.nexts != 1 {
		t.Fatalf("first Read = %q, %v after %d entries; want the first line from one entry", line[:n], err, l.nexts)
	}
	rest, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(line[:n]) + string(rest); got != wantListingText {
		t.Errorf("Body read:\n%s\nwant:\n%s", got, wantListingText)
	}
	r.Body.Close()
	r.Close()
	r.Listing.Close()
	if l.closes != 1 {
		t.Errorf("listing closed %d times, want 1", l.closes)
	}
}

// A listing that fails ends its Body with the same error, after the lines
// read so far; a tiny buffer still gets every byte.
func TestListingBodyFailure(t *testing.T) {
	boom := Errorf(ErrInterrupted, "connection lost")
	l := &sliceListing{entries: listingEntries()[:2], end: boom}
	r := &Response{Kind: KindListing, Listing: l}
	r.SetBody()
	var got []byte
	p := make([]byte, 3)
	var err error
	for {
		var n int
		n, err = r.Body.Read(p)
		got = append(got, p[:n]...)
		if err != nil {
			break
		}
	}
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("end of Body = %v, want the listing's ErrInterrupted", err)
	}
	if want := strings.Join(strings.SplitAfter(wantListingText, "\n")[:2], ""); string(got) != want {
		t.Errorf("read %q before the failure, want %q", got, want)
	}
}

type textInfo struct{}

func (textInfo) WriteText(w io.Writer) error { _, err := io.WriteString(w, "readable\n"); return err }

func TestInfoBody(t *testing.T) {
	r := &Response{Kind: KindInfo, Info: textInfo{}}
	r.SetBody()
	if b, err := io.ReadAll(r.Body); err != nil || string(b) != "readable\n" {
		t.Errorf("info Body = %q, %v; want its WriteText", b, err)
	}
	r = &Response{Kind: KindInfo, Info: map[string]int{"a": 1}}
	r.SetBody()
	if b, err := io.ReadAll(r.Body); err != nil || string(b) != "{\n  \"a\": 1\n}\n" {
		t.Errorf("info Body = %q, %v; want indented JSON", b, err)
	}
	raw := io.NopCloser(strings.NewReader("+INFO: raw"))
	r = &Response{Kind: KindInfo, Info: textInfo{}, Body: raw}
	r.SetBody()
	if r.Body != raw {
		t.Error("SetBody replaced the raw bytes a scheme set")
	}
}

func TestNoBody(t *testing.T) {
	u := &URL{Scheme: "telnet"}
	for kind, want := range map[Kind]string{
		KindSession:  "telnet session: the response carries no body; use Session",
		KindHandoff:  "telnet hand-off: the response carries no body; use Command",
		KindRedirect: "telnet redirect: the response carries no body; use Location",
	} {
		r := &Response{URL: u, Kind: kind}
		r.SetBody()
		n, err := r.Body.Read(make([]byte, 8))
		if n != 0 || err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrUsage) {
			t.Errorf("kind %d: Read = %d, %v; want an ErrUsage error saying %q", kind, n, err, want)
		}
		if err := r.Close(); err != nil {
			t.Errorf("kind %d: Close = %v", kind, err)
		}
	}
}

func TestPrintable(t *testing.T) {
	if got := Printable("a\x1b[2Jb\xe9c\u0085"); got != `a\x1b[2Jb\xe9c\x85` {
		t.Errorf("Printable = %q", got)
	}
	if got := Printable("Grüße"); got != "Grüße" {
		t.Errorf("Printable(Grüße) = %q", got)
	}
}

// Close twice: the parts are closed once, the second call is quiet.
func TestResponseCloseIdempotent(t *testing.T) {
	l := &sliceListing{end: io.EOF}
	r := &Response{Kind: KindListing, Listing: l, Body: io.NopCloser(strings.NewReader(""))}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil || l.closes != 1 {
		t.Errorf("second Close = %v, listing closed %d times; want nil and once", err, l.closes)
	}
}
