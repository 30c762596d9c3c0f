package file

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

func fileReq(host, p string) *schemes.Request {
	return &schemes.Request{URL: &schemes.URL{Scheme: "file", Host: host, File: &schemes.File{Path: p}}, Settings: &schemes.Settings{}}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "motd.txt")
	if err := os.WriteFile(p, []byte("hello, world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(1994, 12, 20, 10, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"", "localhost", "LocalHost"} {
		resp, err := New().Fetch(context.Background(), fileReq(host, p))
		if err != nil {
			t.Fatalf("host %q: %v", host, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Kind != schemes.KindFile || string(body) != "hello, world\n" {
			t.Errorf("host %q: kind %v body %q", host, resp.Kind, body)
		}
		if resp.Size != 13 || resp.Name != "motd.txt" || !resp.Modified.Equal(mtime) || resp.MediaType != "text/plain" {
			t.Errorf("host %q: size %d name %q modified %v media %q", host, resp.Size, resp.Name, resp.Modified, resp.MediaType)
		}
	}
}

func TestResumeSeeks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.bin")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	req := fileReq("", p)
	req.Offset = 4
	resp, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "456789" || resp.Offset != 4 || resp.Size != 10 {
		t.Errorf("body %q offset %d size %d", body, resp.Offset, resp.Size)
	}

	req.Offset = 11
	if _, err := New().Fetch(context.Background(), req); !errors.Is(err, schemes.ErrRefused) {
		t.Errorf("offset past end: %v, want ErrRefused", err)
	}
}

func TestMaxBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	req := fileReq("", p)
	req.MaxBytes = 99
	if _, err := New().Fetch(context.Background(), req); !errors.Is(err, schemes.ErrTooLarge) {
		t.Errorf("100 bytes with limit 99: %v, want ErrTooLarge", err)
	}
	req.MaxBytes = 100
	resp, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) != 100 {
		t.Errorf("exactly the limit: %d bytes, %v", len(b), err)
	}
}

func TestMissingPathRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no-such-file")
	_, err := New().Fetch(context.Background(), fileReq("", p))
	if !errors.Is(err, schemes.ErrRefused) {
		t.Fatalf("err = %v, want ErrRefused", err)
	}
	if !strings.Contains(err.Error(), p) {
		t.Errorf("message %q does not name the path", err)
	}
}

func TestForeignHostRefused(t *testing.T) {
	req := fileReq("ftp.example.org", "/pub/README")
	_, err := New().Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrUsage) {
		t.Fatalf("err = %v, want ErrUsage", err)
	}
	for _, want := range []string{"only reach this machine", "ftp://ftp.example.org/pub/README"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if _, err := New().Plan(req); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("Plan: %v, want ErrUsage", err)
	}
}

func TestDirectoryListing(t *testing.T) {
	dir := t.TempDir()
	// A name that is not valid UTF-8 must survive as the same bytes.
	latin1 := "caf\xe9 menu.txt"
	must(t, os.WriteFile(filepath.Join(dir, latin1), []byte("12345"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "link")))

	resp, err := New().Fetch(context.Background(), fileReq("", dir+"/"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if resp.Kind != schemes.KindListing {
		t.Fatalf("kind %v, want listing", resp.Kind)
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
	sort.Slice(got, func(i, j int) bool { return got[i].Name < got[j].Name })
	if len(got) != 3 {
		t.Fatalf("entries %+v", got)
	}
	want := []struct{ name, typ, url string }{
		{latin1, "file", "file://" + escapePath(dir) + "/caf%E9%20menu.txt"},
		{"link", "link", "file://" + escapePath(dir) + "/link"},
		{"sub", "dir", "file://" + escapePath(dir) + "/sub/"},
	}
	for i, w := range want {
		e := got[i]
		if e.Name != w.name || e.Type != w.typ || e.URL != w.url {
			t.Errorf("entry %d = %q %q %q, want %q %q %q", i, e.Name, e.Type, e.URL, w.name, w.typ, w.url)
		}
	}
	if got[0].Size != 5 || got[0].Modified.IsZero() {
		t.Errorf("file entry size %d modified %v", got[0].Size, got[0].Modified)
	}
	if got[1].Target != "/etc/passwd" {
		t.Errorf("link target %q", got[1].Target)
	}
	js, err := json.Marshal(got[2])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"type":"dir"`) || !strings.Contains(string(js), `"modified":"`) {
		t.Errorf("json %s", js)
	}
}

func TestListingStreamsInBatches(t *testing.T) {
	dir := t.TempDir()
	n := batchSize*2 + 7
	for i := 0; i < n; i++ {
		must(t, os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o644))
	}
	resp, err := New().Fetch(context.Background(), fileReq("", dir))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	l := resp.Listing.(*listing)
	count := 0
	for {
		_, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(l.batch) >= batchSize {
			t.Fatalf("holding %d entries at once", len(l.batch))
		}
		count++
	}
	if count != n {
		t.Errorf("listed %d entries, want %d", count, n)
	}
}

func TestListingLimit(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c"} {
		must(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
	}
	req := fileReq("", dir)
	req.MaxEntries = 2
	resp, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	var last error
	for i := 0; i < 3; i++ {
		_, last = resp.Listing.Next()
	}
	if !errors.Is(last, schemes.ErrTooLarge) {
		t.Errorf("third entry with limit 2: %v, want ErrTooLarge", last)
	}
}

func TestPlanNotesPath(t *testing.T) {
	plan, err := New().Plan(fileReq("localhost", "/etc/motd"))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Requests) != 0 || plan.Notes["local_path"] != "/etc/motd" {
		t.Errorf("plan %+v", plan)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
