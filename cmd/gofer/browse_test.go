package main

import (
	"strings"
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
