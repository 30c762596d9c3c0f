package integration_test

// gofer against the harness's nginx (integration/LAYOUT.md): identical
// bytes over http and https, resume with Range, redirects followed by
// fetch.Client and the CLI under the guard's policy, and what nginx's access
// log shows was sent (no fragment, the search part, escapes kept).

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
	gohttp "github.com/goferurl/gofer/schemes/http"
)

const (
	httpServer  = itest.HTTPHost + ":80"
	httpsServer = itest.HTTPHost + ":443"
)

// archiveFiles are fetched over both http and https: text, every byte
// value, a megabyte, and names that need escaping (a Latin-1 byte, a space,
// a percent sign, a semicolon).
var archiveFiles = []struct{ urlPath, name string }{
	{"README.txt", "README.txt"},
	{"binary/all-bytes.bin", "binary/all-bytes.bin"},
	{"binary/random-1m.bin", "binary/random-1m.bin"},
	{"text/crlf.txt", "text/crlf.txt"},
	{"names/caf%E9-latin1.txt", "names/caf\xe9-latin1.txt"},
	{"names/with%20space.txt", "names/with space.txt"},
	{"names/100%25.txt", "names/100%.txt"},
	{"names/semi%3Bcolon.txt", "names/semi;colon.txt"},
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func harnessTLS(t *testing.T) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(itest.CertPath())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", itest.CertPath())
	}
	return &tls.Config{RootCAs: pool}
}

func TestGoferHTTPAndHTTPSIdenticalBytes(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, httpServer)
	itest.Require(t, httpsServer)
	manifest := itest.Manifest(t)
	dir := t.TempDir()
	for _, scheme := range []string{"http", "https"} {
		for i, f := range archiveFiles {
			want, ok := manifest[f.name]
			if !ok {
				t.Fatalf("%q is not in the manifest", f.name)
			}
			out := filepath.Join(dir, fmt.Sprintf("%s-%d", scheme, i))
			u := scheme + "://" + itest.HTTPHost + "/archive/" + f.urlPath
			code, _, errOut := runCLI(t, dir, nil, "get", "-q", "--cacert", itest.CertPath(), "-o", out, u)
			if code != 0 {
				t.Errorf("%s: exit %d stderr %q", u, code, errOut)
				continue
			}
			if got := sha256File(t, out); got != want {
				t.Errorf("%s: sha256 %s, want %s", u, got, want)
			}
		}
	}
	// Without the harness's CA the certificate is refused: exit 4.
	code, _, errOut := runCLI(t, dir, nil, "get", "-q", "https://"+itest.HTTPHost+"/archive/README.txt")
	if code != 4 {
		t.Errorf("unknown CA: exit %d stderr %q, want 4", code, errOut)
	}
}

func TestLibraryHTTPSAndConditional(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, httpsServer)
	manifest := itest.Manifest(t)
	c := fetch.NewClient(fetch.Options{TLSConfig: harnessTLS(t)})
	defer c.Close()
	ctx := context.Background()
	resp, err := c.Get(ctx, "https://"+itest.HTTPHost+"/archive/binary/random-64k.bin")
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	_, err = io.Copy(h, resp.Body)
	resp.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != manifest["binary/random-64k.bin"] {
		t.Errorf("sha256 %s, want %s", got, manifest["binary/random-64k.bin"])
	}
	if resp.Size != 65536 || resp.Name != "random-64k.bin" || !resp.Modified.Equal(time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("size %d name %q modified %v", resp.Size, resp.Name, resp.Modified)
	}

	// Unchanged since the archive's mtime: 304, no body.
	resp, err = c.Do(ctx, &fetch.Request{
		URL:  "https://" + itest.HTTPHost + "/archive/README.txt",
		Call: schemes.Call{IfModifiedSince: time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	if !resp.NotModified {
		t.Error("If-Modified-Since the file's own time: not NotModified")
	}
}

// accessLog returns the lines of nginx's access log that contain marker.
func accessLog(t *testing.T, marker string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(itest.LogDir(), "nginx-access.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), marker) {
			lines = append(lines, sc.Text())
		}
	}
	return lines
}

func TestGoferHTTPResumeAfterCut(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, httpServer)
	manifest := itest.Manifest(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "binary", "random-1m.bin"))
	if err != nil {
		t.Fatal(err)
	}
	// What a transfer cut at byte 300000 leaves behind.
	const cut = 300000
	part := filepath.Join(dir, "random-1m.bin")
	if err := os.WriteFile(part, src[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	// A marker in the search part finds this request in the access log.
	marker := fmt.Sprintf("resume%d", time.Now().UnixNano())
	u := "http://" + itest.HTTPHost + "/archive/binary/random-1m.bin?" + marker
	code, _, errOut := runCLI(t, dir, nil, "get", "-q", "-C", "-o", part, u)
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	if got := sha256File(t, part); got != manifest["binary/random-1m.bin"] {
		t.Errorf("resumed file sha256 %s, want %s", got, manifest["binary/random-1m.bin"])
	}
	lines := accessLog(t, marker)
	if len(lines) != 1 || !strings.Contains(lines[0], fmt.Sprintf(`" 206 %d "bytes=%d-"`, len(src)-cut, cut)) {
		t.Errorf("access log %q: want one 206 of %d bytes for Range bytes=%d-", lines, len(src)-cut, cut)
	}
}

func TestGoferHTTPRequestLine(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, httpServer)
	marker := fmt.Sprintf("line%d", time.Now().UnixNano())
	dir := t.TempDir()
	u := "http://" + itest.HTTPHost + "/archive/names/with%20space.txt?q=" + marker + "&x=%2F#frag-" + marker
	code, out, errOut := runCLI(t, dir, nil, "get", u)
	if code != 0 || out != "this file is named with space.txt\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	lines := accessLog(t, marker)
	want := `"GET /archive/names/with%20space.txt?q=` + marker + `&x=%2F HTTP/1.1"`
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("access log %q, want the request line %s", lines, want)
	}
	for _, l := range lines {
		if strings.Contains(l, "#") || strings.Contains(l, "frag-") {
			t.Errorf("the fragment was sent: %q", l)
		}
	}
}

