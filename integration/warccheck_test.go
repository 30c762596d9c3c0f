package integration_test

// gofer warc check against WARCs captured from the real servers
// (integration/LAYOUT.md) in every protocol, plain and over TLS, each
// record carrying the WARC-Protocol fields its connection calls for; and
// against wget's WARCs of the same servers. An archive with one byte of a
// payload changed, and a segment whose index was altered, fail the check,
// which names the problem.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/warc"
)

// warcCheck runs gofer warc check and returns its exit code and stderr.
func warcCheck(t *testing.T, archives ...string) (int, string) {
	t.Helper()
	r := itest.Run(t, nil, nil, append([]string{"warc", "check"}, archives...)...)
	return r.Code, r.Stderr
}

// protocolsOf returns, per record but the warcinfo, "TYPE URI: PROTOCOLS".
func protocolsOf(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	err := warc.Walk(path, false, func(e warc.Entry, rec gowarc.WarcRecord) error {
		if e.Type != "warcinfo" {
			out = append(out, e.Type+" "+e.URI+": "+strings.Join(rec.WarcHeader().GetAll(warc.FieldProtocol), " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWARCCheckCaptures(t *testing.T) {
	itest.Parallel(t)
	for _, a := range []string{itest.FTPHost + ":21", itest.FTPSHost + ":990", itest.GopherHost + ":70",
		itest.GopherPlusHost + ":70", gophersAddr, itest.HTTPHost + ":80", itest.HTTPHost + ":443",
		itest.NNTPHost + ":119", geminiAddr} {
		itest.Require(t, a)
	}
	work := t.TempDir()
	geminiConfig, _ := geminiEnv(t)
	ca := []string{"--cacert", itest.CertPath()}
	for _, c := range []struct {
		name   string
		args   []string // after get --warc FILE, or mirror --warc PREFIX ... DIR
		mirror bool
		env    []string
		proto  string // every record's WARC-Protocol fields
	}{
		{"ftp", []string{"ftp://" + itest.FTPHost + "/archive/text/"}, true, nil, "ftp"},
		{"ftp-auth-tls", append(ca, "--ftp-ssl", "ftp://"+itest.FTPHost+"/archive/text/plain.txt"), false, nil, "ftp tls/1.[23]"},
		{"ftps", append(ca, "ftps://"+itest.FTPSHost+"/archive/text/plain.txt"), false, nil, "ftp tls/1.[23]"},
		{"gopher", []string{"gopher://" + itest.GopherHost + "/1/archive/text", "gopher://" + itest.GopherHost + "/0/archive/text/plain.txt"}, false, nil, "gopher"},
		{"gopher-plus", []string{"gopher://" + itest.GopherPlusHost + "/0/about.txt%09%09!", "gopher://" + itest.GopherPlusHost + "/0/about.txt"}, false, nil, "gopher"},
		{"gophers", []string{"--cacert", gophersCA(), "gophers://" + itest.GophersHost + "/0/archive/README.txt"}, false, nil, "gopher tls/1.[23]"},
		{"http", []string{"http://" + itest.HTTPHost + "/archive/text/"}, true, nil, "http/1.1"},
		{"https", append(ca, "https://"+itest.HTTPHost+"/archive/text/plain.txt"), false, nil, "http/1.1 tls/1.[23]"},
		{"nntp", []string{"nntp://" + itest.NNTPHost + "/gofer.test/1", "nntp://" + itest.NNTPHost + "/gofer.test/2"}, false, nil, "nntp"},
		{"gemini", []string{geminiRoot + "archive/README.txt", geminiRoot + "archive/text/plain.txt"}, false, geminiConfig, "gemini tls/1.[23]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var archive string
			var files []string
			if c.mirror {
				archive = filepath.Join(work, c.name)
				mirrorWARC(t, c.args[0], archive, filepath.Join(work, c.name+"-tree"))
				files, _ = warc.Segments(archive)
			} else {
				archive = filepath.Join(work, c.name+".warc.gz")
				args := append([]string{"get", "-q", "--warc", archive, "-O"}, c.args...)
				res := itest.RunIn(t, t.TempDir(), nil, c.env, args...)
				if res.Code != 0 {
					t.Fatalf("gofer get --warc: exit %d: %s", res.Code, res.Stderr)
				}
				files = []string{archive}
			}
			if code, stderr := warcCheck(t, archive); code != 0 || stderr != "" {
				t.Errorf("warc check %s: exit %d:\n%s", c.name, code, stderr)
			}
			want := regexp.MustCompile(": " + c.proto + "$")
			n := 0
			for _, f := range files {
				for _, p := range protocolsOf(t, f) {
					n++
					if !want.MatchString(p) {
						t.Errorf("%s: WARC-Protocol of %q, want %q", filepath.Base(f), p, c.proto)
					}
				}
			}
			if n == 0 {
				t.Error("no records")
			}
		})
	}
}

// wgetWARC runs wget with --warc-file in a directory of its own and
// returns the WARC it wrote.
func wgetWARC(t *testing.T, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("wget"); err != nil {
		t.Skip("no wget")
	}
	dir := t.TempDir()
	cmd := exec.Command("wget", append([]string{"-q", "--warc-file=" + name}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wget %q: %v: %s", args, err, out)
	}
	return filepath.Join(dir, name+".warc.gz")
}

// TestWARCCheckWget: wget's WARCs of the HTTP tree and of an FTP file
// pass (WARC/1.0, no CDXJ index beside them, wget's own metadata and log
// records).
func TestWARCCheckWget(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	itest.Require(t, itest.FTPHost+":21")
	for _, f := range []string{
		wgetWARC(t, "http", "-r", "-np", "http://"+itest.HTTPHost+"/archive/text/"),
		wgetWARC(t, "ftp", "ftp://"+itest.FTPHost+"/archive/text/plain.txt"),
	} {
		if code, stderr := warcCheck(t, f); code != 0 || stderr != "" {
			t.Errorf("warc check %s: exit %d:\n%s", f, code, stderr)
		}
	}
}

// rewriteGzipMember replaces old by new in the first gzip member of path
// that holds it, compressing that member again.
func rewriteGzipMember(t *testing.T, path, old, new string) {
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

// TestWARCCheckFindsDamage: one byte of a payload changed, in a gofer WARC
// and in wget's, and a segment's index altered, each fail the check with
// a line naming the file, the record and the problem.
func TestWARCCheckFindsDamage(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPHost+":80")
	itest.Require(t, itest.FTPHost+":21")
	work := t.TempDir()
	u := "http://" + itest.HTTPHost + "/archive/text/plain.txt"
	file := filepath.Join(work, "one.warc.gz")
	if res := itest.Run(t, nil, nil, "get", "-q", "--warc", file, "-o", filepath.Join(work, "out"), u); res.Code != 0 {
		t.Fatalf("get --warc: exit %d: %s", res.Code, res.Stderr)
	}
	plain, err := os.ReadFile(filepath.Join(work, "out"))
	if err != nil || len(plain) < 10 {
		t.Fatalf("fetched %d bytes: %v", len(plain), err)
	}
	line := string(plain[:bytes.IndexByte(plain, '\n')])
	changed := strings.Replace(line, line[len(line)/2:len(line)/2+1], "#", 1)
	rewriteGzipMember(t, file, line, changed)
	code, stderr := warcCheck(t, file)
	if code != 1 || !strings.Contains(stderr, file+": record 3 (offset ") ||
		!strings.Contains(stderr, u+"): WARC-Payload-Digest sha1:") || !strings.Contains(stderr, "does not match the payload") {
		t.Errorf("a changed payload: exit %d:\n%s", code, stderr)
	}

	wf := wgetWARC(t, "http", "http://"+itest.HTTPHost+"/archive/text/plain.txt")
	rewriteGzipMember(t, wf, line, changed)
	if code, stderr := warcCheck(t, wf); code != 1 || !strings.Contains(stderr, "WARC-Block-Digest") {
		t.Errorf("wget's WARC with a changed payload: exit %d:\n%s", code, stderr)
	}

	prefix := filepath.Join(work, "crawl")
	mirrorWARC(t, "ftp://"+itest.FTPHost+"/archive/text/", prefix, filepath.Join(work, "tree"))
	idx := warc.IndexName(warc.SegmentName(prefix, 0))
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	altered := regexp.MustCompile(`"length":(\d)`).ReplaceAllString(string(data), `"length":9$1`)
	if err := os.WriteFile(idx, []byte(altered), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr = warcCheck(t, prefix)
	if code != 1 || !strings.Contains(stderr, "index crawl-00000.cdxj: length is ") {
		t.Errorf("an altered index: exit %d:\n%s", code, stderr)
	}
}
