package ftp

import (
	"strings"
	"testing"
)

// Request.DirTimes asks what Fetcher.DirTimes does, and a probe's result
// told to the Fetcher (SetDirTimesProbe) is taken as found: where the
// server answered, the directories' MDTMs go out in one write with no
// probe alone before them; where it refused, none goes out. What a
// Fetcher's own probe found, DirTimesProbe reports.
func TestDirTimesProbeKept(t *testing.T) {
	setup := func() *fakeFTP {
		fake := newFake(t)
		fake.dirs["/pub"], fake.dirs["/pub/sub"], fake.dirs["/pub/other"] = true, true, true
		fake.files["/pub/sub"], fake.files["/pub/other"] = "", ""
		fake.listings["LIST /pub"] = "drwxr-xr-x    2 0 0 4096 Jan 02  2024 sub\r\n" +
			"drwxr-xr-x    2 0 0 4096 Jan 02 10:30 other\r\n"
		return fake
	}
	mdtmWrites := func(fake *fakeFTP) []string {
		var out []string
		for _, b := range fake.sentBatches() {
			if strings.Contains(b, "MDTM ") {
				out = append(out, b)
			}
		}
		return out
	}
	list := func(fake *fakeFTP, f *Fetcher) {
		req := newReq(ftpURL(fake.port(), 0, "pub", ""))
		req.DirTimes = true
		fetchOneWith(t, f, req)
	}

	// Not probed before: the first directory alone, then the rest; the
	// result is reported.
	fake := setup()
	f := newFetcher()
	if _, probed := f.DirTimesProbe("127.0.0.1", fake.port()); probed {
		t.Error("probed before any listing")
	}
	list(fake, f)
	if w := mdtmWrites(fake); strings.Join(w, "|") != "MDTM sub\r\n|MDTM other\r\n" {
		t.Errorf("unprobed: MDTM writes %q, want the probe alone, then the other", w)
	}
	if answers, probed := f.DirTimesProbe("127.0.0.1", fake.port()); !answers || !probed {
		t.Errorf("DirTimesProbe: answers %v, probed %v", answers, probed)
	}
	f.Close()

	// Told that it answers: one write, no probe.
	fake = setup()
	f = newFetcher()
	f.SetDirTimesProbe("127.0.0.1", fake.port(), true)
	list(fake, f)
	if w := mdtmWrites(fake); strings.Join(w, "|") != "MDTM sub\r\nMDTM other\r\n" {
		t.Errorf("known to answer: MDTM writes %q, want both in one", w)
	}
	f.Close()

	// Told that it refuses: none.
	fake = setup()
	f = newFetcher()
	f.SetDirTimesProbe("127.0.0.1", fake.port(), false)
	list(fake, f)
	if w := mdtmWrites(fake); len(w) != 0 {
		t.Errorf("known to refuse: MDTM writes %q", w)
	}
	f.Close()
}
