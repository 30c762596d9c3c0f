package conformance

import (
	"bufio"
	"fmt"
	"net"
	"strings"
)

// gopherAdapter serves the objects from a scripted Gopher server (RFC
// 1436): a plain reply ends where the connection ends (many servers send
// text without its "." line), so only a Gopher+ reply, framed by its "+N"
// byte count, can show a cut; the cut object is asked for as Gopher+. With
// TLS it is the gophers: server (TLS from the first byte, as curl speaks it).
func gopherAdapter(gophers bool) Adapter {
	scheme := "gopher"
	if gophers {
		scheme = "gophers"
	}
	return Adapter{
		TLS:            gophers,
		Serve:          serveGopher,
		NoCredentials:  true,
		ListingEntries: 2, // the item and the info line
		URL: func(addr string, o Object) string {
			switch o {
			case Listing:
				return scheme + "://" + addr + "/1/dir"
			case Cut:
				return scheme + "://" + addr + "/9/cut%09%09+"
			}
			return scheme + "://" + addr + "/9/" + string(o)
		},
	}
}

func serveGopher(c net.Conn, env *Env) {
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	fields := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
	sel, plus := fields[0], len(fields) > 1 && strings.HasPrefix(fields[len(fields)-1], "+")
	switch sel {
	case "/dir":
		host, port, _ := net.SplitHostPort(c.LocalAddr().String())
		fmt.Fprintf(c, "9small\t/small\t%s\t%s\r\niA menu of one item\t\terror.host\t1\r\n.\r\n", host, port)
	case "/small":
		c.Write(SmallBody)
	case "/large":
		writeFiller(c, LargeSize)
	case "/stall":
		env.Stall(c)
	case "/cut":
		if plus {
			fmt.Fprintf(c, "+%d\r\n", 2*len(CutHead))
		}
		c.Write(CutHead)
	case "/gated":
		c.Write(GatedHead)
		if env.WaitRelease(c) {
			c.Write(GatedTail)
		}
	default:
		fmt.Fprintf(c, "3'%s' does not exist\t\terror.host\t1\r\n.\r\n", sel)
	}
}
