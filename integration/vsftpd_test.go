package integration_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/ftp"
)

// The FTP fetcher (schemes/ftp) against the real vsftpd of integration/up
// (integration/LAYOUT.md).

const vsftpd = itest.FTPHost + ":21"

func vsftpdReq(segs ...string) *schemes.Request {
	u := &schemes.URL{Scheme: "ftp", Host: itest.FTPHost, FTP: &schemes.FTP{Segments: segs}}
	return &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: &dial.Dialer{}, IdleTimeout: 30 * time.Second}}
}

func vsftpdSHA(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func vsftpdBytes(t *testing.T, f *ftp.Fetcher, req *schemes.Request) (*schemes.Response, []byte, error) {
	t.Helper()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Close()
	if resp.Kind != schemes.KindFile {
		return resp, nil, errors.New("not a file")
	}
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

// TestVsftpdArchive fetches every file of the archive outside tree/ and
// every seventh of tree/, all through one Fetcher, and compares each with
// the manifest: text and binary files, every odd name (Latin-1 and UTF-8
// bytes, spaces, '%', ';', '#', '?'), twelve levels deep.
func TestVsftpdArchive(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	manifest := itest.Manifest(t)
	paths := make([]string, 0, len(manifest))
	for p := range manifest {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	n, tree := 0, 0
	for _, p := range paths {
		if strings.HasPrefix(p, "tree/") {
			tree++
			if tree%7 != 0 {
				continue
			}
		}
		segs := append([]string{"archive"}, strings.Split(p, "/")...)
		resp, data, err := vsftpdBytes(t, f, vsftpdReq(segs...))
		if err != nil {
			t.Errorf("%q: %v", p, err)
			continue
		}
		if got := vsftpdSHA(data); got != manifest[p] {
			t.Errorf("%q: sha256 %s, want %s (%d bytes)", p, got, manifest[p], len(data))
		}
		if resp.Size != int64(len(data)) || resp.Name != segs[len(segs)-1] {
			t.Errorf("%q: Size %d Name %q for %d bytes", p, resp.Size, resp.Name, len(data))
		}
		n++
	}
	if n < 400 {
		t.Fatalf("only %d files checked", n)
	}
	t.Logf("%d files identical to the manifest", n)
}

// TestVsftpdReuse shows that many fetches share one login: vsftpd's log
// holds one OK LOGIN for the client's session.
func TestVsftpdReuse(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	var tr bytes.Buffer
	for _, p := range []string{"text/plain.txt", "binary/all-bytes.bin", "names/with space.txt", "deep/level01/marker.txt"} {
		req := vsftpdReq(append([]string{"archive"}, strings.Split(p, "/")...)...)
		req.Transcript = &tr
		if _, _, err := vsftpdBytes(t, f, req); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if n := strings.Count(tr.String(), "> USER "); n != 1 {
		t.Errorf("%d logins for four fetches, want 1:\n%s", n, tr.String())
	}
	if n := strings.Count(tr.String(), "> CWD /\n"); n != 3 {
		t.Errorf("%d returns to the login directory, want 3:\n%s", n, tr.String())
	}
}

func vsftpdEntries(t *testing.T, resp *schemes.Response) map[string]schemes.Entry {
	t.Helper()
	if resp.Kind != schemes.KindListing {
		t.Fatalf("kind %v, want a listing", resp.Kind)
	}
	m := map[string]schemes.Entry{}
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			return m
		}
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name] = e
	}
}

// TestVsftpdListing lists archive/names/ (LIST: vsftpd has no MLSD) and
// compares it with the directory on disk: every name byte for byte, types,
// sizes, the archive's mtime, and entry URLs that parse back to the name.
func TestVsftpdListing(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	resp, err := f.Fetch(context.Background(), vsftpdReq("archive", "names", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	got := vsftpdEntries(t, resp)
	disk, err := os.ReadDir(filepath.Join(itest.ArchiveDir(), "names"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(disk) {
		t.Errorf("%d entries, %d on disk", len(got), len(disk))
	}
	// LIST gives a day for an old file ("Dec 20  1994"), no time of day.
	mtime := time.Date(1994, 12, 20, 0, 0, 0, 0, time.UTC)
	for _, d := range disk {
		e, ok := got[d.Name()]
		if !ok {
			t.Errorf("%q missing from the listing", d.Name())
			continue
		}
		info, _ := d.Info()
		wantType := "file"
		if d.IsDir() {
			wantType = "dir"
		}
		if e.Type != wantType || (!d.IsDir() && e.Size != info.Size()) || !e.Modified.Equal(mtime) {
			t.Errorf("%q: %+v, want type %s size %d mtime %v", d.Name(), e, wantType, info.Size(), mtime)
		}
		u, err := schemes.Parse(e.URL)
		if err != nil {
			t.Errorf("%q: entry URL %q: %v", d.Name(), e.URL, err)
			continue
		}
		segs := u.FTP.Segments
		if d.IsDir() {
			segs = segs[:len(segs)-1]
		}
		if segs[len(segs)-1] != d.Name() || segs[0] != "archive" || segs[1] != "names" {
			t.Errorf("%q: entry URL %q has segments %q", d.Name(), e.URL, u.FTP.Segments)
		}
	}
}

// TestVsftpdDirectoryGuess: archive/text has no trailing '/': RETR is
// refused with 550, CWD accepts it, so it is listed.
func TestVsftpdDirectoryGuess(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	resp, err := f.Fetch(context.Background(), vsftpdReq("archive", "text"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if e, ok := vsftpdEntries(t, resp)["crlf.txt"]; !ok || e.Type != "file" {
		t.Errorf("archive/text listed without crlf.txt: %+v", e)
	}
}

// TestVsftpdNLST: ;type=d lists names with NLST.
func TestVsftpdNLST(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	req := vsftpdReq("archive", "text")
	req.URL.FTP.TypeCode = 'd'
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	got := vsftpdEntries(t, resp)
	e, ok := got["dots.txt"]
	if !ok {
		t.Fatalf("NLST text: %v", got)
	}
	if u, err := schemes.Parse(e.URL); err != nil || strings.Join(u.FTP.Segments, "/") != "archive/text/dots.txt" {
		t.Errorf("entry URL %q (%v)", e.URL, err)
	}
}

func TestVsftpdMissingFile(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	_, err := f.Fetch(context.Background(), vsftpdReq("archive", "no-such-file.txt"))
	if !errors.Is(err, schemes.ErrRefused) || err.Error() != "550 Failed to open file." {
		t.Fatalf("err %v, want ErrRefused 550 Failed to open file.", err)
	}
}

func TestVsftpdLocalUser(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	req := vsftpdReq("private.txt")
	req.URL.User, req.URL.HasUser = itest.LocalUser, true
	req.URL.Password, req.URL.HasPassword = itest.LocalPassword, true
	_, data, err := vsftpdBytes(t, f, req)
	if err != nil || string(data) != "only a logged-in user sees this file\n" {
		t.Fatalf("%q %v", data, err)
	}

	req.URL.Password = "wrong"
	_, err = f.Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrAuth) || err.Error() != "530 Login incorrect." {
		t.Fatalf("wrong password: %v, want ErrAuth 530 Login incorrect.", err)
	}
}

// TestVsftpdResume cuts nothing but asks for random-1m.bin from a random
// offset: REST is honoured and the rest of the file follows.
func TestVsftpdResume(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	whole, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), "binary", "random-1m.bin"))
	if err != nil {
		t.Fatal(err)
	}
	off := 1 + rand.Int64N(int64(len(whole)-1))
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	req := vsftpdReq("archive", "binary", "random-1m.bin")
	req.Offset = off
	resp, data, err := vsftpdBytes(t, f, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Offset != off || !bytes.Equal(data, whole[off:]) {
		t.Fatalf("offset %d: got Offset %d and %d bytes, want %d", off, resp.Offset, len(data), len(whole)-int(off))
	}
}

func vsftpdTLS(t *testing.T) *tls.Config {
	pem, err := os.ReadFile(itest.CertPath())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("no certificate in " + itest.CertPath())
	}
	return &tls.Config{RootCAs: pool}
}

// TestVsftpdExplicitTLS: AUTH TLS, then PBSZ 0 and PROT P, so that the
// login and the data travel encrypted; the file arrives intact.
func TestVsftpdExplicitTLS(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	f := &ftp.Fetcher{Email: "gofer@example.org", RequireTLS: true}
	defer f.Close()
	req := vsftpdReq("archive", "binary", "random-64k.bin")
	req.TLSConfig = vsftpdTLS(t)
	var tr bytes.Buffer
	req.Transcript = &tr
	_, data, err := vsftpdBytes(t, f, req)
	if err != nil {
		t.Fatalf("%v\n%s", err, tr.String())
	}
	if vsftpdSHA(data) != itest.Manifest(t)["binary/random-64k.bin"] {
		t.Error("random-64k.bin differs over TLS")
	}
	for _, want := range []string{"> AUTH TLS\n", "< 234 ", "> PBSZ 0\n", "> PROT P\n", "> PASS ****\n"} {
		if !strings.Contains(tr.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr.String())
		}
	}
	if strings.Index(tr.String(), "> AUTH TLS") > strings.Index(tr.String(), "> USER") {
		t.Error("USER was sent before AUTH TLS")
	}

	// A listing over the same kept TLS connection, its data under PROT P.
	lreq := vsftpdReq("archive", "text", "")
	lreq.TLSConfig = req.TLSConfig
	resp, err := f.Fetch(context.Background(), lreq)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := vsftpdEntries(t, resp)["dots.txt"]; !ok {
		t.Error("TLS listing of archive/text lacks dots.txt")
	}
	resp.Close()

	// Without the CA the server's certificate is refused.
	req2 := vsftpdReq("archive", "README.txt")
	f2 := &ftp.Fetcher{Email: "gofer@example.org", RequireTLS: true}
	if _, err := f2.Fetch(context.Background(), req2); err == nil {
		t.Fatal("a self-signed certificate was accepted without --cacert")
	}
}

// TestVsftpdImplicitTLS: ftps:// on 127.0.0.22:990.
func TestVsftpdImplicitTLS(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.FTPSHost+":990")
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	req := vsftpdReq("archive", "binary", "all-bytes.bin")
	req.URL.Scheme, req.URL.Host = "ftps", itest.FTPSHost
	req.TLSConfig = vsftpdTLS(t)
	_, data, err := vsftpdBytes(t, f, req)
	if err != nil {
		t.Fatal(err)
	}
	if vsftpdSHA(data) != itest.Manifest(t)["binary/all-bytes.bin"] {
		t.Error("all-bytes.bin differs over implicit TLS")
	}
}

// TestVsftpdCancel: cancelling the context in the middle of a large
// transfer ends it at once as interrupted.
func TestVsftpdCancel(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, vsftpd)
	itest.BigFile(t, 64<<20)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &ftp.Fetcher{Email: "gofer@example.org"}
	defer f.Close()
	req := vsftpdReq("big", "67108864.bin")
	resp, err := f.Fetch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	buf := make([]byte, 1<<20)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = io.Copy(io.Discard, resp.Body)
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
}
