package ftp

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// Active mode (RFC 959 §3.2 and §4.1.2 PORT, RFC 2428 §2 EPRT). With
// Fetcher.ActivePort set, every data connection is one the server opens
// to gofer: gofer listens, names its address with EPRT (PORT where the
// server refuses EPRT, which RFC 2428 servers answer 500, 502 or 522),
// and the server connects once the transfer's command comes. No EPSV or
// PASV is sent. The listener serves one transfer and is closed once its
// connection has come or the transfer ends; it accepts only a connection
// from the control connection's peer: any other is closed at once (RFC
// 2577 §4, a data connection stolen by a third party), and the transfer
// waits for the server's, or ends at its idle timeout. Nothing else
// changes: listings, RETR, REST, the commands pipelined with them, and
// TLS data connections (PROT P), where gofer is the TLS client whichever
// side connected (RFC 4217 §8).

// activeSpec is a parsed Fetcher.ActivePort.
type activeSpec struct {
	// host is the address to listen on and name: "" for the control
	// connection's own local address, an IP literal, or iface.
	host  string
	iface string
	// low and high bound the ports tried; 0 and 0 for any.
	low, high int
}

// parseActive reads curl's -P spelling: ADDR[:LOW[-HIGH]], where ADDR is
// an IP address (an IPv6 one in brackets when a port range follows), the
// name of a network interface, or "-" for the address the control
// connection goes out from.
func parseActive(spec string) (*activeSpec, error) {
	bad := func(why string) error {
		return schemes.Errorf(schemes.ErrUsage, "ftp: active mode address %q: %s", spec, why)
	}
	host, ports := spec, ""
	switch {
	case strings.HasPrefix(spec, "["):
		end := strings.Index(spec, "]")
		if end < 0 {
			return nil, bad("no ] after the IPv6 address")
		}
		host, ports = spec[1:end], spec[end+1:]
		if ports != "" && !strings.HasPrefix(ports, ":") {
			return nil, bad("a port range goes after a colon")
		}
		ports = strings.TrimPrefix(ports, ":")
		if net.ParseIP(host) == nil || !strings.Contains(host, ":") {
			return nil, bad("not an IPv6 address in brackets")
		}
	case strings.Count(spec, ":") == 1:
		host, ports, _ = strings.Cut(spec, ":")
	}
	a := &activeSpec{}
	switch {
	case host == "-" || host == "":
	case net.ParseIP(host) != nil:
		a.host = host
	default:
		if strings.ContainsAny(host, "%/ ") {
			return nil, bad("not an address or an interface name")
		}
		a.iface = host
	}
	if ports != "" {
		lo, hi, isRange := strings.Cut(ports, "-")
		if !isRange {
			hi = lo
		}
		low, err1 := strconv.Atoi(lo)
		high, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || low < 1 || high > 65535 || low > high {
			return nil, bad("the port range is not LOW-HIGH within 1-65535")
		}
		a.low, a.high = low, high
	}
	return a, nil
}

// activeSpec is the Fetcher's active mode, nil for passive; an
// ActivePort it cannot read is a usage error.
func (f *Fetcher) activeSpec() (*activeSpec, error) {
	if f.ActivePort == "" {
		return nil, nil
	}
	return parseActive(f.ActivePort)
}

// listenIP is the address c listens on for a data connection.
func (c *conn) listenIP() (net.IP, error) {
	local, _ := c.ctrl.Raw().LocalAddr().(*net.TCPAddr)
	a := c.active
	switch {
	case a.host != "":
		return net.ParseIP(a.host), nil
	case a.iface != "":
		ifi, err := net.InterfaceByName(a.iface)
		if err != nil {
			return nil, schemes.Errorf(schemes.ErrUsage, "ftp: active mode interface %q: %v", a.iface, err)
		}
		addrs, err := ifi.Addrs()
		if err != nil {
			return nil, schemes.Errorf(schemes.ErrUsage, "ftp: active mode interface %q: %v", a.iface, err)
		}
		v4 := c.peer.To4() != nil
		for _, ad := range addrs {
			if ipn, ok := ad.(*net.IPNet); ok && (ipn.IP.To4() != nil) == v4 && !ipn.IP.IsLinkLocalUnicast() {
				return ipn.IP, nil
			}
		}
		return nil, schemes.Errorf(schemes.ErrUsage, "ftp: active mode interface %q has no IPv%s address to reach %s", a.iface, map[bool]string{true: "4", false: "6"}[v4], c.peer)
	case local != nil:
		return local.IP, nil
	}
	return nil, schemes.Errorf(schemes.ErrUsage, "ftp: active mode: the control connection's own address is unknown; name an address to listen on")
}

