package ftp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

const testEmail = "gofer@example.org"

// newFetcher is a Fetcher whose anonymous password is testEmail.
func newFetcher() *Fetcher { return &Fetcher{Email: testEmail} }

func ftpURL(port int, typeCode byte, segs ...string) *schemes.URL {
	return &schemes.URL{Scheme: "ftp", Host: "127.0.0.1", Port: port,
		FTP: &schemes.FTP{Segments: segs, TypeCode: typeCode}}
}

// testDialer is the dialer of every request newReq makes: one client's,
// whose connections a Fetcher keeps for the requests that follow (a
// request with another dialer gets connections of its own).
var testDialer = &dial.Dialer{}

func newReq(u *schemes.URL) *schemes.Request {
	return &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: testDialer, IdleTimeout: 10 * time.Second}}
}

// fetchAll fetches req with a fresh Fetcher, reads the whole body or
// listing, closes everything, and returns the body (or the listing's
// entries, one "name type target" line each) and the lines the server
// received.
func fetchAll(t *testing.T, fake *fakeFTP, req *schemes.Request) (*schemes.Response, []byte, []string) {
	t.Helper()
	f := newFetcher()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	var data []byte
	if resp.Body != nil {
		data, err = io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("reading body: %v", err)
		}
	}
	if resp.Listing != nil {
		for {
			e, err := resp.Listing.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("listing: %v", err)
			}
			data = append(data, e.Name+" "+e.Type+" "+e.Target+"\n"...)
		}
	}
	resp.Close()
	f.Close()
	fake.ln.Close()
	fake.wg.Wait()
	return resp, data, fake.sent()
}

// fetchOne is fetchAll that leaves the server running.
func fetchOne(t *testing.T, fake *fakeFTP, req *schemes.Request) (*schemes.Response, []byte, []string) {
	t.Helper()
	f := newFetcher()
	defer f.Close()
	resp, data, _ := fetchOneWith(t, f, req)
	return resp, data, fake.sent()
}

// fetchOneWith fetches req with f and reads the whole body or listing.
func fetchOneWith(t *testing.T, f *Fetcher, req *schemes.Request) (*schemes.Response, []byte, []string) {
	t.Helper()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	defer resp.Close()
	var data []byte
	if resp.Body != nil {
		if data, err = io.ReadAll(resp.Body); err != nil {
			t.Fatalf("reading body: %v", err)
		}
	}
	if resp.Listing != nil {
		for {
			e, err := resp.Listing.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("listing: %v", err)
			}
			data = append(data, e.Name+" "+e.Type+" "+e.Target+"\n"...)
		}
	}
	return resp, data, nil
}

func wire(lines ...string) string {
	return strings.Join(lines, "\r\n") + "\r\n"
}

// anonLogin is what every session starts with: the login, the
// feature probe and binary default, and the recorded login directory.
var anonLogin = []string{"USER anonymous", "PASS " + testEmail, "FEAT", "TYPE I", "PWD", "NOOP"}

// loginBatch is the anonymous login as it goes out: in one write.
var loginBatch = "USER anonymous\r\nPASS " + testEmail + "\r\nFEAT\r\nTYPE I\r\nPWD\r\nNOOP\r\n"

func TestGoldenWire(t *testing.T) {
	tests := []struct {
		name     string
		segs     []string
		typeCode byte
		file     string // path on the fake server
		want     []string
		body     string
		wantBody string // when it differs from body
	}{
		{
			name: "etc/motd: CWD etc, RETR motd (RFC 1738 §3.2.2)",
			segs: []string{"etc", "motd"}, file: "/etc/motd", body: "hello\n",
			want: []string{"CWD etc", "EPSV", "SIZE motd", "MDTM motd", "RETR motd"},
		},
		{
			name: "//etc/motd: an empty CWD first",
			segs: []string{"", "etc", "motd"}, file: "/etc/motd", body: "hello\n",
			want: []string{"CWD ", "CWD etc", "EPSV", "SIZE motd", "MDTM motd", "RETR motd"},
		},
		{
			name: "/%2Fetc/motd: CWD /etc",
			segs: []string{"/etc", "motd"}, file: "/etc/motd", body: "hello\n",
			want: []string{"CWD /etc", "EPSV", "SIZE motd", "MDTM motd", "RETR motd"},
		},
		{
			name: ";type=a sends TYPE A",
			segs: []string{"pub", "data.bin"}, typeCode: 'a', file: "/pub/data.bin",
			body: "line\r\nlone\rcr\r\n", wantBody: "line\nlone\rcr\n",
			want: []string{"CWD pub", "EPSV", "TYPE A", "SIZE data.bin", "MDTM data.bin", "RETR data.bin"},
		},
		{
			name: ";type=i sends TYPE I even for a text name",
			segs: []string{"pub", "notes.txt"}, typeCode: 'i', file: "/pub/notes.txt", body: "a\r\nb\r\n",
			want: []string{"CWD pub", "EPSV", "SIZE notes.txt", "MDTM notes.txt", "RETR notes.txt"},
		},
		{
			name: "a .txt name without ;type= is sent in TYPE I: the file's bytes",
			segs: []string{"pub", "notes.txt"}, file: "/pub/notes.txt", body: "a\r\nb\n",
			want: []string{"CWD pub", "EPSV", "SIZE notes.txt", "MDTM notes.txt", "RETR notes.txt"},
		},
		{
			name: ";type=d lists with NLST name",
			segs: []string{"pub", "sub"}, typeCode: 'd', file: "/pub/sub/x",
			want: []string{"CWD pub", "EPSV", "NLST sub"},
		},
		{
			name: "a name with spaces and a percent sign goes out as it is",
			segs: []string{"a dir", "50% off;x"}, file: "/a dir/50% off;x", body: "z",
			want: []string{"CWD a dir", "EPSV", "SIZE 50% off;x", "MDTM 50% off;x", "RETR 50% off;x"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFake(t)
			fake.addFile(tc.file, tc.body)
			resp, data, got := fetchAll(t, fake, newReq(ftpURL(fake.port(), tc.typeCode, tc.segs...)))
			want := wire(append(append(append([]string{}, anonLogin...), tc.want...), "QUIT")...)
			if strings.Join(got, "") != want {
				t.Errorf("wire:\n got %q\nwant %q", strings.Join(got, ""), want)
			}
			wantBody := tc.body
			if tc.wantBody != "" {
				wantBody = tc.wantBody
			}
			if tc.typeCode == 'd' {
				wantBody = "x other \n"
			}
			if string(data) != wantBody {
				t.Errorf("body %q, want %q", data, wantBody)
			}
			if tc.typeCode != 'd' && resp.Name != tc.segs[len(tc.segs)-1] {
				t.Errorf("Name %q", resp.Name)
			}
		})
	}
}

