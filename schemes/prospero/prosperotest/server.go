// Package prosperotest is a scripted Prospero directory server for tests
// of Prospero clients, beside the client it fakes as httptest sits beside
// net/http (gofer's integration servers and demo run it too, as
// integration/cmd/prosperod): Prospero protocol version 5 request lines over ARDP
// version 0 on UDP, written from the protocol documents ("The Prospero
// Protocol", USC/ISI, and its appendix on the Asynchronous Reliable
// Delivery Protocol). No Prospero server can be installed or built today,
// so this one answers from a fixed catalogue instead of a real file
// system.
//
// What it speaks: a request message (one or more packets, put in order by
// packet number) of LF-separated lines. VERSION and AUTHENTICATE are
// accepted; GET-OBJECT-INFO hsoname answers the object's attribute lines;
// DIRECTORY hsoname followed by LIST answers the directory's LINK lines; an
// unknown hsoname answers "FAILURE NOT-FOUND". The reply is cut into
// packets of Object.PacketSize octets; every packet but the last has the
// shortest header (9 octets), the last one a 13-octet header whose flags
// ask for an acknowledgement. A repeated request, or an acknowledgement
// whose received-through count is short of the total, makes the server
// send again every packet after that count; a complete acknowledgement
// ends the connection. Each object can carry a fault (lose a packet once,
// stay silent, answer a broken packet or non-Prospero text, stop halfway,
// send its packets last first) for the client's fault tests.
package prosperotest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
)

// Fault is a misbehaviour of one object's replies.
type Fault int

const (
	// None: a correct reply.
	None Fault = iota
	// DropFirst: packet 1 of each reply is lost the first time it is sent.
	DropFirst
	// Silent: the server never answers.
	Silent
	// BadARDP: the answer is a packet whose ARDP header is inconsistent.
	BadARDP
	// BadText: a well-framed ARDP reply whose text is not Prospero.
	BadText
	// Cut: the first packet of the reply is sent, then nothing more, ever.
	Cut
	// Reverse: the packets of the reply are sent last first.
	Reverse
	// Busy: the first request gets only a control packet saying the reply
	// will take a second; the request sent again gets the reply.
	Busy
)

// Object is one entry of the catalogue.
type Object struct {
	// Info is the reply to GET-OBJECT-INFO: ATTRIBUTE lines.
	Info []string
	// List is the reply to DIRECTORY + LIST: LINK lines (each may be
	// followed by ATTRIBUTE lines); nil for an object that is no directory.
	List []string
	// PacketSize is the text each reply packet carries (0: 1250 octets).
	PacketSize int
	Fault      Fault
}

// Server answers Prospero requests from its catalogue.
type Server struct {
	objects map[string]*Object
	log     io.Writer

	mu       sync.Mutex
	conns    map[connKey]*conn
	requests []string
	dropped  int
}

type connKey struct {
	peer string
	cid  uint16
}

// conn is the state of one ARDP connection: the request's packets, then
// the reply's.
type conn struct {
	reqParts map[uint16][]byte
	reqTotal uint16
	reply    [][]byte // encoded reply packets, in packet order
	fault    Fault
	dropped  bool
	busy     bool // the Busy fault's control packet went out
}

// New returns a server for the catalogue objects (hsoname to object); log,
// if not nil, receives one line per request and per fault.
func New(objects map[string]*Object, log io.Writer) *Server {
	return &Server{objects: objects, log: log, conns: map[connKey]*conn{}}
}

// Requests returns the text of every request message received so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Dropped returns how many packets the DropFirst fault has lost.
func (s *Server) Dropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped
}

// Serve answers packets on pc until it is closed; it returns nil then.
func (s *Server) Serve(pc net.PacketConn) error {
	buf := make([]byte, 65536)
	for {
		n, peer, err := pc.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		for _, out := range s.Handle(peer.String(), append([]byte(nil), buf[:n]...)) {
			pc.WriteTo(out, peer)
		}
	}
}

// header is an ARDP version 0 header, defaults applied.
type header struct {
	cid, seq, total, rcvdThru uint16
}

