package ftp

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// With Fetcher.DirTimes, a LIST listing's directories get the time MDTM
// gives them, to the second, where the server answers MDTM for a
// directory; the entries keep
// their order, and a directory MDTM refuses keeps the time LIST showed.
// A server that refuses the first directory's MDTM is asked of no
// directory again.
func TestListingDirectoryTimesFromMDTM(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/pub/a.txt", "a")
	fake.dirs["/pub/sub"], fake.dirs["/pub/other"] = true, true
	// The scripted server answers MDTM for what it holds as a file: a
	// directory held as both answers, as Twisted's does.
	fake.files["/pub/sub"] = ""
	fake.listings["LIST /pub"] = "drwxr-xr-x    2 0 0 4096 Jan 02  2024 sub\r\n" +
		"-rw-r--r--    1 0 0    1 Jan 02 10:30 a.txt\r\n" +
		"drwxr-xr-x    2 0 0 4096 Jan 02 10:30 other\r\n"
	f := newFetcher()
	f.DirTimes = true
	defer f.Close()
	req := newReq(ftpURL(fake.port(), 0, "pub", ""))
	for run := 0; run < 2; run++ {
		_, data, _ := fetchOneWith(t, f, req)
		if string(data) != "sub dir \na.txt file \nother dir \n" {
			t.Fatalf("run %d: entries %q, want them in the listing's order", run, data)
		}
	}
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var got []schemes.Entry
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	resp.Close()
	byName := map[string]schemes.Entry{}
	for _, e := range got {
		byName[e.Name] = e
	}
	if e := byName["sub"]; !e.Modified.Equal(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)) || e.Precision != schemes.PrecisionSecond {
		t.Errorf("sub: %v (%s), want MDTM's 2024-01-02 03:04:05 to the second", e.Modified, e.Precision)
	}
	if e := byName["other"]; e.Precision != schemes.PrecisionMinute || e.Modified.Hour() != 10 || e.Modified.Minute() != 30 {
		t.Errorf("other (MDTM refused): %v (%s), want LIST's 10:30 to the minute", e.Modified, e.Precision)
	}
	if n := strings.Count(strings.Join(fake.sent(), ""), "MDTM sub\r\n"); n != 3 {
		t.Errorf("%d MDTM sub for three listings, want one each", n)
	}
	// Without DirTimes nothing is asked.
	plain := newFetcher()
	defer plain.Close()
	before := strings.Count(strings.Join(fake.sent(), ""), "MDTM ")
	fetchOneWith(t, plain, req)
	if n := strings.Count(strings.Join(fake.sent(), ""), "MDTM ") - before; n != 0 {
		t.Errorf("%d MDTM without DirTimes", n)
	}

	// A server that refuses: probed once, with the first directory.
	refusing := newFake(t)
	refusing.dirs["/pub"], refusing.dirs["/pub/sub"], refusing.dirs["/pub/other"] = true, true, true
	refusing.listings["LIST /pub"] = fake.listings["LIST /pub"]
	f2 := newFetcher()
	f2.DirTimes = true
	defer f2.Close()
	req2 := newReq(ftpURL(refusing.port(), 0, "pub", ""))
	for run := 0; run < 2; run++ {
		fetchOneWith(t, f2, req2)
	}
	sent := strings.Join(refusing.sent(), "")
	if n := strings.Count(sent, "MDTM "); n != 1 || !strings.Contains(sent, "MDTM sub\r\n") {
		t.Errorf("%d MDTM (%q), want the one probe of sub", n, sent)
	}
}
