// Package dial opens every connection gofer makes: TCP and TLS with the
// caller's context, a connect timeout, per-operation idle deadlines, proxies,
// and byte counting for progress.
package dial

import (
	"context"
	"net"
	"time"
)

// Dialer opens connections. Its zero value is usable.
type Dialer struct {
	// ConnectTimeout bounds establishing a connection (0: 30 s).
	ConnectTimeout time.Duration
}

// DialContext connects to addr on the named network, honouring ctx.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	t := d.ConnectTimeout
	if t == 0 {
		t = 30 * time.Second
	}
	nd := net.Dialer{Timeout: t}
	return nd.DialContext(ctx, network, addr)
}
