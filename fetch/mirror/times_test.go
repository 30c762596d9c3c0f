package mirror

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

func TestSameListTimeAsFarAsKnown(t *testing.T) {
	minute := time.Date(2026, 6, 1, 10, 20, 0, 0, time.UTC)
	day := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		a     time.Time
		ap    string
		b     time.Time
		bp    string
		equal bool
	}{
		// "Jun  1 10:20" became "Jun  1  2026" six months on: no change.
		{minute, schemes.PrecisionMinute, day, schemes.PrecisionDay, true},
		{minute, schemes.PrecisionMinute, day.AddDate(0, 0, 1), schemes.PrecisionDay, false},
		// An OS/400 date whose order nothing decided: known to the day.
		{day, schemes.PrecisionAmbiguous, minute, schemes.PrecisionMinute, true},
		{day, schemes.PrecisionAmbiguous, day.AddDate(0, 0, 1), schemes.PrecisionAmbiguous, false},
		{minute, schemes.PrecisionMinute, minute.Add(time.Minute), schemes.PrecisionMinute, false},
		{minute.Add(5 * time.Second), "", minute, schemes.PrecisionMinute, true},
		{minute.Add(5 * time.Second), "", minute, "", false},
		{minute, "", minute, schemes.PrecisionSecond, true},
	}
	for _, tc := range tests {
		if got := sameListTime(tc.a, tc.ap, tc.b, tc.bp); got != tc.equal {
			t.Errorf("sameListTime(%v %s, %v %s) = %v", tc.a, tc.ap, tc.b, tc.bp, got)
		}
	}
}

func TestCalibrateZoneOnce(t *testing.T) {
	e := &ftpWalker{engine: &engine{site: site{mode: modeListing, scheme: "ftp", host: "h", port: 21}}}
	mdtm := time.Date(2026, 6, 1, 4, 50, 41, 0, time.UTC)
	// The server's LIST shows 10:20 at UTC+05:30.
	listed := time.Date(2026, 6, 1, 10, 20, 0, 0, time.UTC)
	e.calibrate(listed, schemes.PrecisionDay, mdtm)
	if e.zoneKnown {
		t.Fatal("a day-precision listing calibrated the zone")
	}
	e.calibrate(listed.Add(17*time.Minute), schemes.PrecisionMinute, mdtm)
	if e.zoneKnown {
		t.Fatal("a time 17 minutes off a quarter hour calibrated the zone")
	}
	e.calibrate(listed, schemes.PrecisionMinute, mdtm)
	if !e.zoneKnown || e.zone != -(5*time.Hour+30*time.Minute) {
		t.Fatalf("zone = %v (known %v), want -5h30m", e.zone, e.zoneKnown)
	}
	e.calibrate(listed, schemes.PrecisionMinute, mdtm.Add(time.Hour))
	if e.zone != -(5*time.Hour + 30*time.Minute) {
		t.Errorf("calibrated twice: %v", e.zone)
	}
	if got := e.listTime(time.Date(2026, 6, 2, 8, 0, 0, 0, time.UTC), schemes.PrecisionMinute); !got.Equal(time.Date(2026, 6, 2, 2, 30, 0, 0, time.UTC)) {
		t.Errorf("listTime = %v", got)
	}
}

// A file that got the day of a LIST line (no MDTM) gets its time to the
// second from a later listing that knows it (MLSD), without a transfer.
func TestLaterListingRefinesTime(t *testing.T) {
	m := newMemFTP()
	m.file("a.txt", "aaa")
	m.listDay, m.noMDTM = true, true
	dir := t.TempDir()
	c := newClient(m)
	if _, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "a.txt"))
	if err != nil || !fi.ModTime().Equal(testTime.Truncate(24*time.Hour)) {
		t.Fatalf("first run: %v, %v; want the listing's day", fi.ModTime(), err)
	}
	m.listDay = false
	sum, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err = os.Stat(filepath.Join(dir, "a.txt"))
	if err != nil || !fi.ModTime().Equal(testTime) {
		t.Errorf("second run: %v, %v; want %v", fi.ModTime(), err, testTime)
	}
	if sum.Transfers != 0 || sum.Unchanged != 1 {
		t.Errorf("second run: %d transfers, %d unchanged; want 0 and 1", sum.Transfers, sum.Unchanged)
	}
}
