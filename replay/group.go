package replay

import (
	"context"
	"fmt"
	"net"
	"slices"
)

// Listen asks Start for one protocol's server.
type Listen struct {
	// Scheme is the protocol: "gopher", "ftp", "http" or "nntp".
	Scheme string
	// Addr is the TCP address to listen on, "host:port" (port 0: any
	// free port); "" for DefaultAddr(Scheme).
	Addr string
	// Hosts are the captured servers the server may replay, "host" or
	// "host:port" (the protocol's well-known port when none), by
	// preference: the first the archive holds captures of is replayed;
	// with none of them, the first captured. NNTP serves every captured
	// article, of any server, and ignores Hosts.
	Hosts []string
}

// Running is one server a Group runs.
type Running struct {
	Scheme string
	// Addr is the address the listener is bound to, its port the one
	// chosen when the port asked for was 0.
	Addr net.Addr
	// Host is the captured server replayed ("host:port"); "" for NNTP.
	Host string
	// Chosen is the entry of Listen.Hosts that named Host; "" when none
	// did and Host is the first captured.
	Chosen string
	Server Server
}

// Group is the servers Start started, stopped together.
type Group struct {
	running []Running
	cancel  context.CancelFunc
	done    chan struct{}
	err     error // the first Serve error, set before done is closed
}

// Start starts a server of each Listen whose protocol the archive holds
// captures of (a Listen of one it holds none of starts nothing) and
// returns once each listens. Every listener is bound before any serves:
// when one cannot be (its address is in use), Start closes those bound
// and returns the error, which names the address. An unknown scheme is an
// error naming it. The servers run until ctx ends or the Group is closed;
// one that fails stops them all. Problems met while serving go to the
// Warn of the archive's Options.
func Start(ctx context.Context, a *Archive, listens []Listen) (*Group, error) {
	for _, l := range listens {
		if DefaultAddr(l.Scheme) == "" {
			return nil, fmt.Errorf("replay: unknown scheme %q (gopher, ftp, http or nntp)", l.Scheme)
		}
	}
	g := &Group{done: make(chan struct{})}
	var lns []net.Listener
	for _, l := range listens {
		r, ok, err := newRunning(a, l)
		if err == nil && ok {
			var ln net.Listener
			if ln, err = listen(l.Scheme, l.Addr); err == nil {
				r.Addr = ln.Addr()
				lns = append(lns, ln)
				g.running = append(g.running, r)
			}
		}
		if err != nil {
			for _, ln := range lns {
				ln.Close()
			}
			return nil, err
		}
	}
	ctx, g.cancel = context.WithCancel(ctx)
	errs := make(chan error, len(lns))
	for i, ln := range lns {
		s := g.running[i].Server
		go func() {
			err := s.Serve(ctx, ln)
			if err != nil {
				g.cancel()
			}
			errs <- err
		}()
	}
	go func() {
		for range lns {
			if err := <-errs; err != nil && g.err == nil {
				g.err = err
			}
		}
		close(g.done)
	}()
	return g, nil
}

// newRunning makes the server l asks for; ok is false when the archive
// holds no capture of its protocol.
func newRunning(a *Archive, l Listen) (r Running, ok bool, err error) {
	r.Scheme = l.Scheme
	var hosts []string
	var port int
	switch l.Scheme {
	case "gopher":
		hosts, port = a.GopherHosts(), 70
	case "ftp":
		hosts, port = a.FTPHosts(), 21
	case "http":
		hosts, port = a.HTTPHosts(), 80
	case "nntp":
		if !a.HasArticles() {
			return r, false, nil
		}
		r.Server, err = NewNNTPServer(a, a.warn)
		return r, err == nil, err
	}
	if len(hosts) == 0 {
		return r, false, nil
	}
	r.Host = hosts[0]
	for _, h := range l.Hosts {
		k := wantedHost(h, port)
		if slices.Contains(hosts, k) {
			r.Host, r.Chosen = k, h
			break
		}
	}
	switch l.Scheme {
	case "gopher":
		r.Server, err = NewGopherServer(a, r.Host, a.warn)
	case "ftp":
		r.Server, err = NewFTPServer(a, r.Host, a.warn)
	case "http":
		r.Server, err = NewHTTPServer(a, r.Host, a.warn)
	}
	return r, err == nil, err
}

// Running returns the servers started, in the order of their Listens.
func (g *Group) Running() []Running { return slices.Clone(g.running) }

// Wait returns once every server has stopped (its context ended, Close
// was called, or one failed), with the first server's error, nil when
// none failed.
func (g *Group) Wait() error {
	<-g.done
	return g.err
}

// Close stops every server, closing its listener and connections, and
// returns what Wait returns once they have stopped.
func (g *Group) Close() error {
	g.cancel()
	return g.Wait()
}
