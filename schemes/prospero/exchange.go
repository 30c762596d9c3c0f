package prospero

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// ARDP's retransmission rule: wait, resend, and double the wait each time,
// a bounded number of times.
const (
	firstTimeout = 4 * time.Second // ARDP's default time before the first retry
	retries      = 3               // ARDP's default number of retries
	// backoffSum is how many first timeouts the whole schedule lasts:
	// 1 + 2 + 4 + 8 for the first try and three doubled retries.
	backoffSum = 15
	// maxPackets bounds a reply message (about 5 MB of text).
	maxPackets = 4096
)

// schedule returns the first wait of the retransmission schedule for an
// idle timeout: ARDP's 4 s, or less, so that the first try and every retry
// together never wait longer than idle without an answer.
func schedule(idle time.Duration) time.Duration {
	return min(firstTimeout, idle/backoffSum)
}

// ardpConn is one ARDP exchange over a connected UDP socket: one request
// message, one reply message.
type ardpConn struct {
	conn net.Conn
	addr string
	cid  uint16
	idle time.Duration
	tr   io.Writer
}

// roundTrip sends msg and returns the reply message, its packets put in
// sequence order. It retransmits what is missing when the peer is silent
// for a timeout (the request while nothing came back, else an
// acknowledgement naming what arrived, which makes the server resend the
// rest), doubling the timeout each time; a packet that carries new data
// starts the schedule again. A packet that asks for an acknowledgement gets
// one, and so does the last packet of the reply.
func (a *ardpConn) roundTrip(ctx context.Context, msg []byte) ([]byte, error) {
	// Cancelling ctx ends a read that waits on the server.
	stop := context.AfterFunc(ctx, func() { a.conn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()

	request := splitMessage(a.cid, msg)
	for _, p := range request {
		a.logPacket(">", p)
	}
	if err := a.send(request...); err != nil {
		return nil, err
	}
	var (
		parts       = map[uint16][]byte{}
		total       uint16
		rcvdThru    uint16
		tries       = 1
		timeout     = schedule(a.idle)
		deadline    = time.Now().Add(timeout)
		unreachable bool
		buf         = make([]byte, maxDatagram)
		// progress is when new data last came (or the request went): no
		// wait ever reaches past progress + idle.
		progress = time.Now()
	)
	// wait returns when a wait of d from now ends: never past the idle
	// timeout since the last progress.
	wait := func(d time.Duration) time.Time {
		t := time.Now().Add(d)
		if limit := progress.Add(a.idle); t.After(limit) {
			return limit
		}
		return t
	}
	for {
		a.conn.SetReadDeadline(deadline)
		n, err := a.conn.Read(buf)
		if ctx.Err() != nil {
			return nil, a.ctxError(ctx)
		}
		if err != nil {
			switch {
			case errors.Is(err, syscall.ECONNREFUSED):
				// The host says nothing listens on the port. UDP gives no
				// more certainty than that; ARDP treats it as a lost packet
				// and retries on its schedule.
				unreachable = true
				a.note("port unreachable (ICMP)")
				continue
			case !errors.Is(err, os.ErrDeadlineExceeded):
				return nil, schemes.Errorf(schemes.ErrInterrupted, "prospero %s: read reply: %v", a.addr, err)
			}
			if tries > retries || !time.Now().Before(progress.Add(a.idle)) {
				return nil, a.timeoutError(tries, time.Since(progress), rcvdThru, total, unreachable)
			}
			tries++
			timeout *= 2
			deadline = wait(timeout)
			if len(parts) == 0 {
				a.note(fmt.Sprintf("no answer, sending the request again (try %d of %d, waiting %s)", tries, retries+1, timeout))
				if err := a.send(request...); err != nil {
					return nil, err
				}
				continue
			}
			a.note(fmt.Sprintf("reply stalled after packet %d, acknowledging it (try %d of %d, waiting %s)", rcvdThru, tries, retries+1, timeout))
			if err := a.ack(rcvdThru); err != nil {
				return nil, err
			}
			continue
		}
		p, err := parsePacket(buf[:n])
		if err != nil {
			a.note("malformed packet: " + err.Error())
			return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: malformed reply: %v", a.addr, err)
		}
		if p.cid != a.cid {
			// A late answer to an earlier request from this port.
			a.note(fmt.Sprintf("ignored a packet of connection %d", p.cid))
			continue
		}
		a.logPacket("<", p)
		switch p.option {
		case optRefused:
			return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: the server refused the request", a.addr)
		case optRedirect:
			return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: the server redirects the request elsewhere; gofer does not follow ARDP redirects", a.addr)
		}
		if p.wait != 0 {
			// The server has the request and says how long it expects to
			// take. The current try waits that long, but never past the
			// idle timeout since the last progress.
			deadline = wait(time.Duration(p.wait) * time.Second)
		}
		if p.seq == 0 {
			continue // an unsequenced control packet: nothing more to take
		}
		if p.flags&flagCtl != 0 {
			// A sequenced control packet takes its place in the order but
			// carries nothing for the application.
			p.data = nil
		}
		if p.total != 0 {
			if total != 0 && p.total != total {
				return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: malformed reply: packet %d says the message has %d packets, an earlier one said %d", a.addr, p.seq, p.total, total)
			}
			total = p.total
		}
		if p.seq > maxPackets || total > maxPackets {
			return nil, schemes.Errorf(schemes.ErrTooLarge, "prospero %s: reply of more than %d packets", a.addr, maxPackets)
		}
		if _, dup := parts[p.seq]; !dup {
			parts[p.seq] = append([]byte{}, p.data...) // buf is read into again
			for parts[rcvdThru+1] != nil {
				rcvdThru++
			}
			// New data: the peer is alive, the schedule starts again.
			tries, timeout = 1, schedule(a.idle)
			progress = time.Now()
			deadline = progress.Add(timeout)
		}
		done := total != 0 && rcvdThru == total
		if p.flags&flagAck != 0 || done {
			if err := a.ack(rcvdThru); err != nil {
				return nil, err
			}
		}
		if done {
			var b []byte
			for i := uint16(1); i <= total; i++ {
				b = append(b, parts[i]...)
			}
			return b, nil
		}
	}
}

// ack tells the server every packet through rcvdThru arrived (an
// unsequenced control packet).
func (a *ardpConn) ack(rcvdThru uint16) error {
	p := packet{cid: a.cid, seq: 0, rcvdThru: rcvdThru, hasRcvd: true}
	a.logPacket(">", p)
	return a.send(p)
}

func (a *ardpConn) send(ps ...packet) error {
	for _, p := range ps {
		if _, err := a.conn.Write(p.encode()); err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				// An ICMP refusal of an earlier packet, reported on this
				// write: the packet is lost, as on a silent network.
				continue
			}
			return schemes.Errorf(schemes.ErrConnect, "prospero %s: send: %v", a.addr, err)
		}
	}
	return nil
}

