package ftp

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// The habits of servers other than vsftpd, each scripted the way that
// server was seen to behave.

// A URL without ;type= gives the file's bytes, even from a server that
// honours TYPE A (ProFTPD, Pure-FTPd, the BSD ftpd family send CR LF then),
// and a resume of it works (ProFTPD refuses REST in ASCII mode).
func TestTextNameKeepsBytesOnServerThatHonoursTypeA(t *testing.T) {
	fake := newFake(t)
	fake.ascii = true
	const body = "line one\nline two\n"
	fake.addFile("/pub/notes.txt", body)
	_, data, sent := fetchOne(t, fake, newReq(ftpURL(fake.port(), 0, "pub", "notes.txt")))
	if string(data) != body {
		t.Errorf("body %q, want the file's bytes %q", data, body)
	}
	if !strings.Contains(strings.Join(sent, ""), "TYPE I\r\n") || strings.Contains(strings.Join(sent, ""), "TYPE A") {
		t.Errorf("want TYPE I only, sent %q", sent)
	}

	req := newReq(ftpURL(fake.port(), 0, "pub", "notes.txt"))
	req.Offset = 9
	resp, data, _ := fetchOne(t, fake, req)
	if resp.Offset != 9 || string(data) != body[9:] {
		t.Errorf("resume: offset %d, body %q; want 9, %q", resp.Offset, data, body[9:])
	}

	// ;type=a still asks for text, with local line ends.
	_, data, _ = fetchOne(t, fake, newReq(ftpURL(fake.port(), 'a', "pub", "notes.txt")))
	if string(data) != body {
		t.Errorf(";type=a: body %q, want %q", data, body)
	}
}

// A server without FEAT (netkit ftpd answers it 500) is asked MDTM all
// the same: a file gets its time to the second.
func TestMDTMWithoutFEAT(t *testing.T) {
	fake := newFake(t)
	fake.noFEAT = true
	fake.addFile("/a.bin", "abc")
	req := newReq(ftpURL(fake.port(), 0, "a.bin"))
	req.SkipSize = true // as the mirror asks when a LIST line dates a file to the minute
	resp, _, sent := fetchOne(t, fake, req)
	if !strings.Contains(strings.Join(sent, ""), "MDTM a.bin\r\n") {
		t.Fatalf("no MDTM sent: %q", sent)
	}
	if want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC); !resp.Modified.Equal(want) {
		t.Errorf("Modified %v, want %v", resp.Modified, want)
	}
}

// An EPSV answered 425 is tried again with PASV.
func TestEPSV425FallsBackToPASV(t *testing.T) {
	fake := newFake(t)
	fake.epsv425 = true
	fake.addFile("/a.bin", "abc")
	_, data, sent := fetchOne(t, fake, newReq(ftpURL(fake.port(), 0, "a.bin")))
	if string(data) != "abc" {
		t.Errorf("body %q", data)
	}
	if !strings.Contains(strings.Join(sent, ""), "PASV\r\n") {
		t.Errorf("no PASV after the 425: %q", sent)
	}
}

// A 550 in the middle of a transfer, with the data connection left open
// (Twisted), ends the transfer with the server's word, not a timeout.
func TestRefusalDuringTransfer(t *testing.T) {
	fake := newFake(t)
	fake.failMidway = true
	fake.addFile("/a.bin", strings.Repeat("x", 1000))
	req := newReq(ftpURL(fake.port(), 0, "a.bin"))
	req.IdleTimeout = time.Minute
	f := newFetcher()
	defer f.Close()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "550") {
		t.Errorf("got %v, want the server's 550 (ErrRefused)", err)
	}
}

// A listing whose 226 says the server cut it short is an error, never a
// short directory.
func TestCappedListingIsAnError(t *testing.T) {
	fake := newFake(t)
	fake.listEnd = "Output truncated to 2 matches"
	fake.listings["LIST /"] = "-rw-r--r-- 1 0 0 1 Dec 20  1994 a\r\n-rw-r--r-- 1 0 0 1 Dec 20  1994 b\r\n"
	f := newFetcher()
	defer f.Close()
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	for {
		_, err = resp.Listing.Next()
		if err != nil {
			break
		}
	}
	if err == io.EOF || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("got %v, want the cut listing reported", err)
	}
}

