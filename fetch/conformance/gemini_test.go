package conformance

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"strings"
)

// geminiAdapter serves the objects from a scripted Gemini server: TLS from
// the first byte, one request line, a status line and the body until the
// connection closes. A gemini page is a KindFile of text/gemini (read as
// lines with gemini.NewListing), not a listing, so the listing check does
// not apply. A body ends where the connection ends, and crypto/tls reads
// a close at a record boundary as a clean end, so a closed connection
// cannot show a cut: the cut object ends with a reset (RST) instead.
func geminiAdapter() Adapter {
	return Adapter{
		TLS:           true,
		Serve:         serveGemini,
		NoCredentials: true,
		URL: func(addr string, o Object) string {
			if o == Listing {
				return ""
			}
			return "gemini://" + addr + "/" + string(o)
		},
	}
}

func serveGemini(c net.Conn, env *Env) {
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	line = strings.TrimSuffix(line, "\r\n")
	_, path, _ := strings.Cut(strings.TrimPrefix(line, "gemini://"), "/")
	const ok = "20 application/octet-stream\r\n"
	switch Object(path) {
	case Small:
		io.WriteString(c, ok+string(SmallBody))
	case Large:
		io.WriteString(c, ok)
		writeFiller(c, LargeSize)
	case Stall:
		env.Stall(c)
	case Cut:
		io.WriteString(c, ok+string(CutHead))
		reset(c)
	case Gated:
		io.WriteString(c, ok+string(GatedHead))
		if env.WaitRelease(c) {
			c.Write(GatedTail)
		}
	default:
		io.WriteString(c, "51 Not found: "+path+"\r\n")
	}
}

// reset ends the TCP connection under c with a reset, not a close.
func reset(c net.Conn) {
	if tc, ok := c.(*trackedConn); ok {
		c = tc.Conn
	}
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if tcp, ok := c.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
	c.Close()
}
