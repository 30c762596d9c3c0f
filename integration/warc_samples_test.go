package integration_test

// Public WARC samples from other projects' test data, as their registries
// publish them (integration/test's warc_samples_installed puts them in
// $GOFER_WARC_SAMPLES; none is kept in the repository):
//
//   - npm-warc/: the npm package warc 1.0.1 (Eugene Ware's Node.js WARC
//     parser, BSD-3-Clause), test/fixtures: a Common Crawl WARC of August
//     2014 (CC-MAIN-2014-35, written by "Nutch 1.6 (CC)/CC WarcExport
//     1.0": a warcinfo, then request, response and metadata records of
//     four pages, uncompressed), and the WAT (metadata records of JSON)
//     and WET (conversion records of plain text) derived from it.
//   - gowarc/: the Go module github.com/internetarchive/gowarc v0.8.96
//     (the Internet Archive's Go WARC library, CC0), testdata/warcs:
//     test.warc.gz, a WARC/1.0 file its writer wrote (a warcinfo, a
//     request and a gzip-coded response of 2022, one gzip member per
//     record), and the WARC/1.1 files of a crawl in progress its reader
//     is tested on, gzipped many records to a member: good.warc.gz.open
//     (50 responses), single-record.warc.gz.open, skip-non-open.warc.gz,
//     corrupted-mid-record.warc.gz.open (a member cut short after 12
//     records), corrupted-trailing-bytes.warc.gz.open (bytes after the
//     30th record) and empty.warc.gz.open (an empty gzip member).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/replay"
)

// warcSamples is $GOFER_WARC_SAMPLES; the test is skipped, saying why,
// when it is unset.
func warcSamples(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GOFER_WARC_SAMPLES")
	if dir == "" {
		t.Skip("GOFER_WARC_SAMPLES is unset (integration/test's warc_samples_installed sets it)")
	}
	return dir
}

// TestWARCPublicSamples reads every whole sample with every reading
// command (readCorpusFile): list, merge, pack and cat agree with
// warcio.js record by record, check finds no fault (a warning at most:
// a crawl's files in progress begin with no warcinfo, a WAT's records
// refer to the WARC they were made from), and replay serves each
// capture. Each WARC of the samples is copied beside the others first, so
// that the Common Crawl's WAT and WET are read as their crawl keeps them.
func TestWARCPublicSamples(t *testing.T) {
	itest.Parallel(t)
	dir := warcSamples(t)
	if warcioPath() == "" {
		t.Skip("warcio.js is not installed (integration/test installs it): nothing to compare the samples with")
	}
	work := t.TempDir()
	cc := "CC-MAIN-20140820021334-00006-ip-10-180-136-8.ec2.internal.warc"
	files := []corpusFile{
		{name: cc},
		{name: cc + ".wat", derived: true},
		{name: cc + ".wet", derived: true},
		{name: "test.warc.gz"},
		{name: "good.warc.gz.open", wholeGzip: true},
		{name: "single-record.warc.gz.open", wholeGzip: true},
		{name: "skip-non-open.warc.gz", wholeGzip: true},
	}
	for _, f := range files {
		src := filepath.Join(dir, "gowarc", f.name)
		if strings.HasPrefix(f.name, "CC-MAIN") {
			src = filepath.Join(dir, "npm-warc", f.name)
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, f.name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		readCorpusFile(t, work, "", f)
	}
	// The Common Crawl's three files checked together: the WAT's and
	// WET's WARC-Refers-To name records of the WARC, every one found.
	set := []string{filepath.Join(work, cc), filepath.Join(work, cc+".wat"), filepath.Join(work, cc+".wet")}
	res := itest.Run(t, nil, nil, append([]string{"warc", "check"}, set...)...)
	if res.Code != 0 {
		t.Errorf("check of the crawl's WARC, WAT and WET: exit %d: %s", res.Code, res.Stderr)
	}
	alone := itest.Run(t, nil, nil, "warc", "check", set[1])
	if n, m := strings.Count(res.Stderr, "names no record"), strings.Count(alone.Stderr, "names no record"); n >= m || m == 0 {
		t.Errorf("check of the WAT alone finds %d references to no record, beside its WARC %d: want fewer beside it\n%s", m, n, res.Stderr)
	}
}

// TestWARCPublicSamplesDamaged reads the damaged files of gowarc's test
// data, a crawler's files as a crash leaves them: list gives every whole
// record before the damage (the records warcio.js reads), then exits 1
// naming the offset of what is not a record; check says the same once;
// replay serves the whole records; a file of an empty gzip member is an
// error for every reading command, never an empty success.
func TestWARCPublicSamplesDamaged(t *testing.T) {
	itest.Parallel(t)
	dir := filepath.Join(warcSamples(t), "gowarc")
	for _, c := range []struct {
		name   string
		whole  int    // records before the damage
		offset string // where list and check say it is
	}{
		{"corrupted-mid-record.warc.gz.open", 12, "offset 1219"},
		{"corrupted-trailing-bytes.warc.gz.open", 30, "offset 2362"},
	} {
		path := filepath.Join(dir, c.name)
		res := itest.Run(t, nil, nil, "warc", "list", path)
		recs := parseList(t, res.Stdout)
		if res.Code != 1 || len(recs) != c.whole || !strings.Contains(res.Stderr, c.offset) {
			t.Errorf("list %s: exit %d, %d records (want 1, %d): %s", c.name, res.Code, len(recs), c.whole, res.Stderr)
		}
		if warcioPath() != "" {
			compareList(t, c.name, recs, warcioRecords(t, path))
		}
		res = itest.Run(t, nil, nil, "warc", "check", path)
		if res.Code != 1 || strings.Count(res.Stderr, "bytes that are not a WARC record") != 1 || !strings.Contains(res.Stderr, c.offset) {
			t.Errorf("check %s: exit %d: %s", c.name, res.Code, res.Stderr)
		}
		a, err := replay.Open([]string{path}, replay.Options{Warn: func(string) {}})
		if err != nil {
			t.Fatalf("replay %s: %v", c.name, err)
		}
		for _, r := range recs {
			p, err := a.Lookup(r.uri, "response")
			if err != nil {
				t.Errorf("replay %s %s: %v", c.name, r.uri, err)
				continue
			}
			p.Close()
		}
	}
	empty := filepath.Join(dir, "empty.warc.gz.open")
	for _, cmd := range [][]string{{"warc", "list", empty}, {"warc", "check", empty}, {"warc", "merge", empty}, {"warc", "cat", empty, "http://example.com/"}} {
		if res := itest.Run(t, nil, nil, cmd...); res.Code != 1 || !strings.Contains(res.Stderr, "no WARC record") {
			t.Errorf("%s of an empty gzip member: exit %d: %s", cmd[1], res.Code, res.Stderr)
		}
	}
	if _, err := replay.Open([]string{empty}, replay.Options{}); err == nil || !strings.Contains(err.Error(), "no WARC record") {
		t.Errorf("replay of an empty gzip member: %v", err)
	}
}
