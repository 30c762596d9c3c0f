package dial

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/proxy"

	"github.com/goferurl/gofer/schemes"
)

// proxyDialer is one proxy, parsed.
type proxyDialer struct {
	kind     string // "socks5" or "http"
	scheme   string // as the proxy URL names it: "socks5", "socks5h" or "http"
	addr     string // host:port of the proxy
	user     string
	password string
	hasAuth  bool
}

// proxyFor returns the proxy that applies to addr, or nil for a direct
// connection.
func (d *Dialer) proxyFor(addr string) (*proxyDialer, error) {
	raw, noProxy := d.Proxy, d.NoProxy
	if d.Environment {
		if raw == "" {
			raw = d.envProxy()
		}
		if noProxy == "" {
			noProxy = d.getenv("no_proxy")
			if noProxy == "" {
				noProxy = d.getenv("NO_PROXY")
			}
		}
	}
	if raw == "" || bypass(noProxy, addr) {
		return nil, nil
	}
	return parseProxy(raw)
}

// ProxyFor names the proxy a connection to addr goes through, its
// scheme as the proxy URL gives it and no user or password
// ("socks5h://host:1080", "http://host:3128"), or "" when
// the connection is direct: for a protocol that cannot do what it would
// do directly through it (FTP's active mode has the server connect back).
func (d *Dialer) ProxyFor(addr string) (string, error) {
	p, err := d.proxyFor(addr)
	if err != nil || p == nil {
		return "", err
	}
	return p.scheme + "://" + p.addr, nil
}

// envProxy is curl's order: <scheme>_proxy, then ALL_PROXY, each in lower
// case first.
func (d *Dialer) envProxy() string {
	var keys []string
	if d.Scheme != "" {
		keys = append(keys, d.Scheme+"_proxy", strings.ToUpper(d.Scheme)+"_PROXY")
	}
	keys = append(keys, "all_proxy", "ALL_PROXY")
	for _, k := range keys {
		if v := d.getenv(k); v != "" {
			return v
		}
	}
	return ""
}

func parseProxy(raw string) (*proxyDialer, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw // curl's default for a bare host:port
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, schemes.Errorf(schemes.ErrUsage, "proxy %q is not a proxy URL", redactProxy(raw))
	}
	p := &proxyDialer{scheme: strings.ToLower(u.Scheme)}
	port := u.Port()
	switch strings.ToLower(u.Scheme) {
	case "socks5", "socks5h":
		p.kind = "socks5"
		if port == "" {
			port = "1080"
		}
	case "http":
		p.kind = "http"
		if port == "" {
			port = "8080"
		}
	default:
		return nil, schemes.Errorf(schemes.ErrUsage, "proxy %q: unsupported proxy scheme %q (socks5, socks5h or http)", redactProxy(raw), u.Scheme)
	}
	p.addr = net.JoinHostPort(u.Hostname(), port)
	if u.User != nil {
		p.hasAuth = true
		p.user = u.User.Username()
		p.password, _ = u.User.Password()
	}
	return p, nil
}

// redactProxy masks a proxy URL's password for messages.
func redactProxy(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "****")
	}
	return u.String()
}

func (p *proxyDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := p.tunnel(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return withTarget(conn, addr), nil
}

// tunnel opens a connection to addr through the proxy.
func (p *proxyDialer) tunnel(ctx context.Context, network, addr string) (net.Conn, error) {
	var nd net.Dialer
	if p.kind == "socks5" {
		var auth *proxy.Auth
		if p.hasAuth {
			auth = &proxy.Auth{User: p.user, Password: p.password}
		}
		sd, err := proxy.SOCKS5("tcp", p.addr, auth, &nd)
		if err != nil {
			return nil, schemes.Errorf(schemes.ErrConnect, "socks5 proxy %s: %w", p.addr, err)
		}
		conn, err := sd.(proxy.ContextDialer).DialContext(ctx, network, addr)
		if err != nil && strings.Contains(err.Error(), "authentication") {
			return nil, schemes.Errorf(schemes.ErrAuth, "socks5 proxy %s: %w", p.addr, err)
		}
		if err != nil {
			return nil, proxyError("socks5", p.addr, addr, err)
		}
		return conn, nil
	}
	conn, err := nd.DialContext(ctx, "tcp", p.addr)
	if err != nil {
		return nil, proxyError("http", p.addr, addr, err)
	}
	tunnel, err := p.connect(ctx, conn, addr)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return tunnel, nil
}

// proxyError keeps a timeout a timeout and makes everything else a failure
// to connect, naming the proxy and the target.
func proxyError(kind, proxyAddr, addr string, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return schemes.Errorf(schemes.ErrTimeout, "%s proxy %s: connect to %s: timed out", kind, proxyAddr, addr)
	}
	return schemes.Errorf(schemes.ErrConnect, "%s proxy %s: connect to %s: %w", kind, proxyAddr, addr, err)
}