// A caller that knows size and time (a mirror, from the listing) asks for
// the body alone: no SIZE, no MDTM.
func TestSkipMetadata(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/pub/f.bin", "body")
	req := newReq(ftpURL(fake.port(), 0, "pub", "f.bin"))
	req.SkipMetadata = true
	resp, data, got := fetchAll(t, fake, req)
	want := wire(append(append([]string{}, anonLogin...), "CWD pub", "EPSV", "RETR f.bin", "QUIT")...)
	if strings.Join(got, "") != want {
		t.Errorf("wire:\n got %q\nwant %q", strings.Join(got, ""), want)
	}
	if string(data) != "body" || resp.Size != -1 {
		t.Errorf("body %q size %d", data, resp.Size)
	}
}

func TestAnonymousLoginAndTranscript(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/f", "x")
	req := newReq(ftpURL(fake.port(), 0, "f"))
	var tr bytes.Buffer
	req.Transcript = &tr
	resp, _, got := fetchAll(t, fake, req)
	if got[0] != "USER anonymous\r\n" || got[1] != "PASS "+testEmail+"\r\n" {
		t.Errorf("login lines %q", got[:2])
	}
	if resp.Size != 1 || resp.Modified != time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) {
		t.Errorf("Size %d Modified %v, want 1 and the MDTM time", resp.Size, resp.Modified)
	}
	if strings.Contains(tr.String(), testEmail) || !strings.Contains(tr.String(), "> PASS ****\n") {
		t.Errorf("transcript does not mask the password:\n%s", tr.String())
	}
	if !strings.Contains(tr.String(), "< 226 Transfer complete.\n") || !strings.Contains(tr.String(), "> RETR f\n") {
		t.Errorf("transcript lacks the conversation:\n%s", tr.String())
	}
}

func TestUserLogin(t *testing.T) {
	fake := newFake(t)
	fake.users["alice"] = "s3cret"
	fake.addFile("/f", "x")
	u := ftpURL(fake.port(), 0, "f")
	u.User, u.HasUser, u.Password, u.HasPassword = "alice", true, "s3cret", true
	_, data, got := fetchAll(t, fake, newReq(u))
	if got[0] != "USER alice\r\n" || got[1] != "PASS s3cret\r\n" || string(data) != "x" {
		t.Errorf("login %q, body %q", got[:2], data)
	}
}

func TestWrongPassword(t *testing.T) {
	fake := newFake(t)
	fake.users["alice"] = "s3cret"
	u := ftpURL(fake.port(), 0, "f")
	u.User, u.HasUser, u.Password, u.HasPassword = "alice", true, "wrong", true
	_, err := newFetcher().Fetch(context.Background(), newReq(u))
	if !errors.Is(err, schemes.ErrAuth) || err.Error() != "530 Login incorrect." {
		t.Fatalf("err %v, want ErrAuth with the server's text", err)
	}
}

func TestUserWithoutPassword(t *testing.T) {
	fake := newFake(t)
	fake.users["alice"] = "s3cret"
	fake.addFile("/f", "x")
	u := ftpURL(fake.port(), 0, "f")
	u.User, u.HasUser = "alice", true

	_, err := newFetcher().Fetch(context.Background(), newReq(u))
	if !errors.Is(err, schemes.ErrAuth) || !strings.Contains(err.Error(), "password is needed") {
		t.Fatalf("no terminal: err %v, want ErrAuth saying a password is needed", err)
	}
	if len(fake.sent()) != 0 {
		t.Errorf("a connection was used before the password was known: %q", fake.sent())
	}

	req := newReq(u)
	var asked string
	req.Prompt = func(q string, secret bool) (string, error) {
		if !secret {
			t.Error("password asked with echo")
		}
		asked = q
		return "s3cret", nil
	}
	_, data, got := fetchAll(t, fake, req)
	if string(data) != "x" || got[1] != "PASS s3cret\r\n" || !strings.Contains(asked, "alice") {
		t.Errorf("prompted login: body %q, lines %q, question %q", data, got, asked)
	}
}

func TestCredentialsFromNetrc(t *testing.T) {
	fake := newFake(t)
	fake.users["bob"] = "pw"
	fake.addFile("/f", "x")
	req := newReq(ftpURL(fake.port(), 0, "f"))
	req.Credentials = func(host string) (string, string, bool) { return "bob", "pw", host == "127.0.0.1" }
	_, _, got := fetchAll(t, fake, req)
	if got[0] != "USER bob\r\n" || got[1] != "PASS pw\r\n" {
		t.Errorf("login %q", got[:2])
	}
}

