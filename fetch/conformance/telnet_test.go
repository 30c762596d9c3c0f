package conformance

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// telnetAdapter: a telnet URL designates an interactive service (RFC 1738
// §3.8), so a fetch answers with a session, never with a body; the objects
// of a data scheme do not apply. The scripted server greets and listens.
func telnetAdapter() Adapter {
	return Adapter{
		Kind: schemes.KindSession,
		Serve: func(c net.Conn, env *Env) {
			io.WriteString(c, "conformance telnet\r\nlogin: ")
			io.Copy(io.Discard, c)
		},
		URL: func(addr string, o Object) string {
			if o != Small {
				return ""
			}
			return "telnet://" + addr + "/"
		},
	}
}

// handoffAdapter: rlogin and tn3270 URLs are handed to a program (RFC
// 1630); a fetch dials nothing and answers with the command. Stub programs
// on PATH stand in for rlogin and c3270, which need not be installed.
func handoffAdapter(scheme string) Adapter {
	return Adapter{
		Kind: schemes.KindHandoff,
		Setup: func(t *testing.T, addr string) string {
			dir := t.TempDir()
			for _, prog := range []string{"rlogin", "c3270"} {
				if err := os.WriteFile(filepath.Join(dir, prog), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", dir)
			return addr
		},
		URL: func(addr string, o Object) string {
			if o != Small {
				return ""
			}
			return scheme + "://127.0.0.1/"
		},
	}
}
