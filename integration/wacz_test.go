package integration_test

// WACZ packing (gofer warc pack) of WARC files captured from the real
// servers: FTP (vsftpd) files and listings, a Gopher (gophernicus) menu and
// item, HTTP (nginx) pages and a file, a Gemini (molly-brown) page and
// file, and the segments of FTP and HTTP mirrors run twice (the second
// run's records revisits), and a mirror of the whole FTP archive, whose
// index is a ZipNum one. Every hash in the package checks out; and when
// integration/test installed js-wacz ($GOFER_JSWACZ) the same WARC files
// are packed by it too and the two indexes and page lists compared.

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// waczFiles reads every member of a WACZ.
func waczFiles(t *testing.T, path string) (map[string][]byte, map[string]uint16) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer zr.Close()
	files, methods := map[string][]byte{}, map[string]uint16{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatalf("%s: %s: %v", path, f.Name, err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %s: %v", path, f.Name, err)
		}
		files[f.Name], methods[f.Name] = b, f.Method
	}
	return files, methods
}

// cdxLine is one index line of a WACZ: key, timestamp and JSON.
type cdxLine struct {
	Key, TS, Line string
	URL           string `json:"url"`
	Mime          string `json:"mime"`
	Status        string `json:"status"`
	Digest        string `json:"digest"`
	Length        string `json:"length"`
	Offset        string `json:"offset"`
	Filename      string `json:"filename"`
}

// waczIndex reads indexes/index.cdx of a WACZ, by file and offset.
func waczIndex(t *testing.T, files map[string][]byte, who string) (map[string]cdxLine, []string) {
	t.Helper()
	data, ok := files["indexes/index.cdx"]
	if !ok {
		t.Fatalf("%s: no indexes/index.cdx", who)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	byPlace := map[string]cdxLine{}
	for _, l := range lines {
		key, rest, _ := strings.Cut(l, " ")
		ts, js, _ := strings.Cut(rest, " ")
		c := cdxLine{Key: key, TS: ts, Line: l}
		if err := json.Unmarshal([]byte(js), &c); err != nil {
			t.Fatalf("%s: index line %q: %v", who, l, err)
		}
		byPlace[c.Filename+"@"+c.Offset] = c
	}
	return byPlace, lines
}

type waczPage struct {
	URL   string `json:"url"`
	TS    string `json:"ts"`
	Title string `json:"title"`
}

func waczPages(t *testing.T, files map[string][]byte, who string) map[string]waczPage {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(files["pages/pages.jsonl"]), "\n"), "\n")
	var head map[string]string
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil || head["format"] != "json-pages-1.0" {
		t.Errorf("%s: pages.jsonl header %q", who, lines[0])
	}
	pages := map[string]waczPage{}
	for _, l := range lines[1:] {
		var p waczPage
		if err := json.Unmarshal([]byte(l), &p); err != nil || p.URL == "" || p.TS == "" {
			t.Errorf("%s: page %q: %v", who, l, err)
		}
		pages[p.URL] = p
	}
	return pages
}

