package hostile

import (
	"fmt"
	"strings"
	"time"
)

// NNTP modes.
const (
	NNTPEndlessGreeting = "endless-greeting"
	NNTPGarbage         = "garbage"  // a greeting that is not an NNTP reply
	NNTPMillion         = "million"  // a group overview of 1 000 000 articles
	NNTPCut             = "cut"      // an article cut off mid-body
	NNTPTrickle         = "trickle"  // an article trickling one byte every 200 ms
	NNTPSilent          = "silent"   // half an article, then nothing
	NNTPOversize        = "oversize" // an article of 20 MiB
)

// NNTP returns a hostile NNTP server's handler.
func NNTP(mode string) func(*Conn) {
	return func(c *Conn) {
		switch mode {
		case NNTPEndlessGreeting:
			c.Send("200 ")
			c.Endless("hello ")
			return
		case NNTPGarbage:
			c.Send("HTTP/1.1 400 Bad Request\r\n\r\n")
			c.Silent()
			return
		}
		c.Send("200 hostile news server ready\r\n")
		for {
			line, ok := c.ReadLine()
			if !ok {
				return
			}
			verb, _, _ := strings.Cut(line, " ")
			switch strings.ToUpper(verb) {
			case "CAPABILITIES":
				c.Send("101 Capability list:\r\nVERSION 2\r\nREADER\r\nOVER\r\n.\r\n")
			case "MODE":
				c.Send("200 reader\r\n")
			case "GROUP":
				c.Send("211 1000000 1 1000000 hostile.group\r\n")
			case "OVER", "XOVER":
				c.Send("224 overview follows\r\n")
				for i := 1; i <= 1_000_000; i++ {
					if !c.Send(fmt.Sprintf("%d\tSubject %d\tsomeone@example.org\tTue, 20 Dec 1994 12:00:00 GMT\t<a%d@hostile>\t\t100\t3\r\n", i, i, i)) {
						return
					}
				}
				c.Send(".\r\n")
			case "ARTICLE", "BODY", "HEAD":
				c.Send("220 1 <a1@hostile> article\r\nSubject: hostile\r\n\r\n")
				switch mode {
				case NNTPCut:
					c.Bytes(50_000)
					return
				case NNTPTrickle:
					c.Trickle("trickle\r\n", 200*time.Millisecond)
					return
				case NNTPSilent:
					c.Send("line one\r\n")
					c.Silent()
					return
				case NNTPOversize:
					for i := 0; i < 20<<20/64; i++ {
						if !c.Send(strings.Repeat("x", 62) + "\r\n") {
							return
						}
					}
				}
				c.Send(".\r\n")
			case "QUIT":
				c.Send("205 bye\r\n")
				return
			default:
				c.Send("500 what?\r\n")
			}
		}
	}
}