func TestRESTResume(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/big", "0123456789")
	req := newReq(ftpURL(fake.port(), 0, "big"))
	req.Offset = 4
	resp, data, got := fetchAll(t, fake, req)
	if string(data) != "456789" || resp.Offset != 4 || resp.Size != 10 {
		t.Errorf("body %q offset %d size %d", data, resp.Offset, resp.Size)
	}
	if w := wire(append(append([]string{}, anonLogin...), "EPSV", "SIZE big", "MDTM big", "REST 4", "RETR big", "QUIT")...); strings.Join(got, "") != w {
		t.Errorf("wire %q\nwant %q", strings.Join(got, ""), w)
	}
}

func TestRESTRefusedStartsOver(t *testing.T) {
	fake := newFake(t)
	fake.noREST = true
	fake.addFile("/big", "0123456789")
	req := newReq(ftpURL(fake.port(), 0, "big"))
	req.Offset = 4
	var warned []string
	req.Warn = func(s string) { warned = append(warned, s) }
	resp, data, _ := fetchAll(t, fake, req)
	if string(data) != "0123456789" || resp.Offset != 0 {
		t.Errorf("body %q offset %d: a refused REST must give the whole file at offset 0", data, resp.Offset)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "refused to resume at byte 4 (502") {
		t.Errorf("warnings %q: a refused resume must be said", warned)
	}
}

func TestDirectoryGuessedFrom550(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/pub/a.txt", "a")
	fake.dirs["/pub/sub"] = true
	fake.listings["LIST /pub"] = "drwxr-xr-x    2 0 0 4096 Jan 02  2024 sub\r\n" +
		"-rw-r--r--    1 0 0    1 Jan 02  2024 a.txt\r\n" +
		"lrwxrwxrwx    1 0 0    5 Jan 02  2024 up -> a.txt\r\n"
	resp, data, got := fetchAll(t, fake, newReq(ftpURL(fake.port(), 0, "pub")))
	want := wire(append(append([]string{}, anonLogin...), "EPSV", "SIZE pub", "MDTM pub", "RETR pub", "CWD pub", "EPSV", "LIST", "QUIT")...)
	if strings.Join(got, "") != want {
		t.Errorf("wire %q\nwant %q", strings.Join(got, ""), want)
	}
	if resp.Kind != schemes.KindListing {
		t.Fatalf("kind %v, want a listing", resp.Kind)
	}
	if string(data) != "sub dir \na.txt file \nup link a.txt\n" {
		t.Errorf("entries %q", data)
	}
}

func TestListingDirectoryURL(t *testing.T) {
	fake := newFake(t)
	fake.mlst = true
	fake.dirs["/pub"] = true
	fake.listings["MLSD /pub"] = "type=cdir;modify=20240102030405; .\r\n" +
		"type=file;size=42;modify=20240102030405; read me.txt\r\n" +
		"type=dir;modify=20240102030405; src\r\n"
	f := newFetcher()
	defer f.Close()
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "pub", "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	got := fake.sent()
	if got[len(got)-1] != "MLSD\r\n" || got[len(got)-3] != "CWD pub\r\n" {
		t.Errorf("wire %q: want CWD pub then MLSD", got)
	}
	e, err := resp.Listing.Next()
	if err != nil || e.Name != "read me.txt" || e.Size != 42 || e.Type != "file" ||
		e.Modified != time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) {
		t.Fatalf("first entry %+v %v", e, err)
	}
	e, err = resp.Listing.Next()
	if err != nil || e.Name != "src" || e.Type != "dir" || e.Size != -1 {
		t.Fatalf("second entry %+v %v", e, err)
	}
	if _, err := resp.Listing.Next(); err != io.EOF {
		t.Fatalf("after the last entry: %v, want io.EOF", err)
	}
}

func TestListingEntryLimit(t *testing.T) {
	fake := newFake(t)
	fake.dirs["/pub"] = true
	var b strings.Builder
	for i := 0; i < 50; i++ {
		b.WriteString("-rw-r--r--    1 0 0    1 Jan 02  2024 f" + strings.Repeat("x", i) + "\r\n")
	}
	fake.listings["LIST /pub"] = b.String()
	req := newReq(ftpURL(fake.port(), 0, "pub", ""))
	req.MaxEntries = 10
	resp, err := newFetcher().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	n := 0
	for ; ; n++ {
		if _, err = resp.Listing.Next(); err != nil {
			break
		}
	}
	if !errors.Is(err, schemes.ErrTooLarge) || n != 10 {
		t.Fatalf("after %d entries: %v, want ErrTooLarge after 10 of 50", n, err)
	}
}

// TestListingStreamsInBoundedMemory lists 100 000 entries and samples the
// live heap as they come: it must not grow with the listing (a listing
// collected before it is returned holds about 15 MiB here).
func TestListingStreamsInBoundedMemory(t *testing.T) {
	fake := newFake(t)
	fake.bigList = 100000
	fake.dirs["/big"] = true
	f := newFetcher()
	defer f.Close()
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "big", "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapAlloc, ms.HeapAlloc
	n := 0
	for ; ; n++ {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Size != int64(n) {
			t.Fatalf("entry %d: %+v", n, e)
		}
		if n%10000 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	if n != 100000 {
		t.Fatalf("%d entries, want 100000", n)
	}
	t.Logf("live heap grew by %d KiB over 100 000 entries", (peak-base)>>10)
	if peak-base > 2<<20 {
		t.Errorf("live heap grew by %d KiB while listing: the listing is not streamed", (peak-base)>>10)
	}
}

func TestListingLineLimit(t *testing.T) {
	fake := newFake(t)
	fake.dirs["/pub"] = true
	fake.listings["LIST /pub"] = "-rw-r--r-- 1 0 0 1 Dec 20  1994 " + strings.Repeat("n", 5000) + "\r\n"
	req := newReq(ftpURL(fake.port(), 0, "pub", ""))
	req.MaxLineLength = 1000
	resp, err := newFetcher().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if _, err := resp.Listing.Next(); !errors.Is(err, schemes.ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge for a 5000-byte line over a limit of 1000", err)
	}
}

func TestMissingFile(t *testing.T) {
	fake := newFake(t)
	_, err := newFetcher().Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "nope")))
	if !errors.Is(err, schemes.ErrRefused) || err.Error() != "550 Failed to open file." {
		t.Fatalf("err %v, want ErrRefused with the server's text", err)
	}
}

