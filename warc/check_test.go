package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// problems runs Check and returns the problems as lines.
func problems(t *testing.T, archives ...string) []string {
	t.Helper()
	var out []string
	if err := Check(archives, func(p Problem) { out = append(out, p.String()) }); err != nil {
		t.Fatal(err)
	}
	return out
}

// writeSample records one fetch of each kind gofer makes, each with its
// protocols, into w.
func writeSample(t *testing.T, w *Writer) {
	t.Helper()
	c := w.Capture("ftp://127.0.0.21/pub/a.txt")
	io.WriteString(c.Conversation(), "> USER anonymous\r\n< 230 in\r\n")
	record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain", Protocol: []string{"ftp"}},
		strings.NewReader("the file\r\n"))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	h := w.Capture("https://127.0.0.80/a.txt")
	p := []string{"http/1.1", "tls/1.3"}
	record(t, h, schemes.CaptureRecord{Type: "request", ContentType: TypeHTTPRequest, Protocol: p},
		strings.NewReader("GET /a.txt HTTP/1.1\r\nHost: 127.0.0.80\r\n\r\n"))
	record(t, h, schemes.CaptureRecord{Type: "response", ContentType: TypeHTTPResponse, Protocol: p},
		strings.NewReader("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n"))
	h.Close()
	g := w.Capture("gopher://127.0.0.71/0/a.txt")
	record(t, g, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain", Protocol: []string{"gopher"}},
		strings.NewReader("a gopher item\r\n"))
	g.Close()
	m := w.Capture("gemini://127.0.0.196/")
	gp := []string{"gemini", "tls/1.3"}
	record(t, m, schemes.CaptureRecord{Type: "request", ContentType: RequestGemini, Protocol: gp},
		strings.NewReader("gemini://127.0.0.196/\r\n"))
	record(t, m, schemes.CaptureRecord{Type: "response", ContentType: ResponseGemini, Protocol: gp},
		strings.NewReader("20 text/gemini\r\n# hi\n"))
	m.Close()
}

func TestCheckClean(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "crawl")
	for range 2 { // the second run's payloads are revisits of the first's
		w, err := CreateSegments(prefix, 0, Info{Software: "gofer test"})
		if err != nil {
			t.Fatal(err)
		}
		writeSample(t, w)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if p := problems(t, prefix); len(p) > 0 {
		t.Fatalf("problems in a clean archive:\n%s", strings.Join(p, "\n"))
	}
	if p := problems(t, prefix, SegmentName(prefix, 0)); len(p) > 0 {
		t.Errorf("a segment named twice is read once: %q", p)
	}
	// A segment alone: its revisits refer to records of the other.
	p := problems(t, SegmentName(prefix, 1))
	if len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), "WARC-Refers-To <urn:uuid:") {
		t.Errorf("second segment alone: %q, want its revisits' WARC-Refers-To unresolved", p)
	}
}