func parseHeader(b []byte) (header, []byte, bool) {
	if len(b) == 0 || b[0]>>6 != 0 {
		return header{}, nil, false
	}
	n := int(b[0] & 0x3f)
	if n < 3 || n > len(b) {
		return header{}, nil, false
	}
	h := header{cid: binary.BigEndian.Uint16(b[1:3]), seq: 1}
	if n >= 5 {
		h.seq = binary.BigEndian.Uint16(b[3:5])
	}
	switch {
	case n >= 7:
		h.total = binary.BigEndian.Uint16(b[5:7])
	case n < 5:
		h.total = 1
	}
	if n >= 9 {
		h.rcvdThru = binary.BigEndian.Uint16(b[7:9])
	}
	return h, b[n:], true
}

// Handle takes one packet from peer (any string naming the sender) and
// returns the packets to send back. Serve calls it for each datagram; a
// test may call it directly to run the server without a socket.
func (s *Server) Handle(peer string, b []byte) [][]byte {
	h, data, ok := parseHeader(b)
	if !ok {
		s.logf("%s: not an ARDP version 0 packet, ignored", peer)
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := connKey{peer, h.cid}
	c := s.conns[key]
	if h.seq == 0 {
		// An acknowledgement: resend what it says is missing.
		if c == nil || c.reply == nil {
			return nil
		}
		if int(h.rcvdThru) >= len(c.reply) {
			delete(s.conns, key)
			return nil
		}
		return s.transmit(c, h.rcvdThru)
	}
	if c == nil {
		c = &conn{reqParts: map[uint16][]byte{}}
		s.conns[key] = c
	}
	if c.reply != nil {
		// The request again: the client lost the reply, or part of it.
		s.requests = append(s.requests, string(data))
		return s.transmit(c, h.rcvdThru)
	}
	if h.total != 0 {
		c.reqTotal = h.total
	}
	c.reqParts[h.seq] = data
	if c.reqTotal == 0 || len(c.reqParts) < int(c.reqTotal) {
		return nil
	}
	var msg []byte
	for i := uint16(1); i <= c.reqTotal; i++ {
		msg = append(msg, c.reqParts[i]...)
	}
	s.requests = append(s.requests, string(msg))
	text, obj := s.answer(string(msg))
	size := maxText
	if obj != nil {
		c.fault = obj.Fault
		if obj.PacketSize > 0 {
			size = obj.PacketSize
		}
	}
	s.logf("%s cid %d: %s -> %d octets", peer, h.cid, strings.ReplaceAll(strings.TrimSpace(string(msg)), "\n", " | "), len(text))
	switch c.fault {
	case Silent:
		return nil
	case BadARDP:
		// The header claims more octets than the packet has.
		return [][]byte{{0x3f, byte(h.cid >> 8), byte(h.cid)}}
	case BadText:
		text = "HELLO THIS IS NOT PROSPERO\n"
	case Busy:
		c.reply = packets(h.cid, []byte(text), size)
		c.busy = true
		s.logf("fault: busy, asked the client to wait 1 s")
		// Octets 9-10: the expected wait, in seconds.
		return [][]byte{{11, byte(h.cid >> 8), byte(h.cid), 0, 0, 0, 0, 0, 0, 0, 1}}
	}
	c.reply = packets(h.cid, []byte(text), size)
	return s.transmit(c, 0)
}

// maxText is what one packet carries by default: ARDP senders keep to 1250
// octets for older peers.
const maxText = 1250

// transmit returns the reply packets after rcvdThru, as the fault allows.
func (s *Server) transmit(c *conn, rcvdThru uint16) [][]byte {
	var out [][]byte
	for i := int(rcvdThru); i < len(c.reply); i++ {
		out = append(out, c.reply[i])
	}
	switch c.fault {
	case DropFirst:
		if !c.dropped && rcvdThru == 0 && len(out) > 0 {
			c.dropped = true
			s.dropped++
			s.logf("fault: packet 1 lost")
			out = out[1:]
		}
	case Cut:
		if rcvdThru > 0 || len(out) == 0 {
			return nil
		}
		if len(out) > 1 {
			s.logf("fault: reply cut after packet 1 of %d", len(out))
		}
		out = out[:1]
	case Reverse:
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// packets cuts text into ARDP packets of size octets. The last packet asks
// for an acknowledgement.
func packets(cid uint16, text []byte, size int) [][]byte {
	var chunks [][]byte
	for len(text) > 0 {
		n := min(size, len(text))
		chunks = append(chunks, text[:n])
		text = text[n:]
	}
	var out [][]byte
	for i, ch := range chunks {
		hl := 9
		if i == len(chunks)-1 {
			hl = 13
		}
		b := make([]byte, hl, hl+len(ch))
		b[0] = byte(hl)
		binary.BigEndian.PutUint16(b[1:3], cid)
		binary.BigEndian.PutUint16(b[3:5], uint16(i+1))
		binary.BigEndian.PutUint16(b[5:7], uint16(len(chunks)))
		if hl == 13 {
			b[11] = 0x80 // please acknowledge
		}
		out = append(out, append(b, ch...))
	}
	return out
}

// answer runs the request lines and returns the reply text and the object
// they named, if any.
func (s *Server) answer(msg string) (string, *Object) {
	var (
		out  []string
		dir  string
		obj  *Object
		seen bool
	)
	for _, l := range strings.Split(strings.TrimSuffix(msg, "\n"), "\n") {
		toks, err := tokens(l)
		if err != nil || len(toks) == 0 {
			return fmt.Sprintf("ERROR malformed line %s\n", quote(l)), nil
		}
		switch toks[0] {
		case "VERSION":
			if len(toks) < 2 || toks[1] != "5" {
				return "VERSION-NOT-SUPPORTED TRY 5\n", nil
			}
		case "AUTHENTICATE":
			if len(toks) < 4 || toks[2] != "UNAUTHENTICATED" {
				return "FAILURE NOT-AUTHORIZED gofer's test server takes UNAUTHENTICATED only\n", nil
			}
		case "GET-OBJECT-INFO":
			if len(toks) < 5 || toks[2] != "ASCII" {
				return "ERROR GET-OBJECT-INFO wants attributes, ASCII, hsoname and version\n", nil
			}
			o, ok := s.objects[toks[3]]
			if !ok {
				return fmt.Sprintf("FAILURE NOT-FOUND %s\n", quote(toks[3])), nil
			}
			obj, seen = o, true
			if len(o.Info) == 0 {
				out = append(out, "NONE-FOUND")
			}
			out = append(out, o.Info...)
		case "SELECT":
			// Field selections narrow the object; the catalogue holds one
			// version of everything, so they match or are ignored.
		case "DIRECTORY":
			if len(toks) < 3 {
				return "ERROR DIRECTORY wants ASCII and hsoname\n", nil
			}
			dir = toks[2]
		case "LIST":
			o, ok := s.objects[dir]
			switch {
			case dir == "":
				return "ERROR LIST without DIRECTORY\n", nil
			case !ok:
				return fmt.Sprintf("FAILURE NOT-FOUND %s\n", quote(dir)), nil
			case o.List == nil:
				return fmt.Sprintf("FAILURE NOT-A-DIRECTORY %s\n", quote(dir)), nil
			}
			obj, seen = o, true
			out = append(out, o.List...)
		default:
			return fmt.Sprintf("ERROR unknown command %s\n", quote(toks[0])), nil
		}
	}
	if !seen {
		return "ERROR no object named\n", nil
	}
	return strings.Join(out, "\n") + "\n", obj
}

func (s *Server) logf(format string, args ...any) {
	if s.log != nil {
		fmt.Fprintf(s.log, format+"\n", args...)
	}
}

// quote writes a token, between single quotes when it needs them.
func quote(tok string) string {
	if tok != "" && !strings.ContainsAny(tok, " \t'\n") {
		return tok
	}
	return "'" + strings.ReplaceAll(tok, "'", "''") + "'"
}

// tokens splits a line on unquoted blanks; quotes group, and two quotes inside quotes are one.
func tokens(l string) ([]string, error) {
	var toks []string
	var cur []byte
	in, quoted := false, false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quoted && c == '\'' && i+1 < len(l) && l[i+1] == '\'':
			cur = append(cur, '\'')
			i++
		case c == '\'':
			quoted, in = !quoted, true
		case !quoted && (c == ' ' || c == '\t'):
			if in {
				toks = append(toks, string(cur))
				cur, in = nil, false
			}
		default:
			cur, in = append(cur, c), true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote")
	}
	if in {
		toks = append(toks, string(cur))
	}
	return toks, nil
}
