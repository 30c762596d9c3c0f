package ftp

import (
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

func TestParseListingOfRecordedBytes(t *testing.T) {
	base, err := schemes.Parse("ftp://127.0.0.1:2121/pub/")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	list := "total 8\r\n-rw-r--r--   1 ftp ftp  1234 Nov 20 10:00 readme.txt\r\ndrwxr-xr-x   2 ftp ftp  4096 Nov 20 10:00 sub\r\nsomething odd\r\n"
	es, err := ParseListing(strings.NewReader(list), base, false, now, &schemes.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 3 {
		t.Fatalf("got %d entries, want 3: %+v", len(es), es)
	}
	if es[0].Name != "readme.txt" || es[0].Size != 1234 || es[0].URL != "ftp://127.0.0.1:2121/pub/readme.txt" {
		t.Errorf("file entry %+v", es[0])
	}
	if es[1].Type != schemes.TypeDir || es[1].URL != "ftp://127.0.0.1:2121/pub/sub/" {
		t.Errorf("directory entry %+v", es[1])
	}
	if es[2].Type != schemes.TypeUnparsed || es[2].Name != "something odd" {
		t.Errorf("odd line %+v", es[2])
	}
	mlsd := "type=cdir; .\r\ntype=file;size=5;modify=20261120100000; a.txt\r\n"
	es, err = ParseListing(strings.NewReader(mlsd), base, true, now, &schemes.Request{})
	if err != nil || len(es) != 1 || es[0].URL != "ftp://127.0.0.1:2121/pub/a.txt" || es[0].Size != 5 {
		t.Errorf("MLSD: %+v, %v", es, err)
	}
	if _, err := ParseListing(strings.NewReader(list), base, false, now, &schemes.Request{Settings: &schemes.Settings{MaxEntries: 1}}); err == nil {
		t.Error("a listing past MaxEntries gave no error")
	}
}
