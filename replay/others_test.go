package replay

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOtherLayouts replays archives as other tools write them: an ARC
// file gzipped per record, and a WARC gzipped whole whose target URIs are
// in angle brackets; each capture served from where its record lies.
func TestOtherLayouts(t *testing.T) {
	dir := t.TempDir()
	gz := func(s string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		io.WriteString(zw, s)
		zw.Close()
		return b.String()
	}
	desc := "1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n"
	arcRec := func(uri, body string) string {
		http := "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + body
		return fmt.Sprintf("%s 192.0.2.1 20050614070144 text/plain %d\n%s\n", uri, len(http), http)
	}
	arc := gz(fmt.Sprintf("filedesc://t.arc 0.0.0.0 20050614070159 text/plain %d\n%s\n", len(desc), desc)) +
		gz(arcRec("http://example.org/a", "arc a")) + gz(arcRec("http://example.org/b", "arc b"))
	warcRec := func(id, uri, body string) string {
		http := "HTTP/1.1 200 OK\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\n\r\n" + body
		return fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:x:%s>\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n"+
			"WARC-Target-URI: <%s>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
			id, uri, len(http), http)
	}
	whole := gz(warcRec("1", "http://example.net/x", "whole x") + warcRec("2", "http://example.net/y", "whole y"))
	files := map[string]string{"t.arc.gz": arc, "whole.warc.gz": whole}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := open(t, Options{}, filepath.Join(dir, "t.arc.gz"), filepath.Join(dir, "whole.warc.gz"))
	for uri, want := range map[string]string{"http://example.org/a": "arc a", "http://example.org/b": "arc b",
		"http://example.net/x": "whole x", "http://example.net/y": "whole y"} {
		p, err := a.Lookup(uri, "response")
		if err != nil {
			t.Errorf("%s: %v", uri, err)
			continue
		}
		b, _ := io.ReadAll(p)
		p.Close()
		if string(b) != want {
			t.Errorf("%s: %q, want %q", uri, b, want)
		}
	}
}
