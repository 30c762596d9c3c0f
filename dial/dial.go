// Package dial opens every connection gofer makes: TCP with the caller's
// context, a connect timeout, per-operation idle deadlines, proxies (SOCKS5,
// RFC 1928 and RFC 1929, through golang.org/x/net/proxy; HTTP CONNECT, RFC
// 9110 §9.3.6) and byte counting for progress. It makes no policy
// decisions: the security guard has checked the target before any dial.
package dial

import (
	"context"
	"net"
	"os"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// DefaultConnectTimeout bounds establishing a connection when
// Dialer.ConnectTimeout is 0.
const DefaultConnectTimeout = 30 * time.Second

// Dialer opens connections. Its zero value dials directly with the default
// connect timeout.
type Dialer struct {
	// ConnectTimeout bounds establishing a connection, proxy handshake
	// included (0: DefaultConnectTimeout).
	ConnectTimeout time.Duration

	// Proxy is a proxy every connection goes through:
	// "socks5://[user:password@]host[:1080]" (also socks5h) or
	// "http://[user:password@]host[:8080]" (a CONNECT tunnel). "" means
	// none, unless Environment is set.
	Proxy string
	// NoProxy lists hosts reached directly, in NO_PROXY's form: comma or
	// space separated names (a name also covers its subdomains; a leading
	// '.' is the same), IP addresses, CIDR blocks, each with an optional
	// ":port"; "*" means every host.
	NoProxy string
	// Environment takes the proxy, when Proxy is "", from the environment as
	// curl does: <scheme>_proxy (lower case, else upper case), then
	// ALL_PROXY; and NoProxy, when "", from NO_PROXY. Loopback hosts are not
	// exempt unless NO_PROXY names them.
	Environment bool
	// Scheme is the URL scheme the connections serve; it picks
	// <scheme>_proxy. For returns a copy with it set.
	Scheme string
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string

	// Counter, when set, counts every byte read and written on the
	// connections this Dialer opens.
	Counter *Counter
}

// Key returns a comparable value, equal for two Dialers exactly when they
// make the same connections: the same settings, the same Counter, and,
// when there is one, the same Getenv, which only the Dialer's identity
// tells apart. A pool of connections keeps them apart by it.
func (d *Dialer) Key() any {
	if d.Getenv != nil {
		return d
	}
	return dialerKey{d.ConnectTimeout, d.Proxy, d.NoProxy, d.Environment, d.Scheme, d.Counter}
}

// dialerKey is a Dialer's settings, as Key compares them.
type dialerKey struct {
	connectTimeout time.Duration
	proxy, noProxy string
	environment    bool
	scheme         string
	counter        *Counter
}

// For returns a copy of d for connections that serve a URL of scheme.
func (d *Dialer) For(scheme string) *Dialer {
	c := *d
	c.Scheme = scheme
	return &c
}

// DialContext connects to addr on the named network, honouring ctx, through
// the proxy that applies to addr, if any. A "udp" dial goes direct when no
// proxy applies and is refused (schemes.ErrUsage) when one does, since a
// proxy carries streams only.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	t := d.ConnectTimeout
	if t == 0 {
		t = DefaultConnectTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, t)
	defer cancel()
	p, err := d.proxyFor(addr)
	if err != nil {
		return nil, err
	}
	if p != nil && strings.HasPrefix(network, "udp") {
		// SOCKS5 UDP ASSOCIATE is not offered by golang.org/x/net/proxy and
		// a CONNECT tunnel is a byte stream: neither can carry datagrams.
		// Going around a proxy the user chose would be worse than failing.
		return nil, schemes.Errorf(schemes.ErrUsage, "%s proxy %s cannot carry UDP to %s; set NO_PROXY to reach it directly", p.kind, p.addr, addr)
	}
	var conn net.Conn
	if p == nil {
		nd := net.Dialer{}
		conn, err = nd.DialContext(ctx, network, addr)
	} else {
		conn, err = p.dial(ctx, network, addr)
	}
	if err != nil {
		return nil, err
	}
	if d.Counter != nil {
		conn = d.Counter.Conn(conn)
	}
	return conn, nil
}

func (d *Dialer) getenv(key string) string {
	if d.Getenv != nil {
		return d.Getenv(key)
	}
	return os.Getenv(key)
}
