package telnet

import (
	"fmt"
	"strconv"
	"sync"
)

// Telnet commands (RFC 854) and the options gofer negotiates.
const (
	cmdSE   = 240
	cmdNOP  = 241
	cmdDM   = 242
	cmdBRK  = 243
	cmdIP   = 244
	cmdAO   = 245
	cmdAYT  = 246
	cmdEC   = 247
	cmdEL   = 248
	cmdGA   = 249
	cmdSB   = 250
	cmdWILL = 251
	cmdWONT = 252
	cmdDO   = 253
	cmdDONT = 254
	cmdIAC  = 255

	optBinary = 0  // RFC 856
	optEcho   = 1  // RFC 857
	optSGA    = 3  // RFC 858
	optTType  = 24 // RFC 1091
	optNAWS   = 31 // RFC 1073

	ttypeIS   = 0
	ttypeSEND = 1
)

// maxSubneg bounds one subnegotiation: a server cannot make gofer buffer
// without end by never sending IAC SE.
const maxSubneg = 1024

// negotiator holds the state of every option on both sides and decides the
// answers. It answers only changes of state, so two parties that both follow
// RFC 854's rule never loop.
type negotiator struct {
	mu sync.Mutex
	// us: options gofer has agreed to perform (WILL); him: options the
	// server performs (DO sent and acknowledged).
	us, him [256]bool
	// termType is sent for TTYPE (RFC 1091); "" refuses the option.
	termType string
	// size reports the window for NAWS (RFC 1073); nil or !ok refuses it.
	size func() (width, height int, ok bool)
	// trace receives each option exchange for the transcript; may be nil.
	trace func(dir string, seq []byte)
}

// command answers IAC verb opt from the server; it returns the bytes to send.
func (n *negotiator) command(verb, opt byte) []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.traceSeq("<", []byte{cmdIAC, verb, opt})
	var out []byte
	switch verb {
	case cmdWILL:
		// The server offers to perform opt. Echo and suppress-go-ahead are
		// what a character-at-a-time session needs; everything else stays off.
		if opt == optEcho || opt == optSGA {
			if !n.him[opt] {
				n.him[opt] = true
				out = n.reply(out, cmdDO, opt)
			}
		} else {
			out = n.reply(out, cmdDONT, opt)
		}
	case cmdWONT:
		if n.him[opt] {
			n.him[opt] = false
			out = n.reply(out, cmdDONT, opt)
		}
	case cmdDO:
		ok := false
		switch opt {
		case optSGA:
			ok = true
		case optTType:
			ok = n.termType != ""
		case optNAWS:
			if n.size != nil {
				_, _, ok = n.size()
			}
		}
		switch {
		case ok && !n.us[opt]:
			n.us[opt] = true
			out = n.reply(out, cmdWILL, opt)
			if opt == optNAWS {
				out = append(out, n.nawsLocked()...)
			}
		case !ok:
			out = n.reply(out, cmdWONT, opt)
		}
	case cmdDONT:
		if n.us[opt] {
			n.us[opt] = false
			out = n.reply(out, cmdWONT, opt)
		}
	}
	return out
}

// subnegotiation answers IAC SB opt data IAC SE (data unescaped).
func (n *negotiator) subnegotiation(opt byte, data []byte) []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.traceSeq("<", append([]byte{cmdIAC, cmdSB, opt}, data...))
	if opt == optTType && n.us[optTType] && len(data) > 0 && data[0] == ttypeSEND {
		seq := []byte{cmdIAC, cmdSB, optTType, ttypeIS}
		seq = appendEscaped(seq, []byte(n.termType))
		seq = append(seq, cmdIAC, cmdSE)
		n.traceSeq(">", seq)
		return seq
	}
	return nil
}

// naws returns the window size report to send now, or nil when the server
// has not asked for it (RFC 1073: the client reports again on every change).
func (n *negotiator) naws() []byte {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.us[optNAWS] {
		return nil
	}
	return n.nawsLocked()
}

func (n *negotiator) nawsLocked() []byte {
	w, h, ok := n.size()
	if !ok {
		return nil
	}
	w, h = clamp16(w), clamp16(h)
	seq := []byte{cmdIAC, cmdSB, optNAWS}
	seq = appendEscaped(seq, []byte{byte(w >> 8), byte(w), byte(h >> 8), byte(h)})
	seq = append(seq, cmdIAC, cmdSE)
	n.traceSeq(">", seq)
	return seq
}

// serverEchoes reports whether the server has agreed to echo (RFC 857).
func (n *negotiator) serverEchoes() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.him[optEcho]
}