// A server that refuses more connections than it allows, with ProFTPD's
// 530 to USER or Pure-FTPd's 421 greeting: the third fetch at once waits
// for one of the two connections instead of failing, and the Fetcher
// learns the limit.
func TestConnectionLimitIsLearned(t *testing.T) {
	for _, atUSER := range []bool{true, false} {
		name := "421 greeting"
		if atUSER {
			name = "530 to USER"
		}
		t.Run(name, func(t *testing.T) {
			stall := make(chan struct{})
			fake := newFakeWith(t, func(f *fakeFTP) {
				f.maxConns, f.limitAtUSER = 2, atUSER
				f.stall = stall
			})
			for _, n := range []string{"a", "b", "c"} {
				fake.addFile("/"+n+".bin", n+n+n)
			}
			f := newFetcher()
			defer f.Close()
			ctx := context.Background()
			// Two transfers hold both connections (the server holds their
			// data until stall is closed).
			var held []*schemes.Response
			for _, n := range []string{"a", "b"} {
				resp, err := f.Fetch(ctx, newReq(ftpURL(fake.port(), 0, n+".bin")))
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, resp)
			}
			type result struct {
				body string
				err  error
			}
			third := make(chan result, 1)
			learned := make(chan string, 1)
			req := newReq(ftpURL(fake.port(), 0, "c.bin"))
			req.Warn = func(s string) { learned <- s }
			go func() {
				resp, err := f.Fetch(ctx, req)
				if err != nil {
					third <- result{err: err}
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Close()
				third <- result{string(b), err}
			}()
			// The third connection is refused and the limit learned.
			if w := <-learned; !strings.Contains(w, "going on with 2 connections") {
				t.Errorf("warning %q", w)
			}
			if n := f.ConnLimit("127.0.0.1", fake.port()); n != 2 {
				t.Errorf("ConnLimit %d, want 2", n)
			}
			close(stall)
			for _, r := range held {
				if _, err := io.ReadAll(r.Body); err != nil {
					t.Fatal(err)
				}
				r.Close()
			}
			r := <-third
			if r.err != nil || r.body != "ccc" {
				t.Fatalf("third fetch: %q, %v", r.body, r.err)
			}
			fake.mu.Lock()
			n := len(fake.conns)
			fake.mu.Unlock()
			if n != 3 {
				t.Errorf("%d connections made, want 3 (two, and the one refused)", n)
			}
		})
	}
}

// A refusal that names a limit above the connections we hold (Pure-FTPd
// still counting one of ours that has just ended) is its limit: the
// fetch pauses and goes on, and the Fetcher keeps the server's number
// rather than the one it holds.
func TestRefusalAboveWhatWeHoldLingers(t *testing.T) {
	stall := make(chan struct{})
	fake := newFakeWith(t, func(f *fakeFTP) { f.maxConns, f.stall = 2, stall })
	fake.addFile("/a.bin", "aaa")
	fake.addFile("/b.bin", "bbb")
	f := newFetcher()
	defer f.Close()
	ctx := context.Background()
	held, err := f.Fetch(ctx, newReq(ftpURL(fake.port(), 0, "a.bin")))
	if err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	fake.refuseFirst = 1 // a connection of ours the server still counts
	fake.mu.Unlock()
	var warned []string
	req := newReq(ftpURL(fake.port(), 0, "b.bin"))
	req.Warn = func(s string) { warned = append(warned, s) }
	close(stall)
	go func() { // the held transfer ends in its own time
		io.ReadAll(held.Body)
		held.Close()
	}()
	resp, err := f.Fetch(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Close()
	if string(b) != "bbb" {
		t.Errorf("body %q", b)
	}
	if n := f.ConnLimit("127.0.0.1", fake.port()); n != 2 {
		t.Errorf("ConnLimit %d, want the server's 2 (warnings %q)", n, warned)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "going on with 2 connections") {
		t.Errorf("warnings %q", warned)
	}
}

// A refusal while none of ours is held (other clients hold the slots) is
// waited out.
func TestBusyServerIsWaitedOut(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.refuseFirst = 1 })
	fake.addFile("/a.bin", "abc")
	var warned []string
	req := newReq(ftpURL(fake.port(), 0, "a.bin"))
	req.Warn = func(s string) { warned = append(warned, s) }
	_, data, _ := fetchOne(t, fake, req)
	if string(data) != "abc" {
		t.Errorf("body %q", data)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "421 Too many connections") {
		t.Errorf("warnings %q", warned)
	}
}

