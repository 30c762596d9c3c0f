package ftp

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// listNames fetches the listing of segs and returns its names.
func listNames(t *testing.T, f *Fetcher, fake *fakeFTP, segs ...string) ([]string, error) {
	t.Helper()
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, segs...)))
	if err != nil {
		return nil, err
	}
	defer resp.Close()
	var names []string
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return names, err
		}
		names = append(names, e.Name)
	}
}

// getBody fetches the file of segs.
func getBody(t *testing.T, f *Fetcher, fake *fakeFTP, segs ...string) string {
	t.Helper()
	req := newReq(ftpURL(fake.port(), 0, segs...))
	req.SkipMetadata = true
	// A connection left out of step would wait for a reply forever.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := f.Fetch(ctx, req)
	if err != nil {
		t.Fatalf("%v: %v", segs, err)
	}
	defer resp.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A listing in another directory on a connection whose data connection
// was asked for ahead goes out behind its CWDs: one round trip, not two.
// When a CWD is refused, what the listing command listed (the directory
// the connection was in) is not taken for the directory asked for, and
// the connection stays in step.
func TestListingBehindItsCWDs(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/d/x", "ex")
	fake.addFile("/d/y", "why")
	fake.dirs["/e"] = true
	fake.listings["LIST /e"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 in-e\r\n"
	fake.listings["LIST /d"] = "-rw-r--r--    1 0 0 2 Dec 20  1994 x\r\n-rw-r--r--    1 0 0 3 Dec 20  1994 y\r\n"
	f := newFetcher()
	if got := getBody(t, f, fake, "d", "x"); got != "ex" {
		t.Fatalf("x: %q", got)
	}
	if got := getBody(t, f, fake, "d", "y"); got != "why" {
		t.Fatalf("y: %q", got)
	}
	names, err := listNames(t, f, fake, "e", "")
	if err != nil || strings.Join(names, ",") != "in-e" {
		t.Fatalf("listing of e: %q, %v", names, err)
	}
	// From e, a directory that is not there: the LIST behind the refused
	// CWD lists e, which must not come back as "nodir".
	names, err = listNames(t, f, fake, "nodir", "")
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "550") || len(names) > 0 {
		t.Fatalf("listing of a missing directory: %q, %v; want the server's 550 and no entries", names, err)
	}
	names, err = listNames(t, f, fake, "d", "")
	if err != nil || strings.Join(names, ",") != "x,y" {
		t.Fatalf("then the listing of d: %q, %v", names, err)
	}
	if n := fake.endWith(f); n != 1 {
		t.Errorf("%d logins, want 1: the connection stays in step", n)
	}
	want := []string{
		loginBatch + "CWD d\r\nEPSV\r\n",
		"RETR x\r\n",
		"EPSV\r\nRETR y\r\nEPSV\r\n",
		// e: the CWDs and the LIST in one write, the next EPSV behind.
		"CWD /\r\nCWD e\r\nLIST\r\nEPSV\r\n",
		"CWD /\r\nCWD nodir\r\nLIST\r\nEPSV\r\n",
		"CWD /\r\nCWD d\r\nLIST\r\nEPSV\r\n",
		"QUIT\r\n",
	}
	fake.wantBatches(t, want)
}

// A RETR on a connection whose data connection was asked for ahead goes
// out behind the CWDs that lead to its directory. When one of them is
// refused, a file of the same name where the connection was is not what
// was asked for: its transfer is closed unread, the refusal is the
// fetch's error, and the connection stays in step.
func TestRetrBehindItsCWDs(t *testing.T) {
	fake := newFake(t)
	fake.addFile("/d/x", "ex")
	fake.addFile("/d/y", "why")
	fake.addFile("/e/z", "zed")
	fake.addFile("/x", "the other x")
	f := newFetcher()
	for _, tc := range []struct{ dir, name, want string }{{"d", "x", "ex"}, {"d", "y", "why"}, {"e", "z", "zed"}} {
		if got := getBody(t, f, fake, tc.dir, tc.name); got != tc.want {
			t.Fatalf("%s/%s: %q, want %q", tc.dir, tc.name, got, tc.want)
		}
	}
	req := newReq(ftpURL(fake.port(), 0, "nodir", "x"))
	req.SkipMetadata = true
	if resp, err := f.Fetch(context.Background(), req); !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "550") || resp != nil {
		t.Fatalf("nodir/x: %v, want the server's 550 and no body", err)
	}
	if got := getBody(t, f, fake, "d", "x"); got != "ex" {
		t.Fatalf("then d/x: %q", got)
	}
	if n := fake.endWith(f); n != 1 {
		t.Errorf("%d logins, want 1: the connection stays in step", n)
	}
	want := []string{
		loginBatch + "CWD d\r\nEPSV\r\n",
		"RETR x\r\n",
		"EPSV\r\nRETR y\r\nEPSV\r\n",
		// e/z and nodir/x: the CWDs and the RETR in one write.
		"CWD /\r\nCWD e\r\nRETR z\r\nEPSV\r\n",
		"CWD /\r\nCWD nodir\r\nRETR x\r\nEPSV\r\n",
		"CWD /\r\nCWD d\r\nRETR x\r\nEPSV\r\n",
		"QUIT\r\n",
	}
	fake.wantBatches(t, want)
}