// rewriteMember replaces old with new in the first gzip member of path
// that holds old, compressing the member again.
func rewriteMember(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	br := bufio.NewReader(bytes.NewReader(data))
	done := false
	for {
		if _, err := br.Peek(1); err != nil {
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		member, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !done && bytes.Contains(member, []byte(old)) {
			member, done = bytes.Replace(member, []byte(old), []byte(new), 1), true
		}
		zw := gzip.NewWriter(&out)
		zw.Write(member)
		zw.Close()
	}
	if !done {
		t.Fatalf("%s: no member holds %q", path, old)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckChangedPayload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one.warc.gz")
	w, err := Create(path, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	writeSample(t, w)
	w.Close()
	if p := problems(t, path); len(p) > 0 {
		t.Fatalf("problems before the change:\n%s", strings.Join(p, "\n"))
	}
	cp := filepath.Join(filepath.Dir(path), "copy.warc.gz")
	data, _ := os.ReadFile(path)
	os.WriteFile(cp, data, 0o644)
	if p := strings.Join(problems(t, path, cp), "\n"); !strings.Contains(p, "copy.warc.gz: record 2 (offset ") ||
		!strings.Contains(p, "is also that of "+path+" record 2") {
		t.Errorf("a copy of the file beside it: %q, want its record IDs named as taken", p)
	}
	rewriteMember(t, path, "a gopher item", "a gopher itEm")
	p := strings.Join(problems(t, path), "\n")
	for _, want := range []string{"record 6 (offset ", "gopher://127.0.0.71/0/a.txt): WARC-Block-Digest",
		"WARC-Payload-Digest"} {
		if !strings.Contains(p, want) {
			t.Errorf("problems %q, want one with %q", p, want)
		}
	}
	rewriteMember(t, path, "hello\n", "hello!")
	if p := strings.Join(problems(t, path), "\n"); !strings.Contains(p, "https://127.0.0.80/a.txt): WARC-Payload-Digest") {
		t.Errorf("problems %q, want the HTTP response's payload digest", p)
	}
	rewriteMember(t, path, "20 text/gemini\r\n# hi\n", "20 text/gemini\r\n# hi\nmore")
	if p := strings.Join(problems(t, path), "\n"); !strings.Contains(p, "gemini://127.0.0.196/): Content-Length") {
		t.Errorf("problems %q, want the Gemini response's Content-Length", p)
	}
}

func TestCheckIndex(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "crawl")
	w, err := CreateSegments(prefix, 0, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	writeSample(t, w)
	w.Close()
	idx := IndexName(SegmentName(prefix, 0))
	orig, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(orig), "\n"), "\n")
	for _, c := range []struct {
		name, index, want string
	}{
		{"length", strings.Replace(string(orig), `"length":`, `"length":1`, 1), "length is "},
		{"line dropped", strings.Join(lines[1:], ""), "does not list the record"},
		{"line added", string(orig) + strings.Replace(lines[0], `"offset":`, `"offset":9`, 1), "that is not there"},
		{"digest", strings.Replace(string(orig), `"digest":"sha1:`, `"digest":"sha1:X`, 1), "digest is "},
	} {
		if err := os.WriteFile(idx, []byte(c.index), 0o644); err != nil {
			t.Fatal(err)
		}
		if p := strings.Join(problems(t, prefix), "\n"); !strings.Contains(p, c.want) || !strings.Contains(p, "crawl-00000.cdxj") {
			t.Errorf("%s: problems %q, want one naming the index with %q", c.name, p, c.want)
		}
	}
}

func TestCheckConventions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one.warc.gz")
	w, err := Create(path, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	c := w.Capture("http://127.0.0.80/a.txt")
	record(t, c, schemes.CaptureRecord{Type: "request", ContentType: "text/plain", Protocol: []string{"http/1.1"}},
		strings.NewReader("GET / HTTP/1.1\r\n\r\n"))
	record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}, strings.NewReader("x"))
	c.Close()
	n := w.Capture("nntp://127.0.0.119/g/1")
	record(t, n, schemes.CaptureRecord{Type: "resource", URI: "news:a@b", ContentType: "message/rfc822",
		Protocol: []string{"gopher"}}, strings.NewReader("Subject: x\r\n\r\nx\r\n"))
	n.Close()
	g := w.Capture("gemini://127.0.0.196/")
	record(t, g, schemes.CaptureRecord{Type: "request", ContentType: RequestGemini, Protocol: []string{"gemini"}},
		strings.NewReader("gemini://127.0.0.196/\r\n"))
	g.Close()
	w.Close()
	p := strings.Join(problems(t, path), "\n")
	for _, want := range []string{
		`record 2 (offset `, `Content-Type "text/plain" is not one the conventions name for a request record of http`,
		"a resource record is not one the conventions name for http",
		"record 3 (", "no WARC-Protocol",
		`WARC-Protocol "gopher" first, not news's "nntp"`,
		"no WARC-Protocol naming the TLS version under gemini",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("problems:\n%s\nwant one with %q", p, want)
		}
	}
}
