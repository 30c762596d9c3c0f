package integration_test

// Directory times to the second from a server that answers MDTM for a
// directory (Twisted: no MLSD, LIST shows the minute or the day), with
// ftp.Fetcher.DirTimes; vsftpd refuses it, and its directories keep
// LIST's day.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/integration/relay"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/ftp"
)

func TestFTPDirectoryTimesFromMDTM(t *testing.T) {
	itest.Parallel(t)
	o := fetch.Options{Warn: func(string) {}}
	o.SetFetcher(&ftp.Fetcher{Email: "gofer@example.org", DirTimes: true}, ftp.Schemes()...)
	c := fetch.NewClient(o)
	defer c.Close()
	list := func(url string) []schemes.Entry {
		t.Helper()
		resp, err := c.Get(itest.Context(t), url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Close()
		var out []schemes.Entry
		for {
			e, err := resp.Listing.Next()
			if err == io.EOF {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, e)
		}
	}
	dirs := 0
	for _, e := range list("ftp://127.0.0.35/archive/tree/") { // Twisted
		if e.Type != schemes.TypeDir {
			continue
		}
		dirs++
		fi, err := os.Stat(filepath.Join(itest.FTPMoreDir(), "archive", "tree", e.Name))
		if err != nil {
			t.Fatal(err)
		}
		want := fi.ModTime().UTC().Truncate(time.Second)
		if e.Precision != schemes.PrecisionSecond || !e.Modified.Equal(want) {
			t.Errorf("Twisted %s: %v (%s), want its mtime %v to the second", e.Name, e.Modified, e.Precision, want)
		}
	}
	if dirs == 0 {
		t.Fatal("no directory listed in archive/tree/: the check proves nothing")
	}
	itest.Require(t, itest.FTPHost+":21")
	for _, e := range list("ftp://" + itest.FTPHost + "/archive/") { // vsftpd: MDTM of files only
		if e.Type == schemes.TypeDir && e.Precision == schemes.PrecisionSecond {
			t.Errorf("vsftpd %s: dated to the second, but vsftpd's MDTM refuses directories", e.Name)
		}
	}
}

// clientWrites returns the client's writes in a relay's trace, from byte
// from on, each as the trace quotes it ("MDTM a\r\n").
func clientWrites(trace string, from int) []string {
	var out []string
	for _, l := range strings.Split(trace[from:], "\n") {
		f := strings.SplitN(l, " ", 4)
		if len(f) == 4 && strings.HasPrefix(f[1], "c") && f[2] == ">" {
			out = append(out, f[3])
		}
	}
	return out
}

// dirMDTMs counts, per client write that holds any, the MDTMs of the
// directories dirs.
func dirMDTMs(writes []string, dirs ...string) []int {
	var out []int
	for _, w := range writes {
		n := 0
		for _, d := range dirs {
			n += strings.Count(w, "MDTM "+d+`\r\n`)
		}
		if n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// TestFTPMirrorDirectoryTimes: a mirror from Twisted, which answers MDTM
// for a directory, gives each directory the server's time to the second;
// the first run probes with one directory's MDTM alone, the state keeps
// the answer, and an unchanged rerun sends the directories' MDTMs in one
// batch, no probe before them. vsftpd refuses the probe, once: the rerun
// sends no MDTM at all.
func TestFTPMirrorDirectoryTimes(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.TwistedFTPHost+":21")
	itest.Require(t, itest.FTPHost+":21")
	src := itest.FTPMoreScratch(t)
	base := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	want := map[string]time.Time{}
	for i, d := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, d, "f.txt"), []byte(d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		want[d] = base.Add(time.Duration(i*17) * time.Second)
		os.Chtimes(filepath.Join(src, d), want[d], want[d])
	}
	var trace lockedBuffer
	rl, err := relay.Listen("127.0.0.1:0", itest.TwistedFTPHost+":21", true, relay.Config{Trace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	port := rl.Addr()[strings.LastIndexByte(rl.Addr(), ':')+1:]
	url := "ftp://" + rl.Addr() + "/scratch/" + t.Name() + "/"
	dir := t.TempDir()
	times := func(run string) {
		t.Helper()
		for d, w := range want {
			fi, err := os.Stat(filepath.Join(dir, d))
			if err != nil {
				t.Fatal(err)
			}
			if !fi.ModTime().Equal(w) {
				t.Errorf("%s: %s has time %v, want the server's %v", run, d, fi.ModTime().UTC(), w)
			}
		}
	}
	if r := itest.Run(t, nil, nil, "mirror", "-j", "1", "--allow-port", port, url, dir); r.Code != 0 {
		t.Fatalf("mirror: exit %d: %s", r.Code, r.Stderr)
	}
	times("first run")
	first := trace.String()
	if n := dirMDTMs(clientWrites(first, 0), "a", "b", "c"); fmt.Sprint(n) != "[1 2]" {
		t.Errorf("first run: directories' MDTMs per write %v, want the probe alone, then the other two in one write: %q", n, clientWrites(first, 0))
	}
	r := itest.Run(t, nil, nil, "mirror", "-j", "1", "--allow-port", port, url, dir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "0 new, 0 updated, 3 unchanged") {
		t.Fatalf("rerun: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	times("rerun")
	if n := dirMDTMs(clientWrites(trace.String(), len(first)), "a", "b", "c"); fmt.Sprint(n) != "[3]" {
		t.Errorf("rerun: directories' MDTMs per write %v, want the three in one write, no probe: %q", n, clientWrites(trace.String(), len(first)))
	}

	// vsftpd refuses MDTM of a directory: probed once, never again.
	name := "dirtimes-refused"
	scratchTree(t, name)
	var vtrace lockedBuffer
	vl, err := relay.Listen("127.0.0.1:0", itest.FTPHost+":21", true, relay.Config{Trace: &vtrace})
	if err != nil {
		t.Fatal(err)
	}
	defer vl.Close()
	vport := vl.Addr()[strings.LastIndexByte(vl.Addr(), ':')+1:]
	vurl := "ftp://" + vl.Addr() + "/scratch/" + name + "/"
	vdir := t.TempDir()
	if r := itest.Run(t, nil, nil, "mirror", "-j", "1", "--allow-port", vport, vurl, vdir); r.Code != 0 {
		t.Fatalf("vsftpd: exit %d: %s", r.Code, r.Stderr)
	}
	vfirst := vtrace.String()
	if w := strings.Join(clientWrites(vfirst, 0), "|"); !strings.Contains(w, `"MDTM sub0\r\n"`) || strings.Contains(w, "MDTM sub1") {
		t.Errorf("vsftpd, first run: want one probe (MDTM sub0), and sub1 not asked; the client wrote %s", w)
	}
	r = itest.Run(t, nil, nil, "mirror", "-j", "1", "--allow-port", vport, vurl, vdir)
	if r.Code != 0 || !strings.Contains(r.Stdout, "0 new, 0 updated, 6 unchanged") {
		t.Fatalf("vsftpd rerun: exit %d: %s%s", r.Code, r.Stdout, r.Stderr)
	}
	if w := strings.Join(clientWrites(vtrace.String(), len(vfirst)), "|"); strings.Contains(w, "MDTM") {
		t.Errorf("vsftpd rerun: an MDTM went out, though the probe was refused before: %s", w)
	}
}
