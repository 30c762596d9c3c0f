package integration_test

// WARCs as other tools write them, and gofer's own captures read back
// through replay: wget's WARCs (compressed per record, uncompressed, with
// deduplication), one gzipped whole, WARCs warcio.js and gowarc write
// (programs under warcwriters/) and a WACZ js-wacz packs, every reading
// command against each, what each says of every record (count, type,
// URI, digests, payload bytes) compared with warcio.js's reading
// ($GOFER_WARCIO); and an FTP capture made through a link with latency,
// where the mirror pipelines, whose replay answers MDTM for every file.

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
	"github.com/goferurl/gofer/replay"
	"github.com/goferurl/gofer/warc"
)

// TestWARCFTPTimesPipelined mirrors a tree of the sample archive with --warc
// through a relay with 20 ms of latency that delivers pipelined commands
// line by line (the mirror pipelines, and sends MDTM behind transfers),
// from vsftpd (LIST: the mirror asks MDTM) and ProFTPD (MLSD: the mirror
// takes the time from the listing and asks no MDTM), replays each
// capture, and asks the replay MDTM of every file: each answer is the
// time the mirror gave the file.
func TestWARCFTPTimesPipelined(t *testing.T) {
	itest.Parallel(t)
	for _, host := range []string{itest.FTPHost, itest.ProFTPDHost} {
		t.Run(host, func(t *testing.T) { ftpTimesPipelined(t, host+":21") })
	}
}

