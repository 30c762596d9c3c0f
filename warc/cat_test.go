package warc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// TestCatArchives picks captures across segments by time, resolves a
// revisit to the payload it stands for, and reads a segment only where
// its index points.
func TestCatArchives(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "crawl")
	const uri = "gopher://127.0.0.71/0/a.txt"
	day := func(d int) time.Time { return time.Date(2026, 11, d, 12, 0, 0, 0, time.UTC) }
	for i, body := range []string{"first\r\n", "second\r\n", "second\r\n"} {
		w, err := CreateSegments(prefix, 0, Info{Software: "gofer test"})
		if err != nil {
			t.Fatal(err)
		}
		c := w.Capture(uri)
		c.date = day(10 + i)
		record(t, c, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain", Protocol: []string{"gopher"}},
			strings.NewReader(body))
		c.Close()
		other := w.Capture("gopher://127.0.0.71/0/other.txt")
		record(t, other, schemes.CaptureRecord{Type: "resource", ContentType: "text/plain", Protocol: []string{"gopher"}},
			strings.NewReader("other\r\n"))
		other.Close()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	cat := func(at time.Time, archives ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := CatArchives(archives, uri, at, &out); err != nil {
			t.Fatalf("CatArchives(%q, at %v): %v", archives, at, err)
		}
		return out.String()
	}
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Time{}, "first\r\n"},
		{day(1), "first\r\n"},
		{day(11).Add(time.Hour), "second\r\n"},
		{day(30), "second\r\n"}, // the revisit of the third run
	} {
		if got := cat(c.at, prefix); got != c.want {
			t.Errorf("at %v: %q, want %q", c.at, got, c.want)
		}
	}
	if got := cat(day(30), SegmentName(prefix, 1), SegmentName(prefix, 2)); got != "second\r\n" {
		t.Errorf("two segments named: %q", got)
	}
	if _, err := os.Stat(IndexName(SegmentName(prefix, 2))); err != nil {
		t.Fatal(err)
	}
	// Point the first segment's index entry of uri at the other record:
	// cat reads where the index says, without scanning the segment.
	seg := SegmentName(prefix, 0)
	offsets := map[string]string{}
	Index(seg, func(_ string, e IndexEntry) { offsets[e.URL] = fmt.Sprintf(`"offset":%d,`, e.Offset) })
	idx, err := os.ReadFile(IndexName(seg))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.SplitAfter(string(idx), "\n") {
		if strings.Contains(l, `"url":"`+uri+`"`) {
			l = strings.Replace(l, offsets[uri], offsets["gopher://127.0.0.71/0/other.txt"], 1)
		}
		lines = append(lines, l)
	}
	if err := os.WriteFile(IndexName(seg), []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := cat(time.Time{}, prefix); got != "other\r\n" {
		t.Errorf("through an index pointing elsewhere: %q, want the record it points at", got)
	}
	if err := CatArchives([]string{prefix}, "gopher://127.0.0.71/0/none", time.Time{}, &bytes.Buffer{}); err == nil {
		t.Error("a URI never captured was found")
	}
}

func TestParseTimestamp(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2026":                 time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		"20261127":             time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC),
		"20261127043801":       time.Date(2026, 11, 27, 4, 38, 1, 0, time.UTC),
		"2026-11-27T04:38:01Z": time.Date(2026, 11, 27, 4, 38, 1, 0, time.UTC),
	} {
		if got, err := ParseTimestamp(in); err != nil || !got.Equal(want) {
			t.Errorf("ParseTimestamp(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "20x6", "202611271", "yesterday"} {
		if _, err := ParseTimestamp(bad); err == nil {
			t.Errorf("ParseTimestamp(%q) succeeded", bad)
		}
	}
}
