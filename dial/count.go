package dial

import (
	"net"
	"sync/atomic"
)

// Counter counts the bytes that pass through connections, for progress
// reports. It is safe for concurrent use.
type Counter struct {
	read, written atomic.Int64
}

// Read returns the bytes read so far.
func (c *Counter) Read() int64 { return c.read.Load() }

// Written returns the bytes written so far.
func (c *Counter) Written() int64 { return c.written.Load() }

// Conn wraps conn so that its traffic is counted in c.
func (c *Counter) Conn(conn net.Conn) net.Conn {
	return &countingConn{Conn: conn, c: c}
}

type countingConn struct {
	net.Conn
	c *Counter
}

func (cc *countingConn) Read(p []byte) (int, error) {
	n, err := cc.Conn.Read(p)
	cc.c.read.Add(int64(n))
	return n, err
}

func (cc *countingConn) Write(p []byte) (int, error) {
	n, err := cc.Conn.Write(p)
	cc.c.written.Add(int64(n))
	return n, err
}

// CloseWrite half-closes the connection when the wrapped one can (a telnet
// session ending its input), so counting never changes behaviour.
func (cc *countingConn) CloseWrite() error { return closeWrite(cc.Conn) }
