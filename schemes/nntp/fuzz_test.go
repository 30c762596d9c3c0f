package nntp

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
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
			if e.Name != a.name || e.News.Low != a.low || e.News.High != a.high {
				t.Fatalf("groupEntry(%+v) = %+v", a, e)
			}
		}
		name, desc, ok := parseNewsgroupsLine(line)
		if ok && (name == "" || strings.ContainsAny(name, " \t") || desc != strings.TrimSpace(desc)) {
			t.Fatalf("parseNewsgroupsLine(%q) = %q, %q", line, name, desc)
		}
	})
}

// pipeDialer hands the client one end of a pipe whose other end plays
// reply (whatever bytes it is) and discards what the client sends.
type pipeDialer struct{ reply string }

func (d pipeDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	client, server := net.Pipe()
	go func() {
		go io.Copy(io.Discard, server)
		io.WriteString(server, d.reply)
		server.Close()
	}()
	return client, nil
}

// FuzzSession plays arbitrary server bytes to every URL form: the client
// must not panic or hang, and every failure must be one of gofer's error
// kinds (or the guard's), never a bare I/O error.
func FuzzSession(f *testing.F) {
	for _, seed := range []string{
		"200 ok\r\n101 caps\r\nVERSION 2\r\nREADER\r\n.\r\n211 2 1 2 g\r\n224 ov\r\n1\ta\r\n2\tb\r\n.\r\n",
		"200 ok\r\n500 what\r\n200 reader\r\n215 list\r\ng 2 1 y\r\n.\r\n215 list\r\ng 2 1 y\r\n.\r\n",
		"200 ok\r\n101 caps\r\nREADER\r\n.\r\n220 1 <a@b>\r\nSubject: x\r\n\r\n..body\r\n.\r\n",
		"200 ok\r\n101 caps\r\nREADER\r\n.\r\n480 auth\r\n",
		"201 ok\r\n101 caps\r\nMODE-READER\r\n.\r\n502 no\r\n",
		"400 busy\r\n",
		"200 ok\r\n101 caps\r\nREADER\r\n.\r\n211 x y z\r\n",
		"200 ok\r\n101",
		"",
	} {
		f.Add(seed)
	}
	urls := []*schemes.URL{
		{Scheme: "news", News: &schemes.News{Group: "g"}},
		{Scheme: "news", News: &schemes.News{All: true}},
		{Scheme: "news", News: &schemes.News{MessageID: "a@b"}},
		{Scheme: "nntp", Host: "127.0.0.1", NNTP: &schemes.NNTP{Group: "g", Article: 1}},
	}
	f.Fuzz(func(t *testing.T, reply string) {
		for _, u := range urls {
			req := &schemes.Request{
				URL:      u,
				Settings: &schemes.Settings{Dialer: pipeDialer{reply}, IdleTimeout: 5 * time.Second, MaxEntries: 100, MaxBytes: 1 << 16, MaxLineLength: 1024},
			}
			resp, err := (&Fetcher{Server: "127.0.0.1"}).Fetch(context.Background(), req)
			if err != nil {
				checkKind(t, reply, err)
				continue
			}
			switch resp.Kind {
			case schemes.KindFile:
				_, err = io.Copy(io.Discard, resp.Body)
			case schemes.KindListing:
				for err == nil {
					_, err = resp.Listing.Next()
				}
				if err == io.EOF {
					err = nil
				}
			}
			resp.Close()
			if err != nil {
				checkKind(t, reply, err)
			}
		}
	})
}

func checkKind(t *testing.T, reply string, err error) {
	t.Helper()
	var ke *schemes.KindError
	var ie *security.InjectionError
	if !errors.As(err, &ke) && !errors.As(err, &ie) {
		t.Fatalf("server reply %q: error %v (%T) has no kind", reply, err, err)
	}
}
