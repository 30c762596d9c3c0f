package integration_test

// gofer get against the harness's vsftpd (integration/LAYOUT.md): files
// byte-identical with the archive manifest, every odd name, listings as
// text and JSON, logins, the documented exit codes, resume after a cut at a
// random offset, a 1 GiB file in bounded memory, explicit and implicit TLS.

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
)

const ftpServer = itest.FTPHost + ":21"

// ftpURLOf is the URL of an archive path (or a directory, with a trailing
// "/"), every segment escaped by gofer's own URL writer.
func ftpURLOf(host, p string) string {
	segs := strings.Split(p, "/")
	u := &schemes.URL{Scheme: "ftp", Host: host, FTP: &schemes.FTP{Segments: segs}}
	return u.String()
}

// TestGoferFTPFilesIdentical fetches every file outside tree/ (text with
// CR LF and dot lines, every byte value, random binaries, each odd name:
// spaces, '%', ';', '#', '?', Latin-1 and UTF-8 bytes) with gofer get -o
// and compares each with the manifest.
func TestGoferFTPFilesIdentical(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	manifest := itest.Manifest(t)
	var paths []string
	for p := range manifest {
		if !strings.HasPrefix(p, "tree/") {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	dir := t.TempDir()
	names := 0
	for i, p := range paths {
		out := filepath.Join(dir, strconv.Itoa(i))
		u := ftpURLOf(itest.FTPHost, "archive/"+p)
		code, _, errOut := runCLI(t, dir, nil, "get", "-q", "-o", out, u)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", u, code, errOut)
			continue
		}
		if got := sha256File(t, out); got != manifest[p] {
			t.Errorf("%s: sha256 %s, want %s", u, got, manifest[p])
		}
		if strings.HasPrefix(p, "names/") {
			names++
		}
	}
	if names < 20 {
		t.Errorf("only %d odd names fetched", names)
	}
}

// TestGoferFTPStdoutText: a text file to stdout, as it is on disk (a URL
// without ;type= is fetched in TYPE I).
func TestGoferFTPStdoutText(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	for _, p := range []string{"text/crlf.txt", "text/dots.txt", "README.txt"} {
		want, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), p))
		if err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, t.TempDir(), nil, "get", ftpURLOf(itest.FTPHost, "archive/"+p))
		if code != 0 || out != string(want) {
			t.Errorf("%s: exit %d, %d bytes (want %d): %s", p, code, len(out), len(want), errOut)
		}
	}
}

func TestGoferFTPListingText(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	code, out, errOut := runCLI(t, t.TempDir(), nil, "get", "ftp://"+itest.FTPHost+"/archive/names/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	disk, err := os.ReadDir(filepath.Join(itest.ArchiveDir(), "names"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(disk) {
		t.Errorf("%d lines for %d entries:\n%s", len(lines), len(disk), out)
	}
	for _, d := range disk {
		// The name column shows bytes that are not UTF-8 as \xHH; the URL
		// column names the entry exactly.
		u := ftpURLOf(itest.FTPHost, "archive/names/"+d.Name())
		typ := "file "
		if d.IsDir() {
			u += "/"
			typ = "dir "
		}
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, typ) && strings.HasSuffix(l, "  "+u) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %sline for %q with URL %s", typ, d.Name(), u)
		}
	}
}

