package replay

import (
	"testing"
	"time"
)

// At travels: the same archive answers with the capture nearest each
// time, and Captures lists every capture of a URL, oldest first.
func TestAtAndCaptures(t *testing.T) {
	latest := fetcherArchive(t, time.Time{})
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Time{}, "the late text\r\n"},
		{early.Add(-time.Hour), "the early text\r\n"},
		{late.Add(-time.Hour), "the late text\r\n"},
		{early.Add(24 * time.Hour), "the early text\r\n"},
	} {
		f := NewFetcher(latest.a.At(c.at))
		resp, err := fetchURL(t, f, "gopher://127.0.0.1/0/t.txt", nil)
		if err != nil || body(t, resp) != c.want {
			t.Errorf("at %v: %v, want %q", c.at, err, c.want)
		}
	}
	// The archive At was made from is unchanged.
	if when, ok := latest.CaptureTime("gopher://127.0.0.1/0/t.txt"); !ok || !when.Equal(late) {
		t.Errorf("the original archive moved: %v", when)
	}
	cs := latest.Captures("gopher://127.0.0.1/0/t.txt")
	if len(cs) != 2 || !cs[0].Time.Equal(early) || !cs[1].Time.Equal(late) || cs[0].URI != "gopher://127.0.0.1/0/t.txt" || cs[0].Type != "resource" {
		t.Errorf("captures %+v", cs)
	}
	if cs := latest.Captures("gopher://127.0.0.1/0/never.txt"); cs != nil {
		t.Errorf("captures of what was never captured: %+v", cs)
	}
	// With or without a type code, an ftp URL names the same capture.
	for _, raw := range []string{"ftp://127.0.0.1/pub/a.txt;type=i", "ftp://127.0.0.1/pub/a.txt;type=a", "ftp://127.0.0.1/pub/a.txt"} {
		if cs := latest.Captures(raw); len(cs) != 1 || cs[0].URI != "ftp://127.0.0.1/pub/a.txt" {
			t.Errorf("captures of %s: %+v", raw, cs)
		}
	}
	if got := latest.a.URIs("gopher://127.0.0.1/0/"); len(got) != 2 || got[0] != "gopher://127.0.0.1/0/t.txt" {
		t.Errorf("URIs under gopher://127.0.0.1/0/: %q", got)
	}
}
