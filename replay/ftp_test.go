package replay

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// ftpClient is a raw control connection.
type ftpClient struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

// reply reads one reply, multi-line replies whole.
func (f *ftpClient) reply() string {
	f.t.Helper()
	var all strings.Builder
	for {
		line, err := f.br.ReadString('\n')
		if err != nil {
			f.t.Fatalf("reading a reply: %v (so far %q)", err, all.String())
		}
		all.WriteString(line)
		if len(line) >= 4 && line[3] == ' ' && (all.Len() == len(line) || strings.HasPrefix(line, all.String()[:3])) {
			return all.String()
		}
	}
}

func (f *ftpClient) cmd(line string) string {
	f.t.Helper()
	fmt.Fprintf(f.c, "%s\r\n", line)
	return f.reply()
}

// transfer sends EPSV then cmd and returns the data and the final reply.
func (f *ftpClient) transfer(cmd string) (string, string) {
	f.t.Helper()
	r := f.cmd("EPSV")
	var port int
	if _, err := fmt.Sscanf(r[strings.Index(r, "(|||"):], "(|||%d|)", &port); err != nil {
		f.t.Fatalf("EPSV: %q", r)
	}
	host, _, _ := net.SplitHostPort(f.c.RemoteAddr().String())
	dc, err := net.Dial("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
	if err != nil {
		f.t.Fatal(err)
	}
	defer dc.Close()
	dc.SetDeadline(time.Now().Add(10 * time.Second))
	if r := f.cmd(cmd); !strings.HasPrefix(r, "150 ") {
		return "", r
	}
	b, err := io.ReadAll(dc)
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b), f.reply()
}

const (
	vsftpdList = "-rw-r--r--    1 0        0              12 Dec 20  1994 a.txt\r\n" +
		"drwxr-xr-x    2 0        0            4096 Dec 20  1994 sub\r\n"
	aText = "hello world\n"
	bBin  = "\x00\x01\x02\r\n\xff"
	aConv = "< 220 (vsFTPd 3.0.3)\r\n> USER anonymous\r\n> PASS ****\r\n> TYPE I\r\n> MDTM a.txt\r\n" +
		"< 230 Login successful.\r\n< 200 Switching to Binary mode.\r\n< 213 19941220120000\r\n> RETR a.txt\r\n< 226 Transfer complete.\r\n"
)

func writeFTP(t *testing.T, dir string) string {
	t.Helper()
	prefix := filepath.Join(dir, "ftp")
	w, err := warc.CreateSegments(prefix, 0, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	conv := func(uri, text string) {
		c := w.Capture(uri)
		io.WriteString(c.Conversation(), text)
		b := c.Record(schemes.CaptureRecord{Type: "resource", URI: uri, ContentType: "text/plain"})
		io.WriteString(b, aText)
		b.Commit()
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "ftp://127.0.0.21/pub/", ContentType: "text/x-ftp-list"}, vsftpdList)
	conv("ftp://127.0.0.21/pub/a.txt;type=i", aConv)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "ftp://127.0.0.21/pub/sub/b.bin", ContentType: "application/octet-stream"}, bBin)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return prefix
}

