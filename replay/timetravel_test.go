package replay

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/warc"
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

// writeRun writes one capture run's WARC file: its warcinfo names the
// command line, and each uri is captured at when.
func writeRun(t *testing.T, name, command string, when time.Time, uris ...string) string {
	t.Helper()
	w, err := warc.Create(name, warc.Info{Software: "gofer test", Command: command})
	if err != nil {
		t.Fatal(err)
	}
	for _, uri := range uris {
		b := gowarc.NewRecordBuilder(gowarc.Resource, gowarc.WithVersion(gowarc.V1_1))
		b.AddWarcHeader(gowarc.WarcRecordID, warc.NewID())
		b.AddWarcHeader(gowarc.WarcTargetURI, uri)
		b.AddWarcHeaderTime(gowarc.WarcDate, when)
		b.AddWarcHeader(gowarc.ContentType, "text/plain")
		b.WriteString("x\r\n")
		rec, _, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// Origins are the URLs the command lines of the archive's runs started
// from, each with its capture times: two mirrors of one menu are one
// origin captured twice, a get's URL (named without its final "/") is
// found as captured, and words of the command line that are no captured
// URL are none.
func TestOrigins(t *testing.T) {
	dir := t.TempDir()
	a, err := Open([]string{
		writeRun(t, filepath.Join(dir, "1.warc.gz"), "gofer mirror --warc x gopher://127.0.0.1/1/", early,
			"gopher://127.0.0.1/1/", "gopher://127.0.0.1/0/t.txt"),
		writeRun(t, filepath.Join(dir, "2.warc.gz"), "gofer mirror --warc x gopher://127.0.0.1/1/", late,
			"gopher://127.0.0.1/1/", "gopher://127.0.0.1/0/t.txt"),
		writeRun(t, filepath.Join(dir, "3.warc.gz"), "gofer get --warc y -o /tmp/z ftp://127.0.0.21/pub gopher://127.0.0.1/1/never", late,
			"ftp://127.0.0.21/pub/"),
		writeRun(t, filepath.Join(dir, "4.warc.gz"), "another tool", late, "gopher://127.0.0.1/0/other"),
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := NewFetcher(a).Origins()
	if len(got) != 2 || got[0].URI != "gopher://127.0.0.1/1/" || len(got[0].Captures) != 2 ||
		!got[0].Captures[0].Equal(early) || !got[0].Captures[1].Equal(late) ||
		got[1].URI != "ftp://127.0.0.21/pub/" || len(got[1].Captures) != 1 {
		t.Errorf("origins %+v", got)
	}
}