func TestGoferHTTPRedirects(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, httpServer)
	readme, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := "http://" + itest.HTTPHost
	cases := []struct {
		path string
		code int
		out  string
	}{
		{"/redirect/1", 0, string(readme)},   // relative, absolute, 307
		{hopsPath(t, 10), 0, string(readme)}, // exactly ten redirects
		{hopsPath(t, 11), 5, ""},             // one too many
		{"/loop", 5, ""},
		{"/tofile", 3, ""}, // never to file:
		{"/status/404", 5, ""},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, dir, nil, "get", base+c.path)
		if code != c.code || out != c.out {
			t.Errorf("%s: exit %d stdout %d bytes stderr %q; want exit %d and %d bytes", c.path, code, len(out), errOut, c.code, len(c.out))
		}
		if c.path == "/status/404" && !strings.Contains(errOut, "404 Not Found") {
			t.Errorf("404: stderr %q lacks the status line", errOut)
		}
	}
	// /tofile: refused before anything is read from /etc/passwd.
	code, out, errOut := runCLI(t, dir, nil, "get", base+"/tofile")
	if code != 3 || strings.Contains(out, "root:") || !strings.Contains(errOut, "file") {
		t.Errorf("/tofile: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// redirectCount walks a redirect chain on nginx one response at a time with
// the http fetcher alone (which never follows) and counts its redirects.
func redirectCount(t *testing.T, path string) int {
	t.Helper()
	f := gohttp.New()
	defer f.Close()
	for n := 0; n < 50; n++ {
		u := &schemes.URL{Scheme: "http", Host: itest.HTTPHost, HTTP: &schemes.HTTP{Path: path}}
		resp, err := f.Fetch(context.Background(), &schemes.Request{URL: u})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		resp.Close()
		if resp.Kind != schemes.KindRedirect {
			return n
		}
		path = strings.TrimPrefix(resp.Location, "http://"+itest.HTTPHost)
		if !strings.HasPrefix(path, "/") {
			t.Fatalf("unexpected Location %q", resp.Location)
		}
	}
	t.Fatalf("%s: no end to the chain", path)
	return 0
}

// hopsPath is the /hops/N path whose chain has exactly n redirects.
func hopsPath(t *testing.T, n int) string {
	t.Helper()
	for k := n - 1; k <= n+1; k++ {
		p := fmt.Sprintf("/hops/%d", k)
		if redirectCount(t, p) == n {
			return p
		}
	}
	t.Fatalf("no /hops/N path with %d redirects", n)
	return ""
}

func TestLibraryRedirectChain(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, httpServer)
	readme, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	c := fetch.NewClient(fetch.Options{Warn: func(m string) { warnings = append(warnings, m) }})
	defer c.Close()
	resp, err := c.Get(context.Background(), "http://"+itest.HTTPHost+"/redirect/1")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Close()
	if err != nil || string(body) != string(readme) {
		t.Errorf("redirect chain: %v, %d bytes, want README.txt (%d bytes)", err, len(body), len(readme))
	}
	if resp.Name != "README.txt" {
		t.Errorf("final name %q", resp.Name)
	}

	_, err = c.Get(context.Background(), "http://"+itest.HTTPHost+"/tofile")
	if err == nil {
		t.Fatal("/tofile followed")
	}
	if errors.Is(err, schemes.ErrRefused) || errors.Is(err, schemes.ErrConnect) {
		t.Errorf("/tofile: %v, want the guard's refusal", err)
	}
}

// TestGoferParseHTTP: the request line parse shows is what a fetch sends:
// escapes kept, search sent, fragment not.
func TestGoferParseHTTP(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	code, out, errOut := runCLI(t, t.TempDir(), nil, "parse", "--json", "http://127.0.0.80:8080/a%20b/c%2Fd?x=1#frag")
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
	var doc struct {
		Requests []string          `json:"requests"`
		Notes    map[string]string `json:"notes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Requests) != 1 || doc.Requests[0] != "GET /a%20b/c%2Fd?x=1 HTTP/1.1" || doc.Notes["host"] != "Host: 127.0.0.80:8080" {
		t.Errorf("requests %q notes %v", doc.Requests, doc.Notes)
	}
}