// A busy refusal is transient and marked busy; a wrong password is not.
func TestBusyReplies(t *testing.T) {
	for msg, want := range map[string]bool{
		"Too many connections (2) from this IP":                 true,
		"Sorry, max 2 clients per host":                         true,
		"There are too many connected users, please try later.": true,
		"Login incorrect.":                                      false,
		"Permission denied.":                                    false,
	} {
		for _, code := range []int{421, 530} {
			if got := isBusyReply(code, msg); got != want {
				t.Errorf("%d %s: busy %v, want %v", code, msg, got, want)
			}
		}
	}
	if n := busyNumber("Sorry, max 2 clients per host"); n != 2 {
		t.Errorf("ProFTPD: %d", n)
	}
	if n := busyNumber("Too many connections (8) from this IP"); n != 8 {
		t.Errorf("Pure-FTPd: %d", n)
	}
	err := busyError(530, "Sorry, max 2 clients per host")
	if !schemes.Transient(err) || !schemes.Busy(err) || !errors.Is(err, schemes.ErrRefused) {
		t.Errorf("busy error %v: transient %v busy %v", err, schemes.Transient(err), schemes.Busy(err))
	}
}

// Nothing goes out behind a transfer to a server that takes a command
// during one for its end (pyftpdlib) or stalls on a passive command left
// unused (Twisted).
func TestNoCommandsBehindTransfersForSomeServers(t *testing.T) {
	for _, greeting := range []string{"pyftpdlib 1.5.7 ready.", "Twisted 22.4.0 FTP Server"} {
		fake := newFakeWith(t, func(f *fakeFTP) { f.greeting = greeting })
		fake.addFile("/d/a.bin", "a")
		fake.addFile("/d/b.bin", "b")
		fake.addFile("/d/c.bin", "c")
		f := newFetcher()
		for _, n := range []string{"a.bin", "b.bin", "c.bin"} {
			fetchOneWith(t, f, newReq(ftpURL(fake.port(), 'i', "d", n)))
		}
		f.Close()
		for _, b := range fake.sentBatches() {
			if i := strings.Index(b, "RETR "); i >= 0 && strings.Contains(b[i:], "\r\n") && strings.Count(b[i:], "\r\n") > 1 {
				t.Errorf("%s: commands sent behind a RETR: %q", greeting, b)
			}
		}
	}
}

// A server that offers UTF8 is asked for UTF-8 names, unless the names are
// known to be in another charset.
func TestOPTSUTF8OnlyWithoutAnotherCharset(t *testing.T) {
	for charset, want := range map[string]bool{"": true, "latin1": false} {
		fake := newFake(t)
		fake.utf8 = true
		fake.addFile("/a.bin", "abc")
		req := newReq(ftpURL(fake.port(), 0, "a.bin"))
		req.RemoteCharset = charset
		_, _, sent := fetchOne(t, fake, req)
		if got := strings.Contains(strings.Join(sent, ""), "OPTS UTF8 ON\r\n"); got != want {
			t.Errorf("charset %q: OPTS UTF8 ON sent %v, want %v", charset, got, want)
		}
	}
}

// A server that aborts a transfer when a command arrives during it, with a
// greeting that does not give it away, shows it on the first transfer with
// a command behind it: that transfer fails transiently, and the server gets
// nothing behind a transfer from then on.
func TestCommandsBehindTransfersStopWhereTheyBreak(t *testing.T) {
	fake := newFake(t)
	fake.abortIfAhead = true
	for _, n := range []string{"a", "b", "c"} {
		fake.addFile("/d/"+n+".bin", strings.Repeat(n, 100))
	}
	f := newFetcher()
	defer f.Close()
	fetchOneWith(t, f, newReq(ftpURL(fake.port(), 'i', "d", "a.bin")))
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 'i', "d", "b.bin")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Close()
	if err == nil || !schemes.Transient(err) {
		t.Fatalf("second transfer: %v, want a transient failure", err)
	}
	_, data, _ := fetchOneWith(t, f, newReq(ftpURL(fake.port(), 'i', "d", "c.bin")))
	if string(data) != strings.Repeat("c", 100) {
		t.Errorf("third transfer: %q", data)
	}
	batches := fake.sentBatches()
	last := batches[len(batches)-1]
	for _, b := range batches {
		if strings.Contains(b, "RETR c.bin") {
			last = b
		}
	}
	if !strings.HasSuffix(last, "RETR c.bin\r\n") {
		t.Errorf("third RETR went out with commands behind it: %q", last)
	}
}

