package conformance

import (
	"bufio"
	"fmt"
	"net"
	"strings"
)

// httpAdapter serves the objects from a scripted HTTP/1.1 server (RFC
// 9112) that keeps connections alive; with TLS it is the https: server.
// HTTP has no listings: a directory is an HTML page like any other.
func httpAdapter(https bool) Adapter {
	scheme := "http"
	if https {
		scheme = "https"
	}
	return Adapter{
		TLS:   https,
		Serve: serveHTTP,
		URL: func(addr string, o Object) string {
			if o == Listing {
				return ""
			}
			return scheme + "://" + addr + "/" + string(o)
		},
	}
}

func serveHTTP(c net.Conn, env *Env) {
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		for {
			h, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if strings.TrimRight(h, "\r\n") == "" {
				break
			}
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			return
		}
		switch Object(strings.TrimPrefix(f[1], "/")) {
		case Small:
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n%s", len(SmallBody), SmallBody)
		case Large:
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
			writeFiller(c, LargeSize)
			return
		case Stall:
			env.Stall(c)
			return
		case Cut:
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", 2*len(CutHead), CutHead)
			return
		case Gated:
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(GatedHead)+len(GatedTail), GatedHead)
			if !env.WaitRelease(c) {
				return
			}
			c.Write(GatedTail)
		default:
			fmt.Fprintf(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
		}
	}
}
