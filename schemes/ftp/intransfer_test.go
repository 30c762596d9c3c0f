package ftp

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// A server that refuses the commands sent behind a transfer's command
// while the transfer runs (ProFTPD's "450 EPSV: data transfer in
// progress", met when they arrive in a packet of their own) answers them
// before the transfer's end: every file still comes whole, the connection
// stays in step, and the next transfer asks for its data connection again.
func TestCommandsRefusedDuringTransfer(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.busyInTransfer = true })
	files := map[string]string{"a": "alpha", "b": "bravo", "c": strings.Repeat("c", 100000)}
	for name, content := range files {
		fake.addFile("/d/"+name, content)
	}
	fake.listings["LIST /d"] = "-rw-r--r-- 1 0 0 5 Dec 20 1994 a\r\n"
	f := newFetcher()
	defer f.Close()
	fetch := func(name string, ims bool) string {
		t.Helper()
		req := newReq(ftpURL(fake.port(), 0, "d", name))
		if ims {
			// An If-Modified-Since fetch has the MDTM sent behind RETR.
			req.IfModifiedSince = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		resp, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer resp.Close()
		if resp.Listing != nil {
			n := 0
			for {
				if _, err := resp.Listing.Next(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("listing: %v", err)
				}
				n++
			}
			return strings.Repeat("e", n)
		}
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return string(data)
	}
	if got := fetch("", false); got != "e" {
		t.Fatalf("listing: %d entries", len(got))
	}
	for round := 0; round < 2; round++ {
		for _, name := range []string{"a", "b", "c"} {
			if got := fetch(name, round == 1); got != files[name] {
				t.Fatalf("round %d, %s: %d bytes, want %d", round, name, len(got), len(files[name]))
			}
		}
	}
	fake.mu.Lock()
	refused := fake.busyRefused
	fake.mu.Unlock()
	if refused < 4 {
		t.Errorf("the server refused %d commands during transfers; the test meant it to refuse the EPSV (and MDTM) behind each", refused)
	}
	if f.marked(&f.noAhead, f.keyFor(newReq(ftpURL(fake.port(), 0)), login{user: "anonymous", password: testEmail, anonymous: true}, fake.port())) {
		t.Errorf("refusals during transfers were taken for a server that mishandles commands sent behind them")
	}
}

// A data connection refused for not resuming the TLS session is said to
// be that, whatever the server's code for it.
func TestReuseRefusal(t *testing.T) {
	for _, tc := range []struct {
		code int
		msg  string
		want bool
	}{
		{522, "SSL connection failed: session reuse required", true},
		{425, "Unable to build data connection: TLS session reuse required", true},
		{450, "TLS session not resumed", true},
		{425, "Can't open data connection.", false},
		{450, "EPSV: data transfer in progress", false},
		{550, "session reuse required", false},
		{425, "Unable to build data connection: Operation not permitted", true},
	} {
		err := endError(tc.code, tc.msg, true)
		if got := strings.Contains(err.Error(), "did not resume the control connection's TLS session"); got != tc.want {
			t.Errorf("%d %s: %v", tc.code, tc.msg, err)
		}
	}
	if err := endError(425, "Unable to build data connection: Operation not permitted", false); strings.Contains(err.Error(), "TLS") {
		t.Errorf("a plain data connection's refusal named TLS: %v", err)
	}
}
