package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestBrowseNeedsATerminal(t *testing.T) {
	code, out, errOut := gofer(t, "", "browse", "gopher://127.0.0.71/")
	if code != 2 || out != "" || !strings.Contains(errOut, "browse needs a terminal") {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	// A malformed URL is a usage error before anything else.
	code, _, errOut = gofer(t, "", "browse", "gopher://127.0.0.71/%zz")
	if code != 2 || !strings.Contains(errOut, "malformed URL") {
		t.Errorf("malformed: exit %d stderr %q", code, errOut)
	}
	code, _, _ = gofer(t, "", "browse", "a", "b")
	if code != 2 {
		t.Errorf("two URLs: exit %d", code)
	}
}

func TestParseGophers(t *testing.T) {
	code, out, _ := gofer(t, "", "parse", "gophers://127.0.0.72/0/about.txt")
	for _, s := range []string{"scheme:      gophers", "port:        70", "TLS from the first byte", "  /about.txt"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("parse: exit %d, lacks %q:\n%s", code, s, out)
		}
	}
}

// -o naming a device or a FIFO (-o /dev/null) writes to it in place: a
// renamed NAME.part would put a regular file where the device was.
func TestOutputToSpecialFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte("through the fifo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	// Should gofer never open the FIFO, a writer of our own lets the
	// reader end.
	defer func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}()
	code, _, errOut := gofer(t, "", "get", "-q", "-o", fifo, "file://"+src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b := <-got; string(b) != "through the fifo\n" {
		t.Errorf("the FIFO's reader got %q", b)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat(fifo + ".part"); err == nil {
		t.Error("a .part file was left")
	}
}