// connect asks an HTTP proxy for a tunnel to addr (RFC 9110 §9.3.6).
func (p *proxyDialer) connect(ctx context.Context, conn net.Conn, addr string) (net.Conn, error) {
	if strings.ContainsAny(addr, "\r\n") {
		return nil, schemes.Errorf(schemes.ErrUsage, "proxy target %q holds a line break", addr)
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
		defer conn.SetDeadline(time.Time{})
	}
	// The handshake is abandoned when ctx ends before its deadline.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	req := "CONNECT " + addr + " HTTP/1.1\r\nHost: " + addr + "\r\n"
	if p.hasAuth {
		cred := base64.StdEncoding.EncodeToString([]byte(p.user + ":" + p.password))
		req += "Proxy-Authorization: Basic " + cred + "\r\n"
	}
	req += "\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		return nil, proxyError("http", p.addr, addr, err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return nil, proxyError("http", p.addr, addr, err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusProxyAuthRequired, resp.StatusCode == http.StatusUnauthorized:
		// Some proxies (tinyproxy) answer a bad Proxy-Authorization with 401.
		return nil, schemes.Errorf(schemes.ErrAuth, "http proxy %s: %s", p.addr, resp.Status)
	case resp.StatusCode/100 != 2:
		return nil, schemes.Errorf(schemes.ErrConnect, "http proxy %s: connect to %s: %s", p.addr, addr, resp.Status)
	}
	if br.Buffered() > 0 {
		// The server spoke first (an FTP or NNTP greeting) and it arrived
		// with the proxy's reply: keep it.
		return &proxiedConn{Conn: conn, r: br, remote: conn.RemoteAddr()}, nil
	}
	return conn, nil
}

// proxiedConn is a tunnelled connection. It reports the target as its
// remote address, since that is the peer the protocol talks to (FTP accepts
// passive addresses of its control connection's peer only), and reads first
// whatever the proxy handshake's reader holds.
type proxiedConn struct {
	net.Conn
	r      *bufio.Reader
	remote net.Addr
}

func (c *proxiedConn) Read(p []byte) (int, error) {
	if c.r != nil {
		return c.r.Read(p)
	}
	return c.Conn.Read(p)
}

func (c *proxiedConn) RemoteAddr() net.Addr { return c.remote }

func (c *proxiedConn) CloseWrite() error { return closeWrite(c.Conn) }

// withTarget makes conn report addr as its remote address: a *net.TCPAddr
// when addr's host is an IP address, else a name the proxy resolved.
func withTarget(conn net.Conn, addr string) net.Conn {
	var remote net.Addr = targetAddr(addr)
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip != nil {
			n, _ := strconv.Atoi(port)
			remote = &net.TCPAddr{IP: ip, Port: n}
		}
	}
	if pc, ok := conn.(*proxiedConn); ok {
		pc.remote = remote
		return pc
	}
	return &proxiedConn{Conn: conn, remote: remote}
}

// targetAddr is a host name and port that only the proxy resolved.
type targetAddr string

func (a targetAddr) Network() string { return "tcp" }
func (a targetAddr) String() string  { return string(a) }

// closeWrite half-closes conn when it can.
func closeWrite(conn net.Conn) error {
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return fmt.Errorf("%T cannot half-close", conn)
}

// bypass reports whether noProxy names addr's host (NO_PROXY conventions).
func bypass(noProxy, addr string) bool {
	if noProxy == "" {
		return false
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	port, _ := strconv.Atoi(portStr)
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	ip := net.ParseIP(host)
	for _, entry := range strings.FieldsFunc(noProxy, func(r rune) bool { return r == ',' || r == ' ' }) {
		entry = strings.ToLower(strings.TrimSpace(entry))
		if entry == "*" {
			return true
		}
		name := entry
		if h, p, err := net.SplitHostPort(entry); err == nil {
			if n, _ := strconv.Atoi(p); n != port {
				continue
			}
			name = h
		}
		if _, cidr, err := net.ParseCIDR(name); err == nil {
			if ip != nil && cidr.Contains(ip) {
				return true
			}
			continue
		}
		if eip := net.ParseIP(strings.Trim(name, "[]")); eip != nil {
			if ip != nil && eip.Equal(ip) {
				return true
			}
			continue
		}
		name = strings.TrimPrefix(strings.TrimSuffix(name, "."), ".")
		if host == name || strings.HasSuffix(host, "."+name) {
			return true
		}
	}
	return false
}
