package ftp_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/schemes/ftp"
)

// A mirror of an MVS high-level qualifier holds its partitioned datasets
// as directories and their members as files: members with ISPF
// statistics and members listed by name alone, under the member header
// or, in a PDS none of whose members has statistics, without one.
func TestMirrorMVSPartitionedDataset(t *testing.T) {
	srv := ftp.NewFakeServer(t, nil)
	srv.AddListing("LIST", "/", "Volume Unit    Referred Ext Used Recfm Lrecl BlkSz Dsorg Dsname\r\n"+
		"WYSE01 3390   2024/01/02  1   15  FB      80  3120  PO  USER.SOURCE\r\n"+
		"WYSE02 3390   2024/01/03  1+++++  FB      80  3120  PO-E  USER.BARE\r\n")
	srv.AddListing("LIST", "/USER.SOURCE", " Name     VV.MM   Created       Changed      Size  Init   Mod   Id\r\n"+
		"MEMBER1   01.03 2002/09/12 2002/10/11 09:37    11    11     0 KIL001\r\n"+
		"NOSTATS\r\n")
	srv.AddFile("/USER.SOURCE/MEMBER1", "first member\n")
	srv.AddFile("/USER.SOURCE/NOSTATS", "second member\n")
	srv.AddListing("LIST", "/USER.BARE", "ALPHA\r\nBETA\r\n")
	srv.AddFile("/USER.BARE/ALPHA", "alpha\n")
	srv.AddFile("/USER.BARE/BETA", "beta\n")
	dir := t.TempDir()
	c := fetch.NewClient(fetch.Options{Warn: func(string) {}})
	defer c.Close()
	url := "ftp://127.0.0.1:" + strconv.Itoa(srv.Port()) + "/"
	sum, err := mirror.Run(context.Background(), c, url, dir, mirror.Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"USER.SOURCE/MEMBER1": "first member\n", "USER.SOURCE/NOSTATS": "second member\n",
		"USER.BARE/ALPHA": "alpha\n", "USER.BARE/BETA": "beta\n"} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	if sum.Unparsed != 0 || sum.New != 4 {
		t.Errorf("%d unparsed listing lines, %d new files; want 0 and 4", sum.Unparsed, sum.New)
	}
}