func (a *ardpConn) timeoutError(tries int, waited time.Duration, rcvdThru, total uint16, unreachable bool) error {
	waited = waited.Round(10 * time.Millisecond)
	switch {
	case rcvdThru > 0 || total > 0:
		return schemes.Errorf(schemes.ErrTimeout, "prospero %s: reply stopped after packet %d of %d (%d tries in %s)", a.addr, rcvdThru, total, tries, waited)
	case unreachable:
		return schemes.Errorf(schemes.ErrTimeout, "prospero %s: no answer after %d tries in %s (the host reports the port unreachable)", a.addr, tries, waited)
	}
	return schemes.Errorf(schemes.ErrTimeout, "prospero %s: no answer after %d tries in %s", a.addr, tries, waited)
}

func (a *ardpConn) ctxError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return schemes.Errorf(schemes.ErrTimeout, "prospero %s: timed out", a.addr)
	}
	return schemes.Errorf(schemes.ErrInterrupted, "prospero %s: cancelled", a.addr)
}

// logPacket writes a packet to Request.Transcript: its header in words, then
// its text line by line.
func (a *ardpConn) logPacket(dir string, p packet) {
	if a.tr == nil {
		return
	}
	fmt.Fprintf(a.tr, "%s [ARDP %s]\n", dir, p.describe())
	if len(p.data) == 0 {
		return
	}
	text := strings.TrimSuffix(string(p.data), "\n")
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(a.tr, "%s %s\n", dir, printable(l))
	}
}

func (a *ardpConn) note(s string) {
	if a.tr != nil {
		fmt.Fprintf(a.tr, "* prospero: %s\n", s)
	}
}

// printable keeps a transcript line on one line and free of control bytes.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
