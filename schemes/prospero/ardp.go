package prospero

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// ARDP version 0 header octets (the header may stop after any field; the
// ones left out take their defaults).
const (
	hdrMin       = 9    // octets 0-8: length, connection id, packet number, total, received-through
	hdrWithWait  = 11   // plus octets 9-10: expected wait in seconds
	hdrWithFlags = 12   // plus octet 11: flags
	hdrWithOpt   = 13   // plus octet 12: option
	flagAck      = 0x80 // octet 11, high bit: please acknowledge this packet
	flagCtl      = 0x40 // octet 11: sequenced control packet, no data for the application

	optRefused  = 1 // octet 12: server to client, connection refused
	optRedirect = 4 // octet 12: server redirects the client elsewhere

	// maxPayload is how much text one request packet carries: ARDP senders
	// keep to 1250 octets so that older peers with small buffers accept them.
	maxPayload = 1250
	// maxDatagram bounds a packet read: ARDP's largest packet (1405 octets
	// of data plus a 64-octet header) with room to spare.
	maxDatagram = 2048
)

// packet is one ARDP packet, its header fields with their defaults applied.
type packet struct {
	hdrLen   int
	cid      uint16
	seq      uint16 // 0: an unsequenced control packet
	total    uint16 // 0: not known yet
	rcvdThru uint16
	hasRcvd  bool
	wait     uint16 // seconds the server expects to need; 0: not given
	flags    byte
	option   byte
	data     []byte
}

// parsePacket decodes an ARDP version 0 packet. What cannot be a packet of
// that version (a short or inconsistent header, another version) is an
// error naming the reason.
func parsePacket(b []byte) (packet, error) {
	var p packet
	if len(b) == 0 {
		return p, fmt.Errorf("empty ARDP packet")
	}
	if v := b[0] >> 6; v != 0 {
		return p, fmt.Errorf("ARDP packet of version %d (octet 0 is 0x%02x); gofer speaks version 0", v, b[0])
	}
	p.hdrLen = int(b[0] & 0x3f)
	switch {
	case p.hdrLen < 3:
		// Without a connection id no reply can be matched to its request.
		return p, fmt.Errorf("ARDP header of %d octets is too short to hold a connection id", p.hdrLen)
	case p.hdrLen > len(b):
		return p, fmt.Errorf("ARDP header claims %d octets, packet has %d", p.hdrLen, len(b))
	}
	h := b[:p.hdrLen]
	p.cid = binary.BigEndian.Uint16(h[1:3])
	p.seq = 1
	if len(h) >= 5 {
		p.seq = binary.BigEndian.Uint16(h[3:5])
	}
	if len(h) >= 7 {
		p.total = binary.BigEndian.Uint16(h[5:7])
	} else if len(h) < 5 {
		p.total = 1 // neither number nor total given: a one-packet message
	}
	if len(h) >= 9 {
		p.rcvdThru, p.hasRcvd = binary.BigEndian.Uint16(h[7:9]), true
	}
	if len(h) >= hdrWithWait {
		p.wait = binary.BigEndian.Uint16(h[9:11])
	}
	if len(h) >= hdrWithFlags {
		p.flags = h[11]
	}
	if len(h) >= hdrWithOpt {
		p.option = h[12]
	}
	if p.total != 0 && p.seq > p.total {
		return p, fmt.Errorf("ARDP packet %d of a %d-packet message", p.seq, p.total)
	}
	p.data = b[p.hdrLen:]
	return p, nil
}

// encode writes p with the shortest header that holds its fields.
func (p packet) encode() []byte {
	n := hdrMin
	switch {
	case p.option != 0:
		n = hdrWithOpt
	case p.flags != 0:
		n = hdrWithFlags
	case p.wait != 0:
		n = hdrWithWait
	}
	b := make([]byte, n, n+len(p.data))
	b[0] = byte(n) // version 0 in the two high bits
	binary.BigEndian.PutUint16(b[1:3], p.cid)
	binary.BigEndian.PutUint16(b[3:5], p.seq)
	binary.BigEndian.PutUint16(b[5:7], p.total)
	binary.BigEndian.PutUint16(b[7:9], p.rcvdThru)
	if n >= hdrWithWait {
		binary.BigEndian.PutUint16(b[9:11], p.wait)
	}
	if n >= hdrWithFlags {
		b[11] = p.flags
	}
	if n >= hdrWithOpt {
		b[12] = p.option
	}
	return append(b, p.data...)
}

// describe is the packet's header in words, for Request.Transcript.
func (p packet) describe() string {
	var b strings.Builder
	if p.seq == 0 {
		b.WriteString("control")
	} else {
		fmt.Fprintf(&b, "packet %d", p.seq)
		if p.total != 0 {
			fmt.Fprintf(&b, "/%d", p.total)
		}
	}
	fmt.Fprintf(&b, " cid %d", p.cid)
	if p.hasRcvd {
		fmt.Fprintf(&b, " received-through %d", p.rcvdThru)
	}
	if p.wait != 0 {
		fmt.Fprintf(&b, " wait %ds", p.wait)
	}
	if p.flags&flagAck != 0 {
		b.WriteString(" ack-requested")
	}
	switch p.option {
	case 0:
	case optRefused:
		b.WriteString(" option refused")
	case optRedirect:
		b.WriteString(" option redirect")
	default:
		fmt.Fprintf(&b, " option %d", p.option)
	}
	if len(p.data) > 0 {
		fmt.Fprintf(&b, ", %d octets", len(p.data))
	}
	return b.String()
}

// splitMessage cuts a request into packets of at most maxPayload octets,
// numbered from 1, each carrying the total.
func splitMessage(cid uint16, msg []byte) []packet {
	var ps []packet
	for len(msg) > 0 || len(ps) == 0 {
		n := min(len(msg), maxPayload)
		ps = append(ps, packet{cid: cid, data: msg[:n]})
		msg = msg[n:]
	}
	for i := range ps {
		ps[i].seq, ps[i].total = uint16(i+1), uint16(len(ps))
	}
	return ps
}