func TestGoferFTPListingJSON(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	code, out, errOut := runCLI(t, t.TempDir(), nil, "get", "--json", "ftp://"+itest.FTPHost+"/archive/text/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var listing struct {
		URL     string `json:"url"`
		Entries []struct {
			Name     string `json:"name"`
			Type     string `json:"type"`
			URL      string `json:"url"`
			Size     *int64 `json:"size"`
			Modified string `json:"modified"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &listing); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if listing.URL != "ftp://"+itest.FTPHost+"/archive/text/" {
		t.Errorf("url %q", listing.URL)
	}
	disk, _ := os.ReadDir(filepath.Join(itest.ArchiveDir(), "text"))
	if len(listing.Entries) != len(disk) {
		t.Errorf("%d entries, %d on disk", len(listing.Entries), len(disk))
	}
	for _, e := range listing.Entries {
		fi, err := os.Stat(filepath.Join(itest.ArchiveDir(), "text", e.Name))
		if err != nil {
			t.Errorf("entry %q: %v", e.Name, err)
			continue
		}
		if e.Type != "file" || e.Size == nil || *e.Size != fi.Size() || e.Modified != "1994-12-20T00:00:00Z" ||
			e.URL != "ftp://"+itest.FTPHost+"/archive/text/"+e.Name {
			t.Errorf("entry %+v (size on disk %d)", e, fi.Size())
		}
	}
}

// TestGoferFTPLocalUser logs in as the local user from the URL and from a
// netrc file; -v shows the conversation with the password masked.
func TestGoferFTPLocalUser(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	dir := t.TempDir()
	u := "ftp://" + itest.LocalUser + ":" + itest.LocalPassword + "@" + itest.FTPHost + "/private.txt"
	code, out, errOut := runCLI(t, dir, nil, "get", "-v", u)
	if code != 0 || out != "only a logged-in user sees this file\n" {
		t.Fatalf("exit %d stdout %q stderr %s", code, out, errOut)
	}
	if strings.Contains(errOut, itest.LocalPassword) || !strings.Contains(errOut, "PASS ****") || !strings.Contains(errOut, "USER gofer") {
		t.Errorf("-v transcript must show USER and mask the password:\n%s", errOut)
	}

	netrc := filepath.Join(dir, "netrc")
	os.WriteFile(netrc, []byte("machine "+itest.FTPHost+" login "+itest.LocalUser+" password "+itest.LocalPassword+"\n"), 0o600)
	code, out, errOut = runCLI(t, dir, nil, "get", "--netrc-file", netrc, "ftp://"+itest.FTPHost+"/sub/gggg.txt")
	if code != 0 || out != strings.Repeat("g", 4096) {
		t.Fatalf("netrc login: exit %d, %d bytes, stderr %s", code, len(out), errOut)
	}
}

func TestGoferFTPWrongPasswordExit6(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	u := "ftp://" + itest.LocalUser + ":wrong@" + itest.FTPHost + "/private.txt"
	code, _, errOut := runCLI(t, t.TempDir(), nil, "get", u)
	if code != 6 || !strings.Contains(errOut, "530 Login incorrect.") || strings.Contains(errOut, ":wrong@") {
		t.Fatalf("exit %d, stderr %q: want 6 with the server's text and no password", code, errOut)
	}
}

func TestGoferFTPUserWithoutPasswordExit6(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	code, _, errOut := runCLI(t, t.TempDir(), nil, "get", "ftp://"+itest.LocalUser+"@"+itest.FTPHost+"/private.txt")
	if code != 6 || !strings.Contains(errOut, "password") {
		t.Fatalf("exit %d, stderr %q: want 6 saying a password is needed", code, errOut)
	}
}

func TestGoferFTPMissingExit5(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI(t, dir, nil, "get", "-o", out, "ftp://"+itest.FTPHost+"/archive/no-such-file.bin")
	if code != 5 || !strings.Contains(errOut, "550 Failed to open file.") {
		t.Fatalf("exit %d, stderr %q: want 5 with the server's text", code, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
}

// TestGoferFTPDirectoryWithoutSlash: archive/text names a directory; RETR
// is refused, CWD accepted, and gofer lists it.
func TestGoferFTPDirectoryWithoutSlash(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	code, out, errOut := runCLI(t, t.TempDir(), nil, "get", "ftp://"+itest.FTPHost+"/archive/text")
	if code != 0 || !strings.Contains(out, "ftp://"+itest.FTPHost+"/archive/text/dots.txt") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestGoferFTPResumeAfterCut cuts a real transfer at a random offset: the
// test reads that many bytes of gofer's stdout, keeps them as the partial
// file, and interrupts gofer (exit 8). gofer get -C then completes the
// file from there with REST, byte-identical.
func TestGoferFTPResumeAfterCut(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	const size = 64 << 20
	_, sum := itest.BigFile(t, size)
	u := "ftp://" + itest.FTPHost + "/big/" + strconv.Itoa(size) + ".bin"
	// The cut leaves at least 8 MiB unsent: less than that can already lie
	// in the socket's and the pipe's buffers when the interrupt comes, and
	// then the transfer rightly ends whole.
	off := 1 + rand.Int64N(size-8<<20)
	dir := t.TempDir()
	out := filepath.Join(dir, "big.bin")

	cmd := exec.CommandContext(itest.Context(t), itest.Gofer(t), "get", "-q", u)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	part, err := os.Create(out + ".part")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(part, stdout, off); err != nil {
		t.Fatal(err)
	}
	part.Close()
	cmd.Process.Signal(os.Interrupt)
	io.Copy(io.Discard, stdout)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 8 {
		t.Errorf("interrupted transfer: exit %d, want 8", code)
	}

	code, _, errOut := runCLI(t, dir, nil, "get", "-q", "-C", "-o", out, u)
	if code != 0 {
		t.Fatalf("resume from %d: exit %d: %s", off, code, errOut)
	}
	if got := sha256File(t, out); got != sum {
		t.Fatalf("resumed from %d: sha256 %s, want %s", off, got, sum)
	}
	t.Logf("cut at byte %d, resumed to an identical file", off)
}

// TestGoferFTPOneGiBInBoundedMemory streams a 1 GiB file to disk and reads
// the process's peak RSS from the kernel's rusage.
func TestGoferFTPOneGiBInBoundedMemory(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	if testing.Short() {
		t.Skip("1 GiB transfer")
	}
	const size = 1 << 30
	_, sum := itest.BigFile(t, size)
	dir := t.TempDir()
	out := filepath.Join(dir, "big.bin")
	cmd, peak := itest.MeasuredCommand(t, nil, "get", "-q", "-o", out, "ftp://"+itest.FTPHost+"/big/"+strconv.Itoa(size)+".bin")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	rss, ok := peak()
	if !ok {
		t.Fatal("no peak RSS reported")
	}
	t.Logf("1 GiB: peak RSS %.1f MiB", float64(rss)/(1<<20))
	if rss > 64<<20 {
		t.Errorf("peak RSS %d MiB, want under 64 MiB", rss>>20)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() != size {
		t.Fatalf("output: %v", err)
	}
	if got := sha256File(t, out); got != sum {
		t.Fatalf("sha256 %s, want %s", got, sum)
	}
}

// TestGoferFTPExplicitTLS: --ftp-ssl with the harness's self-signed
// certificate as --cacert; without it the certificate is refused, and the
// password never crosses in plain text (AUTH TLS comes before USER).
func TestGoferFTPExplicitTLS(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	manifest := itest.Manifest(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	u := "ftp://" + itest.FTPHost + "/archive/binary/random-1m.bin"
	code, _, errOut := runCLI(t, dir, nil, "get", "-v", "--ftp-ssl", "--cacert", itest.CertPath(), "-o", out, u)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := sha256File(t, out); got != manifest["binary/random-1m.bin"] {
		t.Errorf("sha256 %s over TLS", got)
	}
	auth, user := strings.Index(errOut, "AUTH TLS"), strings.Index(errOut, "USER anonymous")
	if auth < 0 || user < auth || !strings.Contains(errOut, "PROT P") {
		t.Errorf("transcript: want AUTH TLS before USER and PROT P:\n%s", errOut)
	}
	code, _, errOut = runCLI(t, dir, nil, "get", "--ftp-ssl", "-o", out+"2", u)
	if code == 0 {
		t.Errorf("a self-signed certificate was accepted without --cacert: %s", errOut)
	}
}

func TestGoferFTPImplicitTLS(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPSHost+":990")
	manifest := itest.Manifest(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errOut := runCLI(t, dir, nil, "get", "--cacert", itest.CertPath(), "-o", out,
		"ftps://"+itest.FTPSHost+"/archive/binary/all-bytes.bin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := sha256File(t, out); got != manifest["binary/all-bytes.bin"] {
		t.Errorf("sha256 %s over implicit TLS", got)
	}
}

// TestGoferFTPParse: the three CWD examples of RFC 1738 §3.2.2 and the
// type codes, planned without a network.
func TestGoferFTPParse(t *testing.T) {
	itest.Parallel(t)
	requireCLI(t)
	for url, want := range map[string][]string{
		"ftp://127.0.0.21/etc/motd":         {"USER anonymous", "PASS gofer@example.org", "CWD etc", "TYPE I", "RETR motd"},
		"ftp://127.0.0.21//etc/motd":        {"USER anonymous", "PASS gofer@example.org", "CWD ", "CWD etc", "TYPE I", "RETR motd"},
		"ftp://127.0.0.21/%2Fetc/motd":      {"USER anonymous", "PASS gofer@example.org", "CWD /etc", "TYPE I", "RETR motd"},
		"ftp://u:p@127.0.0.21/a/b;type=a":   {"USER u", "PASS ****", "CWD a", "TYPE A", "RETR b"},
		"ftp://127.0.0.21/pub/;type=d":      {"USER anonymous", "PASS gofer@example.org", "CWD pub", "NLST"},
		"ftp://127.0.0.21/pub/x;type=d":     {"USER anonymous", "PASS gofer@example.org", "CWD pub", "NLST x"},
		"ftp://127.0.0.21/pub/":             {"USER anonymous", "PASS gofer@example.org", "CWD pub", "LIST"},
		"ftp://127.0.0.21/notes/README.txt": {"USER anonymous", "PASS gofer@example.org", "CWD notes", "TYPE I", "RETR README.txt"},
	} {
		code, out, errOut := runCLI(t, t.TempDir(), nil, "parse", "--json", "--email", "gofer@example.org", url)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", url, code, errOut)
			continue
		}
		var p struct {
			Requests []string `json:"requests"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Errorf("%s: %v: %s", url, err, out)
			continue
		}
		if strings.Join(p.Requests, "|") != strings.Join(want, "|") {
			t.Errorf("%s: requests %q, want %q", url, p.Requests, want)
		}
	}
}
