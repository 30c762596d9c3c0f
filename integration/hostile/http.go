package hostile

import (
	"fmt"
	"strings"
	"time"
)

// HTTP modes.
const (
	HTTPEndlessHeader = "endless-header" // a header line that never ends
	HTTPOversize      = "oversize"       // a 20 MiB body
	HTTPTrickle       = "trickle"        // a body trickling one byte every 200 ms
	HTTPSilent        = "silent"         // half a body, then nothing
	HTTPCut           = "cut"            // Content-Length 1 000 000, 1000 bytes, close
	HTTPGarbage       = "garbage"        // a status line that is not HTTP
	HTTPRedirectLoop  = "redirect-loop"  // /loop redirects to itself
	HTTPRedirectFile  = "redirect-file"  // a redirect to file:///etc/passwd
	HTTPRedirectChain = "redirect-chain" // /r/N redirects to /r/N+1, forever
)

// HTTP returns a hostile HTTP server's handler (one request per connection).
func HTTP(mode string) func(*Conn) {
	return func(c *Conn) {
		reqLine, ok := c.ReadLine()
		if !ok {
			return
		}
		for { // the request's header
			l, ok := c.ReadLine()
			if !ok {
				return
			}
			if l == "" {
				break
			}
		}
		path := ""
		if f := strings.Fields(reqLine); len(f) > 1 {
			path = f[1]
		}
		switch mode {
		case HTTPEndlessHeader:
			c.Send("HTTP/1.1 200 OK\r\nX-Endless: ")
			c.Endless("more ")
		case HTTPOversize:
			c.Send("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
			c.Bytes(20 << 20)
		case HTTPTrickle:
			c.Send("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\nConnection: close\r\n\r\n")
			c.Trickle("trickle ", 200*time.Millisecond)
		case HTTPSilent:
			c.Send("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n")
			c.Bytes(1000)
			c.Silent()
		case HTTPCut:
			c.Send("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n")
			c.Bytes(1000)
		case HTTPGarbage:
			c.Send("SSH-2.0-OpenSSH_9.2\r\n\r\n")
		case HTTPRedirectLoop:
			c.Send("HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		case HTTPRedirectFile:
			c.Send("HTTP/1.1 302 Found\r\nLocation: file:///etc/passwd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		case HTTPRedirectChain:
			var n int
			fmt.Sscanf(path, "/r/%d", &n)
			c.Send(fmt.Sprintf("HTTP/1.1 301 Moved\r\nLocation: /r/%d\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", n+1))
		}
	}
}