// --verify-listing: where the server has MLSD, LIST of the same directory
// is read too and every difference is said; the entries are MLSD's.
func TestVerifyListing(t *testing.T) {
	fake := newFake(t)
	fake.mlst = true
	fake.listings["MLSD /"] = "type=file;size=3;modify=20240102030405; same.txt\r\n" +
		"type=file;size=5;modify=20240102030405; size.txt\r\n" +
		"type=dir;modify=20240102030405; link\r\n" +
		"type=file;size=1;modify=20240102030405; mlsd-only\r\n"
	fake.listings["LIST /"] = "-rw-r--r-- 1 0 0 3 Jan  2  2024 same.txt\r\n" +
		"-rw-r--r-- 1 0 0 6 Jan  2  2024 size.txt\r\n" +
		"lrwxrwxrwx 1 0 0 1 Jan  2  2024 link -> .\r\n" +
		"-rw-r--r-- 1 0 0 1 Jan  2  2024 list-only\r\n"
	req := newReq(ftpURL(fake.port(), 0, ""))
	var warned []string
	req.Warn = func(s string) { warned = append(warned, s) }
	f := newFetcher()
	f.VerifyListing = true
	defer f.Close()
	_, data, _ := fetchOneWith(t, f, req)
	sent := fake.sent()
	if strings.Count(string(data), "\n") != 4 || !strings.Contains(string(data), "mlsd-only") {
		t.Errorf("entries:\n%s", data)
	}
	all := strings.Join(warned, "\n")
	for _, want := range []string{
		`"size.txt": size 5 in MLSD, 6 in LIST`,
		`"link": type dir in MLSD, link in LIST`,
		`"list-only" is only in LIST`,
		`"mlsd-only" is only in MLSD`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among the warnings:\n%s", want, all)
		}
	}
	if strings.Contains(all, "same.txt") || len(warned) != 4 {
		t.Errorf("want exactly the four differences:\n%s", all)
	}
	if !strings.Contains(strings.Join(sent, ""), "MLSD\r\n") || !strings.Contains(strings.Join(sent, ""), "LIST\r\n") {
		t.Errorf("sent %q", sent)
	}
}

func TestSameTimeAnyZone(t *testing.T) {
	utc := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		listed time.Time
		prec   string
		want   bool
	}{
		{time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC), schemes.PrecisionMinute, true},
		{time.Date(2024, 1, 2, 4, 4, 0, 0, time.UTC), schemes.PrecisionMinute, true},  // UTC+1
		{time.Date(2024, 1, 2, 3, 9, 0, 0, time.UTC), schemes.PrecisionMinute, false}, // 5 minutes off
		{time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), schemes.PrecisionDay, true},
		{time.Date(2024, 1, 5, 0, 0, 0, 0, time.UTC), schemes.PrecisionDay, false},
	} {
		if got := sameTimeAnyZone(utc, tc.listed, tc.prec); got != tc.want {
			t.Errorf("%v (%s): %v, want %v", tc.listed, tc.prec, got, tc.want)
		}
	}
}

// A listing whose data connection ends without the server's 226 (the
// control connection closed) is an error, never a short directory.
func TestListingWithout226IsAnError(t *testing.T) {
	fake := newFake(t)
	fake.dropAfterList = true
	fake.listings["LIST /"] = "-rw-r--r-- 1 0 0 1 Dec 20  1994 a\r\n"
	f := newFetcher()
	defer f.Close()
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	n := 0
	for {
		if _, err = resp.Listing.Next(); err != nil {
			break
		}
		n++
	}
	if err == io.EOF || n != 1 {
		t.Errorf("%d entries, then %v: want the one entry and an error", n, err)
	}
}
