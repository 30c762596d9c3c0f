package integration_test

// WARC capture against the real servers (integration/LAYOUT.md): the
// sample archive mirrored over FTP (vsftpd), Gopher+ (pygopherd), Gopher
// (gophernicus) and HTTP (nginx) with --warc; every segment read back by
// gowarc's strict reader (each record's fields and both digests checked)
// and by warcio.js when integration/test installed it ($GOFER_WARCIO);
// every file's payload equal to the manifest; news articles equal to what
// INN serves; a rerun that writes no payload again; kill -9 then a rerun
// that leaves every item recorded exactly once; a 1 GiB FTP file captured
// in bounded memory.

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// warcRecord is what the tests look at of one record.
type warcRecord struct {
	warc.Entry
	Mime       string
	SHA256     string
	Concurrent string
	IP         string
	Block      string // the block, for small metadata records
}

// readSegments reads every segment of prefix with the strict reader (a
// record that breaks the standard or whose digests do not match fails the
// test) and, when $GOFER_WARCIO names warcio.js, indexes each with it too.
func readSegments(t *testing.T, prefix string) []warcRecord {
	t.Helper()
	segs, err := warc.Segments(prefix)
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segments for %s: %v", prefix, err)
	}
	var recs []warcRecord
	for _, s := range segs {
		recs = append(recs, readWARC(t, s)...)
	}
	return recs
}

