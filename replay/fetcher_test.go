package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// recordAs writes a record of the given type and content type, dated.
func recordAs(t *testing.T, w *warc.Writer, typ gowarc.RecordType, uri, contentType string, date time.Time, block string) {
	t.Helper()
	b := gowarc.NewRecordBuilder(typ, gowarc.WithVersion(gowarc.V1_1))
	b.AddWarcHeader(gowarc.WarcRecordID, warc.NewID())
	b.AddWarcHeader(gowarc.WarcTargetURI, uri)
	b.AddWarcHeaderTime(gowarc.WarcDate, date)
	b.AddWarcHeader(gowarc.ContentType, contentType)
	b.WriteString(block)
	rec, _, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
}

var (
	early = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	late  = time.Date(2026, 11, 27, 4, 1, 0, 0, time.UTC)
)

func fetcherArchive(t *testing.T, at time.Time) *Fetcher {
	t.Helper()
	name := filepath.Join(t.TempDir(), "a.warc.gz")
	w, err := warc.Create(name, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, "<p>the new page</p>")
	zw.Close()
	chunked := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(gz.Len()), 16) + "\r\n" + gz.String() + "\r\n0\r\n\r\n"
	for _, r := range []struct {
		typ     gowarc.RecordType
		uri, ct string
		date    time.Time
		block   string
	}{
		{gowarc.Resource, "gopher://127.0.0.1/1/", "text/x-gopher-menu", early, "0Text\t/t.txt\t127.0.0.1\t70\r\n.\r\n"},
		{gowarc.Resource, "gopher://127.0.0.1/0/t.txt", "text/plain", early, "the early text\r\n.\r\n"},
		{gowarc.Resource, "gopher://127.0.0.1/0/t.txt", "text/plain", late, "the late text\r\n.\r\n"},
		{gowarc.Resource, "gopher://127.0.0.1/0/plus.txt%09%09+", "text/plain", early, "a Gopher+ item\n"},
		{gowarc.Resource, "gopher://127.0.0.1/9/plus.txt", "application/octet-stream", early, "not this one"},
		{gowarc.Metadata, "gopher://127.0.0.1/1/%09%09$", warc.TypeGopherPlusAttrs, early,
			"+INFO: 0Text\t/t.txt\t127.0.0.1\t70\t+\r\n+ADMIN:\r\n Admin: Someone <a@b.c>\r\n Mod-Date: <20260101000000>\r\n"},
		{gowarc.Response, "http://127.0.0.1/old", "application/http;msgtype=response", early,
			"HTTP/1.1 301 Moved\r\nLocation: http://127.0.0.1/new\r\nContent-Length: 0\r\n\r\n"},
		{gowarc.Response, "http://127.0.0.1/new", "application/http;msgtype=response", early, chunked},
		{gowarc.Response, "gemini://127.0.0.1/ask", "application/gemini;msgtype=response", early, "10 Your name?\r\n"},
		{gowarc.Response, "gemini://127.0.0.1/ask?gofer%20go", "application/gemini;msgtype=response", early, "20 text/plain\r\nhello gofer\n"},
		{gowarc.Resource, "ftp://127.0.0.1/pub/a.txt", "application/octet-stream", early, "file a\n"},
		{gowarc.Resource, "news:abc@example.org", "message/rfc822", early, "Subject: hi\r\n\r\nan article\r\n"},
	} {
		recordAs(t, w, r.typ, r.uri, r.ct, r.date, r.block)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := Open([]string{name}, Options{At: at})
	if err != nil {
		t.Fatal(err)
	}
	return NewFetcher(a)
}

func fetchURL(t *testing.T, f *Fetcher, raw string, mod func(*schemes.Request)) (*schemes.Response, error) {
	t.Helper()
	u, err := schemes.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	req := &schemes.Request{URL: u, Settings: &schemes.Settings{}}
	if mod != nil {
		mod(req)
	}
	return f.Fetch(context.Background(), req)
}

func body(t *testing.T, resp *schemes.Response) string {
	t.Helper()
	defer resp.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func entries(t *testing.T, resp *schemes.Response) []schemes.Entry {
	t.Helper()
	defer resp.Close()
	var es []schemes.Entry
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			return es
		}
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
}