func sha256Of(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// TestWACZ captures WARC files from every kind of server, packs them with
// gofer warc pack and checks the package: its members, every hash of
// datapackage.json against the bytes, datapackage-digest.json, every WARC
// stored as it is, an index line per record at its offset, pages for the
// roots, menus, listings and HTML and gemtext pages. Then js-wacz packs the
// same files and its index must be gofer's, line for line, for every
// record but Gemini responses, which it reads as HTTP and cannot index;
// its pages (text/html responses) must be among gofer's with the same
// titles.
func TestWACZ(t *testing.T) {
	itest.Parallel(t)
	for _, a := range []string{itest.FTPHost + ":21", itest.GopherHost + ":70", itest.HTTPHost + ":80", geminiAddr} {
		itest.Require(t, a)
	}
	work := t.TempDir()
	warcs := filepath.Join(work, "warcs")
	os.Mkdir(warcs, 0o755)
	env, _ := geminiEnv(t)
	gets := map[string][]string{
		"ftp.warc.gz":    {"ftp://" + itest.FTPHost + "/archive/", "ftp://" + itest.FTPHost + "/archive/README.txt", "ftp://" + itest.FTPHost + "/archive/binary/"},
		"gopher.warc.gz": {"gopher://" + itest.GopherHost + "/", "gopher://" + itest.GopherHost + "/1/archive/text", "gopher://" + itest.GopherHost + "/0/archive/README.txt"},
		"http.warc.gz":   {"http://" + itest.HTTPHost + "/", "http://" + itest.HTTPHost + "/archive/", "http://" + itest.HTTPHost + "/archive/README.txt"},
		"gemini.warc.gz": {geminiRoot, geminiRoot + "archive/README.txt"},
	}
	for name, urls := range gets {
		args := append([]string{"get", "-q", "--warc", filepath.Join(warcs, name)}, urls...)
		if r := itest.Run(t, nil, env, args...); r.Code != 0 {
			t.Fatalf("get --warc %s: exit %d (%s)", name, r.Code, r.Reason())
		}
	}
	// Mirrors run twice: the second run's segment holds revisit records.
	for range 2 {
		mirrorWARC(t, "ftp://"+itest.FTPHost+"/archive/text/", filepath.Join(warcs, "mirror"), filepath.Join(work, "tree"), "--warc-only")
		mirrorWARC(t, "http://"+itest.HTTPHost+"/archive/text/", filepath.Join(warcs, "web"), filepath.Join(work, "web"), "--warc-only")
	}
	inputs, _ := filepath.Glob(filepath.Join(warcs, "*.warc.gz"))
	if len(inputs) != 8 {
		t.Fatalf("WARC files %q, want 8", inputs)
	}

	out := filepath.Join(work, "gofer.wacz")
	args := []string{"warc", "pack", "-o", out, "--title", "gofer integration"}
	for name := range gets {
		args = append(args, filepath.Join(warcs, name))
	}
	args = append(args, filepath.Join(warcs, "mirror"), filepath.Join(warcs, "web")) // segment prefixes
	if r := itest.Run(t, nil, nil, args...); r.Code != 0 {
		t.Fatalf("warc pack: exit %d (%s)", r.Code, r.Reason())
	}
	files, methods := waczFiles(t, out)

	// Every WARC, stored as it is.
	for _, in := range inputs {
		name := "archive/" + filepath.Base(in)
		want, _ := os.ReadFile(in)
		if !bytes.Equal(files[name], want) || methods[name] != zip.Store {
			t.Errorf("%s: %d bytes, method %d; the WARC has %d bytes, want STORE", name, len(files[name]), methods[name], len(want))
		}
	}
	// Every hash.
	var dp struct {
		Profile     string `json:"profile"`
		WACZVersion string `json:"wacz_version"`
		Title       string `json:"title"`
		Created     string `json:"created"`
		Software    string `json:"software"`
		Resources   []struct {
			Name, Path, Hash string
			Bytes            int
		} `json:"resources"`
	}
	if err := json.Unmarshal(files["datapackage.json"], &dp); err != nil {
		t.Fatalf("datapackage.json: %v", err)
	}
	if dp.Profile != "data-package" || dp.WACZVersion != "1.1.1" || dp.Title != "gofer integration" ||
		dp.Created == "" || !strings.HasPrefix(dp.Software, "gofer ") {
		t.Errorf("datapackage.json: %s", files["datapackage.json"])
	}
	var listed []string
	for _, r := range dp.Resources {
		listed = append(listed, r.Path)
		b, ok := files[r.Path]
		if !ok || r.Hash != sha256Of(b) || r.Bytes != len(b) {
			t.Errorf("resource %s: hash %s, %d bytes; the member: %v, %s, %d bytes", r.Path, r.Hash, r.Bytes, ok, sha256Of(b), len(b))
		}
	}
	for name := range files {
		if name != "datapackage.json" && name != "datapackage-digest.json" && !slices.Contains(listed, name) {
			t.Errorf("%s is not listed in datapackage.json", name)
		}
	}
	var dig struct{ Path, Hash string }
	if err := json.Unmarshal(files["datapackage-digest.json"], &dig); err != nil || dig.Path != "datapackage.json" ||
		dig.Hash != sha256Of(files["datapackage.json"]) {
		t.Errorf("datapackage-digest.json %s: datapackage.json is %s (%v)", files["datapackage-digest.json"], sha256Of(files["datapackage.json"]), err)
	}

	// The index: sorted, a line per record but requests and warcinfo, at
	// the record's gzip member.
	idx, lines := waczIndex(t, files, "gofer")
	if !slices.IsSorted(lines) {
		t.Error("gofer's index is not sorted")
	}
	want := 0
	for _, in := range inputs {
		for _, r := range readWARC(t, in) {
			if r.Type == "request" || r.Type == "warcinfo" {
				continue
			}
			want++
			c, ok := idx[filepath.Base(in)+"@"+strconv.FormatInt(r.Offset, 10)]
			if !ok || c.URL != r.URI || "sha1:"+c.Digest != r.Digest {
				t.Errorf("%s %s at %d: index line %+v", r.Type, r.URI, r.Offset, c)
			}
			if strings.HasPrefix(r.URI, "gemini:") && r.Type == "response" && c.Status != "20" {
				t.Errorf("gemini response %s: status %q", r.URI, c.Status)
			}
		}
	}
	if len(lines) != want {
		t.Errorf("%d index lines, %d records", len(lines), want)
	}
	revisits := 0
	for _, c := range idx {
		if c.Mime == "warc/revisit" {
			revisits++
		}
	}
	if revisits == 0 {
		t.Error("no revisit record indexed")
	}

	// The pages: every root, menu, listing and page, with its title.
	pages := waczPages(t, files, "gofer")
	for u, title := range map[string]string{
		"ftp://" + itest.FTPHost + "/archive/":             "",
		"ftp://" + itest.FTPHost + "/archive/README.txt":   "",
		"ftp://" + itest.FTPHost + "/archive/text/":        "",
		"gopher://" + itest.GopherHost + "/1":              "",
		"gopher://" + itest.GopherHost + "/1/archive/text": "",
		"http://" + itest.HTTPHost + "/archive/":           "Index of /archive/",
		geminiRoot:                                         "gofer integration capsule",
	} {
		p, ok := pages[u]
		if title == "" {
			title = u
		}
		if !ok || p.Title != title {
			t.Errorf("page %s: %+v (listed %v), want the title %q", u, p, ok, title)
		}
	}

	jswacz := os.Getenv("GOFER_JSWACZ")
	if jswacz == "" {
		t.Skip("GOFER_JSWACZ is not set (integration/test installs js-wacz): no comparison")
	}
	jout := filepath.Join(work, "js.wacz")
	cmd := exec.Command(jswacz, "create", "-f", filepath.Join(warcs, "*.warc.gz"), "-o", jout, "--log-level", "error")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("js-wacz create: %v\n%s", err, b)
	}
	jfiles, _ := waczFiles(t, jout)
	jidx, _ := waczIndex(t, jfiles, "js-wacz")
	geminiSkipped := 0
	for place, c := range idx {
		j, ok := jidx[place]
		if strings.HasPrefix(c.URL, "gemini:") && c.Status != "" {
			// warcio.js reads a Gemini response as HTTP: the status line
			// and the body as a header block, past the record's end.
			geminiSkipped++
			continue
		}
		if !ok {
			t.Errorf("js-wacz has no index line for %s (gofer: %s)", place, c.Line)
			continue
		}
		if j.Line != c.Line {
			t.Errorf("index lines differ:\n gofer   %s\n js-wacz %s", c.Line, j.Line)
		}
	}
	for place, j := range jidx {
		if _, ok := idx[place]; !ok && j.Filename != "gemini.warc.gz" {
			t.Errorf("js-wacz indexes %s, gofer does not: %s", place, j.Line)
		}
	}
	if geminiSkipped == 0 {
		t.Error("no Gemini response indexed")
	}
	t.Logf("index: %d lines compared, %d Gemini responses js-wacz cannot index", len(idx)-geminiSkipped, geminiSkipped)

	jpages := waczPages(t, jfiles, "js-wacz")
	if len(jpages) == 0 {
		t.Error("js-wacz found no pages")
	}
	for u, j := range jpages {
		g, ok := pages[u]
		if !ok || g.TS != j.TS || g.Title != strings.Join(strings.Fields(j.Title), " ") {
			t.Errorf("js-wacz page %+v; gofer's %+v (listed %v)", j, g, ok)
		}
	}
	t.Logf("pages: gofer %d, js-wacz %d (text/html responses only)", len(pages), len(jpages))
}

