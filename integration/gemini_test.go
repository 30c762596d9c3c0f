package integration_test

// gemini: against molly-brown (127.0.0.196:1965, integration/lib/gemini.sh)
// through the gofer command: pages and files, trust on first use, input,
// redirects, client certificates, the mirror and WARC capture.

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

const geminiRoot = "gemini://" + itest.GeminiHost + "/"

// geminiEnv is a configuration directory of the test's own, so that each
// test starts with no pins (or the ones it writes).
func geminiEnv(t *testing.T) (env []string, knownHosts string) {
	dir := t.TempDir()
	return []string{"XDG_CONFIG_HOME=" + dir}, filepath.Join(dir, "gofer", "known_hosts")
}

func TestGeminiGet(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	env, known := geminiEnv(t)
	for _, rel := range []string{"README.txt", "binary/all-bytes.bin", "binary/random-64k.bin", "text/crlf.txt", "names/café-utf8.txt"} {
		r := itest.Run(t, nil, env, "get", geminiRoot+"archive/"+rel)
		if r.Code != 0 || sha([]byte(r.Stdout)) != itest.Manifest(t)[rel] {
			t.Errorf("%s: exit %d, %d bytes (%s)", rel, r.Code, len(r.Stdout), r.Reason())
		}
	}
	// First use pinned the server's certificate.
	pins, err := os.ReadFile(known)
	if err != nil || !strings.Contains(string(pins), geminiAddr+" "+geminiFingerprint(t)+" ") {
		t.Errorf("known_hosts after first use: %v\n%s", err, pins)
	}

	// The page: headings, list, quote and preformatted lines as written,
	// links numbered and resolved.
	r := itest.Run(t, nil, env, "get", geminiRoot)
	for _, want := range []string{"# gofer integration capsule", "  \u2022 the sample archive", "  \u2502 A quote line",
		"   | 1965 |   # not a heading", "=> not a link either",
		"[1] The sample archive  <gemini://127.0.0.196/archive/>", "<gemini://127.0.0.196/caf%C3%A9.gmi>"} {
		if r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("page: exit %d, no %q in:\n%s%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
	// --json: the links as entries, nothing else.
	r = itest.Run(t, nil, env, "get", "--json", geminiRoot)
	var page struct {
		Entries []struct{ Name, URL, Type, Gemini string }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &page); err != nil || r.Code != 0 {
		t.Fatalf("--json: exit %d, %v:\n%s", r.Code, err, r.Stdout)
	}
	if len(page.Entries) != 11 || page.Entries[0].URL != geminiRoot+"archive/" || page.Entries[0].Type != "dir" {
		t.Errorf("--json: %d entries, first %+v", len(page.Entries), page.Entries)
	}
	for _, e := range page.Entries {
		if e.Gemini != "link" {
			t.Errorf("--json entry that is no link: %+v", e)
		}
	}
	// Saved to a file, a page keeps its bytes.
	out := filepath.Join(t.TempDir(), "index.gmi")
	r = itest.Run(t, nil, env, "get", "-o", out, geminiRoot)
	want, _ := os.ReadFile(filepath.Join(itest.StateDir(), "srv", "gemini", "index.gmi"))
	if got, _ := os.ReadFile(out); r.Code != 0 || len(want) == 0 || string(got) != string(want) {
		t.Errorf("-o page: exit %d, %d bytes, want the %d of index.gmi (%s)", r.Code, len(got), len(want), r.Reason())
	}
	// A UTF-8 name typed as it reads, or escaped.
	for _, u := range []string{geminiRoot + "café.gmi", geminiRoot + "caf%C3%A9.gmi"} {
		if r := itest.Run(t, nil, env, "get", u); r.Code != 0 || !strings.Contains(r.Stdout, "# Café") {
			t.Errorf("%s: exit %d %q (%s)", u, r.Code, r.Stdout, r.Reason())
		}
	}
	// A missing file is the server's refusal.
	if r := itest.Run(t, nil, env, "get", geminiRoot+"no-such-file"); r.Code != 5 || !strings.Contains(r.Stderr, "51") {
		t.Errorf("missing file: exit %d: %s", r.Code, r.Stderr)
	}
}

// A certificate other than the pinned one is refused (exit 4) with both
// fingerprints named and nothing written; --tofu=accept-new pins the new
// one; an expired pin gives way with a warning.
func TestGeminiTOFU(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	real := geminiFingerprint(t)
	old := "SHA256:" + strings.Repeat("ab", 32)
	write := func(known, expiry string) {
		os.MkdirAll(filepath.Dir(known), 0o700)
		if err := os.WriteFile(known, []byte(geminiAddr+" "+old+" "+expiry+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env, known := geminiEnv(t)
	write(known, "2099-01-01T00:00:00Z")
	out := filepath.Join(t.TempDir(), "readme.txt")
	url := geminiRoot + "archive/README.txt"
	r := itest.Run(t, nil, env, "get", "-o", out, url)
	if r.Code != 4 || !strings.Contains(r.Stderr, old) || !strings.Contains(r.Stderr, real) || !strings.Contains(r.Stderr, "--tofu=accept-new") {
		t.Errorf("changed certificate: exit %d: %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("changed certificate: %s written (%v)", out, err)
	}
	if pins, _ := os.ReadFile(known); !strings.Contains(string(pins), old) {
		t.Errorf("a refusal changed the pins:\n%s", pins)
	}
	r = itest.Run(t, nil, env, "get", "--tofu=accept-new", "-o", out, url)
	if pins, _ := os.ReadFile(known); r.Code != 0 || !strings.Contains(string(pins), real) || strings.Contains(string(pins), old) {
		t.Errorf("accept-new: exit %d (%s), pins:\n%s", r.Code, r.Reason(), pins)
	}
	if got, _ := os.ReadFile(out); sha(got) != itest.Manifest(t)["README.txt"] {
		t.Errorf("accept-new: %d bytes written", len(got))
	}

	env, known = geminiEnv(t)
	write(known, "2001-01-01T00:00:00Z")
	r = itest.Run(t, nil, env, "get", url)
	if pins, _ := os.ReadFile(known); r.Code != 0 || !strings.Contains(r.Stderr, "expired") || !strings.Contains(string(pins), real) {
		t.Errorf("expired pin: exit %d: %s\npins:\n%s", r.Code, r.Stderr, pins)
	}

	// CA verification instead: the server's certificate is its own CA.
	env, _ = geminiEnv(t)
	if r := itest.Run(t, nil, env, "get", "--gemini-verify", "ca", "--cacert", itest.GeminiCertPath(), url); r.Code != 0 {
		t.Errorf("--gemini-verify ca --cacert: exit %d (%s)", r.Code, r.Reason())
	}
	if r := itest.Run(t, nil, env, "get", "--gemini-verify", "ca", url); r.Code != 4 || r.Stdout != "" {
		t.Errorf("--gemini-verify ca, unknown CA: exit %d stdout %q: %s", r.Code, r.Stdout, r.Reason())
	}
}

func TestGeminiInputRedirectsCertificates(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	env, _ := geminiEnv(t)
	if r := itest.Run(t, nil, env, "get", "--query", "Ada Lovelace", geminiRoot+"cgi-bin/ask"); r.Code != 0 || !strings.Contains(r.Stdout, "# Hello, Ada Lovelace") {
		t.Errorf("input: exit %d %q (%s)", r.Code, r.Stdout, r.Reason())
	}
	if r := itest.Run(t, nil, env, "get", "--form", "Password?=hunter2", geminiRoot+"cgi-bin/secret"); r.Code != 0 || r.Stdout != "secret accepted: 7 characters\n" {
		t.Errorf("sensitive input: exit %d %q (%s)", r.Code, r.Stdout, r.Reason())
	}
	if r := itest.Run(t, nil, env, "get", geminiRoot+"cgi-bin/ask"); r.Code != 2 || !strings.Contains(r.Stderr, "What is your name?") {
		t.Errorf("input without an answer: exit %d: %s", r.Code, r.Stderr)
	}
	// Redirects: followed, a loop refused.
	if r := itest.Run(t, nil, env, "get", "-v", geminiRoot+"old"); r.Code != 0 || !strings.Contains(r.Stdout, "# gofer integration capsule") ||
		!strings.Contains(r.Stderr, "< 30 gemini://127.0.0.196/index.gmi") {
		t.Errorf("redirect: exit %d: %s", r.Code, r.Stderr)
	}
	if r := itest.Run(t, nil, env, "get", geminiRoot+"loop-a"); r.Code != 5 || !strings.Contains(r.Stderr, "redirect loop") {
		t.Errorf("redirect loop: exit %d: %s", r.Code, r.Stderr)
	}
	if r := itest.Run(t, nil, env, "get", "--max-redirects", "1", geminiRoot+"loop-a"); r.Code != 5 || !strings.Contains(r.Stderr, "more than 1 redirects") {
		t.Errorf("--max-redirects 1: exit %d: %s", r.Code, r.Stderr)
	}
	if r := itest.Run(t, nil, env, "get", "--max-redirects", "0", geminiRoot+"old"); r.Code != 0 || r.Stdout != "" ||
		!strings.Contains(r.Stderr, "redirects to gemini://127.0.0.196/index.gmi") {
		t.Errorf("--max-redirects 0: exit %d %q: %s", r.Code, r.Stdout, r.Stderr)
	}
	// A certificate zone: 60 without an identity (exit 6), the page with one.
	out := filepath.Join(t.TempDir(), "private.gmi")
	if r := itest.Run(t, nil, env, "get", "-o", out, geminiRoot+"private/"); r.Code != 6 || !strings.Contains(r.Stderr, "client certificate") {
		t.Errorf("zone without identity: exit %d: %s", r.Code, r.Stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("zone without identity: %s written (%v)", out, err)
	}
	r := itest.Run(t, nil, env, "get", "--client-cert", itest.GeminiClientCertPath(), "--client-key", itest.GeminiClientKeyPath(), geminiRoot+"private/")
	if r.Code != 0 || !strings.Contains(r.Stdout, "# Members only") {
		t.Errorf("zone with identity: exit %d %q (%s)", r.Code, r.Stdout, r.Reason())
	}
	// The guard: an encoded CR LF never reaches the server; 1965 is no
	// other protocol's port.
	if r := itest.Run(t, nil, env, "get", geminiRoot+"a%0D%0Ab"); r.Code != 3 {
		t.Errorf("CR LF in the path: exit %d: %s", r.Code, r.Stderr)
	}
	if r := itest.Run(t, nil, env, "get", "gopher://"+itest.GeminiHost+":1965/"); r.Code != 3 {
		t.Errorf("gopher on gemini's port: exit %d: %s", r.Code, r.Stderr)
	}
}

// The mirror of the archive's directory equals the manifest, and an
// unchanged second run installs nothing.
func TestGeminiMirror(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	env, _ := geminiEnv(t)
	dir := t.TempDir()
	r := itest.Run(t, nil, env, "mirror", "-q", geminiRoot+"archive/", dir)
	if r.Code != 0 {
		t.Fatalf("mirror: exit %d (%s)", r.Code, r.Reason())
	}
	// molly-brown links "colon:name.txt" as written, which a URL reader
	// takes for a URL of scheme "colon" (RFC 3986 §4.2): no client reaches it.
	var diffs []string
	for _, d := range itest.DiffTree(t, dir, ".gofer") {
		// Each directory's page is saved as its index.gmi.
		if !strings.Contains(d, "colon:name.txt") && !strings.HasSuffix(d, `/index.gmi"`) && d != `extra: "index.gmi"` {
			diffs = append(diffs, d)
		}
	}
	if len(diffs) > 0 {
		t.Errorf("mirror differs from the manifest:\n%s", strings.Join(diffs, "\n"))
	}
	r = itest.Run(t, nil, env, "mirror", "--json", geminiRoot+"archive/", dir)
	var sum struct{ New, Updated, Failed, Unchanged int }
	if err := json.Unmarshal([]byte(lastLine(r.Stdout)), &sum); err != nil || r.Code != 0 {
		t.Fatalf("second run: exit %d %v: %s", r.Code, err, r.Stdout)
	}
	if sum.New != 0 || sum.Updated != 0 || sum.Failed != 0 || sum.Unchanged < 3000 {
		t.Errorf("unchanged second run: %+v", sum)
	}
}

// A mirror of the capsule's root honours robots.txt, records input pages
// instead of failing on them, and stays on the capsule.
func TestGeminiMirrorRoot(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	env, _ := geminiEnv(t)
	dir := t.TempDir()
	r := itest.Run(t, nil, env, "mirror", "--json", "--exclude", "archive/", geminiRoot, dir)
	var sum struct{ New, Failed, Skipped, Recorded int }
	if err := json.Unmarshal([]byte(lastLine(r.Stdout)), &sum); err != nil {
		t.Fatalf("mirror: exit %d %v: %s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "norobots", "hidden.txt")); !os.IsNotExist(err) || sum.Skipped != 1 {
		t.Errorf("robots.txt: hidden.txt %v, skipped %d", err, sum.Skipped)
	}
	if strings.Contains(r.Stderr, "cgi-bin") || sum.Recorded < 2 {
		t.Errorf("input pages: recorded %d: %s", sum.Recorded, r.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "café.gmi")); err != nil || !strings.Contains(string(b), "# Café") {
		t.Errorf("café.gmi: %v %q", err, b)
	}
	// The zone and the loop fail, and say so.
	if sum.Failed != 2 || r.Code == 0 || !strings.Contains(r.Stdout, "private/") || !strings.Contains(r.Stdout, "redirect loop") {
		t.Errorf("failures: %d, exit %d: %s", sum.Failed, r.Code, r.Stdout)
	}
}

// --warc records the request line and the whole response, which the
// strict reader and warcio read back.
func TestGeminiWARC(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	env, _ := geminiEnv(t)
	path := filepath.Join(t.TempDir(), "gemini.warc.gz")
	url := geminiRoot + "archive/binary/all-bytes.bin"
	r := itest.Run(t, nil, env, "get", "--warc", path, url, geminiRoot)
	if r.Code != 0 {
		t.Fatalf("get --warc: exit %d (%s)", r.Code, r.Reason())
	}
	file, _ := os.ReadFile(filepath.Join(itest.StateDir(), "archive", "binary", "all-bytes.bin"))
	var req, resp, page bool
	for _, rec := range readWARC(t, path) {
		switch {
		case rec.Type == "request" && rec.URI == url:
			req = rec.Block == url+"\r\n" && rec.Mime == "application/gemini;msgtype=request"
		case rec.Type == "response" && rec.URI == url:
			// The payload is the body, after the status line.
			resp = rec.Block == string(file) && rec.SHA256 == itest.Manifest(t)["binary/all-bytes.bin"]
		case rec.Type == "response" && rec.URI == geminiRoot:
			page = strings.HasPrefix(rec.Block, "# gofer integration capsule")
		}
	}
	if !req || !resp || !page {
		t.Errorf("records: request %v, response %v, page %v", req, resp, page)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := io.ReadAll(zr)
	raw := string(all)
	if !strings.Contains(strings.ToLower(raw), "warc-protocol: gemini\r\n") {
		t.Errorf("no WARC-Protocol: gemini field")
	}
	// gofer warc cat gives the body, as it gives an HTTP response's.
	if r := itest.Run(t, nil, nil, "warc", "cat", path, url); r.Code != 0 || r.Stdout != string(file) {
		t.Errorf("warc cat: exit %d, %d bytes (%s)", r.Code, len(r.Stdout), r.Reason())
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