func ftpTimesPipelined(t *testing.T, server string) {
	itest.Require(t, server)
	r, err := relay.Listen("127.0.0.1:0", server, true, relay.Config{RTT: 20 * time.Millisecond, SplitLines: true, LineGap: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	port := r.Addr()[strings.LastIndexByte(r.Addr(), ':')+1:]
	work := t.TempDir()
	prefix, dir := filepath.Join(work, "ftp"), filepath.Join(work, "tree")
	res := itest.Run(t, nil, nil, "mirror", "-q", "-j", "6", "--allow-port", port,
		"--warc", prefix, "ftp://"+r.Addr()+"/archive/tree/d01/", dir)
	r.Close()
	if res.Code != 0 {
		t.Fatalf("mirror: exit %d: %s", res.Code, res.Stderr)
	}
	a, err := replay.Open([]string{prefix}, replay.Options{Warn: func(s string) { t.Error(s) }})
	if err != nil {
		t.Fatal(err)
	}
	s, err := replay.NewFTPServer(a, r.Addr(), func(s string) { t.Error(s) })
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(itest.Context(t))
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-done
	}()
	c, err := textproto.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ask := func(cmd string) (int, string) {
		if err := c.PrintfLine("%s", cmd); err != nil {
			t.Fatal(err)
		}
		code, msg, err := c.ReadResponse(0)
		if err != nil && code == 0 {
			t.Fatalf("%s: %v", cmd, err)
		}
		return code, msg
	}
	if code, _, err := c.ReadResponse(220); err != nil {
		t.Fatalf("greeting %d: %v", code, err)
	}
	ask("USER anonymous")
	ask("PASS gofer@example.org")
	files, missing := 0, 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".gofer" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files++
		code, msg := ask("MDTM /archive/tree/d01/" + filepath.ToSlash(rel))
		want := fi.ModTime().UTC().Format("20060102150405")
		if code != 213 || msg != want {
			missing++
			if missing <= 10 {
				t.Errorf("MDTM %s: %d %s, want 213 %s", rel, code, msg, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 300 || missing > 0 {
		t.Errorf("%d of %d files without their time in the replay", missing, files)
	}
}

// warcioPath is warcio.js's command: $GOFER_WARCIO, else where
// integration/test installs it, "" when it is in neither.
func warcioPath() string {
	if w := os.Getenv("GOFER_WARCIO"); w != "" {
		return w
	}
	w := filepath.Join(itest.StateDir(), "npm", "node_modules", ".bin", "warcio")
	if _, err := os.Stat(w); err != nil {
		return ""
	}
	return w
}

// listed is one line of gofer warc list.
type listed struct{ typ, date, length, uri, digest string }

// listedDigest matches a digest in list's output (algorithm:value in
// base32, base16 or base64), and no target URI: one of those has a dot,
// a second colon or no colon at all.
var listedDigest = regexp.MustCompile(`^[A-Za-z0-9-]+:[A-Za-z0-9+/=]+$`)

func parseList(t *testing.T, out string) []listed {
	t.Helper()
	var recs []listed
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 {
			t.Fatalf("list line %q", l)
		}
		r := listed{typ: f[0], date: f[1], length: f[2]}
		switch rest := f[3:]; {
		case len(rest) == 2:
			r.digest, r.uri = rest[0], rest[1]
		case len(rest) == 1 && listedDigest.MatchString(rest[0]):
			r.digest = rest[0]
		case len(rest) == 1: // a target URI that may be no URL (a WAT's file name)
			r.uri = rest[0]
		case len(rest) > 2:
			t.Fatalf("list line %q", l)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestWARCOthersCorpus reads WARCs wget writes (gzipped per record,
// uncompressed, deduplicated against the first: revisits of records in
// another file), the uncompressed one gzipped whole, and gofer's own,
// with every reading command (readCorpusFile): list, merge, pack and cat
// agree with warcio.js record by record, check finds nothing wrong (but
// wget's revisits' block digests, which are of an empty block), cat and
// replay give every file's payload (a revisit resolved to the record it
// refers to). A file that holds no WARC record is an error for list and
// merge.
func TestWARCOthersCorpus(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	wget, err := exec.LookPath("wget")
	if err != nil {
		t.Fatal("wget is not installed (integration/lib/http.sh installs it)")
	}
	work := t.TempDir()
	url := "http://" + itest.HTTPHost + "/archive/text/"
	names := []string{"crlf.txt", "dots.txt", "plain.txt", "no-final-newline.txt"}
	runWget := func(name string, args ...string) {
		args = append([]string{"-q", "-r", "-l", "1", "--no-parent", "-e", "robots=off", "--warc-file=" + filepath.Join(work, name),
			"-P", filepath.Join(work, "tree-"+name)}, args...)
		if out, err := exec.CommandContext(itest.Context(t), wget, append(args, url)...).CombinedOutput(); err != nil {
			t.Fatalf("wget %s: %v: %s", name, err, out)
		}
	}
	runWget("wget-gz", "--warc-cdx")
	runWget("wget-plain", "--no-warc-compression")
	runWget("wget-dedup", "--warc-dedup="+filepath.Join(work, "wget-gz.cdx"))
	plain, err := os.ReadFile(filepath.Join(work, "wget-plain.warc"))
	if err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	zw := gzip.NewWriter(&whole)
	zw.Write(plain)
	zw.Close()
	if err := os.WriteFile(filepath.Join(work, "whole.warc.gz"), whole.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := itest.Run(t, nil, nil, "get", "-q", "-o", "/dev/null", "--warc", filepath.Join(work, "gofer.warc.gz"), url+names[0]); res.Code != 0 {
		t.Fatalf("gofer get --warc: exit %d: %s", res.Code, res.Stderr)
	}

	files := []corpusFile{{name: "wget-gz.warc.gz", names: names}, {name: "wget-plain.warc", names: names}, {name: "whole.warc.gz", names: names, wholeGzip: true},
		{name: "wget-dedup.warc.gz", with: []string{"wget-gz.warc.gz"}, dedup: true, names: names}, {name: "gofer.warc.gz", names: names[:1]}}
	if warcioPath() == "" {
		t.Log("warcio.js is not installed: nothing is compared with it")
	}
	for _, f := range files {
		readCorpusFile(t, work, url, f)
	}
	// No record at all: an error, not an empty success.
	readme := filepath.Join(itest.StateDir(), "archive", "README.txt")
	for _, cmd := range [][]string{{"warc", "list", readme}, {"warc", "merge", readme}} {
		if res := itest.Run(t, nil, nil, cmd...); res.Code != 1 || !strings.Contains(res.Stderr, "no WARC record") {
			t.Errorf("%s of a text file: exit %d: %s", cmd[1], res.Code, res.Stderr)
		}
	}
}

// hostileRecord is a small WARC record of uri.
func hostileRecord(uri, body string) string {
	return "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:" + uri + ">\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n" +
		"WARC-Target-URI: " + uri + "\r\nContent-Type: text/plain\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body + "\r\n\r\n"
}

func gzipString(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// TestWARCHostileFiles runs list and check on hostile WARCs written
// here: a header line that never ends (512 MiB from a gzip member of
// half a megabyte), a gzip member cut short, a Content-Length past the
// end of the file, garbage between records. Each is a one-line error and
// exit 1, the records around it are still listed, and gofer's peak RSS
// stays under 64 MiB.
func TestWARCHostileFiles(t *testing.T) {
	itest.Parallel(t)
	work := t.TempDir()
	before, after := hostileRecord("http://example.org/before", "before"), hostileRecord("http://example.org/after", "after")
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zw.Write([]byte("WARC/1.1\r\nWARC-Type: resource\r\nX-Endless: "))
	line := bytes.Repeat([]byte("a"), 1<<20)
	for range 512 {
		zw.Write(line)
	}
	zw.Close()
	cut := gzipString(hostileRecord("http://example.org/cut", strings.Repeat("cut ", 1000)))
	long := strings.Replace(hostileRecord("http://example.org/long", "long"), "Content-Length: 4", "Content-Length: 4000000", 1)
	cases := []struct {
		name, data, want string
		after            bool // the record after the hostile stretch is listed
	}{
		{"endless-header.warc.gz", gzipString(before) + bomb.String() + gzipString(after), "record header longer than 1048576 bytes", true},
		{"member-cut.warc.gz", gzipString(before) + cut[:len(cut)/2] + gzipString(after), "not a whole record", true},
		{"length-past-end.warc", before + long, "Content-Length 4000000, but the block ends after", false},
		{"garbage.warc", before + "<html>not a record</html>\r\n" + after, "not a WARC record", true},
	}
	for _, c := range cases {
		path := filepath.Join(work, c.name)
		if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"list", "check"} {
			run, peak := itest.MeasuredCommand(t, nil, "warc", cmd, path)
			var stdout, stderr bytes.Buffer
			run.Stdout, run.Stderr = &stdout, &stderr
			err := run.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			rss, ok := peak()
			t.Logf("%s %s: exit %d, peak RSS %d MiB", cmd, c.name, code, rss>>20)
			if code != 1 || strings.Count(stderr.String(), c.want) != 1 {
				t.Errorf("%s %s: exit %d, stderr %q, want one %q", cmd, c.name, code, stderr.String(), c.want)
			}
			if !ok || rss > 64<<20 {
				t.Errorf("%s %s: peak RSS %d MiB (measured: %v)", cmd, c.name, rss>>20, ok)
			}
			if cmd == "list" && (!strings.Contains(stdout.String(), "http://example.org/before") ||
				c.after && !strings.Contains(stdout.String(), "http://example.org/after")) {
				t.Errorf("list %s: %q", c.name, stdout.String())
			}
		}
	}
}

// corpusFile is a WARC file of the corpus and what reading it must give.
type corpusFile struct {
	name  string   // in the work directory
	with  []string // read beside it: what its revisits refer to
	dedup bool     // wget's revisits, whose block digests are of an empty block
	// names are the files of the sample archive's text/ the file's first
	// capture of each holds (cat and replay give their bytes).
	names []string
	// plain, for a file warcio.js cannot read (zstd), is the same file
	// decompressed, which warcio.js reads in its place.
	plain string
	// wacz is a WACZ file (plain its one WARC file): pack refuses it.
	wacz bool
	// wholeGzip is a file gzipped whole: warcio.js indexes each of its
	// records at offset and length those of the whole file, so they are
	// not compared.
	wholeGzip bool
	// derived is a Common Crawl WAT or WET: metadata or conversion
	// records made from a crawl's WARC, no capture for cat to give.
	derived bool
}

// warcioRecord is one line of integration/warcwriters/warcio-payloads.mjs:
// a record as warcio.js reads it.
type warcioRecord struct {
	Type          string `json:"type"`
	URI           string `json:"uri"`
	Date          string `json:"date"`
	ID            string `json:"id"`
	PayloadDigest string `json:"payloadDigest"`
	BlockDigest   string `json:"blockDigest"`
	RefersTo      string `json:"refersTo"`
	RefersToURI   string `json:"refersToURI"`
	RefersToDate  string `json:"refersToDate"`
	ContentLength string `json:"contentLength"`
	Length        int    `json:"length"`
	SHA256        string `json:"sha256"`
	Status        string `json:"status"`
	ContentType   string `json:"contentType"`
	// WARCContentType is the record's own Content-Type.
	WARCContentType string `json:"warcContentType"`
	file            string // the corpus file it is in
}

// nodeModules is the directory warcio.js and js-wacz are installed in,
// "" when warcio.js is not installed.
func nodeModules() string {
	w := warcioPath()
	if w == "" {
		return ""
	}
	return filepath.Dir(filepath.Dir(w))
}

// warcioRecords reads path with warcio.js, through
// warcwriters/warcio-payloads.mjs.
func warcioRecords(t *testing.T, path string) []warcioRecord {
	t.Helper()
	out, err := exec.CommandContext(itest.Context(t), "node", filepath.Join("warcwriters", "warcio-payloads.mjs"), nodeModules(), path).Output()
	if err != nil {
		t.Fatalf("warcio-payloads.mjs %s: %v: %s", path, err, stderrOf(err))
	}
	var recs []warcioRecord
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r warcioRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("warcio-payloads.mjs %s: %q: %v", path, l, err)
		}
		r.file = path
		recs = append(recs, r)
	}
	return recs
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// isCapture reports whether warc cat and replay take a record of typ as
// a capture of its URI.
func isCapture(typ string) bool { return typ == "response" || typ == "resource" || typ == "revisit" }

// readCorpusFile reads a corpus file with every reading command and
// compares what each says with warcio.js's reading of it: list (type,
// target URI, payload digest of every record), merge's CDXJ (every record
// but the warcinfo, by record ID: type, URI without angle brackets, the
// payload digest else the block digest), pack's index (the lines of
// warcio.js's cdx-index) and pages (each a captured URI, every 200
// text/html capture a page), cat's bytes (the first capture of each URI,
// and with --at the capture nearest each capture's date, a revisit
// resolved to what it refers to: the payload warcio.js reads there); check
// finds nothing wrong; replay of the file, of its pack, and through
// merge's index of it gives each of f.names's bytes.
func readCorpusFile(t *testing.T, work, url string, f corpusFile) {
	t.Helper()
	path := filepath.Join(work, f.name)
	set := []string{path}
	for _, w := range f.with {
		set = append(set, filepath.Join(work, w))
	}
	res := itest.Run(t, nil, nil, "warc", "list", path)
	if res.Code != 0 {
		t.Fatalf("list %s: exit %d: %s", f.name, res.Code, res.Stderr)
	}
	recs := parseList(t, res.Stdout)
	warcio := warcioPath()
	independent := path // what warcio.js reads for path
	if f.plain != "" {
		independent = filepath.Join(work, f.plain)
	}
	if warcio != "" {
		out, err := exec.CommandContext(itest.Context(t), warcio, "index", independent, "-f", "warc-type,warc-target-uri,warc-payload-digest").Output()
		if err != nil {
			t.Fatalf("warcio index %s: %v", f.name, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(recs) {
			t.Errorf("%s: gofer lists %d records, warcio.js %d", f.name, len(recs), len(lines))
		}
		for i := range min(len(lines), len(recs)) {
			var w map[string]string
			if err := json.Unmarshal([]byte(lines[i]), &w); err != nil {
				t.Fatalf("warcio index %s: %q: %v", f.name, lines[i], err)
			}
			g := recs[i]
			if g.typ != w["warc-type"] || g.uri != w["warc-target-uri"] || w["warc-payload-digest"] != "" && g.digest != w["warc-payload-digest"] {
				t.Errorf("%s: record %d: gofer %+v, warcio.js %v", f.name, i+1, g, w)
			}
		}
	}
	res = itest.Run(t, nil, nil, append([]string{"warc", "check"}, set...)...)
	if f.dedup {
		for _, l := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
			if !strings.Contains(l, "WARC-Block-Digest sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ does not match the block") &&
				!strings.HasPrefix(l, "gofer: warc check: ") {
				t.Errorf("check %s: %s", f.name, l)
			}
		}
	} else if res.Code != 0 {
		t.Errorf("check %s: exit %d: %s", f.name, res.Code, res.Stderr)
	}
	merged := itest.Run(t, nil, nil, "warc", "merge", path)
	if merged.Code != 0 || merged.Stdout == "" {
		t.Errorf("merge %s: exit %d: %s", f.name, merged.Code, merged.Stderr)
	}
	wacz := filepath.Join(work, f.name+".wacz")
	res = itest.Run(t, nil, nil, "warc", "pack", path, "-o", wacz)
	if f.wacz {
		if _, err := os.Stat(wacz); res.Code != 1 || !strings.Contains(res.Stderr, "is a WACZ file: pack takes WARC files") || err == nil {
			t.Errorf("pack of the WACZ %s: exit %d: %s", f.name, res.Code, res.Stderr)
		}
	} else if res.Code != 0 {
		t.Errorf("pack %s: exit %d: %s", f.name, res.Code, res.Stderr)
	}
	replays := map[string]*replay.Archive{}
	sources := map[string][]string{"": set}
	if len(f.with) == 0 {
		if !f.wacz {
			sources[" (its pack)"] = []string{wacz}
		}
		idx := filepath.Join(work, f.name+".cdxj")
		if err := os.WriteFile(idx, []byte(merged.Stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		sources[" (its merged index)"] = []string{idx}
	}
	for what, src := range sources {
		a, err := replay.Open(src, replay.Options{Warn: func(s string) {
			if !strings.Contains(s, "no index beside it") {
				t.Errorf("replay %s%s: %s", f.name, what, s)
			}
		}})
		if err != nil {
			t.Fatalf("replay %s%s: %v", f.name, what, err)
		}
		replays[what] = a
	}
	for _, name := range f.names {
		want, err := os.ReadFile(filepath.Join(itest.StateDir(), "archive", "text", name))
		if err != nil {
			t.Fatal(err)
		}
		res := itest.Run(t, nil, nil, append(append([]string{"warc", "cat"}, set...), url+name)...)
		if res.Code != 0 || res.Stdout != string(want) {
			t.Errorf("cat %s %s: exit %d %.60q, want %.60q: %s", f.name, name, res.Code, res.Stdout, want, res.Stderr)
		}
		for what, a := range replays {
			p, err := a.Lookup(url+name, "response", "resource")
			if err != nil {
				t.Errorf("replay %s%s %s: %v", f.name, what, name, err)
				continue
			}
			var b bytes.Buffer
			b.ReadFrom(p)
			p.Close()
			if b.String() != string(want) {
				t.Errorf("replay %s%s %s: %.60q, want %.60q", f.name, what, name, b.String(), want)
			}
		}
	}
	if warcio == "" {
		return
	}
	var all []warcioRecord // every record of the set as warcio.js reads it, in cat's order
	for i, p := range set {
		if i == 0 {
			p = independent
		}
		all = append(all, warcioRecords(t, p)...)
	}
	own := 0
	for own < len(all) && all[own].file == independent {
		own++
	}
	mine := all[:own]
	compareList(t, f.name, recs, mine)
	compareMerge(t, f.name, merged.Stdout, mine)
	if !f.wacz {
		comparePack(t, f.name, wacz, independent, f.plain != "" || f.wholeGzip, mine)
	}
	asked := 0
	if !f.derived {
		asked = compareCat(t, f.name, set, all)
	}
	t.Logf("%s: %d records compared with warcio.js's, %d cat answers", f.name, len(mine), asked)
}

// compareList compares list's lines with the records warcio.js reads,
// in order: type, WARC-Date (to the second), Content-Length, the payload
// digest else the block digest, as the header has them, and target URI.
func compareList(t *testing.T, name string, got []listed, recs []warcioRecord) {
	t.Helper()
	if len(got) != len(recs) {
		t.Errorf("list %s: %d records, warcio.js reads %d", name, len(got), len(recs))
	}
	for i := range min(len(got), len(recs)) {
		g, r := got[i], recs[i]
		date := "-"
		if d, err := time.Parse(time.RFC3339Nano, r.Date); err == nil {
			date = d.UTC().Format("2006-01-02T15:04:05Z")
		}
		digest := r.PayloadDigest
		if digest == "" {
			digest = r.BlockDigest
		}
		if g.typ != r.Type || g.date != date || g.length != r.ContentLength || g.digest != digest || g.uri != r.URI {
			t.Errorf("list %s: record %d: %+v; warcio.js reads %s %s %s %s %s", name, i+1, g, r.Type, date, r.ContentLength, digest, r.URI)
		}
	}
}

// compareMerge compares merge's CDXJ lines with the records warcio.js
// reads: every record but the warcinfo, once per set of copies (merge's
// duplicate rule: the same target URI, type, media type and digest, the
// payload digest else the block digest), the line naming one of the
// copies by ID with its URI (no angle brackets), type and digest.
func compareMerge(t *testing.T, name, cdxj string, recs []warcioRecord) {
	t.Helper()
	copyKey := func(uri, typ, mime, digest, id string) string {
		k := uri + "\x00" + typ + "\x00" + mime + "\x00" + digest
		if digest == "" {
			k += "\x00" + id
		}
		return k
	}
	copies := map[string][]string{} // copy key: the IDs of the copies
	for _, r := range recs {
		if r.Type == "warcinfo" {
			continue
		}
		d := r.PayloadDigest
		if d == "" {
			d = r.BlockDigest
		}
		k := copyKey(r.URI, r.Type, r.WARCContentType, d, r.ID)
		copies[k] = append(copies[k], r.ID)
	}
	for _, l := range strings.Split(strings.TrimSpace(cdxj), "\n") {
		key, js, ok := strings.Cut(l, " {")
		var e warc.IndexEntry
		if !ok || json.Unmarshal([]byte("{"+js), &e) != nil {
			t.Errorf("merge %s: line %q", name, l)
			continue
		}
		if strings.ContainsAny(e.URL, "<>") || strings.ContainsAny(key, "<>") {
			t.Errorf("merge %s: angle brackets in %q", name, l)
		}
		k := copyKey(e.URL, e.Type, e.Mime, e.Digest, e.ID)
		if ids, ok := copies[k]; !ok || !slices.Contains(ids, e.ID) {
			t.Errorf("merge %s: %q indexes no record warcio.js reads (or a copy twice)", name, l)
		}
		delete(copies, k)
	}
	for k, ids := range copies {
		t.Errorf("merge %s: no line for records %v (%q)", name, ids, k)
	}
}

// comparePack compares the index of the WACZ pack wrote with warcio.js's
// cdx-index of the same WARC file (independent; with approx, a
// decompressed copy of it or a file gzipped whole, and then offsets,
// lengths and file names are not compared), and its pages with the captures warcio.js reads: each
// page a captured URI, every 200 text/html response a page.
func comparePack(t *testing.T, name, wacz, independent string, approx bool, recs []warcioRecord) {
	t.Helper()
	zr, err := zip.OpenReader(wacz)
	if err != nil {
		t.Errorf("pack %s: %v", name, err)
		return
	}
	defer zr.Close()
	read := func(n string) string {
		rc, err := zr.Open(n)
		if err != nil {
			t.Errorf("pack %s: %v", name, err)
			return ""
		}
		defer rc.Close()
		var b bytes.Buffer
		b.ReadFrom(rc)
		return b.String()
	}
	out, err := exec.CommandContext(itest.Context(t), warcioPath(), "cdx-index", independent).Output()
	if err != nil {
		t.Fatalf("warcio cdx-index %s: %v", name, err)
	}
	norm := func(s string) []string {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			if approx {
				key, js, _ := strings.Cut(l, " {")
				var m map[string]any
				json.Unmarshal([]byte("{"+js), &m)
				delete(m, "offset")
				delete(m, "length")
				delete(m, "filename")
				b, _ := json.Marshal(m)
				l = key + " " + string(b)
			}
			lines = append(lines, l)
		}
		slices.Sort(lines)
		return lines
	}
	got, want := norm(read("indexes/index.cdx")), norm(string(out))
	if !slices.Equal(got, want) {
		t.Errorf("pack %s: index\n%s\nwarcio.js cdx-index\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	captured := map[string]bool{}
	for _, r := range recs {
		if isCapture(r.Type) {
			captured[r.URI] = true
		}
	}
	pages := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(read("pages/pages.jsonl")), "\n")[1:] {
		var p struct{ URL string }
		if err := json.Unmarshal([]byte(l), &p); err != nil || !captured[p.URL] {
			t.Errorf("pack %s: page %q is no capture warcio.js reads", name, l)
		}
		pages[p.URL] = true
	}
	for _, r := range recs {
		if r.Type == "response" && r.Status == "200" && strings.HasPrefix(r.ContentType, "text/html") && !pages[r.URI] {
			t.Errorf("pack %s: %s, a 200 text/html response, is not a page", name, r.URI)
		}
	}
}

// compareCat runs cat for the first capture of each URI of the set's
// first file, and with --at each capture's date, and compares its bytes
// with the payload warcio.js reads in the record cat should pick (the
// first capture nearest the time, a revisit resolved to the record it
// refers to, by ID, else by target URI and date).
func compareCat(t *testing.T, name string, set []string, all []warcioRecord) int {
	t.Helper()
	resolve := func(r warcioRecord) (warcioRecord, bool) {
		for range 8 {
			if r.Type != "revisit" {
				return r, true
			}
			found := false
			for _, o := range all {
				if r.RefersTo != "" && o.ID == r.RefersTo || r.RefersTo == "" && o.Type != "revisit" && o.URI == r.RefersToURI && sameTime(o.Date, r.RefersToDate) {
					r, found = o, true
					break
				}
			}
			if !found {
				return r, false
			}
		}
		return r, false
	}
	pick := func(uri, at string) (warcioRecord, bool) {
		var best *warcioRecord
		var bestD time.Duration
		when, _ := time.Parse(time.RFC3339Nano, at)
		for i, r := range all {
			if r.URI != uri || !isCapture(r.Type) {
				continue
			}
			if at == "" {
				return resolve(r)
			}
			d, _ := time.Parse(time.RFC3339Nano, r.Date)
			if dd := d.Sub(when).Abs(); best == nil || dd < bestD {
				best, bestD = &all[i], dd
			}
		}
		if best == nil {
			return warcioRecord{}, false
		}
		return resolve(*best)
	}
	type ask struct{ uri, at string }
	var asks []ask
	seen := map[ask]bool{}
	for _, r := range all {
		if r.file != all[0].file || !isCapture(r.Type) {
			continue
		}
		for _, a := range []ask{{r.URI, ""}, {r.URI, r.Date}} {
			if !seen[a] {
				seen[a] = true
				asks = append(asks, a)
			}
		}
	}
	if len(asks) == 0 {
		t.Errorf("cat %s: warcio.js reads no capture", name)
	}
	for _, a := range asks {
		want, ok := pick(a.uri, a.at)
		if !ok {
			t.Errorf("cat %s %s at %q: warcio.js reads no record it refers to", name, a.uri, a.at)
			continue
		}
		args := []string{"warc", "cat"}
		if a.at != "" {
			args = append(args, "--at", a.at)
		}
		res := itest.Run(t, nil, nil, append(append(args, set...), a.uri)...)
		sum := sha256.Sum256([]byte(res.Stdout))
		if res.Code != 0 || len(res.Stdout) != want.Length || hex.EncodeToString(sum[:]) != want.SHA256 {
			t.Errorf("cat %s %s at %q: exit %d, %d bytes %.40q; warcio.js reads %d bytes (sha256 %s) in record %s: %s",
				name, a.uri, a.at, res.Code, len(res.Stdout), res.Stdout, want.Length, want.SHA256, want.ID, res.Stderr)
		}
	}
	return len(asks)
}

// sameTime reports whether two WARC-Dates are the same instant.
func sameTime(a, b string) bool {
	x, err1 := time.Parse(time.RFC3339Nano, a)
	y, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && x.Equal(y)
}

// TestWARCWritersCorpus reads WARCs other writers write here, at run time,
// with every reading command, compared with warcio.js's reading as
// TestWARCOthersCorpus compares them: warcio.js itself as a writer
// (warcwriters/warcio-write.mjs: WARC/1.0 and 1.1, gzipped per record and
// uncompressed, digests in base32 SHA-1, in hex SHA-256, and none;
// responses (an HTML page, chunked, 404, 301, pywb's odd header), a
// resource, a revisit and a metadata record); gowarc, the Internet
// Archive's Go WARC library, through its HTTP client (warcwriters/gowarc:
// request, response and revisit records, gzipped, a record past 1 MB by
// pgzip, zstd-compressed with and without a dictionary (stored in the
// file's first frame, as the warc-zstd convention has it), uncompressed;
// SHA-1 and SHA-256 digests); and a WACZ js-wacz packs of a
// wget WARC, which replay and the commands read as it is (the WARC file it
// stores, where the ZIP stores it; pack refuses it), and its WARC file
// taken out of it.
func TestWARCWritersCorpus(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	if warcioPath() == "" {
		t.Skip("warcio.js is not installed (integration/test installs it): no WARC to write with it, none to compare with")
	}
	work := t.TempDir()
	url := "http://" + itest.HTTPHost + "/archive/text/"
	text := filepath.Join(itest.StateDir(), "archive", "text")
	names := []string{"crlf.txt", "dots.txt", "plain.txt"}

	// warcio.js as a writer.
	type spec struct {
		Out     string           `json:"out"`
		Gzip    bool             `json:"gzip"`
		Version string           `json:"version"`
		Digest  string           `json:"digest"`
		Records []map[string]any `json:"records"`
	}
	records := []map[string]any{
		{"type": "response", "url": url + names[0], "date": "2026-01-02T03:04:06Z", "file": filepath.Join(text, names[0])},
		{"type": "resource", "url": url + names[1], "date": "2026-01-02T03:04:07Z", "file": filepath.Join(text, names[1]), "contentType": "text/plain"},
		{"type": "response", "url": url + names[2], "date": "2026-01-02T03:04:08Z", "file": filepath.Join(text, names[2])},
		{"type": "response", "url": url + "page.html", "date": "2026-01-02T03:04:09Z", "contentType": "text/html; charset=utf-8",
			"body": "<!DOCTYPE html><html><head><title>A page warcio.js wrote</title></head><body><p>written</p></body></html>\n"},
		{"type": "revisit", "url": url + names[0], "date": "2026-01-02T03:04:10Z", "refersTo": 0},
		{"type": "metadata", "url": url + names[0], "date": "2026-01-02T03:04:11Z", "body": "via: warcio-write.mjs\r\n", "contentType": "application/warc-fields"},
		// HTTP as servers and other archives have it: chunked, a 404, a
		// redirect, pywb's "Content-Length: -1", a status line without
		// a reason; URIs whose index keys sort their query, fold case,
		// drop a default port and "www.".
		{"type": "response", "url": "http://WWW.Example.ORG:80/chunked?b=2&a=1", "date": "2026-01-02T03:04:12Z",
			"body": "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "httpHeaders": map[string]string{"Content-Type": "text/html", "Transfer-Encoding": "chunked"}},
		{"type": "response", "url": "https://example.org/%7Euser/missing?x=%20y", "date": "2026-01-02T03:04:13Z", "body": "not here\n",
			"statusline": "HTTP/1.1 404 Not Found", "httpHeaders": map[string]string{"Content-Type": "text/plain", "Content-Length": "9"}},
		{"type": "response", "url": "http://example.org:8080/moved", "date": "2026-01-02T03:04:14Z", "body": "",
			"statusline": "HTTP/1.1 301 Moved Permanently", "httpHeaders": map[string]string{"Location": "http://example.org/there", "Content-Length": "0"}},
		{"type": "response", "url": "http://example.org/pywb", "date": "2026-01-02T03:04:15Z", "body": "<p>pywb</p>\n",
			"statusline": "HTTP/1.0 200", "httpHeaders": map[string]string{"Content-Type": "TEXT/HTML", "Content-Length": "-1"}},
	}
	var files []corpusFile
	for _, s := range []spec{
		{Out: "warcio-1.1-base32.warc.gz", Gzip: true, Version: "WARC/1.1", Digest: "sha1-base32"},
		{Out: "warcio-1.0-sha256.warc", Version: "WARC/1.0", Digest: "sha256"},
		{Out: "warcio-1.1-nodigest.warc", Version: "WARC/1.1", Digest: "none"},
		{Out: "warcio-1.0-nodigest.warc.gz", Gzip: true, Version: "WARC/1.0", Digest: "none"},
	} {
		name := s.Out
		s.Out, s.Records = filepath.Join(work, name), records
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		sp := filepath.Join(work, name+".json")
		if err := os.WriteFile(sp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.CommandContext(itest.Context(t), "node", filepath.Join("warcwriters", "warcio-write.mjs"), nodeModules(), sp).CombinedOutput(); err != nil {
			t.Fatalf("warcio-write.mjs %s: %v: %s", name, err, out)
		}
		files = append(files, corpusFile{name: name, names: names})
	}

	// gowarc, built from its own module.
	gowarc := filepath.Join(work, "gowarc")
	build := exec.CommandContext(itest.Context(t), "go", "build", "-o", gowarc, ".")
	build.Dir = filepath.Join("warcwriters", "gowarc")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building warcwriters/gowarc: %v: %s", err, out)
	}
	// A zstd dictionary made from the sample archive's texts and HTTP
	// headers like those gowarc records.
	var samples [][]byte
	for i := range 64 {
		b, err := os.ReadFile(filepath.Join(text, []string{"plain.txt", "dotted-words.txt", "crlf.txt", "dots.txt"}[i%4]))
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, append([]byte("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: text/plain\r\n\r\n"), b[:len(b)*(1+i%8)/8]...))
	}
	history := []byte("WARC/1.1\r\nWARC-Type: response\r\nContent-Type: application/http; msgtype=response\r\n")
	dict, err := zstd.BuildDict(zstd.BuildDictOptions{ID: 38, Contents: samples, History: history})
	if err != nil {
		t.Fatal(err)
	}
	dictPath := filepath.Join(work, "warc.dict")
	if err := os.WriteFile(dictPath, dict, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, compression, digest string }{
		{"gowarc-gzip.warc.gz", "GZIP", "sha1"},
		{"gowarc-zstd.warc.zst", "ZSTD", "sha1"},
		{"gowarc-zstd-dict.warc.zst", "ZSTD", "sha256"},
		{"gowarc-sha256.warc", "none", "sha256"},
	} {
		dir := filepath.Join(work, c.name+".d")
		args := []string{"-dir", dir, "-prefix", "gowarc", "-compression", c.compression, "-digest", c.digest, "-dedup"}
		if strings.Contains(c.name, "dict") {
			args = append(args, "-dict", dictPath)
		}
		for _, n := range []string{names[2], names[0], names[2], names[1]} {
			args = append(args, url+n)
		}
		// Past 1 MB, gowarc gzips a record with pgzip, in blocks.
		args = append(args, "http://"+itest.HTTPHost+"/archive/binary/random-1m.bin")
		if out, err := exec.CommandContext(itest.Context(t), gowarc, args...).CombinedOutput(); err != nil {
			t.Fatalf("gowarc %s: %v: %s", c.name, err, out)
		}
		ext := c.name[strings.Index(c.name, "."):]
		got, _ := filepath.Glob(filepath.Join(dir, "gowarc-*"+ext))
		if len(got) != 1 {
			t.Fatalf("gowarc %s wrote %v, want one %s file", c.name, got, ext)
		}
		if err := os.Rename(got[0], filepath.Join(work, c.name)); err != nil {
			t.Fatal(err)
		}
		f := corpusFile{name: c.name, names: names}
		if c.compression == "ZSTD" {
			f.plain = c.name + ".plain.warc"
			unzstd(t, filepath.Join(work, c.name), filepath.Join(work, f.plain), dict)
		}
		files = append(files, f)
	}
	if b, err := os.ReadFile(filepath.Join(work, "gowarc-zstd-dict.warc.zst")); err != nil || !bytes.HasPrefix(b, []byte{0x5d, 0x2a, 0x4d, 0x18}) {
		t.Errorf("gowarc's zstd file with a dictionary does not start with the dictionary's skippable frame: %v", err)
	}

	// js-wacz's WACZ of a wget WARC.
	wget, err := exec.LookPath("wget")
	if err != nil {
		t.Fatal("wget is not installed (integration/lib/http.sh installs it)")
	}
	if out, err := exec.CommandContext(itest.Context(t), wget, "-q", "-r", "-l", "1", "--no-parent", "-e", "robots=off",
		"--warc-file="+filepath.Join(work, "wget"), "-P", filepath.Join(work, "tree"), url).CombinedOutput(); err != nil {
		t.Fatalf("wget: %v: %s", err, out)
	}
	jswacz := filepath.Join(nodeModules(), ".bin", "js-wacz")
	if j := os.Getenv("GOFER_JSWACZ"); j != "" {
		jswacz = j
	}
	wacz := filepath.Join(work, "js.wacz")
	if out, err := exec.CommandContext(itest.Context(t), jswacz, "create", "-f", filepath.Join(work, "wget.warc.gz"), "-o", wacz, "--log-level", "error").CombinedOutput(); err != nil {
		t.Fatalf("js-wacz create: %v: %s", err, out)
	}
	a, err := replay.Open([]string{wacz}, replay.Options{Warn: func(s string) { t.Errorf("replay js.wacz: %s", s) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		want, err := os.ReadFile(filepath.Join(text, name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.Lookup(url+name, "response", "resource")
		if err != nil {
			t.Errorf("replay js.wacz %s: %v", name, err)
			continue
		}
		var b bytes.Buffer
		b.ReadFrom(p)
		p.Close()
		if b.String() != string(want) {
			t.Errorf("replay js.wacz %s: %.60q, want %.60q", name, b.String(), want)
		}
	}
	zr, err := zip.OpenReader(wacz)
	if err != nil {
		t.Fatal(err)
	}
	inside := 0
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "archive/") {
			continue
		}
		inside++
		name := "js-wacz-" + filepath.Base(zf.Name)
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(rc)
		rc.Close()
		if err := os.WriteFile(filepath.Join(work, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, corpusFile{name: name, names: names}, corpusFile{name: "js.wacz", plain: name, wacz: true, names: names})
	}
	zr.Close()
	if inside != 1 {
		t.Errorf("js.wacz holds %d WARC files, want the one it packed", inside)
	}

	for _, f := range files {
		readCorpusFile(t, work, url, f)
	}
}

// unzstd writes the zstd-compressed file from decompressed to to, its
// frames perhaps compressed with dict.
func unzstd(t *testing.T, from, to string, dict []byte) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	d, err := zstd.NewReader(in, zstd.WithDecoderDicts(dict))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, d); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