func TestPASVNamesAnotherAddress(t *testing.T) {
	other, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	defer other.Close()
	fake := newFake(t)
	fake.noEPSV = true
	fake.pasvHost = "127,0,0,2"
	fake.pasvPort = other.Addr().(*net.TCPAddr).Port
	fake.addFile("/f", "x")

	_, err = newFetcher().Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "f")))
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), other.Addr().String()) {
		t.Fatalf("err %v, want a refusal naming %s", err, other.Addr())
	}
	// A connection made to the other address would be waiting in its
	// backlog now; accept returns it at once if there is one.
	other.(*net.TCPListener).SetDeadline(time.Now().Add(200 * time.Millisecond))
	if c, aerr := other.Accept(); aerr == nil {
		c.Close()
		t.Fatal("the client connected to the address of the PASV reply")
	}
	for _, l := range fake.sent() {
		if strings.HasPrefix(l, "RETR") {
			t.Errorf("RETR was sent without a data connection: %q", fake.sent())
		}
	}
}

func TestConnectionReuseReturnsHome(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/a/one", "1")
	fake.addFile("/b/two", "2")
	fake.addFile("/b/three", "3")
	fake.addFile("/b/c/four", "4")
	f := newFetcher()
	for _, segs := range [][]string{{"a", "one"}, {"b", "two"}, {"b", "three"}, {"b", "c", "four"}} {
		resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, segs...)))
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Close()
		if err != nil || string(data) != map[string]string{"one": "1", "two": "2", "three": "3", "four": "4"}[segs[len(segs)-1]] {
			t.Fatalf("%v: %q %v", segs, data, err)
		}
	}
	f.Close()
	fake.ln.Close()
	fake.wg.Wait()
	got := strings.Join(fake.sent(), "")
	if fake.logins != 1 || strings.Count(got, "USER") != 1 {
		t.Errorf("%d logins for four fetches, want 1:\n%s", fake.logins, got)
	}
	// Each entry is what one write of gofer's brought: the commands sent
	// together, before the replies to any of them.
	want := []string{
		// USER alone (its reply decides whether PASS follows), then the
		// rest of the login in one write: the login directory, and with
		// NOOP whether the server reads pipelined commands; then the CWD
		// of a/one and the EPSV of its transfer. Once they have worked,
		// a/one's commands with its RETR, binary already in effect.
		loginBatch + "CWD a\r\nEPSV\r\n",
		"SIZE one\r\nMDTM one\r\nRETR one\r\n",
		// b/two: back to the login directory (RFC 1738 §3.2.2), skipping
		// the TYPE in effect; the next transfer's EPSV goes with the RETR.
		// Behind the RETR, on this kept connection: the file's MDTM again
		// and the next transfer's EPSV, answered after the transfer.
		"CWD /\r\nCWD b\r\nSIZE two\r\nMDTM two\r\nEPSV\r\n", "RETR two\r\nMDTM two\r\nEPSV\r\n",
		// b/three: same directory, data connection already asked for: one
		// round trip.
		"SIZE three\r\nMDTM three\r\nRETR three\r\nMDTM three\r\nEPSV\r\n",
		// b/c/four: b's CWD is the first of b/c's: it goes on from there,
		// and with a data connection asked for ahead the RETR goes behind
		// the CWD.
		"CWD c\r\nSIZE four\r\nMDTM four\r\nRETR four\r\nMDTM four\r\nEPSV\r\n",
		"QUIT\r\n",
	}
	fake.wantBatches(t, want)
}

// A data connection is only read: gofer ends its side of it at once when
// the server is vsftpd, which waits for that before its 226 (a round trip
// sooner), and never for another server, which might take it for an abort.
func TestDataConnectionsHalfClosed(t *testing.T) {
	for _, tc := range []struct {
		greeting    string
		wait        time.Duration
		fins, nofin int
	}{
		{greeting: "(vsFTPd 3.0.3)", fins: 2},
		// Here the server waits a little only: a half-close would come at
		// once, and no wait is long enough to prove one never comes.
		{greeting: "(fakeFTP 1.0)", wait: 300 * time.Millisecond, nofin: 2},
	} {
		t.Run(tc.greeting, func(t *testing.T) {
			fake := newFakeWith(t, func(f *fakeFTP) { f.waitFIN, f.finWait, f.greeting = true, tc.wait, tc.greeting })
			fake.addFile("/d/x", "ex")
			fake.listings["LIST /d"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
			for _, segs := range [][]string{{"d", "x"}, {"d", ""}} {
				_, data, _ := fetchOne(t, fake, newReq(ftpURL(fake.port(), 0, segs...)))
				if want := map[string]string{"x": "ex", "": "x file \n"}[segs[1]]; string(data) != want {
					t.Errorf("%v: %q, want %q", segs, data, want)
				}
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			if fake.fins != tc.fins || fake.noFins != tc.nofin {
				t.Errorf("%d data connections half-closed by the client, %d not; want %d, %d", fake.fins, fake.noFins, tc.fins, tc.nofin)
			}
		})
	}
}

// A server that drops the commands that came with another (it reads one
// per read and discards the rest) is found at login: the NOOP sent with
// PWD is never answered. gofer closes that connection and speaks to the
// server one command at a time from then on, on every connection: the
// fetches work, one round trip per command.
func TestServerThatDropsPipelinedCommands(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.lockStep = true })
	fake.addFile("/pub/f", "body")
	fake.addFile("/pub/g", "gee")
	f := newFetcher()
	for _, name := range []string{"f", "g"} {
		req := newReq(ftpURL(fake.port(), 0, "pub", name))
		req.SkipSize = true
		resp, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Close()
		if err != nil || string(data) != map[string]string{"f": "body", "g": "gee"}[name] {
			t.Fatalf("%s: %q %v", name, data, err)
		}
	}
	f.Close()
	fake.ln.Close()
	fake.wg.Wait()
	want := []string{
		// The first connection: USER is answered, PASS and the commands
		// with it dropped.
		"USER anonymous\r\n", "QUIT\r\n",
		// The second, one command at a time.
		"USER anonymous\r\n", "PASS " + testEmail + "\r\n", "FEAT\r\n", "TYPE I\r\n", "PWD\r\n",
		"CWD pub\r\n", "MDTM f\r\n", "EPSV\r\n", "RETR f\r\n",
		"MDTM g\r\n", "EPSV\r\n", "RETR g\r\n",
		"QUIT\r\n",
	}
	fake.wantBatches(t, want)
}

