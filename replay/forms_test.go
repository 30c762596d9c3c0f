package replay

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/warc"
	"github.com/klauspost/compress/zstd"
	"github.com/nlnwa/gowarc"
)

// formsFiles writes the fixtures of warc/testdata/others named
// into a new directory: as written, gzipped per record and whole, and
// zstd-compressed per record.
func formsFiles(t *testing.T, compression string, names ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, name := range names {
		src := filepath.Join("..", "warc", "testdata", "others", name)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var offsets []int64
		if err := warc.Entries(src, warc.WalkOptions{}, func(e warc.Entry) error { offsets = append(offsets, e.Offset); return nil }); err != nil {
			t.Fatal(err)
		}
		var recs [][]byte
		for i, o := range offsets {
			end := int64(len(data))
			if i+1 < len(offsets) {
				end = offsets[i+1]
			}
			recs = append(recs, data[o:end])
		}
		gzip1 := func(b []byte) []byte {
			var out bytes.Buffer
			zw := gzip.NewWriter(&out)
			zw.Write(b)
			zw.Close()
			return out.Bytes()
		}
		out, path := data, filepath.Join(dir, name)
		switch compression {
		case "gzip per record":
			out, path = nil, path+".gz"
			for _, r := range recs {
				out = append(out, gzip1(r)...)
			}
		case "gzip whole":
			out, path = gzip1(data), path+".gz"
		case "zstd per record":
			enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			out, path = nil, path+".zst"
			for _, r := range recs {
				out = enc.EncodeAll(r, out)
			}
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// TestOtherForms replays the WARCs of warc/testdata/others (the forms
// Heritrix 3, warcprox, Webrecorder, Browsertrix Crawler and the Common
// Crawl write), all of them at once, in each compression: every page and
// resource served from its record, warcprox's revisit in its second file
// from the response in its first, the Common Crawl's page from its
// response and not from the WAT's or the WET's record of it.
func TestOtherForms(t *testing.T) {
	all := []string{"heritrix3.warc", "warcprox-1.warc", "warcprox-2.warc", "webrecorder.warc", "browsertrix.warc",
		"commoncrawl.warc", "commoncrawl.warc.wat", "commoncrawl.warc.wet"}
	type want struct {
		uri, typ, ctype, body string
		date                  time.Time
	}
	at := func(s string) time.Time {
		d, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	wants := []want{
		{"http://example.com/", "response", "application/http; msgtype=response",
			"<html><head><title>Example Domain</title></head><body><a href=\"/about\">about</a></body></html>\n", at("2026-01-02T03:04:07Z")},
		// Heritrix's chunked response: the body as sent, chunks and all,
		// as served with its Transfer-Encoding header.
		{"http://example.com/about", "response", "application/http; msgtype=response",
			"1a\r\nAbout example.com, sent in\r\n11\r\n two chunks here.\r\n0\r\n\r\n", at("2026-01-02T03:04:08Z")},
		{"dns:example.com", "response", "text/dns", "20260102030406\nexample.com.\t3600\tIN\tA\t192.0.2.80\n", at("2026-01-02T03:04:06Z")},
		// The latest capture is warcprox's revisit: its own date, the
		// first file's payload.
		{"http://example.org/page", "response", "application/http;msgtype=response", "warcprox captured this page\n", at("2026-01-09T03:04:06Z")},
		{"https://example.net/rec", "response", "application/http; msgtype=response",
			"<!doctype html><title>Recorded</title><p>recorded in a browser</p>\n", at("2026-01-02T03:04:06Z")},
		{"https://example.com/crawled", "response", "application/http; msgtype=response",
			"<!doctype html><html><head><title>Crawled</title></head><body>crawled by a browser</body></html>\n", at("2026-01-02T03:04:06.412Z")},
		{"https://example.edu/", "response", "application/http; msgtype=response",
			"<html><head><title>Common</title></head><body><p>A page the crawl fetched.</p></body></html>\n", at("2026-01-02T03:04:06Z")},
		{"https://example.edu/big.pdf", "response", "application/http; msgtype=response",
			"%PDF-1.7\n% a document cut at the crawl's limit\n", at("2026-01-02T03:04:08Z")},
	}
	for _, c := range []string{"plain", "gzip per record", "gzip whole", "zstd per record"} {
		var warns []string
		a := open(t, Options{Warn: func(s string) { warns = append(warns, s) }}, formsFiles(t, c, all...)...)
		for _, w := range wants {
			p, err := a.Lookup(w.uri, "response", "resource", "revisit")
			if err != nil {
				t.Errorf("%s: %s: %v", c, w.uri, err)
				continue
			}
			b, err := io.ReadAll(p)
			p.Close()
			got := want{p.URI, p.Type, p.ContentType, string(b), p.Date}
			if err != nil || got != w || p.Size != int64(len(w.body)) {
				t.Errorf("%s: %s:\n got %+v (%d bytes), %v\nwant %+v", c, w.uri, got, p.Size, err, w)
			}
		}
		// The resource records of a page: its pageinfo and its screenshot.
		for uri, prefix := range map[string]string{"urn:pageinfo:https://example.com/crawled": `{"pageid":"61046c48-`,
			"urn:pageinfo:https://example.net/rec": `{"pageid":"6b5a0f0e-`, "urn:view:https://example.com/crawled": "\x89PNG\r\n\x1a\n"} {
			p, err := a.Lookup(uri)
			if err != nil {
				t.Errorf("%s: %s: %v", c, uri, err)
				continue
			}
			b, _ := io.ReadAll(p)
			p.Close()
			if p.Type != "resource" || !strings.HasPrefix(string(b), prefix) || int64(len(b)) != p.Size {
				t.Errorf("%s: %s: %s %q", c, uri, p.Type, b)
			}
		}
		// warcprox's first capture, the response the revisit refers to.
		first := open(t, Options{At: at("2026-01-02T03:04:06Z")}, formsFiles(t, c, "warcprox-1.warc", "warcprox-2.warc")...)
		p, err := first.Lookup("http://example.org/page")
		if err != nil || !p.Date.Equal(at("2026-01-02T03:04:06Z")) {
			t.Errorf("%s: warcprox's first capture: %v %v", c, p, err)
		} else {
			p.Close()
		}
		// Each file said to be read through, as none has an index
		// beside it, and nothing else.
		if len(warns) != len(all) {
			t.Errorf("%s: %q", c, warns)
		}
		for _, w := range warns {
			if !strings.HasSuffix(w, ": no index beside it; reading its records") {
				t.Errorf("%s: %s", c, w)
			}
		}
	}
}

// TestOtherFormsHTTP serves the HTTP captures of the other tools' WARCs
// as a proxy asks for them: each response as recorded, status line,
// header and body; warcprox's revisit with its own header and the
// payload of the response it refers to in the other file.
func TestOtherFormsHTTP(t *testing.T) {
	all := []string{"heritrix3.warc", "warcprox-1.warc", "warcprox-2.warc", "webrecorder.warc", "browsertrix.warc",
		"commoncrawl.warc", "commoncrawl.warc.wat", "commoncrawl.warc.wet"}
	// The blocks as the fixtures hold them.
	blocks := map[string]string{}
	for _, name := range all {
		err := warc.Walk(filepath.Join("..", "warc", "testdata", "others", name), false, func(e warc.Entry, rec gowarc.WarcRecord) error {
			if e.Type != "response" || !strings.HasPrefix(e.URI, "http") {
				return nil
			}
			r, err := rec.Block().RawBytes()
			if err != nil {
				return err
			}
			b, err := io.ReadAll(r)
			blocks[e.URI] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(blocks) != 7 {
		t.Fatalf("%d HTTP responses in the fixtures, want 7", len(blocks))
	}
	for _, c := range []string{"plain", "gzip per record", "gzip whole", "zstd per record"} {
		a := open(t, Options{}, formsFiles(t, c, all...)...)
		addr := serveHTTP(t, a, "")
		for uri, want := range blocks {
			got := exchange(t, addr, "GET "+uri+" HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
			if got != want {
				t.Errorf("%s: %s:\n got %q\nwant %q", c, uri, got, want)
			}
		}
	}
}
