package hostile

// Telnet modes.
const (
	TelnetIACStorm    = "iac-storm"    // endless option negotiation
	TelnetEndlessSB   = "endless-sb"   // a subnegotiation that never ends
	TelnetEndlessLine = "endless-line" // text without a line end, forever
	TelnetCut         = "cut"          // a little text, then close
)

// Telnet returns a hostile telnet server's handler.
func Telnet(mode string) func(*Conn) {
	const iac, do, will, sb = 255, 253, 251, 250
	return func(c *Conn) {
		switch mode {
		case TelnetIACStorm:
			c.Send("storm begins\r\n")
			c.Endless(string([]byte{iac, do, 24, iac, will, 1, iac, do, 31, iac, will, 3}))
		case TelnetEndlessSB:
			c.Send("sb begins\r\n")
			c.Send(string([]byte{iac, sb, 24}))
			c.Endless("subnegotiation ")
		case TelnetEndlessLine:
			c.Endless("no line end ")
		case TelnetCut:
			c.Send("login: ")
		}
	}
}
