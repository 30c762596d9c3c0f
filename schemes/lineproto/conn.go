package lineproto

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Conn is a connection to a server of a line protocol. Every Read and Write
// must make progress within the idle timeout it was made with; the context
// it watches (see Watch) closes it when it ends. It is safe to Close from
// any goroutine, and Close is idempotent.
type Conn struct {
	net.Conn // the connection with idle deadlines applied

	raw net.Conn // the connection as dialled, closed to end it at once

	mu     sync.Mutex
	cause  error       // the context's error, once its end closed the connection
	stop   func() bool // releases the watch on the current context
	closed bool
}

// Dial connects to addr on network for req: through req.Dialer, or directly
// when it is nil (dial.Default), with req.Idle() as the per-operation
// deadline, and watching ctx until Close. A failed dial is a
// schemes.ErrConnect error (see connectError).
func Dial(ctx context.Context, req *schemes.Request, network, addr string) (*Conn, error) {
	req = req.Ready()
	raw, err := dial.Default(req.Dialer).DialContext(ctx, network, addr)
	if err != nil {
		return nil, connectError(ctx, err, "connect to "+addr)
	}
	c := NewConn(raw, req.Idle())
	c.Watch(ctx)
	return c, nil
}

// connectError classifies the failure of what made no connection (a dial,
// a TLS handshake): schemes.ErrConnect, except that a deadline or an idle
// server is schemes.ErrTimeout and a cancelled ctx schemes.ErrInterrupted.
// An error that already has a kind (a proxy's refusal) keeps it.
func connectError(ctx context.Context, err error, what string) error {
	var ke *schemes.KindError
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return dial.Classify(ctx.Err(), what)
	case errors.As(err, &ke):
		return err
	case errors.As(err, &ne) && ne.Timeout():
		return dial.Classify(err, what)
	}
	return schemes.Errorf(schemes.ErrConnect, "%s: %w", what, err)
}

// NewConn wraps an open connection with idle deadlines of idle (none when
// idle is 0). It watches no context until Watch is called.
func NewConn(raw net.Conn, idle time.Duration) *Conn {
	return &Conn{Conn: dial.IdleConn(raw, idle), raw: raw}
}

// Watch closes c when ctx ends, until the returned function (or Close) is
// called. A connection kept for reuse watches the context of each fetch it
// serves in turn: Watch replaces the watch of the previous one.
func (c *Conn) Watch(ctx context.Context) (stop func() bool) {
	stop = context.AfterFunc(ctx, func() { c.abort(ctx.Err()) })
	c.mu.Lock()
	prev := c.stop
	c.stop = stop
	c.mu.Unlock()
	if prev != nil {
		prev()
	}
	return stop
}

// abort records why the connection ends and closes it, which wakes any
// read or write blocked on it.
func (c *Conn) abort(cause error) {
	c.mu.Lock()
	if c.cause == nil {
		c.cause = cause
	}
	c.mu.Unlock()
	c.raw.Close()
}

// Cancelled reports whether the end of a watched context closed c.
func (c *Conn) Cancelled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cause != nil
}

// Raw is the connection as dialled, without idle deadlines: for a transfer
// that moves bytes from the socket by itself (splice) and sets its own.
func (c *Conn) Raw() net.Conn { return c.raw }

// Close releases the watch on the context and closes the connection.
func (c *Conn) Close() error {
	c.mu.Lock()
	stop, closed := c.stop, c.closed
	c.stop, c.closed = nil, true
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	if closed {
		return nil
	}
	return c.raw.Close()
}

// Classify gives err, met while doing what ("read reply", "send request to
// 127.0.0.70:70"), one of the schemes error kinds. When the end of the
// watched context closed the connection, that is the cause whatever the
// failed read or write said: ErrInterrupted for a cancel, ErrTimeout for a
// deadline. Otherwise dial.Classify decides: an idle deadline is
// ErrTimeout, a reset or an end of the connection ErrInterrupted. An error
// that already has a kind, the guard's refusal of a line
// (security.ErrInjection), and nil are returned unchanged.
func (c *Conn) Classify(err error, what string) error {
	if err == nil || errors.Is(err, security.ErrInjection) {
		return err
	}
	c.mu.Lock()
	cause := c.cause
	c.mu.Unlock()
	if cause != nil {
		return dial.Classify(cause, what)
	}
	return dial.Classify(err, what)
}

// Send writes text, one or more request lines each ending in CR LF, on c in
// one write after every line passed the guard's line check (WriteText),
// and classifies a failed write as doing what.
func (c *Conn) Send(part, text, what string) error {
	return c.Classify(WriteText(c.Conn, part, text), what)
}