// A mirror's fetch (size known from the listing, MDTM asked) on a kept
// connection in the right directory is one write: MDTM, RETR, and the
// next transfer's EPSV. A data address read ahead that went stale (the
// server answers RETR with 425) is asked for again, and the fetch works.
func TestPipelinedMirrorFetches(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.waitFIN, f.greeting = true, "(vsFTPd 3.0.3)" })
	fake.addFile("/d/x", "ex")
	fake.addFile("/d/y", "why")
	f := newFetcher()
	get := func(segs ...string) string {
		t.Helper()
		req := newReq(ftpURL(fake.port(), 0, segs...))
		req.SkipSize = true
		resp, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatalf("%v: %v", segs, err)
		}
		defer resp.Close()
		if resp.Listing != nil {
			n := 0
			for {
				_, err := resp.Listing.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			return strconv.Itoa(n)
		}
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	fake.listings["LIST /d"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n-rw-r--r--    1 0 0 3 Dec 20  1994 y\r\n"
	if got := get("d", ""); got != "2" {
		t.Fatalf("listing: %s entries", got)
	}
	if got := get("d", "x"); got != "ex" {
		t.Fatalf("x: %q", got)
	}
	if got := get("d", "y"); got != "why" {
		t.Fatalf("y: %q", got)
	}
	// The mirror's check that y did not change during its transfer.
	for i, wantWire := range []bool{false, true} {
		before := len(fake.sent())
		req := newReq(ftpURL(fake.port(), 0, "d", "y"))
		req.SkipSize = true
		req.IfModifiedSince = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		resp, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Close()
		if !resp.NotModified || !resp.Modified.Equal(req.IfModifiedSince) {
			t.Errorf("check %d: NotModified %v, Modified %v", i+1, resp.NotModified, resp.Modified)
		}
		if sent := len(fake.sent()) > before; sent != wantWire {
			t.Errorf("check %d: sent commands %v, want %v", i+1, sent, wantWire)
		}
	}
	// The server forgets the passive port it announced: the next RETR is
	// answered 425, and gofer asks again.
	fake.mu.Lock()
	fake.forgetPasv = true
	fake.mu.Unlock()
	if got := get("d", "x"); got != "ex" {
		t.Fatalf("x again: %q", got)
	}
	f.Close()
	fake.ln.Close()
	fake.wg.Wait()
	want := []string{
		// A listing on a fresh connection: its CWD and EPSV go with the
		// login (it asks for no data connection ahead: it may serve one
		// fetch only).
		loginBatch + "CWD d\r\nEPSV\r\n", "LIST\r\n",
		// x, in the directory listed, binary already in effect: the EPSV
		// has worked, so the RETR goes behind it, and the next one ahead.
		"MDTM x\r\nEPSV\r\nRETR x\r\nMDTM x\r\nEPSV\r\n",
		// y: its data connection was asked for with x's transfer; its
		// MDTM goes again behind the RETR. The If-Modified-Since check
		// right after is answered from that; the second one asks.
		"MDTM y\r\nRETR y\r\nMDTM y\r\nEPSV\r\n",
		"MDTM y\r\n",
		// x again: the RETR is refused (425, the port forgotten); the EPSV
		// sent ahead with it gave a fresh one, on which RETR goes again.
		"MDTM x\r\nRETR x\r\nMDTM x\r\nEPSV\r\n", "RETR x\r\nMDTM x\r\nEPSV\r\n",
		"QUIT\r\n",
	}
	fake.wantBatches(t, want)
}

func TestEarlyCloseKeepsConnection(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/big", strings.Repeat("z", 8<<20))
	fake.addFile("/small", "s")
	f := newFetcher()
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "big")))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1000)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	resp.Close()
	resp, err = f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "small")))
	if err != nil {
		t.Fatalf("fetch after an early close: %v", err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Close()
	f.Close()
	fake.ln.Close()
	fake.wg.Wait()
	if string(data) != "s" || fake.logins != 1 {
		t.Errorf("body %q, %d logins: want the kept connection reused", data, fake.logins)
	}
}

func TestCutTransferIsInterrupted(t *testing.T) {
	fake := newFake(t)
	fake.cutAfter = 3
	fake.addFile("/f", "0123456789")
	resp, err := newFetcher().Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "f")))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Close()
	if !errors.Is(err, schemes.ErrInterrupted) || string(data) != "012" {
		t.Fatalf("err %v after %q, want ErrInterrupted after 3 bytes", err, data)
	}
}

