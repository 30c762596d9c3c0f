package warc

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestPackOthers packs a WARC as other tools write it: a response whose
// HTTP header Go's parser refuses (Content-Length -1 beside chunked) keeps
// its status and type and is a page, and a target URI in angle brackets
// is indexed without them.
func TestPackOthers(t *testing.T) {
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: -1\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"16\r\n<title>Lenient</title>\r\n0\r\n\r\n"
	resp := fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:x:1>\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n"+
		"WARC-Target-URI: <http://example.org/page>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		len(http), http)
	path := writeFile(t, "others.warc.gz", gz(three[0])+gz(resp))
	var buf bytes.Buffer
	if err := Pack(&buf, []string{path}, PackOptions{}); err != nil {
		t.Fatal(err)
	}
	wz, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	idx := string(zipMember(t, wz, "indexes/index.cdx"))
	if !strings.HasPrefix(idx, "org,example)/page 20260102030405 ") || !strings.Contains(idx, `"url":"http://example.org/page"`) ||
		!strings.Contains(idx, `"mime":"text/html"`) || !strings.Contains(idx, `"status":"200"`) {
		t.Errorf("index: %s", idx)
	}
	pages := string(zipMember(t, wz, "pages/pages.jsonl"))
	if !strings.Contains(pages, `"url":"http://example.org/page"`) || !strings.Contains(pages, `"title":"Lenient"`) {
		t.Errorf("pages: %s", pages)
	}
}

// TestPackWhole packs a WARC gzipped whole: stored recompressed, each
// record its own member, every record indexed where it lies.
func TestPackWhole(t *testing.T) {
	path := writeFile(t, "whole.warc.gz", gz(three[0]+three[1]+three[2]))
	var buf bytes.Buffer
	if err := Pack(&buf, []string{path}, PackOptions{}); err != nil {
		t.Fatal(err)
	}
	wz, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	stored := zipMember(t, wz, "archive/whole.warc.gz")
	idx := strings.Split(strings.TrimSpace(string(zipMember(t, wz, "indexes/index.cdx"))), "\n")
	if len(idx) != 2 {
		t.Fatalf("index: %q", idx)
	}
	for _, l := range idx {
		var f cdxFields
		json.Unmarshal([]byte(l[strings.IndexByte(l, '{'):]), &f)
		off, _ := strconv.ParseInt(f.Offset, 10, 64)
		n, _ := strconv.ParseInt(f.Length, 10, 64)
		rec, _, err := OpenRecord(bytes.NewReader(stored), off, n, 0)
		if err != nil || rec.TargetURI() != f.URL {
			t.Errorf("%s: %v %+v", l, err, rec)
		}
	}
}
