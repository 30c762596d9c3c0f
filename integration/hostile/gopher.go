package hostile

import (
	"fmt"
	"strings"
	"time"
)

// Gopher modes.
const (
	GopherEndlessLine = "endless-line" // a menu whose first line never ends
	GopherOversize    = "oversize"     // a binary item of 20 MiB
	GopherTrickle     = "trickle"      // a text item trickling one byte every 200 ms
	GopherSilent      = "silent"       // half a text item, then nothing
	GopherCutPlus     = "cut-plus"     // "+100000" then 1000 bytes and close
	GopherGarbagePlus = "garbage-plus" // a Gopher+ reply that is not one
	GopherMillion     = "million"      // a menu of 1 000 000 items
)

// Gopher returns a hostile Gopher server's handler; host and port are what
// its menus name.
func Gopher(mode string) func(*Conn) {
	return func(c *Conn) {
		req, ok := c.ReadLine()
		if !ok {
			return
		}
		plus := strings.Contains(req, "\t+")
		switch mode {
		case GopherEndlessLine:
			c.Send("iendless ")
			c.Endless("menu line ")
		case GopherOversize:
			if plus {
				c.Send("+-2\r\n")
			}
			c.Bytes(20 << 20)
		case GopherTrickle:
			c.Trickle("trickle\r\n", 200*time.Millisecond)
		case GopherSilent:
			c.Send("first line\r\nsecond line\r\n")
			c.Silent()
		case GopherCutPlus:
			c.Send("+100000\r\n")
			c.Bytes(1000)
		case GopherGarbagePlus:
			c.Send("+banana\r\nnot a gopher+ reply\r\n")
		case GopherMillion:
			host, port := splitAddr(c.LocalAddr().String())
			for i := 0; i < 1_000_000; i++ {
				if !c.Send(fmt.Sprintf("0Item number %d\titems/%d\t%s\t%s\r\n", i, i, host, port)) {
					return
				}
			}
			c.Send(".\r\n")
		}
	}
}

func splitAddr(a string) (string, string) {
	i := strings.LastIndexByte(a, ':')
	return a[:i], a[i+1:]
}