func TestFetcherAnswersAsTheServersDid(t *testing.T) {
	f := fetcherArchive(t, time.Time{})
	if r := f.Root(); r != "gopher://127.0.0.1/1/" {
		t.Errorf("Root() = %q", r)
	}

	resp, err := fetchURL(t, f, "gopher://127.0.0.1/1/", nil)
	if err != nil || resp.Kind != schemes.KindListing {
		t.Fatalf("menu: %v, %+v", err, resp)
	}
	if es := entries(t, resp); len(es) != 1 || es[0].URL != "gopher://127.0.0.1/0/t.txt" {
		t.Errorf("menu entries %+v", es)
	}
	resp, err = fetchURL(t, f, "gopher://127.0.0.1/0/t.txt", nil)
	if err != nil || body(t, resp) != "the late text\r\n" {
		t.Errorf("text item: %v", err)
	}
	if when, ok := f.CaptureTime("gopher://127.0.0.1/0/t.txt"); !ok || !when.Equal(late) {
		t.Errorf("CaptureTime = %v, %v; want %v", when, ok, late)
	}
	// A Gopher+ server's item is captured with its "+" request.
	resp, err = fetchURL(t, f, "gopher://127.0.0.1/0/plus.txt", nil)
	if err != nil || body(t, resp) != "a Gopher+ item\n" {
		t.Errorf("Gopher+ item: %v", err)
	}
	resp, err = fetchURL(t, f, "gopher://127.0.0.1/0/t.txt%09%09!", nil)
	if err != nil || resp.Kind != schemes.KindInfo {
		t.Fatalf("attributes from the menu's $ block: %v, %+v", err, resp)
	}
	var info strings.Builder
	resp.Info.(interface{ WriteText(io.Writer) error }).WriteText(&info)
	if !strings.Contains(info.String(), "Someone") {
		t.Errorf("attributes %q", info.String())
	}

	resp, err = fetchURL(t, f, "http://127.0.0.1/old", nil)
	if err != nil || resp.Kind != schemes.KindRedirect || resp.Location != "http://127.0.0.1/new" {
		t.Errorf("captured redirect: %v, %+v", err, resp)
	}
	resp, err = fetchURL(t, f, "http://127.0.0.1/new", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.MediaType != "text/html" || body(t, resp) != "<p>the new page</p>" {
		t.Errorf("captured page: %q", resp.MediaType)
	}

	resp, err = fetchURL(t, f, "gemini://127.0.0.1/ask", func(r *schemes.Request) { r.Query, r.HasQuery = "gofer go", true })
	if err != nil {
		t.Fatal(err)
	}
	if resp.MediaType != "text/plain" || resp.URL.String() != "gemini://127.0.0.1/ask?gofer%20go" || body(t, resp) != "hello gofer\n" {
		t.Errorf("gemini answer: %q %s", resp.MediaType, resp.URL)
	}

	// A directory whose listing was not captured lists the files under it.
	resp, err = fetchURL(t, f, "ftp://127.0.0.1/pub/", nil)
	if err != nil || resp.Kind != schemes.KindListing {
		t.Fatalf("ftp directory: %v, %+v", err, resp)
	}
	if es := entries(t, resp); len(es) != 1 || es[0].URL != "ftp://127.0.0.1/pub/a.txt" || es[0].Size != 7 {
		t.Errorf("ftp entries %+v", es)
	}
	resp, err = fetchURL(t, f, "ftp://127.0.0.1/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if es := entries(t, resp); len(es) != 1 || es[0].URL != "ftp://127.0.0.1/pub/" || es[0].Type != schemes.TypeDir {
		t.Errorf("ftp root entries %+v", es)
	}
	resp, err = fetchURL(t, f, "ftp://127.0.0.1/pub/a.txt", nil)
	if err != nil || body(t, resp) != "file a\n" {
		t.Errorf("ftp file: %v", err)
	}

	resp, err = fetchURL(t, f, "news:abc@example.org", nil)
	if err != nil || !strings.Contains(body(t, resp), "an article") {
		t.Errorf("news article: %v", err)
	}

	for _, raw := range []string{"gopher://127.0.0.1/0/other.txt", "ftp://127.0.0.1/elsewhere/", "gemini://127.0.0.1/no",
		"http://127.0.0.1/no", "telnet://127.0.0.1/", "news:none@example.org"} {
		if _, err := fetchURL(t, f, raw, nil); !errors.Is(err, ErrNotCaptured) {
			t.Errorf("%s: %v, want ErrNotCaptured", raw, err)
		}
	}
}

func TestFetcherAtPicksTheNearestCapture(t *testing.T) {
	f := fetcherArchive(t, early.Add(time.Hour))
	resp, err := fetchURL(t, f, "gopher://127.0.0.1/0/t.txt", nil)
	if err != nil || body(t, resp) != "the early text\r\n" {
		t.Errorf("text item at %v: %v", early, err)
	}
	if when, ok := f.CaptureTime("gopher://127.0.0.1/0/t.txt"); !ok || !when.Equal(early) {
		t.Errorf("CaptureTime = %v, %v; want %v", when, ok, early)
	}
}
