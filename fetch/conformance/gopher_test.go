package conformance

import (
	"bufio"
	"fmt"
	"net"
	"strings"
)

// gopherAdapter serves the objects from a scripted Gopher server (RFC
// 1436): binary items (type 9) end where the connection ends, so the cut
// object is a text item (type 0), whose end is the "." line.
func gopherAdapter() Adapter {
	return Adapter{
		Serve:         serveGopher,
		NoCredentials: true,
		URL: func(addr string, o Object) string {
			switch o {
			case Listing:
				return "gopher://" + addr + "/1/dir"
			case Cut:
				return "gopher://" + addr + "/0/cut"
			}
			return "gopher://" + addr + "/9/" + string(o)
		},
	}
}

func serveGopher(c net.Conn, env *Env) {
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	sel, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), "\t")
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