// TestWACZZipNum packs a mirror of the whole FTP archive, past 3000 index
// lines, so that the index is a ZipNum one: index.cdx.gz in blocks that
// index.idx names with their first key, where they lie and their SHA-256.
// js-wacz (when installed) must index the same lines and cut the blocks at
// the same keys.
func TestWACZZipNum(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	work := t.TempDir()
	warcs := filepath.Join(work, "warcs")
	os.Mkdir(warcs, 0o755)
	mirrorWARC(t, "ftp://"+itest.FTPHost+"/archive/", filepath.Join(warcs, "ftp"), filepath.Join(work, "tree"), "--warc-only")
	out := filepath.Join(work, "gofer.wacz")
	if r := itest.Run(t, nil, nil, "warc", "pack", "-o", out, filepath.Join(warcs, "ftp")); r.Code != 0 {
		t.Fatalf("warc pack: exit %d (%s)", r.Code, r.Reason())
	}
	files, _ := waczFiles(t, out)
	if _, ok := files["indexes/index.cdx"]; ok {
		t.Fatal("indexes/index.cdx beside a ZipNum index")
	}
	lines, keys := zipNum(t, files, "gofer")
	if len(lines) < 3000 || !slices.IsSorted(lines) {
		t.Fatalf("%d index lines, sorted %v; want over 3000, sorted", len(lines), slices.IsSorted(lines))
	}

	jswacz := os.Getenv("GOFER_JSWACZ")
	if jswacz == "" {
		t.Skip("GOFER_JSWACZ is not set (integration/test installs js-wacz): no comparison")
	}
	jout := filepath.Join(work, "js.wacz")
	cmd := exec.Command(jswacz, "create", "-f", filepath.Join(warcs, "*.warc.gz"), "-o", jout, "--log-level", "error")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("js-wacz create: %v\n%s", err, b)
	}
	jfiles, _ := waczFiles(t, jout)
	jlines, jkeys := zipNum(t, jfiles, "js-wacz")
	// js-wacz's blocks overlap by a line: each repeats the next one's first.
	slices.Sort(jlines)
	jlines = slices.Compact(jlines)
	if !slices.Equal(lines, jlines) {
		t.Errorf("index: gofer %d lines, js-wacz %d lines, not the same", len(lines), len(jlines))
	}
	if !slices.Equal(keys, jkeys) {
		t.Errorf("blocks start at\n gofer   %q\n js-wacz %q", keys, jkeys)
	}
}