func TestCancelDuringTransfer(t *testing.T) {
	fake := newFake(t)
	fake.stall = make(chan struct{})
	defer close(fake.stall)
	fake.addFile("/f", "0123456789")
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := newFetcher().Fetch(ctx, newReq(ftpURL(fake.port(), 0, "f")))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, schemes.ErrInterrupted) {
			t.Errorf("err %v, want ErrInterrupted", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled transfer did not end")
	}
	resp.Close()
}

func TestIdleTimeout(t *testing.T) {
	fake := newFake(t)
	fake.stall = make(chan struct{})
	defer close(fake.stall)
	fake.addFile("/f", "0123456789")
	req := newReq(ftpURL(fake.port(), 0, "f"))
	req.IdleTimeout = 200 * time.Millisecond
	resp, err := newFetcher().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Close()
	if !errors.Is(err, schemes.ErrTimeout) {
		t.Fatalf("err %v, want ErrTimeout", err)
	}
}

func TestMaxBytes(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/f", "0123456789")
	req := newReq(ftpURL(fake.port(), 0, "f"))
	req.MaxBytes = 5
	_, err := newFetcher().Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge before the transfer", err)
	}
}

func TestConnectRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	_, err = newFetcher().Fetch(context.Background(), newReq(ftpURL(port, 0, "f")))
	if !errors.Is(err, schemes.ErrConnect) {
		t.Fatalf("err %v, want ErrConnect", err)
	}
}

func TestInjectionRefusedBeforeConnecting(t *testing.T) {
	fake := newFake(t)
	_, err := newFetcher().Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "a\r\nDELE x", "f")))
	if !errors.Is(err, security.ErrInjection) {
		t.Fatalf("err %v, want ErrInjection", err)
	}
	if len(fake.sent()) != 0 {
		t.Errorf("lines were sent: %q", fake.sent())
	}
}

func TestExplicitTLSRefusalIsAnError(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/f", "x")
	req := newReq(ftpURL(fake.port(), 0, "f"))
	f := newFetcher()
	f.RequireTLS = true
	_, err := f.Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "500 Unknown command.") {
		t.Fatalf("err %v, want a refusal with the server's text", err)
	}
	fake.ln.Close()
	fake.wg.Wait()
	if got := fake.sent(); len(got) != 1 || got[0] != "AUTH TLS\r\n" {
		t.Errorf("sent %q, want AUTH TLS and nothing in plain text after it", got)
	}
}

// copyToFile fetches req and copies its body into a file, which takes the
// splice path (the socket's bytes go straight into the file).
func copyToFile(t *testing.T, req *schemes.Request) ([]byte, error) {
	t.Helper()
	f := newFetcher()
	defer f.Close()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	_, err = io.Copy(out, resp.Body)
	data, rerr := os.ReadFile(out.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return data, err
}

// copyToSocket fetches req and copies its body into a TCP connection, a
// writer that reads from a reader itself (as an HTTP response does), which
// takes the splice path from socket to socket; it returns what the other
// end of the connection received.
func copyToSocket(t *testing.T, req *schemes.Request) ([]byte, error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- b
	}()
	sink, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	f := newFetcher()
	defer f.Close()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		sink.Close()
		return nil, err
	}
	defer resp.Close()
	_, err = io.Copy(sink, resp.Body)
	sink.Close()
	return <-got, err
}

func TestSpliceToFile(t *testing.T) { spliceCases(t, copyToFile) }

func TestSpliceToSocket(t *testing.T) { spliceCases(t, copyToSocket) }

// spliceCases runs a transfer's every ending through copyTo.
func spliceCases(t *testing.T, copyToFile func(*testing.T, *schemes.Request) ([]byte, error)) {
	big := strings.Repeat("0123456789abcdef", 1<<18) // 4 MiB
	t.Run("whole file", func(t *testing.T) {
		fake := newFake(t)
		fake.addFile("/f", big)
		data, err := copyToFile(t, newReq(ftpURL(fake.port(), 0, "f")))
		if err != nil || string(data) != big {
			t.Fatalf("%d bytes, %v", len(data), err)
		}
	})
	t.Run("resumed", func(t *testing.T) {
		fake := newFake(t)
		fake.addFile("/f", big)
		req := newReq(ftpURL(fake.port(), 0, "f"))
		req.Offset = 12345
		data, err := copyToFile(t, req)
		if err != nil || string(data) != big[12345:] {
			t.Fatalf("%d bytes, %v", len(data), err)
		}
	})
	t.Run("cut", func(t *testing.T) {
		fake := newFake(t)
		fake.cutAfter = 100000
		fake.addFile("/f", big)
		data, err := copyToFile(t, newReq(ftpURL(fake.port(), 0, "f")))
		if !errors.Is(err, schemes.ErrInterrupted) || len(data) != 100000 {
			t.Fatalf("%d bytes, %v: want ErrInterrupted after 100000", len(data), err)
		}
	})
	t.Run("stalled", func(t *testing.T) {
		fake := newFake(t)
		fake.stall = make(chan struct{})
		defer close(fake.stall)
		fake.addFile("/f", big)
		req := newReq(ftpURL(fake.port(), 0, "f"))
		req.IdleTimeout = 200 * time.Millisecond
		if _, err := copyToFile(t, req); !errors.Is(err, schemes.ErrTimeout) {
			t.Fatalf("%v, want ErrTimeout", err)
		}
	})
	t.Run("past max-size of unknown size", func(t *testing.T) {
		// Growing past the limit is the caller's to stop (the fetch
		// package's front door); only a size known beforehand is refused here.
		fake := newFake(t)
		fake.noSIZE = true
		fake.addFile("/f", big)
		req := newReq(ftpURL(fake.port(), 0, "f"))
		req.MaxBytes = 1 << 20
		data, err := copyToFile(t, req)
		if err != nil || string(data) != big {
			t.Fatalf("%d bytes, %v: want the whole file", len(data), err)
		}
	})
}

