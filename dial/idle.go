package dial

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// IdleConn wraps conn so that every Read and Write must make progress within
// idle: the deadline moves forward before each call. A stalled server then
// fails the operation with a timeout instead of hanging forever.
func IdleConn(conn net.Conn, idle time.Duration) net.Conn {
	if idle <= 0 {
		return conn
	}
	return &idleConn{Conn: conn, idle: idle}
}

type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleConn) Read(p []byte) (int, error) {
	c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(p)
}

func (c *idleConn) Write(p []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(p)
}

// Classify maps a network error onto gofer's error kinds: a deadline or
// context deadline is schemes.ErrTimeout, a failed dial or name lookup is
// schemes.ErrConnect, a connection reset or EOF in the middle of a transfer
// is schemes.ErrInterrupted. what names the operation for the message
// ("connect to 127.0.0.21:21", "read reply"). Errors that already carry a
// kind, and nil, are returned unchanged.
func Classify(err error, what string) error {
	if err == nil {
		return nil
	}
	var ke *schemes.KindError
	if errors.As(err, &ke) {
		return err
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return schemes.Errorf(schemes.ErrInterrupted, "%s: cancelled", what)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return schemes.Errorf(schemes.ErrTimeout, "%s: timed out", what)
	}
	var dnsErr *net.DNSError
	var opErr *net.OpError
	if errors.As(err, &dnsErr) || (errors.As(err, &opErr) && opErr.Op == "dial") ||
		errors.Is(err, syscall.ECONNREFUSED) {
		return schemes.Errorf(schemes.ErrConnect, "%s: %w", what, err)
	}
	return schemes.Errorf(schemes.ErrInterrupted, "%s: %w", what, err)
}

// direct is the Dialer of a request that names none: one value, so that a
// transport kept per dialer (HTTP) is shared between such requests.
var direct = &Dialer{}

// Default is the one rule for a request without a Dialer: d itself, or when
// d is nil a direct connection with the default connect timeout.
func Default(d schemes.Dialer) schemes.Dialer {
	if d == nil {
		return direct
	}
	return d
}
