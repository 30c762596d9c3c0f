package ftp

import (
	"net"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// endWatch reads the reply that ends a transfer while its data still
// flows. RFC 959 has the server answer once the transfer is over, but a
// server may refuse it mid-way and leave the data connection open (Twisted
// answers 550 so): read only after the data ends, that reply would never
// be seen, and the transfer would wait out its idle timeout. A reply that
// is not a completion closes the data connection, unless the data reaches
// its end within endGrace (a server that aborts a transfer closes the data
// connection itself, and what it sent before is still to be read), and the
// reader of the data learns from refused why it ended.
type endWatch struct {
	done chan struct{}
	code int
	msg  string
	err  error
	// ended is closed once the reader of the data is done with it.
	ended chan struct{}
	// tls: the data connection is a TLS one.
	tls  bool
	once sync.Once
}

// endGrace is how long the data of a transfer the server refused may
// still take to reach its end before the data connection is closed.
const endGrace = 2 * time.Second

// watchEnd starts reading the reply to the transfer on data from x.
func watchEnd(x *exchange, data net.Conn) *endWatch {
	w := &endWatch{done: make(chan struct{}), ended: make(chan struct{}), tls: x.c.tlsData != nil}
	behind := x.c.behindPending()
	go func() {
		code, msg, err := x.readEnd(behind)
		w.code, w.msg, w.err = code, msg, err
		close(w.done)
		if err == nil && code/100 != 2 {
			t := time.NewTimer(endGrace)
			defer t.Stop()
			select {
			case <-w.ended:
			case <-t.C:
				data.Close()
			}
		}
	}()
	return w
}

// dataDone says the reader is done with the data connection.
func (w *endWatch) dataDone() { w.once.Do(func() { close(w.ended) }) }

// wait returns the reply once it has come. The data connection must be
// closed or at its end.
func (w *endWatch) wait() (int, string, error) {
	w.dataDone()
	<-w.done
	return w.code, w.msg, w.err
}

// refused returns, when the reply has come and is not a completion, the
// error it says: the transfer aborted (426, 451 and other 4yz:
// ErrInterrupted) or refused (5yz: ErrRefused, with the server's text);
// nil otherwise.
func (w *endWatch) refused() error {
	w.dataDone()
	// A server that refuses a transfer closes its data connection and
	// then says why (vsftpd's "522 SSL connection failed: session reuse
	// required" comes after it ends the TLS handshake): its word, if it
	// comes soon, says more than the broken read.
	t := time.NewTimer(refusalWait)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		return nil
	}
	if w.err != nil || w.code/100 == 2 {
		return nil
	}
	return endError(w.code, w.msg, w.tls)
}

// readEnd reads the reply that ends a transfer whose preliminary reply
// has been read: a second preliminary reply is passed over, and so are
// refusals of commands sent behind the transfer's command (behind of them
// at most) that the server answered while the transfer ran (inTransfer),
// which are counted in the connection's behindRefused for readAhead.
func (x *exchange) readEnd(behind int) (int, string, error) {
	refused := 0
	defer func() { x.c.behindRefused = refused }()
	for {
		code, msg, err := readReply(x.tp)
		switch {
		case err != nil:
			return code, msg, err
		case code/100 == 1:
			// A second preliminary reply: the end is still to come.
		case refused < behind && inTransfer(code):
			refused++
		default:
			x.c.endCode, x.c.endMsg = code, msg
			return code, msg, nil
		}
	}
}

// inTransfer reports whether a reply read between a transfer's preliminary
// reply and its end is a refusal of a command sent behind the transfer's
// command rather than the transfer's own end: ProFTPD answers a command
// that arrives while a transfer runs (in a packet of its own, after the
// server has read the transfer's) with "450 EPSV: data transfer in
// progress" at once and does not run it. RFC 959 §5.4 gives RETR, LIST,
// NLST (and MLSD, RFC 3659 §7) no 450 after a preliminary reply: their
// 450 comes instead of one, so it cannot be the transfer's end.
func inTransfer(code int) bool { return code == 450 }

// refusalWait is how long a broken data connection waits for the
// server's reply that says why.
const refusalWait = time.Second

// endError is the error of a reply that ended a transfer without
// completing it. A refusal of a TLS data connection that did not resume
// the control connection's session (RFC 4217 §10.2 lets a server demand
// it: vsftpd's require_ssl_reuse, ProFTPD's default) says so: gofer's
// TLS resumes a session from a ticket (TLS 1.2, RFC 5077) or a
// pre-shared key (TLS 1.3), never from a TLS 1.2 session ID alone.
func endError(code int, msg string, tls bool) error {
	kind := schemes.ErrRefused
	if code/100 == 4 {
		kind = schemes.ErrInterrupted
	}
	if reuseRefusal(code, msg, tls) {
		// Not transient: another try meets the same refusal.
		return schemes.ReplyErrorf(schemes.ErrRefused, &schemes.ReplyError{Code: code}, "ftp: the server refused the TLS data connection because it did not resume the control connection's TLS session (%d %s); gofer resumes TLS 1.3 sessions and TLS 1.2 sessions with tickets, and this server offers neither", code, lineproto.ServerText(msg))
	}
	return replyError(kind, code, "%d %s", code, lineproto.ServerText(msg))
}

// reuseRefusal reports whether a reply refuses a data connection for
// not resuming the TLS session: vsftpd answers 522; ProFTPD 425 "Unable
// to build data connection: Operation not permitted" (its TLS log names
// the reuse) on a TLS data connection; other servers 425 or 450 naming
// it.
func reuseRefusal(code int, msg string, tls bool) bool {
	if code != 522 && code != 425 && code != 450 {
		return false
	}
	m := strings.ToLower(msg)
	return code == 522 || strings.Contains(m, "reuse") || strings.Contains(m, "resum") ||
		(tls && code == 425 && strings.Contains(m, "operation not permitted"))
}
