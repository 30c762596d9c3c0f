package itest

// The proxies integration/up starts (service "proxy"), each on its own
// loopback address. Every one logs a line naming the target of each
// connection it makes for a client, in ProxyLog*, so a test can tell that
// a fetch went through it: microsocks writes
// "client[N] 127.0.0.1: connected to HOST:PORT", tinyproxy
// "Request (file descriptor N): CONNECT HOST:PORT HTTP/1.1", dante
// "tcp/connect [: CLIENT.PORT PROXY.PORT -> OUT.PORT TARGET.PORT".
const (
	SOCKSProxy     = "127.0.0.108:1080" // microsocks, SOCKS5 without authentication
	SOCKSAuthProxy = "127.0.0.109:1080" // microsocks, SOCKS5 with ProxyUser and ProxyPassword (RFC 1929)
	ConnectProxy   = "127.0.0.88:8888"  // tinyproxy, HTTP CONNECT to the harness servers' ports only
	DanteProxy     = "127.0.0.110:1080" // dante (danted), SOCKS5 without authentication, connecting out from 127.0.0.110

	// ProxyUser and ProxyPassword are what SOCKSAuthProxy accepts.
	ProxyUser     = "proxyuser"
	ProxyPassword = "proxy-secret"

	// Log files of the proxies, in LogDir (read them with LogSince).
	ProxyLogSOCKS     = "socks.out"
	ProxyLogSOCKSAuth = "socks-auth.out"
	ProxyLogConnect   = "tinyproxy.log"
	ProxyLogDante     = "danted.log"
)