// zipNum reads the ZipNum index of a WACZ: every line of its blocks, each
// block read where index.idx says and checked against the digest there,
// and the key each block starts with.
func zipNum(t *testing.T, files map[string][]byte, who string) (lines, keys []string) {
	t.Helper()
	gz, ok := files["indexes/index.cdx.gz"]
	idx, ok2 := files["indexes/index.idx"]
	if !ok || !ok2 {
		t.Fatalf("%s: no index.cdx.gz and index.idx", who)
	}
	for i, l := range strings.Split(strings.TrimSuffix(string(idx), "\n"), "\n") {
		if i == 0 {
			if !strings.HasPrefix(l, "!meta 0 ") {
				t.Errorf("%s: index.idx starts %q", who, l)
			}
			continue
		}
		j := strings.Index(l, " {")
		var m struct {
			Offset, Length int
			Digest         string
		}
		if j < 0 || json.Unmarshal([]byte(l[j+1:]), &m) != nil || m.Offset+m.Length > len(gz) {
			t.Fatalf("%s: index.idx line %q", who, l)
		}
		block := gz[m.Offset : m.Offset+m.Length]
		if m.Digest != sha256Of(block) {
			t.Errorf("%s: block at %d: digest %s, the block's %s", who, m.Offset, m.Digest, sha256Of(block))
		}
		zr, err := gzip.NewReader(bytes.NewReader(block))
		if err != nil {
			t.Fatalf("%s: block at %d: %v", who, m.Offset, err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: block at %d: %v", who, m.Offset, err)
		}
		bl := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		key, _, _ := strings.Cut(l, " ")
		if first, _, _ := strings.Cut(bl[0], " "); first != key {
			t.Errorf("%s: block at %d starts with %q, index.idx says %q", who, m.Offset, bl[0], key)
		}
		keys = append(keys, key)
		lines = append(lines, bl...)
	}
	return lines, keys
}
