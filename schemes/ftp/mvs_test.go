package ftp

import (
	"strconv"
	"strings"
	"testing"
)

// An MVS partitioned dataset (PDS) is listed like a directory: its
// members, with ISPF statistics or as bare names under the member header,
// are files with URLs inside it, and a dataset listing makes the PDS a
// directory.
func TestListingMVSPartitionedDataset(t *testing.T) {
	fake := newFake(t)
	fake.dirs["/USER.SOURCE"] = true
	fake.listings["LIST /USER.SOURCE"] = " Name     VV.MM   Created       Changed      Size  Init   Mod   Id\r\n" +
		"MEMBER1   01.03 2002/09/12 2002/10/11 09:37    11    11     0 KIL001\r\n" +
		"NOSTATS\r\n" +
		"$HASH#@   01.00 2020/02/29 2020/02/29 23:59:58  5     5     0 USER1\r\n"
	fake.dirs["/"] = true
	fake.listings["LIST /"] = "Volume Unit    Referred Ext Used Recfm Lrecl BlkSz Dsorg Dsname\r\n" +
		"WYSE01 3390   2024/01/02  1   15  FB      80  3120  PO  USER.SOURCE\r\n" +
		"WYSE02 3390   2024/11/30  1+++++  VBS  32767 27966  PS  USER.BIG\r\n" +
		"                                                  VSAM  USER.KSDS\r\n"
	base := "ftp://127.0.0.1:" + strconv.Itoa(fake.port()) + "/"
	for _, tc := range []struct {
		dir  string
		want []string
	}{
		{"USER.SOURCE", []string{
			"file MEMBER1 " + base + "USER.SOURCE/MEMBER1 2002-10-11 09:37",
			"file NOSTATS " + base + "USER.SOURCE/NOSTATS ",
			"file $HASH#@ " + base + "USER.SOURCE/$HASH%23@ 2020-02-29 23:59:58",
		}},
		{"", []string{
			"dir USER.SOURCE " + base + "USER.SOURCE/ 2024-01-02",
			"file USER.BIG " + base + "USER.BIG 2024-11-30",
			"file USER.KSDS " + base + "USER.KSDS ",
		}},
	} {
		u := ftpURL(fake.port(), 0, tc.dir, "")
		if tc.dir == "" {
			u = ftpURL(fake.port(), 0, "")
		}
		got, err := listAll(t, newReq(u))
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, e := range got {
			lines = append(lines, e.Type+" "+e.Name+" "+e.URL+" "+e.FormatModified())
		}
		if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("LIST /%s:\n%s\nwant\n%s", tc.dir, strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