// TestStaleKeptConnection: the server ended the kept connection while it
// was idle; the next fetch notices and logs in afresh.
func TestStaleKeptConnection(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/a/one", "1")
	f := newFetcher()
	defer f.Close()
	for i := 0; i < 2; i++ {
		resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "a", "one")))
		if err != nil {
			t.Fatalf("fetch %d: %v", i, err)
		}
		data, err := io.ReadAll(resp.Body)
		resp.Close()
		if err != nil || string(data) != "1" {
			t.Fatalf("fetch %d: %q %v", i, data, err)
		}
		fake.dropAll()
	}
	fake.mu.Lock()
	logins := fake.logins
	fake.mu.Unlock()
	if logins != 2 {
		t.Errorf("%d logins, want 2 (one per connection)", logins)
	}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		u    *schemes.URL
		cred bool
		want string
	}{
		{ftpURL(21, 0, "etc", "motd"), false, "USER anonymous|PASS " + testEmail + "|CWD etc|TYPE I|RETR motd"},
		{ftpURL(21, 0, "", "etc", "motd"), false, "USER anonymous|PASS " + testEmail + "|CWD |CWD etc|TYPE I|RETR motd"},
		{ftpURL(21, 0, "/etc", "motd"), false, "USER anonymous|PASS " + testEmail + "|CWD /etc|TYPE I|RETR motd"},
		{ftpURL(21, 'a', "x", "y.bin"), false, "USER anonymous|PASS " + testEmail + "|CWD x|TYPE A|RETR y.bin"},
		{ftpURL(21, 'i', "x", "y.txt"), false, "USER anonymous|PASS " + testEmail + "|CWD x|TYPE I|RETR y.txt"},
		{ftpURL(21, 0, "x", "y.txt"), false, "USER anonymous|PASS " + testEmail + "|CWD x|TYPE I|RETR y.txt"},
		{ftpURL(21, 'd', "x", "y"), false, "USER anonymous|PASS " + testEmail + "|CWD x|NLST y"},
		{ftpURL(21, 'd', "x", ""), false, "USER anonymous|PASS " + testEmail + "|CWD x|NLST"},
		{ftpURL(21, 0, "x", ""), false, "USER anonymous|PASS " + testEmail + "|CWD x|LIST"},
		{ftpURL(21, 0), false, "USER anonymous|PASS " + testEmail + "|LIST"},
		{ftpURL(21, 0, "f"), true, "USER bob|PASS ****|TYPE I|RETR f"},
	}
	for _, tc := range tests {
		req := newReq(tc.u)
		if tc.cred {
			req.Credentials = func(string) (string, string, bool) { return "bob", "secret", true }
		}
		p, err := newFetcher().Plan(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.Requests, "|"); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.u.FTP.Segments, got, tc.want)
		}
	}
	u := ftpURL(21, 0, "f")
	u.User, u.HasUser, u.Password, u.HasPassword = "alice", true, "s3cret", true
	p, _ := newFetcher().Plan(newReq(u))
	if strings.Contains(strings.Join(p.Requests, "|"), "s3cret") {
		t.Errorf("plan shows the password: %q", p.Requests)
	}
	u.Password, u.HasPassword = "", false
	u.User = "anonymous"
	p, _ = newFetcher().Plan(newReq(u))
	if p.Requests[1] != "PASS "+testEmail {
		t.Errorf("anonymous named in the URL: %q, want the mail address as password", p.Requests)
	}
}

// TestDefaultEmail: a Fetcher without Email gives user@hostname, the
// machine's own name, as the anonymous password; one with Email gives it.
func TestDefaultEmail(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	p, err := New().Plan(newReq(ftpURL(21, 0, "f")))
	if err != nil {
		t.Fatal(err)
	}
	pass := strings.TrimPrefix(p.Requests[1], "PASS ")
	if !strings.HasSuffix(pass, "@"+host) || strings.HasPrefix(pass, "@") {
		t.Errorf("anonymous password %q, want user@%s", pass, host)
	}
	p, _ = (&Fetcher{Email: "other@example.org"}).Plan(newReq(ftpURL(21, 0, "f")))
	if p.Requests[1] != "PASS other@example.org" {
		t.Errorf("%q, want the Fetcher's Email as password", p.Requests)
	}
}

// BenchmarkSmallFiles fetches one small file after another on a kept
// connection into a writer that is not a file (as a mirror does, hashing as
// it writes): B/op shows what each file costs the heap.
func BenchmarkSmallFiles(b *testing.B) {
	fake := newFake(b)
	fake.addFile("/d/small", strings.Repeat("s", 900))
	f := newFetcher()
	defer f.Close()
	u := ftpURL(fake.port(), 'i', "d", "small")
	var sink bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		resp, err := f.Fetch(context.Background(), newReq(u))
		if err != nil {
			b.Fatal(err)
		}
		sink.Reset()
		n, err := io.Copy(io.MultiWriter(&sink), resp.Body)
		resp.Close()
		if err != nil || n != 900 {
			b.Fatalf("%d bytes: %v", n, err)
		}
	}
}

