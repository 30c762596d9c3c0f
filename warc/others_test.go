package warc

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// otherRecord is one record of a fixture in testdata/others as its header
// and block have it: type, target URI, Content-Length, the payload digest
// (else the block digest; "" when it names neither) and the payload.
type otherRecord struct {
	typ, uri string
	length   int64
	digest   string
	payload  string
}

// otherForms holds every record of each fixture of testdata/others, WARCs
// in the forms other archiving tools write (SOURCES there names each).
var otherForms = map[string][]otherRecord{
	"heritrix3.warc": {
		{"warcinfo", "", 419, "", "software: Heritrix/3.4.0-20220727 http://crawler.archive.org\r\nip: 192.0.2.10\r\nhostname: crawler.example.org\r\nformat: WARC File Format 1.0\r\nconformsTo: http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf\r\noperator: Example Operator\r\nisPartOf: example-job\r\ndescription: a test crawl of example.com\r\nrobots: obey\r\nhttp-header-user-agent: Mozilla/5.0 (compatible; heritrix/3.4.0 +http://example.org/crawler)\r\n"},
		{"response", "dns:example.com", 49, "", "20260102030406\nexample.com.\t3600\tIN\tA\t192.0.2.80\n"},
		{"response", "http://example.com/", 230, "sha1:IM6WROHU4EKY74KJFO43JU7LR3I6JDIA", "<html><head><title>Example Domain</title></head><body><a href=\"/about\">about</a></body></html>\n"},
		{"request", "http://example.com/", 241, "", ""},
		{"metadata", "http://example.com/", 152, "", "via: dns:example.com\r\nhopsFromSeed: P\r\nsourceTag: seeds\r\nfetchTimeMs: 42\r\ncharsetForLinkExtraction: UTF-8\r\noutlink: http://example.com/about L a/@href\r\n"},
		{"response", "http://example.com/about", 170, "sha1:NKHJDDFPHYNLDDP4OU4LFFBQPXX4A5GN", "1a\r\nAbout example.com, sent in\r\n11\r\n two chunks here.\r\n0\r\n\r\n"},
		{"request", "http://example.com/about", 173, "", ""},
		{"metadata", "http://example.com/about", 78, "", "via: http://example.com/\r\nhopsFromSeed: L\r\nsourceTag: seeds\r\nfetchTimeMs: 17\r\n"},
	},
	"warcprox-1.warc": {
		{"warcinfo", "", 181, "", "software: warcprox 2.4.31\r\nhostname: proxy.example.org\r\nip: 192.0.2.20\r\nformat: WARC File Format 1.0\r\nconformsTo: http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf\r\n"},
		{"response", "http://example.org/page", 105, "sha1:CLHGGWPBRV7HP4OKQWWONP4343S7MIVS", "warcprox captured this page\n"},
		{"request", "http://example.org/page", 80, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", ""},
	},
	"warcprox-2.warc": {
		{"warcinfo", "", 181, "", "software: warcprox 2.4.31\r\nhostname: proxy.example.org\r\nip: 192.0.2.20\r\nformat: WARC File Format 1.0\r\nconformsTo: http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf\r\n"},
		{"revisit", "http://example.org/page", 77, "sha1:CLHGGWPBRV7HP4OKQWWONP4343S7MIVS", ""},
		{"request", "http://example.org/page", 80, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ", ""},
	},
	"webrecorder.warc": {
		{"warcinfo", "", 155, "sha256:ef7600bcab4c36c0b8572438d86174a0fc212130f419cf2e61bdf9b3b6bf9dea", "software: Webrecorder ArchiveWeb.page 0.12.8, using warcio.js 2.2.1\r\nformat: WARC File Format 1.0\r\njson-metadata: {\"title\":\"Recorded\",\"type\":\"recording\"}\r\n"},
		{"response", "https://example.net/rec", 146, "sha256:72950bfc6fd590233f440c6066bcb27d09b5a9d05b8821adff011f56c2ccbf03", "<!doctype html><title>Recorded</title><p>recorded in a browser</p>\n"},
		{"request", "https://example.net/rec", 98, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ""},
		{"resource", "urn:pageinfo:https://example.net/rec", 200, "sha256:bb18fa8fa139ff1bdd971542256476d821a3a4d153d397abf3c19d012c6c5054", "{\"pageid\":\"6b5a0f0e-4b0e-4d5e-9a55-0000000000aa\",\"url\":\"https://example.net/rec\",\"ts\":\"2026-01-02T03:04:06.000Z\",\"urls\":{\"https://example.net/rec\":{\"status\":200,\"mime\":\"text/html\",\"type\":\"document\"}}}"},
	},
	"browsertrix.warc": {
		{"warcinfo", "", 182, "sha256:90d3f18baebd17e676a32af353f109d8c5e6341a17bdf4a9c358c755306d2a4e", "software: Browsertrix-Crawler 1.5.0 (with warcio.js 2.4.4)\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"},
		{"response", "https://example.com/crawled", 195, "sha256:d80771ff76b251377c8e5ed896bf3f194d62e1bb19af079f313e0834c73ed171", "<!doctype html><html><head><title>Crawled</title></head><body>crawled by a browser</body></html>\n"},
		{"request", "https://example.com/crawled", 126, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", ""},
		{"resource", "urn:pageinfo:https://example.com/crawled", 250, "sha256:40c6dc6d08418d908e0d35f4e9b775db19716b3e0ab88f50bf349cc1c9124ada", "{\"pageid\":\"61046c48-286b-485a-a8ed-0000000000bb\",\"url\":\"https://example.com/crawled\",\"ts\":\"2026-01-02T03:04:06.412Z\",\"title\":\"Crawled\",\"urls\":{\"https://example.com/crawled\":{\"status\":200,\"mime\":\"text/html\",\"type\":\"document\"}},\"counts\":{\"jsErrors\":0}}"},
		{"resource", "urn:view:https://example.com/crawled", 75, "sha256:dbceeec22914e7cbc0f47c34af027ac360d33f5f2be5e0bcf3fa98f5689dd9db", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x02\x00\x00\x00\x02\b\x00\x00\x00\x00W\xddR\xf8\x00\x00\x00\x12IDATx\x9cb\xfa\xcf\xc0\xc0\xc0\x00\b\x00\x00\xff\xff\x05\r\x01\x02\x9f\xbf65\x00\x00\x00\x00IEND\xaeB`\x82"},
	},
	"commoncrawl.warc": {
		{"warcinfo", "", 451, "", "isPartOf: CC-MAIN-2026-05\r\npublisher: Common Crawl\r\ndescription: Wide crawl of the web for January 2026\r\noperator: Common Crawl Admin (info@commoncrawl.org)\r\nhostname: ip-10-0-0-1.ec2.internal\r\nsoftware: Apache Nutch 1.21 (modified)\r\nrobots: checked via crawler-commons 1.5 (https://github.com/crawler-commons/crawler-commons)\r\nformat: WARC File Format 1.1\r\nconformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"},
		{"request", "https://example.edu/", 214, "sha1:FSILGOKDBUDKCE742WM3GCI7I54BTFCJ", ""},
		{"response", "https://example.edu/", 236, "sha1:6JWHUZMLVWSX6NIJVQSGFSFWK3Y35WQG", "<html><head><title>Common</title></head><body><p>A page the crawl fetched.</p></body></html>\n"},
		{"metadata", "https://example.edu/", 194, "sha1:AX3V3GNAQPLWXMSP6V6YVQBFWX744GHK", "fetchTimeMs: 87\r\ncharset-detected: UTF-8\r\nlanguages-cld2: {\"reliable\":true,\"text-bytes\":27,\"languages\":[{\"code\":\"en\",\"code-iso-639-3\":\"eng\",\"text-covered\":1.0,\"score\":900.0,\"name\":\"ENGLISH\"}]}\r\n"},
		{"request", "https://example.edu/big.pdf", 221, "sha1:M433BV6G4QS2UTTATSZCRFZJHEM5VFSE", ""},
		{"response", "https://example.edu/big.pdf", 122, "sha1:2S46OP7M3PHLZEYOEQ2TV6GB5MGM5TSY", "%PDF-1.7\n% a document cut at the crawl's limit\n"},
	},
	"commoncrawl.warc.wat": {
		{"warcinfo", "", 301, "", "Software-Info: ia-web-commons.1.1.10-SNAPSHOT-20260110\r\nExtractedDate: Sat, 10 Jan 2026 00:00:00 GMT\r\nrobots: checked via crawler-commons 1.5\r\nisPartOf: CC-MAIN-2026-05\r\noperator: Common Crawl Admin (info@commoncrawl.org)\r\ndescription: Wide crawl of the web for January 2026\r\npublisher: Common Crawl\r\n"},
		{"metadata", "https://example.edu/", 562, "", "{\"Container\":{\"Filename\":\"commoncrawl.warc\",\"Compressed\":false,\"Offset\":\"1014\",\"Gzip-Metadata\":{}},\"Envelope\":{\"Format\":\"WARC\",\"WARC-Header-Length\":\"520\",\"Block-Digest\":\"sha1:TSNXKMVYOIUPK5TJSI5K2S52UMKXIPBN\",\"Actual-Content-Length\":\"236\",\"WARC-Header-Metadata\":{\"WARC-Type\":\"response\",\"WARC-Target-URI\":\"https://example.edu/\"},\"Payload-Metadata\":{\"Actual-Content-Type\":\"application/http; msgtype=response\",\"HTTP-Response-Metadata\":{\"Response-Message\":{\"Status\":\"200\",\"Version\":\"HTTP/1.1\",\"Reason\":\"OK\"},\"HTML-Metadata\":{\"Head\":{\"Title\":\"Common\"},\"Links\":[]}}}}}"},
	},
	"commoncrawl.warc.wet": {
		{"warcinfo", "", 301, "", "Software-Info: ia-web-commons.1.1.10-SNAPSHOT-20260110\r\nExtractedDate: Sat, 10 Jan 2026 00:00:00 GMT\r\nrobots: checked via crawler-commons 1.5\r\nisPartOf: CC-MAIN-2026-05\r\noperator: Common Crawl Admin (info@commoncrawl.org)\r\ndescription: Wide crawl of the web for January 2026\r\npublisher: Common Crawl\r\n"},
		{"conversion", "https://example.edu/", 33, "sha1:CU7NE7KLX4LQLCXFONKVSMWSTSQHESQ3", "Common\nA page the crawl fetched.\n"},
	},
}

// otherAlone is what check reports of each fixture checked alone; a
// fixture not named here is reported nothing. Checked with the files
// they name, as a set, nothing is reported of any.
var otherAlone = map[string][]string{
	"warcprox-2.warc":      {"record 2 (http://example.org/page): warning: WARC-Refers-To <urn:uuid:7e1a9a30-0000-4000-8000-000000000002> names no record of the archive"},
	"commoncrawl.warc.wat": {"record 2 (https://example.edu/): warning: WARC-Refers-To <urn:uuid:c0c0c0c0-0000-4000-8000-000000000003> names no record of the archive"},
	"commoncrawl.warc.wet": {"record 2 (https://example.edu/): warning: WARC-Refers-To <urn:uuid:c0c0c0c0-0000-4000-8000-000000000003> names no record of the archive"},
}

// otherSets are the fixtures that name each other's records.
var otherSets = [][]string{
	{"warcprox-1.warc", "warcprox-2.warc"},
	{"commoncrawl.warc", "commoncrawl.warc.wat", "commoncrawl.warc.wet"},
}

// otherPages are the pages a WACZ of each fixture lists, URL and title.
var otherPages = map[string][][2]string{
	"heritrix3.warc":   {{"http://example.com/", "Example Domain"}},
	"webrecorder.warc": {{"https://example.net/rec", "Recorded"}},
	"browsertrix.warc": {{"https://example.com/crawled", "Crawled"}},
	"commoncrawl.warc": {{"https://example.edu/", "Common"}},
}

// otherMimes are the media types a WACZ index gives the records that
// are not of HTTP: their records' Content-Type.
var otherMimes = map[string]string{
	"dns:example.com":                          "text/dns",
	"urn:pageinfo:https://example.net/rec":     "application/json",
	"urn:pageinfo:https://example.com/crawled": "application/json",
	"urn:view:https://example.com/crawled":     "image/png",
}

// otherCompressions are the forms each fixture is read in: as written,
// gzipped per record and whole, and zstd-compressed per record.
var otherCompressions = []string{"plain", "gzip per record", "gzip whole", "zstd per record"}

// otherFiles writes the fixtures named into a new directory in the
// compression named, and returns their paths in order.
func otherFiles(t *testing.T, compression string, names ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, name := range names {
		out, suffix := otherCompress(t, compression, filepath.Join("testdata", "others", name))
		path := filepath.Join(dir, name+suffix)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// otherCompress returns the uncompressed WARC file at src in the
// compression named, and the suffix its name takes.
func otherCompress(t *testing.T, compression, src string) (string, string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var recs []string
	var offsets []int64
	if err := Entries(src, WalkOptions{}, func(e Entry) error { offsets = append(offsets, e.Offset); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, o := range offsets {
		end := int64(len(data))
		if i+1 < len(offsets) {
			end = offsets[i+1]
		}
		recs = append(recs, string(data[o:end]))
	}
	if strings.Join(recs, "") != string(data) {
		t.Fatalf("%s: not split into its %d records", src, len(recs))
	}
	switch compression {
	case "gzip per record":
		var b strings.Builder
		for _, r := range recs {
			b.WriteString(gz(r))
		}
		return b.String(), ".gz"
	case "gzip whole":
		return gz(string(data)), ".gz"
	case "zstd per record":
		return zstdFile(t, nil, false, recs...), ".zst"
	}
	return string(data), ""
}

// otherNames are the fixtures, sorted.
func otherNames() []string {
	var names []string
	for n := range otherForms {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// TestOthersList lists and walks every fixture in every compression:
// each record's type, target URI, length and digest as its header says,
// and its payload, nothing reported.
func TestOthersList(t *testing.T) {
	for _, c := range otherCompressions {
		for _, name := range otherNames() {
			want := otherForms[name]
			path := otherFiles(t, c, name)[0]
			var got []otherRecord
			err := Entries(path, WalkOptions{Problem: func(err error) { t.Errorf("%s %s: %v", c, name, err) }}, func(e Entry) error {
				got = append(got, otherRecord{typ: e.Type, uri: e.URI, length: e.Length, digest: e.Digest})
				return nil
			})
			if err != nil {
				t.Fatalf("%s %s: %v", c, name, err)
			}
			entries, payloads, problems, err := walkAll(t, path)
			if err != nil || len(problems) > 0 {
				t.Fatalf("%s %s: walk: %v %q", c, name, err, problems)
			}
			if len(got) != len(want) || len(entries) != len(want) {
				t.Fatalf("%s %s: %d records listed, %d walked, want %d", c, name, len(got), len(entries), len(want))
			}
			for i, w := range want {
				g := got[i]
				g.payload = payloads[i]
				if g != w {
					t.Errorf("%s %s record %d:\n got %+v\nwant %+v", c, name, i+1, g, w)
				}
				if e := entries[i]; e.Type != w.typ || e.URI != w.uri || e.Digest != w.digest {
					t.Errorf("%s %s record %d walked as %+v", c, name, i+1, e)
				}
			}
		}
	}
}

// problemLines checks the files as one set and returns each problem as
// "FILE: record N (URI): [warning: ]TEXT".
func problemLines(t *testing.T, paths ...string) []string {
	t.Helper()
	var out []string
	err := CheckWith(paths, ReadOptions{}, func(p Problem) {
		w := ""
		if p.Warning {
			w = "warning: "
		}
		out = append(out, fmt.Sprintf("%s: record %d (%s): %s%s", otherBase(p.File), p.Record, p.URI, w, p.Text))
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// otherBase is a fixture's name from the path of any of its forms.
func otherBase(path string) string {
	return strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".zst")
}

// TestOthersCheck checks every fixture in every compression alone, and
// the fixtures that name each other's records as a set: exactly what
// otherAlone says, a warning for what other tools commonly do (and so a
// failure with --strict only), nothing for the sets.
func TestOthersCheck(t *testing.T) {
	for _, c := range otherCompressions {
		for _, name := range otherNames() {
			var want []string
			for _, w := range otherAlone[name] {
				want = append(want, name+": "+w)
			}
			if got := problemLines(t, otherFiles(t, c, name)...); !slices.Equal(got, want) {
				t.Errorf("%s %s alone:\n got %q\nwant %q", c, name, got, want)
			}
		}
		for _, set := range otherSets {
			if got := problemLines(t, otherFiles(t, c, set...)...); len(got) > 0 {
				t.Errorf("%s %v: %q", c, set, got)
			}
		}
	}
	// The standard's payload digest of a chunked response is of the body
	// with its transfer coding undone; Heritrix digests the chunks as sent
	// (the fixture's form). Either is taken, and a digest of neither is
	// reported.
	raw := readString(t, filepath.Join("testdata", "others", "heritrix3.warc"))
	decoded := sha1.Sum([]byte("About example.com, sent in two chunks here."))
	for d, want := range map[string]string{
		"sha1:" + base32.StdEncoding.EncodeToString(decoded[:]): "",
		"sha1:" + hex.EncodeToString(decoded[:]):                "",
		"sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567":                 "heritrix3.warc: record 6 (http://example.com/about): WARC-Payload-Digest sha1:ABCDEFGHIJKLMNOPQRSTUVWXYZ234567 does not match the payload",
	} {
		data := strings.Replace(raw, "WARC-Payload-Digest: sha1:NKHJDDFPHYNLDDP4OU4LFFBQPXX4A5GN", "WARC-Payload-Digest: "+d, 1)
		if data == raw {
			t.Fatal("no chunked response in heritrix3.warc")
		}
		plain := writeFile(t, "heritrix3.warc", data)
		for _, c := range otherCompressions {
			out, suffix := otherCompress(t, c, plain)
			path := writeFile(t, "heritrix3.warc"+suffix, out)
			if got := strings.Join(problemLines(t, path), "\n"); got != want {
				t.Errorf("%s: chunked response digested %s: %q, want %q", c, d, got, want)
			}
		}
	}

	// Not a false pass: a payload changed by one byte is found.
	data, err := os.ReadFile(filepath.Join("testdata", "others", "heritrix3.warc"))
	if err != nil {
		t.Fatal(err)
	}
	bad := writeFile(t, "heritrix3.warc", strings.Replace(string(data), "Example Domain", "Example Demain", 1))
	if got := strings.Join(problemLines(t, bad), "\n"); !strings.Contains(got, "record 3 (http://example.com/): WARC-Payload-Digest") {
		t.Errorf("a changed payload: %q", got)
	}
}

// TestOthersIndex indexes every fixture in every compression as merge
// does: one line per record but the warcinfo, with the header's target
// URI, type and digest.
func TestOthersIndex(t *testing.T) {
	for _, c := range otherCompressions {
		for _, name := range otherNames() {
			var b bytes.Buffer
			if err := MergeSegments(&b, otherFiles(t, c, name)...); err != nil {
				t.Fatalf("%s %s: %v", c, name, err)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
				f := strings.SplitN(l, " ", 3)
				var e IndexEntry
				if len(f) != 3 || json.Unmarshal([]byte(f[2]), &e) != nil {
					t.Fatalf("%s %s: index line %q", c, name, l)
				}
				if f[0] != SURT(e.URL) {
					t.Errorf("%s %s: %q keyed %q", c, name, e.URL, f[0])
				}
				got = append(got, e.Type+" "+e.URL+" "+e.Digest)
			}
			var want []string
			for _, r := range otherForms[name] {
				if r.typ != "warcinfo" {
					want = append(want, r.typ+" "+r.uri+" "+r.digest)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: index\n got %q\nwant %q", c, name, got, want)
			}
		}
	}
}

// TestOthersMergeAll merges the indexes of every fixture at once: each
// record but the warcinfo records once, in key order, where records of
// one URI, type and digest count as copies of one (MergeIndexes): of
// warcprox's two requests of a page, both without a body, the first.
func TestOthersMergeAll(t *testing.T) {
	want := 0
	copies := map[string]bool{}
	for _, recs := range otherForms {
		for _, r := range recs {
			key := r.typ + " " + r.uri + " " + r.digest
			if r.typ != "warcinfo" && (r.digest == "" || !copies[key]) {
				copies[key] = true
				want++
			}
		}
	}
	if want != 24 {
		t.Fatalf("%d records to index, want 24", want)
	}
	for _, c := range otherCompressions {
		var b bytes.Buffer
		if err := MergeSegments(&b, otherFiles(t, c, otherNames()...)...); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		if len(lines) != want || !slices.IsSorted(lines) {
			t.Errorf("%s: %d lines, want %d in order:\n%s", c, len(lines), want, b.String())
		}
	}
}

// TestOthersCat prints the payload of each capture of every fixture, in
// every compression, as cat does; a revisit in one file resolved to the
// response in the other.
func TestOthersCat(t *testing.T) {
	for _, c := range otherCompressions {
		for _, name := range otherNames() {
			path := otherFiles(t, c, name)
			done := map[string]bool{}
			for _, r := range otherForms[name] {
				if (r.typ != "response" && r.typ != "resource") || done[r.uri] {
					continue
				}
				done[r.uri] = true
				var b bytes.Buffer
				if err := CatArchives(path, r.uri, time.Time{}, &b); err != nil || b.String() != r.payload {
					t.Errorf("%s %s: cat %s: %q, %v; want %q", c, name, r.uri, b.String(), err, r.payload)
				}
			}
		}
		// The WET's conversion is no capture.
		var b bytes.Buffer
		if err := CatArchives(otherFiles(t, c, "commoncrawl.warc.wet"), "https://example.edu/", time.Time{}, &b); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: cat of a conversion record: %q, %v", c, b.String(), err)
		}
		b.Reset()
		set := otherFiles(t, c, "warcprox-1.warc", "warcprox-2.warc")
		at := time.Date(2026, 1, 9, 3, 4, 6, 0, time.UTC)
		if err := CatArchives(set, "http://example.org/page", at, &b); err != nil || b.String() != "warcprox captured this page\n" {
			t.Errorf("%s: cat of warcprox's revisit: %q, %v", c, b.String(), err)
		}
		// Without a time, the first capture in archive order: the
		// revisit, when its file is named first.
		b.Reset()
		if err := CatArchives([]string{set[1], set[0]}, "http://example.org/page", time.Time{}, &b); err != nil || b.String() != "warcprox captured this page\n" {
			t.Errorf("%s: cat of warcprox's revisit, named first: %q, %v", c, b.String(), err)
		}
		// The revisit alone, the record it refers to in no file named.
		b.Reset()
		if err := CatArchives(set[1:], "http://example.org/page", time.Time{}, &b); err == nil {
			t.Errorf("%s: cat of a revisit without what it refers to: %q", c, b.String())
		}
	}
}

// TestOthersPack packs every fixture, in every compression, into a WACZ:
// each capture indexed with its digest (and an HTTP response with its
// status and type), and the HTML pages listed with their titles.
func TestOthersPack(t *testing.T) {
	for _, c := range otherCompressions {
		for _, name := range otherNames() {
			var buf bytes.Buffer
			if err := Pack(&buf, otherFiles(t, c, name), PackOptions{}); err != nil {
				t.Fatalf("%s %s: %v", c, name, err)
			}
			wz, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil {
				t.Fatal(err)
			}
			type line struct{ URL, Mime, Status, Digest string }
			var idx []line
			for _, l := range strings.Split(strings.TrimSpace(string(zipMember(t, wz, "indexes/index.cdx"))), "\n") {
				var e line
				f := strings.SplitN(l, " ", 3)
				if len(f) != 3 || json.Unmarshal([]byte(f[2]), &e) != nil {
					t.Fatalf("%s %s: index line %q", c, name, l)
				}
				idx = append(idx, e)
			}
			for _, r := range otherForms[name] {
				if r.typ != "response" && r.typ != "resource" && r.typ != "revisit" {
					continue
				}
				digest := r.digest
				if i := strings.IndexByte(digest, ':'); i >= 0 {
					digest = digest[i+1:]
				}
				found := false
				for _, e := range idx {
					if e.URL == r.uri && e.Digest == digest {
						found = true
						if strings.HasPrefix(r.uri, "http") && (e.Status != "200" || e.Mime == "") ||
							!strings.HasPrefix(r.uri, "http") && (e.Status != "" || e.Mime != otherMimes[r.uri]) {
							t.Errorf("%s %s: %s indexed as %+v", c, name, r.uri, e)
						}
					}
				}
				if !found {
					t.Errorf("%s %s: %s %s not in the index %+v", c, name, r.uri, digest, idx)
				}
			}
			var pages [][2]string
			for _, l := range strings.Split(strings.TrimSpace(string(zipMember(t, wz, "pages/pages.jsonl"))), "\n")[1:] {
				var p struct{ URL, Title string }
				if err := json.Unmarshal([]byte(l), &p); err != nil {
					t.Fatalf("%s %s: page %q", c, name, l)
				}
				pages = append(pages, [2]string{p.URL, p.Title})
			}
			if !slices.Equal(pages, otherPages[name]) {
				t.Errorf("%s %s: pages %q, want %q", c, name, pages, otherPages[name])
			}
		}
	}
}

// TestOthersPackAll packs every fixture into one WACZ and reads it back
// as a reading command does: each file stored, every page listed, check
// finding nothing, and cat serving each capture from the WACZ.
func TestOthersPackAll(t *testing.T) {
	for _, c := range otherCompressions {
		files := otherFiles(t, c, otherNames()...)
		path := filepath.Join(t.TempDir(), "all.wacz")
		if err := PackFile(path, files, PackOptions{}); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		stored := 0
		for _, f := range zr.File {
			if strings.HasPrefix(f.Name, "archive/") {
				stored++
			}
		}
		pages := strings.Count(string(zipMember(t, &zr.Reader, "pages/pages.jsonl")), "\n") - 1
		zr.Close()
		if stored != len(files) || pages != 4 {
			t.Errorf("%s: %d files stored, %d pages; want %d and 4", c, stored, pages, len(files))
		}
		if p := problemLines(t, path); len(p) > 0 {
			t.Errorf("%s: check of the WACZ: %q", c, p)
		}
		for _, name := range otherNames() {
			for _, r := range otherForms[name] {
				if r.typ != "response" && r.typ != "resource" {
					continue
				}
				var b bytes.Buffer
				if err := CatArchives([]string{path}, r.uri, time.Time{}, &b); err != nil || b.String() != r.payload {
					t.Errorf("%s: cat %s from the WACZ: %q, %v", c, r.uri, b.String(), err)
				}
			}
		}
	}
}
