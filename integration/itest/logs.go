package itest

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// LogSince notes where the server log name (a file in LogDir, e.g.
// "vsftpd.log" or "nginx-access.log") ends now, and returns a function
// that reads what has been appended since. Logs of a busy run grow large
// and every test appends to them, so a test looks only at its own part:
//
//	since := itest.LogSince(t, "vsftpd.log")
//	... run gofer ...
//	if !strings.Contains(since(), `"CWD archive"`) { ... }
//
// Servers in parallel tests write to the same log: match on something
// only this test sends. A log that has become shorter than the mark (its
// server was restarted by integration/up) is read from its start.
func LogSince(t testing.TB, name string) func() string {
	t.Helper()
	path := filepath.Join(LogDir(), name)
	var mark int64
	if fi, err := os.Stat(path); err == nil {
		mark = fi.Size()
	} else if !os.IsNotExist(err) {
		t.Fatalf("LogSince: %v", err)
	}
	return func() string {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("LogSince: %v", err)
		}
		defer f.Close()
		off := mark
		if fi, err := f.Stat(); err == nil && fi.Size() < off {
			off = 0
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			t.Fatalf("LogSince: %v", err)
		}
		b, err := io.ReadAll(f)
		if err != nil {
			t.Fatalf("LogSince: %v", err)
		}
		return string(b)
	}
}
