package conformance

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/prospero/prosperotest"
)

// prosperoAdapter resolves every object through gofer's scripted Prospero
// server (schemes/prospero/prosperotest) to the same object on the suite's
// scripted Gopher server: a prospero fetch is a resolution, and the bytes,
// stalls and cuts come from the target it resolves to. The Prospero server
// speaks ARDP as over UDP but without a socket: the client's UDP dial gets
// the server's Pipe, whose writes the server handles at once, so that no
// server goroutine outlives a check (the suite counts goroutines and the
// TCP connections of its server; UDP has none to count). What differs
// from the other schemes, and why:
//
//   - missing: the Prospero server answers FAILURE NOT-FOUND;
//   - listing: a Prospero directory object, whose link is a prospero URL;
//   - stall, cut, gated, large: the resolution succeeds and the target
//     stalls, cuts, holds back or overruns. The cut object resolves to an
//     HTTP target on the same scripted server, since a plain Gopher reply
//     cannot show a cut and an access method carries no Gopher+ string. A Prospero server that
//     stays silent or stops halfway is tested in schemes/prospero
//     (TestSilent, TestCut), since the suite's stall is a TCP connection
//     it watches;
//   - credentials: prospero URLs carry no user or password (RFC 1738
//     §3.11);
//   - oneoff: fetch.Get takes no dialer, and the Prospero server here is
//     reached through one.
func prosperoAdapter() Adapter {
	return Adapter{
		Serve:          serveGopherOrHTTP,
		NoCredentials:  true,
		ListingEntries: 2,
		URL: func(addr string, o Object) string {
			return "prospero://" + prosperoHost + "//" + string(o)
		},
		Options: func(o *fetch.Options, addr string) {
			host, port, _ := net.SplitHostPort(addr)
			method := func(typ, sel string) string {
				return fmt.Sprintf("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE GOPHER INTERNET-D %s(%s) ASCII %s %s", host, port, sel, typ)
			}
			const file = "ATTRIBUTE OBJECT FIELD BASE-TYPE FILE"
			objects := map[string]*prosperotest.Object{
				"/" + string(Listing): {
					Info: []string{"ATTRIBUTE OBJECT FIELD BASE-TYPE DIRECTORY"},
					List: []string{"LINK L FILE small INTERNET-D " + prosperoHost + " ASCII /small 0",
						"LINK L FILE large INTERNET-D " + prosperoHost + " ASCII /large 0"},
				},
				"/" + string(Cut): {Info: []string{file,
					fmt.Sprintf("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE HTTP INTERNET-D %s(%s) ASCII /cut", host, port)}},
			}
			for _, obj := range []Object{Small, Large, Stall, Gated} {
				objects["/"+string(obj)] = &prosperotest.Object{Info: []string{file, method("9", "/"+string(obj))}}
			}
			o.Dialer = &pipeDialer{srv: prosperotest.New(objects, nil), next: o.Dialer}
		},
	}
}

// serveGopherOrHTTP answers an HTTP request as the HTTP server of the
// suite and anything else as its Gopher server.
func serveGopherOrHTTP(c net.Conn, env *Env) {
	pc := &peekedConn{Conn: c, r: bufio.NewReader(c)}
	head, err := pc.r.Peek(4)
	if err == nil && string(head) == "GET " {
		serveHTTP(pc, env)
		return
	}
	serveGopher(pc, env)
}

// peekedConn is a connection whose first bytes were read ahead.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// prosperoHost is where the prospero URLs point, on Prospero's default
// port so that the guard has nothing to say.
const prosperoHost = "127.0.0.1"

// pipeDialer gives a UDP dial to the Prospero server the server's Pipe and
// leaves every other dial to next.
type pipeDialer struct {
	srv  *prosperotest.Server
	next schemes.Dialer
}

func (d *pipeDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if !strings.HasPrefix(network, "udp") {
		return d.next.DialContext(ctx, network, addr)
	}
	if addr != prosperoHost+":1525" {
		return nil, fmt.Errorf("conformance: no Prospero server at %s", addr)
	}
	return d.srv.Pipe(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1525}), nil
}
