package warc

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// packSample writes a WARC with a record of each kind gofer makes: an FTP
// file (named on the command line) with its conversation, an FTP listing,
// a Gopher menu, an HTTP page (chunked and gzipped) with its request, a
// Gemini page with its request.
func packSample(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "one.warc.gz")
	w, err := Create(path, Info{Software: "gofer test", Command: "gofer get --warc one.warc.gz ftp://127.0.0.21/pub/a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	c := w.Capture("ftp://127.0.0.21/pub/a.txt")
	io.WriteString(c.Conversation(), "> RETR a.txt\r\n< 226 ok\r\n")
	record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}, strings.NewReader("file a\n"))
	c.Close()
	c = w.Capture("ftp://127.0.0.21/pub/")
	record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/x-ftp-list"}, strings.NewReader("-rw-r--r-- 1 0 0 7 Jan 1 2020 a.txt\r\n"))
	c.Close()
	c = w.Capture("gopher://127.0.0.71/1/")
	record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "application/gopher-menu"}, strings.NewReader("0a\t/a\t127.0.0.71\t70\r\n.\r\n"))
	c.Close()

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, "<!doctype html><html><head><title>\n  A &amp; B\n</title></head><body><p>x</p></body></html>")
	zw.Close()
	body := gz.String()
	c = w.Capture("http://www.Example.com:80/page.html?b=2&a=1")
	rq := c.Record(schemes.CaptureRecord{Type: "request", ContentType: TypeHTTPRequest})
	io.WriteString(rq, "GET /page.html?b=2&a=1 HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
	rq.Commit()
	resp := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n"
	record(t, c, schemes.CaptureRecord{Type: "response", ContentType: TypeHTTPResponse}, strings.NewReader(resp))
	c.Close()

	c = w.Capture("gemini://127.0.0.196/")
	rq = c.Record(schemes.CaptureRecord{Type: "request", ContentType: "application/gemini;msgtype=request"})
	io.WriteString(rq, "gemini://127.0.0.196/\r\n")
	rq.Commit()
	record(t, c, schemes.CaptureRecord{Type: "response", ContentType: "application/gemini;msgtype=response"},
		strings.NewReader("20 text/gemini; lang=en\r\nintro\r\n```\n# not a heading\n```\n## Gemini  home\r\n"))
	c.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func zipMember(t *testing.T, zr *zip.Reader, name string) []byte {
	t.Helper()
	f, err := zr.Open(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b
}

func sha256Hash(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// TestPack packs a WARC and checks the WACZ: its members, the WARC stored
// unchanged, every hash in datapackage.json and datapackage-digest.json,
// an index line per record but requests and warcinfo, each at its gzip
// member, and the pages with their titles.
func TestPack(t *testing.T) {
	dir := t.TempDir()
	path := packSample(t, dir)
	out := filepath.Join(dir, "x.wacz")
	created := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := PackFile(out, []string{path}, PackOptions{Title: "T", Software: "gofer test", Created: created}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name == "archive/one.warc.gz" && f.Method != zip.Store {
			t.Errorf("%s: method %d, want STORE", f.Name, f.Method)
		}
	}
	want := []string{"indexes/index.cdx", "pages/pages.jsonl", "archive/one.warc.gz", "datapackage.json", "datapackage-digest.json"}
	if !slices.Equal(names, want) {
		t.Fatalf("members %q, want %q", names, want)
	}
	warcBytes, _ := os.ReadFile(path)
	if !bytes.Equal(zipMember(t, &zr.Reader, "archive/one.warc.gz"), warcBytes) {
		t.Error("archive/one.warc.gz differs from the WARC")
	}

	dpj := zipMember(t, &zr.Reader, "datapackage.json")
	var dp datapackage
	if err := json.Unmarshal(dpj, &dp); err != nil {
		t.Fatal(err)
	}
	if dp.Profile != "data-package" || dp.WACZVersion != "1.1.1" || dp.Title != "T" || dp.Software != "gofer test" ||
		dp.Created != "2026-01-02T03:04:05Z" || dp.MainPageURL != "ftp://127.0.0.21/pub/a.txt" {
		t.Errorf("datapackage.json: %s", dpj)
	}
	if len(dp.Resources) != 3 {
		t.Errorf("%d resources, want 3: %+v", len(dp.Resources), dp.Resources)
	}
	for _, r := range dp.Resources {
		b := zipMember(t, &zr.Reader, r.Path)
		if r.Hash != sha256Hash(b) || r.Bytes != int64(len(b)) || r.Name != filepath.Base(r.Path) {
			t.Errorf("resource %+v: the member has %d bytes, %s", r, len(b), sha256Hash(b))
		}
	}
	var dig map[string]string
	if err := json.Unmarshal(zipMember(t, &zr.Reader, "datapackage-digest.json"), &dig); err != nil {
		t.Fatal(err)
	}
	if dig["path"] != "datapackage.json" || dig["hash"] != sha256Hash(dpj) {
		t.Errorf("datapackage-digest.json: %v, datapackage.json is %s", dig, sha256Hash(dpj))
	}

	// The index: sorted, one line per record but requests and warcinfo.
	idx := strings.SplitAfter(string(zipMember(t, &zr.Reader, "indexes/index.cdx")), "\n")
	idx = idx[:len(idx)-1]
	if !slices.IsSorted(idx) {
		t.Errorf("index not sorted:\n%s", strings.Join(idx, ""))
	}
	byURL := map[string][]cdxFields{}
	var offsets []int64
	for _, l := range idx {
		key, rest, _ := strings.Cut(l, " ")
		ts, js, _ := strings.Cut(rest, " ")
		var f cdxFields
		if err := json.Unmarshal([]byte(js), &f); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if key != WACZSURT(f.URL) || len(ts) != 14 || f.Filename != "one.warc.gz" {
			t.Errorf("line %q", l)
		}
		byURL[f.URL] = append(byURL[f.URL], f)
		off, _ := strconv.ParseInt(f.Offset, 10, 64)
		n, _ := strconv.ParseInt(f.Length, 10, 64)
		offsets = append(offsets, off)
		// The member at offset is the record, whole.
		zr, err := gzip.NewReader(bytes.NewReader(warcBytes[off : off+n]))
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		zr.Multistream(false)
		rec, err := io.ReadAll(zr)
		if err != nil || !strings.Contains(string(rec), "WARC-Target-URI: "+f.URL+"\r\n") {
			t.Errorf("%q: the member at its offset is not its record: %v %.200q", l, err, rec)
		}
	}
	if len(idx) != 6 {
		t.Errorf("%d index lines, want 6 (file, conversation, listing, menu, HTTP and Gemini responses):\n%s", len(idx), strings.Join(idx, ""))
	}
	slices.Sort(offsets)
	if len(slices.Compact(offsets)) != len(idx) {
		t.Errorf("index lines share offsets: %v", offsets)
	}
	for u, want := range map[string]cdxFields{
		"http://www.Example.com:80/page.html?b=2&a=1": {Mime: "text/html", Status: "200"},
		"gemini://127.0.0.196/":                       {Mime: "text/gemini", Status: "20"},
		"gopher://127.0.0.71/1/":                      {Mime: "application/gopher-menu"},
		"ftp://127.0.0.21/pub/":                       {Mime: "text/x-ftp-list"},
	} {
		got := byURL[u]
		if len(got) != 1 || got[0].Mime != want.Mime || got[0].Status != want.Status || len(got[0].Digest) != 32 {
			t.Errorf("%s: %+v, want mime %q status %q and a digest", u, got, want.Mime, want.Status)
		}
	}
	if got := byURL["ftp://127.0.0.21/pub/a.txt"]; len(got) != 2 {
		t.Errorf("ftp file: %+v, want the file and its conversation", got)
	}

	pj := string(zipMember(t, &zr.Reader, "pages/pages.jsonl"))
	sc := bufio.NewScanner(strings.NewReader(pj))
	sc.Scan()
	var head map[string]string
	if json.Unmarshal(sc.Bytes(), &head) != nil || head["format"] != "json-pages-1.0" || head["id"] != "pages" {
		t.Errorf("pages header %q", sc.Text())
	}
	titles := map[string]string{}
	for sc.Scan() {
		var p Page
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		if _, err := time.Parse(time.RFC3339, p.TS); err != nil || len(p.ID) != 32 {
			t.Errorf("page %+v: ts or id", p)
		}
		titles[p.URL] = p.Title
	}
	wantTitles := map[string]string{
		"ftp://127.0.0.21/pub/a.txt":                  "ftp://127.0.0.21/pub/a.txt",
		"ftp://127.0.0.21/pub/":                       "ftp://127.0.0.21/pub/",
		"gopher://127.0.0.71/1/":                      "gopher://127.0.0.71/1/",
		"http://www.Example.com:80/page.html?b=2&a=1": "A & B",
		"gemini://127.0.0.196/":                       "Gemini home",
	}
	if len(titles) != len(wantTitles) {
		t.Errorf("pages %v, want %v", titles, wantTitles)
	}
	for u, w := range wantTitles {
		if titles[u] != w {
			t.Errorf("page %s: title %q, want %q", u, titles[u], w)
		}
	}
	if _, err := os.Stat(out + ".tmp"); err == nil {
		t.Error("temporary file left")
	}
}

// TestPackZipNum packs an index past the block size as a ZipNum index:
// index.cdx.gz's blocks, read through index.idx, hold every line.
func TestPackZipNum(t *testing.T) {
	dir := t.TempDir()
	path := packSample(t, dir)
	var small bytes.Buffer
	if err := Pack(&small, []string{path}, PackOptions{}); err != nil {
		t.Fatal(err)
	}
	sr, _ := zip.NewReader(bytes.NewReader(small.Bytes()), int64(small.Len()))
	lines := string(zipMember(t, sr, "indexes/index.cdx"))

	defer func(n int) { zipNumLines = n }(zipNumLines)
	zipNumLines = 3
	var buf bytes.Buffer
	if err := Pack(&buf, []string{path}, PackOptions{}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	gz := zipMember(t, zr, "indexes/index.cdx.gz")
	idx := strings.Split(strings.TrimSuffix(string(zipMember(t, zr, "indexes/index.idx")), "\n"), "\n")
	if !strings.HasPrefix(idx[0], "!meta 0 ") || len(idx) != 1+2 {
		t.Fatalf("index.idx:\n%s", strings.Join(idx, "\n"))
	}
	var all strings.Builder
	for _, l := range idx[1:] {
		i := strings.IndexByte(l, '{')
		var m struct {
			Offset, Length int64
			Digest         string
		}
		if err := json.Unmarshal([]byte(l[i:]), &m); err != nil {
			t.Fatal(err)
		}
		block := gz[m.Offset : m.Offset+m.Length]
		if m.Digest != sha256Hash(block) {
			t.Errorf("%q: digest of the block %s", l, sha256Hash(block))
		}
		r, err := gzip.NewReader(bytes.NewReader(block))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r)
		if !strings.HasPrefix(string(b), l[:strings.IndexByte(l, '{')-1]) {
			t.Errorf("block of %q starts %.80q", l, b)
		}
		all.Write(b)
	}
	if all.String() != lines {
		t.Errorf("ZipNum blocks hold\n%s\nwant\n%s", all.String(), lines)
	}
}

func TestWACZSURT(t *testing.T) {
	for in, want := range map[string]string{
		"http://www.Example.com:80/a/B?b=2&a=1#f": "com,example)/a/b?a=1&b=2",
		"https://www2.example.com:8443/":          "com,example:8443)/",
		"http://127.0.0.80":                       "80,0,0,127)/",
		"gopher://127.0.0.71/1/":                  "gopher://127.0.0.71/1/",
		"ftp://Host/A":                            "ftp://Host/A",
	} {
		if got := WACZSURT(in); got != want {
			t.Errorf("WACZSURT(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPackRefusesTwoOfOneName(t *testing.T) {
	dir := t.TempDir()
	a := packSample(t, dir)
	os.Mkdir(filepath.Join(dir, "b"), 0o755)
	b := filepath.Join(dir, "b", "one.warc.gz")
	data, _ := os.ReadFile(a)
	os.WriteFile(b, data, 0o644)
	out := filepath.Join(dir, "x.wacz")
	if err := PackFile(out, []string{a, b}, PackOptions{}); err == nil || !strings.Contains(err.Error(), "same name") {
		t.Errorf("two files of one name: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a WACZ was left")
	}
}

// TestPackPlain packs an uncompressed WARC: each index line spans its
// record, header and block, and the CR LF CR LF after it is left out.
func TestPackPlain(t *testing.T) {
	dir := t.TempDir()
	gz, err := os.Open(packSample(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "plain.warc")
	os.WriteFile(path, plain, 0o644)
	var buf bytes.Buffer
	if err := Pack(&buf, []string{path}, PackOptions{}); err != nil {
		t.Fatal(err)
	}
	wz, _ := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	idx := strings.Split(strings.TrimSuffix(string(zipMember(t, wz, "indexes/index.cdx")), "\n"), "\n")
	if len(idx) != 6 {
		t.Fatalf("%d index lines, want 6", len(idx))
	}
	for _, l := range idx {
		var f cdxFields
		json.Unmarshal([]byte(l[strings.IndexByte(l, '{'):]), &f)
		off, _ := strconv.Atoi(f.Offset)
		n, _ := strconv.Atoi(f.Length)
		rec := string(plain[off : off+n])
		if !strings.HasPrefix(rec, "WARC/1.1\r\n") || !strings.Contains(rec, "WARC-Target-URI: "+f.URL+"\r\n") ||
			string(plain[off+n:off+n+4]) != "\r\n\r\n" {
			t.Errorf("%q: spans %.60q ... %q", l, rec, plain[off+n:min(off+n+12, len(plain))])
		}
	}
}
