package lineproto

import (
	"context"
	"crypto/tls"
	"errors"
	"net"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// Handshake starts TLS as a client over nc with cfg, under ctx: from the
// first byte (ftps, nntps) or after the protocol's own command (AUTH TLS,
// STARTTLS). A handshake that fails means no usable connection was made:
// schemes.ErrConnect (a certificate not accepted, a server that does not
// speak TLS, a connection closed during it), except that a deadline or an
// idle server is schemes.ErrTimeout and a cancelled ctx
// schemes.ErrInterrupted. what names the handshake for the message.
func Handshake(ctx context.Context, nc net.Conn, cfg *tls.Config, what string) (*tls.Conn, error) {
	tc := tls.Client(nc, cfg)
	err := tc.HandshakeContext(ctx)
	if err == nil {
		return tc, nil
	}
	var ke *schemes.KindError
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		return nil, dial.Classify(ctx.Err(), what)
	case errors.As(err, &ke):
		return nil, err
	case errors.As(err, &ne) && ne.Timeout():
		return nil, dial.Classify(err, what)
	}
	return nil, schemes.Errorf(schemes.ErrConnect, "%s: %w", what, err)
}
