package nntp

import (
	"strconv"
	"strings"
	"testing"
)

// FuzzOverview feeds arbitrary lines to the OVER parser: it must never
// panic, must accept exactly the lines whose first field is a positive
// article number, and must give back that number.
func FuzzOverview(f *testing.F) {
	for _, seed := range []string{
		"1\tTest article 1\ttester@gofer.test\tSun, 22 Nov 2026 07:00:00 +0000\t<gofer-test-1@gofer.test>\t\t321\t5",
		"12\t=?UTF-8?Q?Caf=C3=A9?=\tA <a@b>\tbad date\t<x@y>\t<p@q> <r@s>\t1234\t17\tXref: h g:12",
		"3",
		"4\t\t\t\t\t\t\t",
		"5\ts\tf\td\tno-brackets@x\t\tnot-a-number\t-3",
		"0\tzero",
		"-1\tnegative",
		"99999999999999999999\ttoo big",
		"\t\t",
		"7\t=?utf-8?b?AAECAw==?=\t=?x-unknown?q?z?=",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		ov, err := parseOverview(line)
		first, _, _ := strings.Cut(line, "\t")
		n, nerr := strconv.ParseInt(first, 10, 64)
		valid := nerr == nil && n > 0
		if valid != (err == nil) {
			t.Fatalf("parseOverview(%q): err %v, but the number field %q valid=%v", line, err, first, valid)
		}
		if err != nil {
			return
		}
		if ov.number != n || ov.bytes < 0 || ov.lines < 0 {
			t.Fatalf("parseOverview(%q) = %+v", line, ov)
		}
		if strings.ContainsAny(ov.subject+ov.from, "\r\n\t") && !strings.ContainsAny(line, "\r\n") {
			t.Fatalf("parseOverview(%q): decoded subject or from holds a control character: %q %q", line, ov.subject, ov.from)
		}
		if strings.HasPrefix(ov.messageID, "<") && strings.HasSuffix(ov.messageID, ">") && len(ov.messageID) > 1 {
			t.Fatalf("parseOverview(%q): message-id %q kept its brackets", line, ov.messageID)
		}
		// The article's entry must build without panicking.
		articleBase{scheme: "nntp", host: "127.0.0.1", port: 119, group: "g"}.entry(ov)
	})
}

// FuzzListActive feeds arbitrary lines to the LIST ACTIVE and LIST
// NEWSGROUPS parsers: no panics, and an accepted active line has a name, a
// status and non-negative article numbers taken from its fields.
func FuzzListActive(f *testing.F) {
	for _, seed := range []string{
		"gofer.test 0000000030 0000000001 y",
		"gofer.empty 0000000000 0000000001 m",
		"alt.moved 10 1 =gofer.test",
		"gofer.test\t30\t1\ty",
		"short 1 2",
		"neg -1 2 y",
		"",
		"   ",
		"g 99999999999999999999 1 y",
		"gofer.test Test articles for gofer",
		"gofer.test\t\tdescription with\ttabs",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		a, err := parseActive(line)
		if err == nil {
			fields := strings.Fields(line)
			if a.name != fields[0] || a.status != fields[3] || a.low < 0 || a.high < 0 {
				t.Fatalf("parseActive(%q) = %+v", line, a)
			}
			e := groupEntry(a, "")
			if e.Name != a.name || e.Low != a.low || e.High != a.high {
				t.Fatalf("groupEntry(%+v) = %+v", a, e)
			}
		}
		name, desc, ok := parseNewsgroupsLine(line)
		if ok && (name == "" || strings.ContainsAny(name, " \t") || desc != strings.TrimSpace(desc)) {
			t.Fatalf("parseNewsgroupsLine(%q) = %q, %q", line, name, desc)
		}
	})
}
