package nntp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

func TestParseStatus(t *testing.T) {
	tests := []struct {
		line string
		code int
		text string
		ok   bool
	}{
		{"200 ready", 200, "ready", true},
		{"205", 205, "", true},
		{"211 30 1 30 gofer.test", 211, "30 1 30 gofer.test", true},
		{"20 short", 0, "", false},
		{"2000 long", 0, "", false},
		{"abc text", 0, "", false},
		{"099 low", 0, "", false},
		{"", 0, "", false},
	}
	for _, tc := range tests {
		code, text, ok := parseStatus(tc.line)
		if code != tc.code || text != tc.text || ok != tc.ok {
			t.Errorf("parseStatus(%q) = %d, %q, %v; want %d, %q, %v", tc.line, code, text, ok, tc.code, tc.text, tc.ok)
		}
	}
}

func TestSplitServer(t *testing.T) {
	tests := []struct {
		in   string
		host string
		port int
		ok   bool
	}{
		{"127.0.0.119", "127.0.0.119", 119, true},
		{"127.0.0.119:1119", "127.0.0.119", 1119, true},
		{"localhost:119", "localhost", 119, true},
		{"[::1]:563", "::1", 563, true},
		{"[::1]", "::1", 119, true},
		{"127.0.0.1:0", "", 0, false},
		{"127.0.0.1:http", "", 0, false},
		{":119", "", 0, false},
	}
	for _, tc := range tests {
		host, port, err := splitServer(tc.in)
		if (err == nil) != tc.ok || host != tc.host || port != tc.port {
			t.Errorf("splitServer(%q) = %q, %d, %v", tc.in, host, port, err)
		}
		if err != nil && !errors.Is(err, schemes.ErrUsage) {
			t.Errorf("splitServer(%q): %v is not a usage error", tc.in, err)
		}
	}
}

func TestParseGroupResponse(t *testing.T) {
	g, ok := parseGroupResponse("30 1 30 gofer.test")
	if !ok || *g != (groupInfo{count: 30, low: 1, high: 30, name: "gofer.test"}) {
		t.Errorf("got %+v, %v", g, ok)
	}
	for _, bad := range []string{"", "30 1", "x 1 30 g", "30 -1 30 g", "30 1 y g"} {
		if _, ok := parseGroupResponse(bad); ok {
			t.Errorf("parseGroupResponse(%q) accepted", bad)
		}
	}
}

func TestCheckMessageID(t *testing.T) {
	if err := checkMessageID("gofer-test-1@gofer.test"); err != nil {
		t.Error(err)
	}
	if err := checkMessageID(strings.Repeat("a", 247) + "@x"); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("a 251-octet message-id: %v, want ErrUsage", err)
	}
	if err := checkMessageID("caf\xc3\xa9@x"); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("non-ASCII message-id: %v, want ErrUsage", err)
	}
}

func TestCommandLineAndDisplay(t *testing.T) {
	c := command{verb: "AUTHINFO PASS", arg: "reader-secret", part: "news password", secret: true}
	if line, err := c.line(); err != nil || line != "AUTHINFO PASS reader-secret" {
		t.Errorf("line %q, %v", line, err)
	}
	if c.display() != "AUTHINFO PASS ****" {
		t.Errorf("display %q shows the password", c.display())
	}
	c.arg = "secret\r\nQUIT"
	if _, err := c.line(); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("err %v, want an injection refusal that does not show the value", err)
	}
}

func BenchmarkParseOverview(b *testing.B) {
	line := "12345\tRe: Test article with a longer subject line\tGofer Tester <tester@gofer.test>\tTue, 20 Dec 1994 12:01:00 +0000\t<gofer-test-12345@gofer.test>\t<a@b> <c@d>\t4821\t73\tXref: gofer.test gofer.test:12345"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseOverview(line); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseDate(t *testing.T) {
	for _, s := range []string{"Tue, 20 Dec 1994 12:01:00 +0000", "20 Dec 1994 12:01 GMT", "Tue, 20 Dec 1994 07:01:00 -0500 (EST)"} {
		if got := parseDate(s); !got.Equal(time.Date(1994, 12, 20, 12, 1, 0, 0, time.UTC)) {
			t.Errorf("parseDate(%q) = %v", s, got)
		}
	}
	if got := parseDate("yesterday"); !got.IsZero() {
		t.Errorf("parseDate(yesterday) = %v, want zero", got)
	}
}

// An article's entry carries the References of its overview line, for a
// reader that threads the group.
func TestOverviewEntryReferences(t *testing.T) {
	ov, err := parseOverview("7\tRe: x\ta@b\tTue, 20 Dec 1994 12:01:00 +0000\t<c@d>\t <a@b> <b@c> \t10\t1")
	if err != nil {
		t.Fatal(err)
	}
	e := articleBase{scheme: "nntp", host: "127.0.0.1", port: 119, group: "g"}.entry(ov)
	if e.News == nil || e.News.References != "<a@b> <b@c>" || e.News.MessageID != "c@d" {
		t.Errorf("entry %+v", e.News)
	}
}
