package mirror

import (
	"net"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// Connection limits. A server that refuses another connection for its
// per-address or total limit (FTP "421 Too many connections", "530 Sorry,
// max 2 clients per host") teaches the fetcher its limit, and the fetcher
// then keeps to it: workers beyond it wait for a connection instead of
// failing. The limit learned is kept in the state, per server, and given
// to the fetcher before the next run's first request, so that run starts
// within it; Options.MaxPerHost stays the ceiling.

// serverKey is the state's key of what it keeps of kind for u's server:
// "KIND:SCHEME://HOST:PORT", an IPv6 host in brackets.
func serverKey(kind string, u *schemes.URL) string {
	return kind + ":" + strings.ToLower(u.Scheme) + "://" + net.JoinHostPort(strings.ToLower(u.Host), strconv.Itoa(u.EffectivePort()))
}

// connLimitKey is the state's key of a server's connection limit.
func connLimitKey(u *schemes.URL) string { return serverKey("connlimit", u) }

// loadConnLimit gives the fetcher of u's scheme the limit an earlier run
// learned for u's server.
func (e *engine) loadConnLimit(u *schemes.URL) {
	if n, ok := getJSON[int](e.st, bucketMeta, connLimitKey(u)); ok && n > 0 {
		e.c.SetConnLimit(u.Scheme, u.Host, u.EffectivePort(), n)
		e.logf("server allows %d connections at once (learned before)", n)
	}
}

// saveConnLimit records the limit the fetcher knows for u's server, and
// puts it in the summary.
func (e *engine) saveConnLimit(u *schemes.URL) {
	n := e.c.ConnLimit(u.Scheme, u.Host, u.EffectivePort())
	if n <= 0 {
		return
	}
	e.mu.Lock()
	e.sum.HostConnections = n
	e.mu.Unlock()
	if e.st != nil && !e.opts.DryRun {
		e.st.write(bucketMeta, connLimitKey(u), n)
	}
}