func TestFTPReplay(t *testing.T) {
	a := open(t, Options{}, writeFTP(t, t.TempDir()))
	s, err := NewFTPServer(a, "", func(msg string) { t.Log("warning: " + msg) })
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	f := &ftpClient{t: t, c: c, br: bufio.NewReader(c)}
	f.reply()

	for _, tc := range []struct{ cmd, want string }{
		{"PWD", "530 "},
		{"USER anonymous", "331 "},
		{"PASS x@y", "230 "},
		{"SYST", "215 UNIX Type: L8"},
		{"TYPE I", "200 "},
		{"MODE S", "200 "},
		{"STRU F", "200 "},
		{"MODE B", "504 "},
		{"PWD", `257 "/"`},
		{"CWD /pub/../etc", "550 "},
		{"CWD nosuch", "550 "},
		{"CWD pub", "250 "},
		{"PWD", `257 "/pub"`},
		{"SIZE a.txt", "213 12\r\n"},
		{"MDTM a.txt", "213 19941220120000\r\n"},
		{"MDTM sub/b.bin", "550 "},
		{"SIZE /pub/sub/b.bin", "213 6\r\n"},
		{"SIZE ../pub/a.txt", "550 "},
		{"STOR x", "550 "},
		{"DELE a.txt", "550 "},
		{"MKD x", "550 "},
		{"RNFR a.txt", "550 "},
		{"SITE CHMOD 777 a.txt", "550 "},
		{"PORT 127,0,0,1,4,1", "502 "},
		{"MLST a.txt", "250-Listing /pub/a.txt\r\n type=file;size=12;modify=19941220120000; /pub/a.txt\r\n250 End\r\n"},
	} {
		if got := f.cmd(tc.cmd); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q...", tc.cmd, got, tc.want)
		}
	}
	for _, tc := range []struct{ cmd, data string }{
		{"LIST", vsftpdList},
		{"LIST -la /pub", vsftpdList},
		{"NLST", "a.txt\r\nsub\r\n"},
		{"MLSD", "type=file;size=12;modify=19941220120000; a.txt\r\ntype=dir; sub\r\n"},
		{"MLSD sub", "type=file;size=6; b.bin\r\n"},
		{"LIST sub", "-rw-r--r--    1 ftp      ftp                 6 Jan  1  1970 b.bin\r\n"},
		{"RETR a.txt", aText},
		{"RETR sub/b.bin", bBin},
	} {
		data, r := f.transfer(tc.cmd)
		if data != tc.data || !strings.HasPrefix(r, "226 ") {
			t.Errorf("%s: %q, %q; want %q", tc.cmd, data, r, tc.data)
		}
	}
	if r := f.cmd("REST 6"); !strings.HasPrefix(r, "350 ") {
		t.Fatalf("REST: %q", r)
	}
	if data, r := f.transfer("RETR a.txt"); data != aText[6:] || !strings.HasPrefix(r, "226 ") {
		t.Errorf("REST 6, RETR: %q, %q", data, r)
	}
	if _, r := f.transfer("RETR ../../etc/passwd"); !strings.HasPrefix(r, "550 ") {
		t.Errorf("RETR climbing out: %q", r)
	}
	if r := f.cmd("CDUP"); !strings.HasPrefix(r, "250 ") {
		t.Errorf("CDUP: %q", r)
	}
	if r := f.cmd("PWD"); !strings.HasPrefix(r, `257 "/"`) {
		t.Errorf("PWD after CDUP: %q", r)
	}
	if r := f.cmd("QUIT"); !strings.HasPrefix(r, "221 ") {
		t.Errorf("QUIT: %q", r)
	}
}

// TestFTPTimeFromListing answers MDTM for a file whose fetch asked none
// (a mirror that had the time from the listing) from the captured
// listing: MLSD's fact, LIST's date.
func TestFTPTimeFromListing(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "ftp")
	w, err := warc.CreateSegments(prefix, 0, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "ftp://127.0.0.21/pub/", ContentType: "text/x-ftp-list"},
		"-rw-r--r--    1 0        0               5 Jan 05  2001 c.txt\r\n")
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "ftp://127.0.0.21/pub/c.txt", ContentType: "text/plain"}, "ccccc")
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "ftp://127.0.0.21/m/", ContentType: "text/x-ftp-mlsd"},
		"type=file;size=1;modify=20200304050607; d.txt\r\ntype=file;size=1; e.txt\r\n")
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "ftp://127.0.0.21/m/d.txt", ContentType: "text/plain"}, "d")
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "ftp://127.0.0.21/m/e.txt", ContentType: "text/plain"}, "e")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tree := newFTPTree(open(t, Options{}, prefix), "127.0.0.21:21")
	for p, want := range map[string]string{"/pub/c.txt": "20010105000000", "/m/d.txt": "20200304050607", "/m/e.txt": ""} {
		m, ok := tree.modTime(p)
		if got := m.UTC().Format("20060102150405"); ok != (want != "") || ok && got != want {
			t.Errorf("%s: %s %v, want %q", p, got, ok, want)
		}
	}
}
