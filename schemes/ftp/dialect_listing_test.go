package ftp

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// listAll fetches u's listing from fake and returns every entry Next gave.
func listAll(t *testing.T, req *schemes.Request) ([]schemes.Entry, error) {
	t.Helper()
	f := newFetcher()
	defer f.Close()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if resp.Listing == nil {
		t.Fatalf("kind %v: not a listing", resp.Kind)
	}
	var out []schemes.Entry
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

func TestListingUnknownLineIsUnparsed(t *testing.T) {
	fake := newFake(t)
	fake.dirs["/pub"] = true
	fake.listings["LIST /pub"] = "total 2\r\n" +
		"-rw-r--r--    1 0 0    1 Jan 02  2024 a.txt\r\n" +
		"?? this is no listing line ??\r\n" +
		"-rw-r--r--    1 0 0    2 Jan 02  2024 b.txt\r\n"
	got, err := listAll(t, newReq(ftpURL(fake.port(), 0, "pub", "")))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Type+":"+e.Name)
	}
	if strings.Join(names, "|") != "file:a.txt|unparsed:?? this is no listing line ??|file:b.txt" {
		t.Fatalf("entries %q", names)
	}
	if u := got[1]; u.URL != "" || u.Size != -1 {
		t.Errorf("unparsed entry %+v: want no URL and size -1", u)
	}
	if got[0].URL == "" || got[2].URL == "" {
		t.Errorf("entries without URLs: %+v", got)
	}
}

func TestListingVMSVersionsAndRecords(t *testing.T) {
	fake := newFake(t)
	fake.dirs["/vms"] = true
	fake.listings["LIST /vms"] = strings.Join(fixtureLines(t, "vms"), "\r\n") + "\r\n"
	got, err := listAll(t, newReq(ftpURL(fake.port(), 0, "vms", "")))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range got {
		lines = append(lines, e.Type+" "+e.Name+" "+e.URL)
	}
	base := "ftp://127.0.0.1:" + strconv.Itoa(fake.port()) + "/vms/"
	want := []string{
		"file 00README.TXT " + base + "00README.TXT%3B3",
		"file 00README.TXT " + base + "00README.TXT%3B2",
		"dir CORE " + base + "CORE/",
		"file A_VERY_LONG_FILE_NAME_THAT_NEEDS_TWO_LINES.TXT " + base + "A_VERY_LONG_FILE_NAME_THAT_NEEDS_TWO_LINES.TXT%3B12",
		"unparsed SECRET.DAT;1              %RMS-E-PRV, insufficient privilege or file protection violation ",
		"unparsed ORPHAN_NAME_WITHOUT_ITS_RECORD.LIS;1 ",
		"unparsed ANOTHER_LONG_NAME_BEYOND_ITS_COLUMN.DAT;7 ",
		"unparsed                           %RMS-E-PRV, insufficient privilege or file protection violation ",
		"dir LOWER " + base + "LOWER/",
		"unparsed TRAILING_NAME.TXT;4 ",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestListingUnparsedCountsAgainstLimit(t *testing.T) {
	fake := newFake(t)
	fake.dirs["/pub"] = true
	fake.listings["LIST /pub"] = strings.Repeat("garbage line\r\n", 20)
	req := newReq(ftpURL(fake.port(), 0, "pub", ""))
	req.MaxEntries = 5
	got, err := listAll(t, req)
	if !errors.Is(err, schemes.ErrTooLarge) || len(got) != 5 {
		t.Fatalf("%d entries, %v: want 5 then ErrTooLarge", len(got), err)
	}
}

func TestListingMLSDUnparsed(t *testing.T) {
	fake := newFake(t)
	fake.mlst = true
	fake.dirs["/pub"] = true
	fake.listings["MLSD /pub"] = "type=cdir;modify=20240102030405; .\r\n" +
		"\r\n" +
		"not an MLSD line\r\n" +
		"type=file;size=42;modify=20240102030405; read me.txt\r\n"
	got, err := listAll(t, newReq(ftpURL(fake.port(), 0, "pub", "")))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (schemes.Entry{Name: "not an MLSD line", Type: schemes.TypeUnparsed, Size: -1}) ||
		got[1].Name != "read me.txt" {
		t.Fatalf("entries %+v", got)
	}
}
