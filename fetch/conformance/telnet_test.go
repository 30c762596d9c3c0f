package conformance

import (
	"io"
	"net"
	"os/exec"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/telnet"
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
// 1630); a fetch dials nothing and answers with the command. The fetcher
// under test finds stand-ins for rlogin and c3270, which need not be
// installed, by its LookPath.
func handoffAdapter(scheme string) Adapter {
	return Adapter{
		Kind: schemes.KindHandoff,
		Fetcher: &telnet.Fetcher{LookPath: func(name string) (string, error) {
			if name == "rlogin" || name == "c3270" {
				return "/usr/local/bin/" + name, nil
			}
			return "", exec.ErrNotFound
		}},
		URL: func(addr string, o Object) string {
			if o != Small {
				return ""
			}
			return scheme + "://127.0.0.1/"
		},
	}
}
