package lineproto

import (
	"context"
	"crypto/tls"
	"net"
)

// Handshake starts TLS as a client over nc with cfg, under ctx: from the
// first byte (ftps, nntps) or after the protocol's own command (AUTH TLS,
// STARTTLS). A handshake that fails means no usable connection was made,
// and is classified as a failed dial is: schemes.ErrConnect (a certificate
// not accepted, a server that does not speak TLS, a connection closed
// during it), schemes.ErrTimeout for a deadline or an idle server,
// schemes.ErrInterrupted for a cancelled ctx. what names the handshake for
// the message.
func Handshake(ctx context.Context, nc net.Conn, cfg *tls.Config, what string) (*tls.Conn, error) {
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, connectError(ctx, err, what)
	}
	return tc, nil
}