func readWARC(t *testing.T, path string) []warcRecord {
	t.Helper()
	var recs []warcRecord
	err := warc.Walk(path, true, func(e warc.Entry, rec gowarc.WarcRecord) error {
		r := warcRecord{Entry: e, Mime: rec.WarcHeader().Get(gowarc.ContentType),
			Concurrent: rec.WarcHeader().Get(gowarc.WarcConcurrentTo), IP: rec.WarcHeader().Get(gowarc.WarcIPAddress)}
		if e.Type != "warcinfo" && !strings.HasPrefix(r.IP, "127.") {
			t.Errorf("%s %s: WARC-IP-Address %q, want the server's loopback address", e.Type, e.URI, r.IP)
		}
		p, err := warc.Payload(rec)
		if err != nil {
			return err
		}
		h := sha256.New()
		var small strings.Builder
		if _, err := io.Copy(io.MultiWriter(h, &limitedBuilder{b: &small, n: 64 << 10}), p); err != nil {
			return err
		}
		r.SHA256 = hex.EncodeToString(h.Sum(nil))
		r.Block = small.String()
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("strict read of %s: %v", path, err)
	}
	if w := os.Getenv("GOFER_WARCIO"); w != "" {
		out, err := exec.Command(w, "index", path).CombinedOutput()
		if err != nil {
			t.Fatalf("warcio index %s: %v: %s", path, err, out)
		}
		if n := strings.Count(string(out), "\n"); n != len(recs) {
			t.Fatalf("warcio index %s: %d records, the strict reader %d", path, n, len(recs))
		}
	}
	return recs
}

type limitedBuilder struct {
	b *strings.Builder
	n int
}

func (l *limitedBuilder) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// checkPayloads asserts that every manifest file has exactly one record of
// type kind whose payload's sha256 is the manifest's; path maps a record
// to its manifest path ("" for records that are no archive file) and
// fix, when set, turns a record's payload digest into the file's.
func checkPayloads(t *testing.T, recs []warcRecord, kind string, path func(warcRecord) string) {
	t.Helper()
	checkPayloadsExcept(t, recs, kind, path, nil)
}

// checkPayloadsExcept is checkPayloads with the manifest files in skip
// left out (files a server does not serve).
func checkPayloadsExcept(t *testing.T, recs []warcRecord, kind string, path func(warcRecord) string, skip map[string]bool) {
	t.Helper()
	manifest := itest.Manifest(t)
	seen := map[string]int{}
	for _, r := range recs {
		if r.Type != kind {
			continue
		}
		p := path(r)
		want, ok := manifest[p]
		if !ok {
			continue
		}
		seen[p]++
		if r.SHA256 != want {
			t.Errorf("%s (%s): payload sha256 %s, manifest %s", r.URI, p, r.SHA256, want)
		}
	}
	for p := range manifest {
		if seen[p] != 1 && !skip[p] {
			t.Errorf("%s: recorded %d times as %s, want once", p, seen[p], kind)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no record matched the manifest")
	}
}

func mirrorWARC(t *testing.T, url, prefix, dir string, extra ...string) {
	t.Helper()
	args := append([]string{"mirror", "-q", "-j", "6", "--warc", prefix}, extra...)
	res := itest.Run(t, nil, []string{"EMAIL=gofer@example.org"}, append(args, url, dir)...)
	if res.Code != 0 {
		t.Fatalf("gofer mirror --warc %s: exit %d: %s", url, res.Code, res.Stderr)
	}
}

// ftpPath is the manifest path of an FTP file record.
func ftpPath(r warcRecord) string {
	u, err := schemes.Parse(r.URI)
	if err != nil || u.FTP == nil || len(u.FTP.Segments) < 2 || u.FTP.Segments[0] != "archive" || r.Mime == "text/x-ftp-list" {
		return ""
	}
	return strings.Join(u.FTP.Segments[1:], "/")
}

// TestWARCMirrorFTP captures the archive over FTP: each file a resource
// record equal to the manifest, each with its control conversation (the
// password masked) linked to it, each directory listing a record of its
// raw LIST bytes; DIR holds no tree; a rerun writes no payload again.
func TestWARCMirrorFTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	work := t.TempDir()
	prefix, dir := filepath.Join(work, "ftp"), filepath.Join(work, "tree")
	url := "ftp://" + itest.FTPHost + "/archive/"
	mirrorWARC(t, url, prefix, dir)
	recs := readSegments(t, prefix)
	checkPayloads(t, recs, "resource", ftpPath)

	ids := map[string]warcRecord{}
	listings := 0
	for _, r := range recs {
		ids[r.ID] = r
		if r.Type == "resource" && r.Mime == "text/x-ftp-list" {
			listings++
			if !strings.HasSuffix(r.URI, "/") {
				t.Errorf("listing record %s: target is not a directory URL", r.URI)
			}
		}
	}
	if listings < 100 {
		t.Errorf("%d listing records, want one per directory (>100)", listings)
	}
	conv := 0
	for _, r := range recs {
		if r.Type != "metadata" {
			continue
		}
		conv++
		if r.Mime != warc.TypeFTPConversation {
			t.Errorf("metadata %s: type %s", r.URI, r.Mime)
		}
		if to, ok := ids[r.Concurrent]; !ok || to.URI != r.URI {
			t.Errorf("metadata %s: WARC-Concurrent-To %q names no record of the same URI", r.URI, r.Concurrent)
		}
		if strings.Contains(r.Block, "gofer@example.org") || !strings.Contains(r.Block, "226 ") {
			t.Errorf("conversation of %s: password not masked or no transfer reply: %q", r.URI, r.Block)
		}
	}
	if conv < len(itest.Manifest(t)) {
		t.Errorf("%d conversations, want one per file at least", conv)
	}
	if d := itest.DiffTree(t, dir, ".gofer"); len(d) != 0 {
		t.Errorf("tree beside the archive differs: %q", d[:min(len(d), 5)])
	}

	// A rerun: files the state knows unchanged are not fetched, listings
	// fetched again are revisits. No payload is written again.
	segs, _ := warc.Segments(prefix)
	mirrorWARC(t, url, prefix, dir)
	after, _ := warc.Segments(prefix)
	if len(after) != len(segs)+1 {
		t.Fatalf("rerun wrote segments %v after %v", after, segs)
	}
	revisits := 0
	for _, r := range readWARC(t, after[len(after)-1]) {
		switch r.Type {
		case "resource", "response":
			t.Errorf("rerun recorded the payload of %s again", r.URI)
		case "revisit":
			revisits++
		}
	}
	if revisits != listings {
		t.Errorf("rerun: %d revisits, want one per listing (%d)", revisits, listings)
	}
	if _, err := os.Stat(warc.IndexName(after[len(after)-1])); err != nil {
		t.Errorf("no CDXJ index beside the segment: %v", err)
	}
}

// gopherPath maps a record of a Gopher item to its manifest path:
// selector /archive/PATH, gophernicus's #ooo octal escapes undone.
func gopherPath(r warcRecord) string {
	u, err := schemes.Parse(r.URI)
	if err != nil || u.Gopher == nil || u.Gopher.Type == '1' {
		return ""
	}
	sel, ok := strings.CutPrefix(u.Gopher.Selector, "/archive/")
	if !ok {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(sel); i++ {
		if sel[i] == '#' && i+3 < len(sel) {
			if n, err := strconv.ParseUint(sel[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(sel[i])
	}
	return b.String()
}

// TestWARCMirrorGopherPlus captures the hole of pygopherd, which gofer
// reads as Gopher+: items with their exact bytes, menus raw, and the
// attribute blocks ($) as metadata records.
func TestWARCMirrorGopherPlus(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.GopherPlusHost+":70")
	work := t.TempDir()
	prefix := filepath.Join(work, "gplus")
	dir := filepath.Join(work, "tree")
	url := "gopher://" + itest.GopherPlusHost + "/1/"
	mirrorWARC(t, url, prefix, dir, "--warc-only")
	recs := readSegments(t, prefix)
	checkPayloads(t, recs, "resource", gopherPath)
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != ".gofer" {
		t.Errorf("--warc-only left %v in DIR, want only .gofer", ents)
	}
	attrs, menus := 0, 0
	for _, r := range recs {
		if r.Length == 0 {
			continue // an empty directory's menu and attributes
		}
		if r.Type == "metadata" && r.Mime == warc.TypeGopherPlusAttrs {
			attrs++
			if !strings.Contains(r.Block, "+INFO:") {
				t.Errorf("attribute record %s holds no +INFO block", r.URI)
			}
		}
		if r.Type == "resource" && r.Mime == "application/gopher-menu" {
			menus++
			if strings.Contains(r.Block, "<pre>") || !strings.Contains(r.Block, "\t") {
				t.Errorf("menu record %s is not the raw menu: %q", r.URI, r.Block[:min(len(r.Block), 200)])
			}
		}
	}
	if attrs == 0 || menus == 0 {
		t.Errorf("%d attribute records, %d menu records: want both", attrs, menus)
	}
	// The mirror asks each menu for its items' attributes ("$") before it
	// fetches them, so every item's record names that block.
	attrIDs := map[string]bool{}
	for _, r := range recs {
		if r.Type == "metadata" && r.Mime == warc.TypeGopherPlusAttrs {
			attrIDs[r.ID] = true
		}
	}
	for _, r := range recs {
		if r.Type == "resource" && gopherPath(r) != "" && !attrIDs[r.Concurrent] {
			t.Errorf("item %s: WARC-Concurrent-To %q names no attribute record", r.URI, r.Concurrent)
		}
	}

	// A rerun with no tree: the state stands for the files, so an item
	// whose Gopher+ Mod-Date is unchanged is not fetched again; menus and
	// attribute blocks, fetched to walk the hole, are revisits. No payload
	// is written twice.
	mirrorWARC(t, url, prefix, dir, "--warc-only")
	segs, _ := warc.Segments(prefix)
	manifest := itest.Manifest(t)
	revisits := 0
	for _, r := range readWARC(t, segs[len(segs)-1]) {
		switch {
		case r.Type == "resource", r.Type == "metadata" && r.Mime == warc.TypeGopherPlusAttrs:
			t.Errorf("rerun recorded the payload of %s again", r.URI)
		case r.Type == "revisit":
			if _, item := manifest[gopherPath(r)]; item {
				t.Errorf("rerun fetched the unchanged item %s again", r.URI)
			}
			revisits++
		}
	}
	if revisits == 0 {
		t.Error("rerun: no revisit records for the menus it walked")
	}
}

// TestWARCMirrorGopher captures the hole of gophernicus (plain Gopher):
// binary items exact; text items as sent, whose dot-stuffing and
// terminating line undone give the file.
func TestWARCMirrorGopher(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.GopherHost+":70")
	work := t.TempDir()
	prefix := filepath.Join(work, "gopher")
	mirrorWARC(t, "gopher://"+itest.GopherHost+"/1/archive/", prefix, filepath.Join(work, "tree"))
	var recs []warcRecord
	manifest := itest.Manifest(t)
	// gophernicus answers a few odd selectors (a '?' in the name, "%25")
	// with its not-found text: those files it does not serve.
	const notFound = "Error: File or directory not found!"
	notServed := map[string]bool{}
	segs, _ := warc.Segments(prefix)
	for _, s := range segs {
		// The payloads of text items are read again to undo the framing.
		err := warc.Walk(s, true, func(e warc.Entry, rec gowarc.WarcRecord) error {
			p, err := warc.Payload(rec)
			if err != nil {
				return err
			}
			r := warcRecord{Entry: e, Mime: rec.WarcHeader().Get(gowarc.ContentType)}
			data, err := io.ReadAll(p)
			if err != nil {
				return err
			}
			if strings.HasPrefix(string(data), notFound) {
				notServed[gopherPath(r)] = true
				return nil
			}
			if u, _ := schemes.Parse(e.URI); u != nil && u.Gopher != nil && u.Gopher.Type == '0' {
				var ok bool
				if data, ok = undoTextFraming(data); !ok {
					t.Errorf("%s: text item recorded without its terminating line", e.URI)
				}
				// The framing adds CR LF to a file that does not end
				// with a line end: the manifest says which it was.
				if trimmed, cut := strings.CutSuffix(string(data), "\r\n"); cut && sha256Hex(data) != manifest[gopherPath(r)] {
					data = []byte(trimmed)
				}
			}
			r.SHA256 = sha256Hex(data)
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		readWARC(t, s) // warcio too, when installed
	}
	if len(notServed) > 5 {
		t.Errorf("%d files not served, want a few odd names: %v", len(notServed), notServed)
	}
	t.Logf("not served by gophernicus: %v", notServed)
	checkPayloadsExcept(t, recs, "resource", gopherPath, notServed)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// undoTextFraming returns a type-0 item as sent with its lines unstuffed
// and without the terminating "." line (RFC 1436); ok says whether the
// terminating line was there.
func undoTextFraming(data []byte) (out []byte, ok bool) {
	br := bufio.NewReader(strings.NewReader(string(data)))
	for {
		line, err := br.ReadString('\n')
		if line == ".\r\n" || line == ".\n" {
			return out, true
		}
		if strings.HasPrefix(line, "..") {
			line = line[1:]
		}
		out = append(out, line...)
		if err != nil {
			return out, false
		}
	}
}

// httpPath maps an HTTP response record to its manifest path.
func httpPath(r warcRecord) string {
	p, ok := strings.CutPrefix(r.URI, "http://"+itest.HTTPHost+"/archive/")
	if !ok {
		return ""
	}
	s, err := schemes.Unescape(p)
	if err != nil {
		return ""
	}
	return s
}

// TestWARCMirrorHTTP captures the archive over HTTP: request and response
// records of the bytes on the wire, each response's payload (the body as
// sent) equal to the manifest, each linked to its request.
func TestWARCMirrorHTTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	work := t.TempDir()
	prefix := filepath.Join(work, "http")
	mirrorWARC(t, "http://"+itest.HTTPHost+"/archive/", prefix, filepath.Join(work, "tree"))
	recs := readSegments(t, prefix)
	checkPayloads(t, recs, "response", httpPath)
	requests := map[string]warcRecord{}
	for _, r := range recs {
		if r.Type == "request" {
			requests[r.ID] = r
		}
	}
	for _, r := range recs {
		if r.Type == "response" {
			if q, ok := requests[r.Concurrent]; !ok || q.URI != r.URI {
				t.Fatalf("response %s: WARC-Concurrent-To %q is not its request", r.URI, r.Concurrent)
			}
		}
	}
}

// TestWARCNews captures every article of gofer.test, each fetched by its
// nntp: URL: the record's payload is what INN serves (news/served), its
// target news:<message-id>, the nntp: URL beside it.
func TestWARCNews(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.NNTPHost+":119")
	file := filepath.Join(t.TempDir(), "news.warc.gz")
	args := []string{"get", "-q", "--warc", file}
	for n := 1; n <= 30; n++ {
		args = append(args, "nntp://"+itest.NNTPHost+"/gofer.test/"+strconv.Itoa(n))
	}
	res := itest.Run(t, nil, nil, args...)
	if res.Code != 0 {
		t.Fatalf("gofer get --warc: exit %d: %s", res.Code, res.Stderr)
	}
	recs := readWARC(t, file)
	got := 0
	for _, r := range recs {
		if r.Type != "resource" {
			continue
		}
		id, ok := strings.CutPrefix(r.URI, "news:")
		if !ok || !strings.HasPrefix(id, "gofer-test-") {
			t.Errorf("article record target %q, want news:<message-id>", r.URI)
			continue
		}
		name := strings.TrimSuffix(id, "@gofer.test")
		want := sha256File(t, filepath.Join(itest.StateDir(), "news", "served", name+".txt"))
		if r.SHA256 != want {
			t.Errorf("%s: payload differs from what INN serves", r.URI)
		}
		got++
	}
	if got != 30 {
		t.Errorf("%d article records, want 30", got)
	}
}

// TestWARCMirrorKill9 kills `gofer mirror --warc` at random moments, then
// runs it to its end: every segment reads cleanly, and every file is
// recorded with its payload exactly once across them (a file fetched
// again after a kill is a revisit).
func TestWARCMirrorKill9(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	bin := itest.Gofer(t)
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, seed))
	t.Logf("seed %d", seed)
	url := "ftp://" + itest.FTPHost + "/archive/"
	for round := range 2 {
		work := t.TempDir()
		prefix, dir := filepath.Join(work, "crawl"), filepath.Join(work, "tree")
		for kill := range 1 + rng.IntN(3) {
			k := 1 + rng.IntN(int(manifestFiles(t)))
			killed, lines := killAfterLines(t, k, bin, "mirror", "-v", "-j", "6", "--warc", prefix, "--warc-max-size", "1M", url, dir)
			open := 0
			segs, _ := warc.Segments(prefix)
			for _, s := range segs {
				if _, err := os.Stat(warc.IndexName(s)); err != nil {
					open++ // the segment the killed run was writing
				}
			}
			t.Logf("round %d kill %d: killed=%v after %d lines, %d segments, %d left open", round, kill, killed, lines, len(segs), open)
			// A run opens a segment with the first record it writes into
			// it: one killed before that (in its first lines, or between a
			// full segment's close and the next record) leaves none open.
			// More than one is never right.
			if killed && open > 1 {
				t.Errorf("after kill -9 after %d lines: %d segments without an index, want at most the one left open", lines, open)
			}
		}
		mirrorWARC(t, url, prefix, dir)
		recs := readSegments(t, prefix)
		checkPayloads(t, recs, "resource", ftpPath)
		// Blocks a killed run was spooling lie beside the segments until
		// the next run clears them; the finished rerun leaves none.
		if left, _ := filepath.Glob(filepath.Join(work, ".*spool*")); len(left) != 0 {
			t.Errorf("spool left after the rerun: %v", left)
		}
	}
}

// TestWARCBigFTPFileMemory captures a 1 GiB file: gofer's peak RSS stays
// under 64 MiB, and the record's payload is the file.
func TestWARCBigFTPFileMemory(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPHost+":21")
	const size = 1 << 30
	_, sum := itest.BigFile(t, size)
	work := t.TempDir()
	file := filepath.Join(work, "big.warc.gz")
	url := "ftp://" + itest.FTPHost + "/big/" + strconv.Itoa(size) + ".bin"
	cmd, peak := itest.MeasuredCommand(t, []string{"TMPDIR=" + work}, "get", "-q", "--warc", file, "-o", os.DevNull, url)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	rss, ok := peak()
	if !ok {
		t.Fatal("no peak RSS reported")
	}
	t.Logf("1 GiB into WARC: peak RSS %.1f MiB", float64(rss)/(1<<20))
	if rss > 64<<20 {
		t.Errorf("peak RSS %d MiB, want under 64 MiB", rss>>20)
	}
	found := false
	for _, r := range readWARC(t, file) {
		if r.Type == "resource" {
			found = true
			if r.SHA256 != sum || r.Length != size {
				t.Errorf("record of %d bytes, sha256 %s; want %d, %s", r.Length, r.SHA256, size, sum)
			}
		}
	}
	if !found {
		t.Fatal("no resource record")
	}
}

// TestWARCGetHTTPSAndSearch: get --warc of an https URL records the
// exchange in the clear (the payload is the file), and of a Gopher search
// given with --query records the result under a URI that holds the search.
func TestWARCGetHTTPSAndSearch(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":443")
	itest.Require(t, itest.GopherPlusHost+":70")
	work := t.TempDir()
	file := filepath.Join(work, "https.warc.gz")
	url := "https://" + itest.HTTPHost + "/archive/binary/random-64k.bin"
	res := itest.Run(t, nil, nil, "get", "-q", "--cacert", itest.CertPath(), "--warc", file, "-o", filepath.Join(work, "out"), url)
	if res.Code != 0 {
		t.Fatalf("get --warc %s: exit %d: %s", url, res.Code, res.Stderr)
	}
	types := map[string]int{}
	for _, r := range readWARC(t, file) {
		types[r.Type]++
		if r.Type == "response" && r.SHA256 != itest.Manifest(t)["binary/random-64k.bin"] {
			t.Errorf("https response payload differs from the file")
		}
	}
	if types["request"] != 1 || types["response"] != 1 {
		t.Errorf("records %v, want one request and one response", types)
	}

	file = filepath.Join(work, "search.warc.gz")
	res = itest.Run(t, nil, nil, "get", "-q", "--query", "dots", "--warc", file, "gopher://"+itest.GopherPlusHost+"/7/search")
	if res.Code != 0 {
		t.Fatalf("get --warc search: exit %d: %s", res.Code, res.Stderr)
	}
	var uris []string
	for _, r := range readWARC(t, file) {
		if r.Type == "resource" {
			uris = append(uris, r.URI)
			if !strings.Contains(r.Block, "dots.txt") {
				t.Errorf("search result record holds %q, want the result menu", r.Block)
			}
		}
	}
	if len(uris) != 1 || uris[0] != "gopher://"+itest.GopherPlusHost+"/7/search%09dots" {
		t.Errorf("search records %q, want one for .../7/search%%09dots", uris)
	}
}