// checkActiveRoute refuses active mode on a connection that goes through
// a proxy: the server could not connect back through it (a SOCKS5 BIND,
// RFC 1928 §4, is not offered by the SOCKS library gofer uses), and a
// listener on this machine would let the server reach around the proxy.
func checkActiveRoute(req *schemes.Request, addr string) error {
	p, err := proxyFor(req, addr)
	if err != nil || p == "" {
		return err
	}
	return schemes.Errorf(schemes.ErrUsage, "ftp: active mode cannot go through the proxy %s (the server would connect back around it): use passive mode through a proxy", p)
}

// listen opens the listener of one active data connection.
func (c *conn) listen(ip net.IP) (net.Listener, error) {
	bind := func(port int) (net.Listener, error) {
		return net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(port)))
	}
	a := c.active
	if a.low == 0 {
		return bind(0)
	}
	n := a.high - a.low + 1
	start := rand.IntN(n)
	var err error
	for i := 0; i < n; i++ {
		var ln net.Listener
		if ln, err = bind(a.low + (start+i)%n); err == nil {
			return ln, nil
		}
	}
	return nil, schemes.Errorf(schemes.ErrConnect, "ftp: active mode: no port of %d-%d free on %s: %v", a.low, a.high, ip, err)
}

// portLine is the command that names ln to the server: EPRT (RFC 2428
// §2: |1| IPv4, |2| IPv6), or PORT (RFC 959 §4.1.2: h1,h2,h3,h4,p1,p2)
// where the server refused EPRT.
func (c *conn) portLine(ln net.Listener) (string, error) {
	ta := ln.Addr().(*net.TCPAddr)
	if !c.noEPRT {
		proto := "1"
		if ta.IP.To4() == nil {
			proto = "2"
		}
		return fmt.Sprintf("EPRT |%s|%s|%d|", proto, ta.IP, ta.Port), nil
	}
	v4 := ta.IP.To4()
	if v4 == nil {
		return "", schemes.Errorf(schemes.ErrRefused, "ftp: the server refused EPRT, and PORT cannot name the IPv6 address %s", ta.IP)
	}
	return fmt.Sprintf("PORT %d,%d,%d,%d,%d,%d", v4[0], v4[1], v4[2], v4[3], ta.Port>>8, ta.Port&0xff), nil
}

// eprtRefused reports whether a reply to EPRT says the server has none
// (RFC 2428 §2: 522 for a network protocol it does not take; 500 and
// 502 for a command it does not know).
func eprtRefused(code int) bool { return code == 500 || code == 502 || code == 522 }

// activeStep is passiveStep in active mode: a listener for the
// transfer, named with EPRT or PORT, whose connection becomes *data once
// the command is accepted. The first time on a connection whose server
// is not known to take EPRT, EPRT goes alone first, and a refusal means
// PORT from then on, on every connection to the server.
func (c *conn) activeStep(ctx context.Context, req *schemes.Request, data *net.Conn) step {
	fail := func(err error) step {
		// The error shows in the step's handler; NOOP keeps the batch in
		// step.
		return step{line: "NOOP", then: func(int, string) error { return err }}
	}
	ip, err := c.listenIP()
	if err != nil {
		return fail(err)
	}
	ln, err := c.listen(ip)
	if err != nil {
		return fail(err)
	}
	ac := acceptFrom(ctx, ln, c.peer, req)
	if !c.eprtKnown && !c.noEPRT {
		line, _ := c.portLine(ln)
		code, msg, err := c.lockStep(line)
		if err != nil {
			ac.Close()
			return fail(err)
		}
		c.eprtKnown = true
		if eprtRefused(code) {
			c.refuseEPRT()
		} else if code/100 != 2 {
			ac.Close()
			return fail(replyErr(code, msg))
		} else if c.eprtOK != nil {
			c.eprtOK()
		}
	}
	line, err := c.portLine(ln)
	if err != nil {
		ac.Close()
		return fail(err)
	}
	return step{line: line, then: func(code int, msg string) error {
		if code/100 != 2 {
			ac.Close()
			if !c.noEPRT && eprtRefused(code) {
				c.refuseEPRT()
			}
			return replyErr(code, msg)
		}
		c.pasvOK = true
		*data = c.useActive(ctx, req, ac)
		return nil
	}}
}

// refuseEPRT records that c's server refused EPRT: PORT from then on.
func (c *conn) refuseEPRT() {
	c.noEPRT = true
	if c.portOnly != nil {
		c.portOnly()
	}
}

