package replay

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

func TestWantedHost(t *testing.T) {
	for _, tc := range []struct {
		in   string
		def  int
		want string
	}{
		{"127.0.0.71", 70, "127.0.0.71:70"},
		{"127.0.0.71:7070", 70, "127.0.0.71:7070"},
		{"Example.ORG", 80, "example.org:80"},
		{"::1", 70, "[::1]:70"},
		{"[::1]", 70, "[::1]:70"},
		{"[::1]:7070", 70, "[::1]:7070"},
		{"[FE80::1]:21", 21, "[fe80::1]:21"},
	} {
		if got := wantedHost(tc.in, tc.def); got != tc.want {
			t.Errorf("wantedHost(%q, %d) = %q, want %q", tc.in, tc.def, got, tc.want)
		}
	}
}

// TestIPv6Replay: captures of a server on [::1] are known as "[::1]:PORT"
// (never the ambiguous "::1:70"), --host finds them however the address
// is written, and a replay listening on [::1] writes its own address into
// the menu lines that named the captured server.
func TestIPv6Replay(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	ln.Close()
	prefix := filepath.Join(t.TempDir(), "v6")
	w, err := warc.CreateSegments(prefix, 0, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	v6menu := "0About\t/about.txt\t::1\t70\r\n1Elsewhere\t/\t127.0.0.71\t70\r\n.\r\n"
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://[::1]/1/", ContentType: "text/x-gopher-menu"}, v6menu)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://[::1]/0/about.txt", ContentType: "text/plain"}, about)
	record(t, w, schemes.CaptureRecord{Type: "resource", URI: "gopher://127.0.0.71/0/other", ContentType: "text/plain"}, "other\r\n.\r\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a := open(t, Options{Warn: func(s string) { t.Log("warning: " + s) }}, prefix)
	if got := strings.Join(a.GopherHosts(), " "); got != "127.0.0.71:70 [::1]:70" {
		t.Errorf("GopherHosts = %q, want \"127.0.0.71:70 [::1]:70\"", got)
	}
	for _, h := range []string{"::1", "[::1]", "[::1]:70"} {
		g, err := Start(context.Background(), a, []Listen{{Scheme: "gopher", Addr: "[::1]:0", Hosts: []string{h}}})
		if err != nil {
			t.Fatalf("--host %s: %v", h, err)
		}
		rs := g.Running()
		if len(rs) != 1 {
			g.Close()
			t.Fatalf("--host %s: %d servers running", h, len(rs))
		}
		r := rs[0]
		if r.Host != "[::1]:70" || r.Chosen != h {
			t.Errorf("--host %s: replays %q (chosen %q)", h, r.Host, r.Chosen)
		}
		if got := r.Server.String(); got != "[::1]:70 2 selectors" {
			t.Errorf("--host %s: server %q, want \"[::1]:70 2 selectors\"", h, got)
		}
		addr := r.Addr.String()
		if !strings.HasPrefix(addr, "[::1]:") {
			t.Errorf("listener %q, want [::1]:PORT", addr)
		}
		_, port, _ := net.SplitHostPort(addr)
		want := "0About\t/about.txt\t::1\t" + port + "\r\n1Elsewhere\t/\t127.0.0.71\t70\r\n.\r\n"
		if got := ask(t, addr, "/"); got != want {
			t.Errorf("menu over [::1]: %q, want %q", got, want)
		}
		if got := ask(t, addr, "/about.txt"); got != about {
			t.Errorf("about.txt over [::1]: %q", got)
		}
		g.Close()
		if err := g.Wait(); err != nil {
			t.Errorf("Wait: %v", err)
		}
	}
	if _, err := pickHost("gopher", a.GopherHosts(), "::2", 70); err == nil || !strings.Contains(err.Error(), "[::2]:70") {
		t.Errorf("pickHost of an uncaptured IPv6 host: %v, want an error naming [::2]:70", err)
	}
}
