package integration_test

// Directory times to the second from a server that answers MDTM for a
// directory (Twisted: no MLSD, LIST shows the minute or the day), with
// ftp.Fetcher.DirTimes; vsftpd refuses it, and its directories keep
// LIST's day.

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/integration/itest"
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