// TestCommandLinesPassTheGuard: every command line is checked as it goes
// out on the control connection. One with a NUL or an LF inside is
// refused with security.ErrInjection and the server receives no byte of
// it, however the writer splits the line; the control connection stays in
// step for the next command.
func TestCommandLinesPassTheGuard(t *testing.T) {
	fake := newFake(t)
	fake.dirs["/pub"] = true
	req := newReq(ftpURL(fake.port(), 0, "pub", "f"))
	key := poolKey{host: "127.0.0.1", port: fake.port(), user: "anonymous", password: testEmail}
	c, err := open(context.Background(), req, key, login{user: "anonymous", password: testEmail, anonymous: true}, true, landing{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	before := len(fake.sent())

	// A bare LF reaching the control connection, in two writes as a
	// buffered writer may split it.
	if _, err := io.WriteString(c.top, "CWD pub\nDELE f"); err != nil {
		t.Errorf("first half of a line: %v, want it held", err)
	}
	if _, err := io.WriteString(c.top, "\r\n"); !errors.Is(err, security.ErrInjection) {
		t.Errorf("CWD with an LF inside: %v, want ErrInjection", err)
	}
	if code, _, err := c.lockStep("CWD pub"); err != nil || code != 250 {
		t.Fatalf("the next command after the refusal: %d, %v", code, err)
	}
	if err := c.exchange().write("CWD pub\x00DELE f"); !errors.Is(err, security.ErrInjection) {
		t.Errorf("CWD with a NUL inside: %v, want ErrInjection", err)
	}
	got := fake.sent()[before:]
	if len(got) != 1 || got[0] != "CWD pub\r\n" {
		t.Fatalf("the server received %q, want only \"CWD pub\\r\\n\"", got)
	}
}

// TestLongReplyLineEndsTheConnection: a reply line over the limit fails
// the fetch, and the control connection, out of step since the rest of
// that reply is unread, is never kept: the next fetch logs in afresh.
func TestLongReplyLineEndsTheConnection(t *testing.T) {
	fake := newFake(t)
	long := strings.Repeat("n", 300)
	fake.addFile("/"+long, "x")
	fake.addFile("/f", "0123456789")
	f := newFetcher()
	defer f.Close()
	req := newReq(ftpURL(fake.port(), 0, long))
	req.MaxLineLength = 200
	if _, err := f.Fetch(context.Background(), req); !errors.Is(err, schemes.ErrTooLarge) {
		t.Fatalf("a 150 reply of 350 bytes with a limit of 200: %v, want ErrTooLarge", err)
	}
	req = newReq(ftpURL(fake.port(), 0, "f"))
	req.MaxLineLength = 200
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatalf("the next fetch: %v", err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Close()
	if err != nil || string(data) != "0123456789" {
		t.Fatalf("the next fetch read %q, %v", data, err)
	}
	fake.mu.Lock()
	logins := fake.logins
	fake.mu.Unlock()
	if logins != 2 {
		t.Fatalf("%d logins, want 2: the connection with the long reply was kept", logins)
	}
}

// A CWD refused in a batch: the commands that went with it are answered
// and read (the connection stays in step), no RETR is sent behind it, the
// fetch fails with the server's reply, and the kept connection goes back to
// the login directory before the next fetch.
func TestPipelinedCWDRefused(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/d/x", "ex")
	f := newFetcher()
	req := newReq(ftpURL(fake.port(), 0, "nodir", "x"))
	if resp, err := f.Fetch(context.Background(), req); !errors.Is(err, schemes.ErrRefused) || resp != nil || !strings.Contains(err.Error(), "550") {
		t.Fatalf("fetch in a missing directory: %v, want the server's 550 (ErrRefused)", err)
	}
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "d", "x")))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Close()
	if err != nil || string(data) != "ex" {
		t.Fatalf("then d/x: %q %v", data, err)
	}
	if n := fake.endWith(f); n != 1 {
		t.Errorf("%d logins, want 1: the connection stays in step", n)
	}
	want := []string{
		// The CWD goes with the login and is refused: the fetch returns
		// to the login directory, and its own CWD meets the refusal.
		loginBatch + "CWD nodir\r\nEPSV\r\n",
		"CWD /\r\nCWD nodir\r\nSIZE x\r\nMDTM x\r\nRETR x\r\n",
		"CWD /\r\nCWD d\r\nSIZE x\r\nMDTM x\r\nEPSV\r\n", "RETR x\r\nMDTM x\r\nEPSV\r\n",
		"QUIT\r\n",
	}
	fake.wantBatches(t, want)
}

// A RETR sent behind its EPSV that the server refuses at once: the server
// goes on to what came behind it, and its next EPSV closes the port the
// first named, perhaps before gofer dialled it. The fetch fails with the
// server's 550, not with the refused dial, and the connection stays in
// step for the next fetch.
func TestEagerRETRRefusedAtOnce(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/d/x", "ex")
	fake.listings["LIST /d"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n"
	f := newFetcher()
	defer f.Close()
	for i := 0; i < 5; i++ {
		// A listing first: EPSV has worked, and no data address is read
		// ahead, so the next RETR goes behind a fresh EPSV.
		if _, data, _ := fetchOneWith(t, f, newReq(ftpURL(fake.port(), 0, "d", ""))); string(data) != "x file \n" {
			t.Fatalf("listing: %q", data)
		}
		req := newReq(ftpURL(fake.port(), 'i', "d", "missing"))
		req.SkipSize = true
		resp, err := f.Fetch(context.Background(), req)
		if resp != nil || !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "550") {
			t.Fatalf("round %d: %v, want the server's 550", i, err)
		}
	}
	if _, data, _ := fetchOneWith(t, f, newReq(ftpURL(fake.port(), 0, "d", "x"))); string(data) != "ex" {
		t.Fatalf("then d/x: %q", data)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.logins != 1 {
		t.Errorf("%d logins, want 1", fake.logins)
	}
}
