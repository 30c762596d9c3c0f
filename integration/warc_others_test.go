package integration_test

// WARCs as other tools write them, and gofer's own captures read back
// through replay: wget's WARCs (compressed per record, uncompressed, with
// deduplication), one gzipped whole, every reading command against each,
// record counts and payload digests compared with warcio.js's reading
// ($GOFER_WARCIO); and an FTP capture made through a link with latency,
// where the mirror pipelines, whose replay answers MDTM for every file.

import (
	"context"
	"io/fs"
	"net"
	"net/textproto"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
	"github.com/goferurl/gofer/replay"
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