// activeConn is an active data connection: the listener until the
// server's connection comes, then that connection. Reads and writes wait
// for it under their deadlines (the idle timeout), so a server that never
// connects ends the transfer as an idle one does.
type activeConn struct {
	ln    net.Listener
	ready chan struct{} // closed once conn or err is set
	conn  net.Conn
	err   error

	mu       sync.Mutex
	rd, wd   time.Time
	closed   bool
	closedCh chan struct{}
}

// acceptFrom starts accepting on ln the one connection from peer; every
// other is closed at once, with a warning (req.Warnf).
func acceptFrom(ctx context.Context, ln net.Listener, peer net.IP, req *schemes.Request) *activeConn {
	a := &activeConn{ln: ln, ready: make(chan struct{}), closedCh: make(chan struct{})}
	stop := context.AfterFunc(ctx, func() { a.Close() })
	go func() {
		defer stop()
		for {
			nc, err := ln.Accept()
			if err != nil {
				a.err = err
				close(a.ready)
				return
			}
			ra, _ := nc.RemoteAddr().(*net.TCPAddr)
			if ra == nil || !ra.IP.Equal(peer) {
				nc.Close()
				req.Warnf(fmt.Sprintf("ftp: refused a data connection from %s to %s: only the server (%s) may connect", nc.RemoteAddr(), ln.Addr(), peer))
				continue
			}
			ln.Close()
			a.mu.Lock()
			a.conn = nc
			closed := a.closed
			if !a.rd.IsZero() {
				nc.SetReadDeadline(a.rd)
			}
			if !a.wd.IsZero() {
				nc.SetWriteDeadline(a.wd)
			}
			a.mu.Unlock()
			if closed {
				nc.Close()
			}
			close(a.ready)
			return
		}
	}()
	return a
}

// wait returns the accepted connection once it has come, or an error:
// the deadline passed (a timeout), the listener failed, or a was closed.
func (a *activeConn) wait(deadline time.Time) (net.Conn, error) {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-a.ready:
	case <-a.closedCh:
		return nil, net.ErrClosed
	case <-timeout:
		return nil, schemes.Errorf(schemes.ErrTimeout, "ftp: the server did not connect to %s (active mode) within the idle timeout", a.ln.Addr())
	}
	if a.conn == nil {
		if errors.Is(a.err, net.ErrClosed) {
			return nil, net.ErrClosed
		}
		return nil, a.err
	}
	return a.conn, nil
}

func (a *activeConn) Read(p []byte) (int, error) {
	a.mu.Lock()
	rd := a.rd
	a.mu.Unlock()
	nc, err := a.wait(rd)
	if err != nil {
		return 0, err
	}
	return nc.Read(p)
}

func (a *activeConn) Write(p []byte) (int, error) {
	a.mu.Lock()
	wd := a.wd
	a.mu.Unlock()
	nc, err := a.wait(wd)
	if err != nil {
		return 0, err
	}
	return nc.Write(p)
}

// Close closes the listener and the connection, if it came.
func (a *activeConn) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	nc := a.conn
	close(a.closedCh)
	a.mu.Unlock()
	a.ln.Close()
	if nc != nil {
		return nc.Close()
	}
	return nil
}

func (a *activeConn) LocalAddr() net.Addr { return a.ln.Addr() }

func (a *activeConn) RemoteAddr() net.Addr {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn != nil {
		return a.conn.RemoteAddr()
	}
	return a.ln.Addr()
}

func (a *activeConn) SetDeadline(t time.Time) error {
	a.SetReadDeadline(t)
	return a.SetWriteDeadline(t)
}

func (a *activeConn) SetReadDeadline(t time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rd = t
	if a.conn != nil {
		return a.conn.SetReadDeadline(t)
	}
	return nil
}

func (a *activeConn) SetWriteDeadline(t time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.wd = t
	if a.conn != nil {
		return a.conn.SetWriteDeadline(t)
	}
	return nil
}

// SyscallConn is the accepted TCP connection's, so that a body moves
// from it into a file by splice as from a dialled one; it waits for the
// connection under the read deadline.
func (a *activeConn) SyscallConn() (syscall.RawConn, error) {
	a.mu.Lock()
	rd := a.rd
	a.mu.Unlock()
	nc, err := a.wait(rd)
	if err != nil {
		return nil, err
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

// useActive makes ac the transfer's data connection, under req's idle
// timeout and watching ctx, as a dialled one is.
func (c *conn) useActive(ctx context.Context, req *schemes.Request, ac *activeConn) net.Conn {
	lc := lineproto.NewConn(ac, req.Idle())
	lc.Watch(ctx)
	return c.useData(lc, ac.ln.Addr().String())
}
