package ftp

import (
	"context"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// Data connections dialled ahead. The address a passive command sent ahead
// gives (c.next) is dialled as soon as its reply is read, while the
// transfer before it ends and the next one is chosen, not when the next
// transfer's command goes out: the TCP handshake, which the server's
// accept waits for, then overlaps the work between two transfers, and on
// a new connection the login's passive command has its data connection
// open before the first command that uses it is known. A server accepts
// the connection when the transfer's command comes (RFC 959 §3.2: the
// passive side listens, the other connects).

// aheadConn is a data connection being dialled ahead, or dialled.
type aheadConn struct {
	done   chan struct{} // closed when the dial has ended
	cancel context.CancelFunc
	at     time.Time

	mu        sync.Mutex
	data      *lineproto.Conn // nil until dialled, and when the dial failed
	discarded bool
}

// aheadMaxAge is how long a data connection dialled ahead is used at all: a
// server gives up waiting for a transfer's command on a passive port after
// a while (vsftpd's accept_timeout is a minute), and a connection kept in
// the pool for longer asks for another.
const aheadMaxAge = 20 * time.Second

// noteNext keeps the address of a passive reply read ahead and, during a
// fetch or a login (c.dialAhead set), starts dialling it.
func (c *conn) noteNext(addr string) {
	c.next = addr
	var a *aheadConn
	if addr != "" && c.dialAhead != nil {
		a = c.dialAhead(addr)
	}
	c.swapAhead(a).drop(a)
}

// swapAhead makes a the data connection dialled ahead and returns the one
// before it.
func (c *conn) swapAhead(a *aheadConn) *aheadConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.nextConn
	c.nextConn = a
	return old
}

// aheadDialer returns the function that dials a data address ahead with
// ctx's values and req's dialer: the dial outlives ctx (the fetch that
// read the passive reply may end before the next one uses it), and only
// drop ends it.
func (c *conn) aheadDialer(ctx context.Context, req *schemes.Request) func(addr string) *aheadConn {
	return func(addr string) *aheadConn {
		dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		a := &aheadConn{done: make(chan struct{}), cancel: cancel, at: time.Now()}
		go func() {
			defer close(a.done)
			data, err := c.dialData(dctx, req, "tcp", addr)
			if err != nil {
				return
			}
			a.mu.Lock()
			defer a.mu.Unlock()
			if a.discarded {
				data.Close()
				return
			}
			a.data = data
		}()
		return a
	}
}

// dropAhead closes the data connection dialled ahead, which will not be
// used.
func (c *conn) dropAhead() { c.swapAhead(nil).drop(nil) }

// drop ends a's dial or closes its connection, unless a is keep.
func (a *aheadConn) drop(keep *aheadConn) {
	if a == nil || a == keep {
		return
	}
	a.mu.Lock()
	a.discarded = true
	d := a.data
	a.data = nil
	a.mu.Unlock()
	a.cancel()
	if d != nil {
		d.Close()
	}
}

// takeAhead returns the data connection dialled ahead to c.next, made the
// fetch's (watching ctx), once its dial has ended; nil when its dial
// failed, it is older than aheadMaxAge or the server has already closed
// it: the caller then asks for another (dialling the same address again
// could meet the old connection, which the server may still accept
// first). tried is false when nothing was dialled ahead.
func (c *conn) takeAhead(ctx context.Context) (d *lineproto.Conn, tried bool) {
	a := c.swapAhead(nil)
	if a == nil {
		return nil, false
	}
	select {
	case <-a.done:
	case <-ctx.Done():
		a.drop(nil)
		return nil, true
	}
	a.mu.Lock()
	d = a.data
	a.data = nil
	a.mu.Unlock()
	if d == nil {
		a.cancel()
		return nil, true
	}
	d.Watch(ctx) // before the dial's own context ends, which would close d
	a.cancel()
	if time.Since(a.at) > aheadMaxAge || !quiet(d.Raw()) {
		d.Close()
		return nil, true
	}
	return d, true
}
