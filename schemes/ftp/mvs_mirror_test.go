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

// A mirror of an MVS partitioned dataset holds its members: those with
// ISPF statistics and those listed by name alone.
func TestMirrorMVSPartitionedDataset(t *testing.T) {
	srv := ftp.NewFakeServer(t, nil)
	srv.AddListing("LIST", "/USER.SOURCE", " Name     VV.MM   Created       Changed      Size  Init   Mod   Id\r\n"+
		"MEMBER1   01.03 2002/09/12 2002/10/11 09:37    11    11     0 KIL001\r\n"+
		"NOSTATS\r\n")
	srv.AddFile("/USER.SOURCE/MEMBER1", "first member\n")
	srv.AddFile("/USER.SOURCE/NOSTATS", "second member\n")
	dir := t.TempDir()
	c := fetch.NewClient(fetch.Options{Warn: func(string) {}})
	defer c.Close()
	url := "ftp://127.0.0.1:" + strconv.Itoa(srv.Port()) + "/USER.SOURCE/"
	sum, err := mirror.Run(context.Background(), c, url, dir, mirror.Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"MEMBER1": "first member\n", "NOSTATS": "second member\n"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", name, b, err, want)
		}
	}
	if sum.Unparsed != 0 {
		t.Errorf("%d unparsed listing lines, want 0", sum.Unparsed)
	}
}