func (n *negotiator) reply(out []byte, verb, opt byte) []byte {
	seq := []byte{cmdIAC, verb, opt}
	n.traceSeq(">", seq)
	return append(out, seq...)
}

func (n *negotiator) traceSeq(dir string, seq []byte) {
	if n.trace != nil {
		n.trace(dir, seq)
	}
}

func clamp16(v int) int {
	if v < 0 {
		return 0
	}
	if v > 0xFFFF {
		return 0xFFFF
	}
	return v
}

// appendEscaped appends data doubling every IAC byte (RFC 854: a data byte
// 255 is sent as IAC IAC).
func appendEscaped(dst, data []byte) []byte {
	for _, c := range data {
		if c == cmdIAC {
			dst = append(dst, cmdIAC)
		}
		dst = append(dst, c)
	}
	return dst
}

// parser splits the server's byte stream into data and telnet commands. Its
// state survives between reads, so a command split across two reads is
// still recognised.
type parser struct {
	state int
	verb  byte
	sbOpt byte
	sb    []byte
}

const (
	stData = iota
	stIAC
	stOption
	stSBOption
	stSB
	stSBIAC
)

// feed consumes p, appends the data bytes to data and the answers to send to
// reply, and returns both.
func (ps *parser) feed(n *negotiator, p, data, reply []byte) ([]byte, []byte) {
	for _, c := range p {
		switch ps.state {
		case stData:
			if c == cmdIAC {
				ps.state = stIAC
			} else {
				data = append(data, c)
			}
		case stIAC:
			switch c {
			case cmdIAC:
				data = append(data, cmdIAC) // an escaped data byte 255
				ps.state = stData
			case cmdWILL, cmdWONT, cmdDO, cmdDONT:
				ps.verb = c
				ps.state = stOption
			case cmdSB:
				ps.state = stSBOption
			default:
				// NOP, DM, GA, AYT and the rest carry nothing for a
				// client that only relays data.
				ps.state = stData
			}
		case stOption:
			reply = append(reply, n.command(ps.verb, c)...)
			ps.state = stData
		case stSBOption:
			ps.sbOpt = c
			ps.sb = ps.sb[:0]
			ps.state = stSB
		case stSB:
			if c == cmdIAC {
				ps.state = stSBIAC
			} else if len(ps.sb) < maxSubneg {
				ps.sb = append(ps.sb, c)
			}
		case stSBIAC:
			switch c {
			case cmdSE:
				reply = append(reply, n.subnegotiation(ps.sbOpt, ps.sb)...)
				ps.state = stData
			case cmdIAC:
				if len(ps.sb) < maxSubneg {
					ps.sb = append(ps.sb, cmdIAC)
				}
				ps.state = stSB
			default:
				// A command inside a subnegotiation ends it (RFC 855 says
				// only IAC SE may; be lenient but never pass it as data).
				ps.state = stData
			}
		}
	}
	return data, reply
}

// describe renders a command sequence for the transcript: "DO NAWS",
// "SB TTYPE SEND", "SB NAWS 80 24".
func describe(seq []byte) string {
	if len(seq) < 3 || seq[0] != cmdIAC {
		return fmt.Sprintf("% x", seq)
	}
	verb, opt := seq[1], seq[2]
	s := verbName(verb) + " " + optName(opt)
	if verb == cmdSB {
		body := seq[3:]
		if len(body) >= 2 && body[len(body)-2] == cmdIAC && body[len(body)-1] == cmdSE {
			body = body[:len(body)-2]
		}
		switch {
		case opt == optNAWS && len(body) >= 4:
			s += fmt.Sprintf(" %d %d", int(body[0])<<8|int(body[1]), int(body[2])<<8|int(body[3]))
		case opt == optTType && len(body) >= 1 && body[0] == ttypeSEND:
			s += " SEND"
		case opt == optTType && len(body) >= 1 && body[0] == ttypeIS:
			s += " IS " + strconv.Quote(string(body[1:]))
		default:
			s += fmt.Sprintf(" % x", body)
		}
	}
	return s
}

func verbName(v byte) string {
	switch v {
	case cmdWILL:
		return "WILL"
	case cmdWONT:
		return "WONT"
	case cmdDO:
		return "DO"
	case cmdDONT:
		return "DONT"
	case cmdSB:
		return "SB"
	}
	return strconv.Itoa(int(v))
}

func optName(o byte) string {
	switch o {
	case optBinary:
		return "BINARY"
	case optEcho:
		return "ECHO"
	case optSGA:
		return "SGA"
	case optTType:
		return "TTYPE"
	case optNAWS:
		return "NAWS"
	}
	return strconv.Itoa(int(o))
}
