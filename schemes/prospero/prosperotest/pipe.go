package prosperotest

import (
	"net"
	"os"
	"sync"
	"time"
)

// Pipe returns a connected datagram socket to s that needs no network and
// no goroutine: each Write is one datagram s handles at once, and its
// answers queue for Read, one datagram per Read. Read deadlines work as on
// a UDP socket (os.ErrDeadlineExceeded). local names the client to s.
// A test hands it to the client through a dialer, to run the server where
// no goroutine may outlive a check.
func (s *Server) Pipe(local, remote *net.UDPAddr) net.Conn {
	return &pipe{srv: s, local: local, remote: remote, wake: make(chan struct{})}
}

type pipe struct {
	srv           *Server
	local, remote *net.UDPAddr

	mu       sync.Mutex
	queue    [][]byte
	deadline time.Time
	closed   bool
	wake     chan struct{} // closed and replaced at every change
}

// changed wakes a waiting Read; p.mu is held.
func (p *pipe) changed() {
	close(p.wake)
	p.wake = make(chan struct{})
}

func (p *pipe) Write(b []byte) (int, error) {
	out := p.srv.Handle(p.local.String(), append([]byte(nil), b...))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, net.ErrClosed
	}
	p.queue = append(p.queue, out...)
	p.changed()
	return len(b), nil
}

func (p *pipe) Read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return 0, net.ErrClosed
		}
		if len(p.queue) > 0 {
			n := copy(b, p.queue[0])
			p.queue = p.queue[1:]
			p.mu.Unlock()
			return n, nil
		}
		dl, wake := p.deadline, p.wake
		p.mu.Unlock()
		if dl.IsZero() {
			<-wake
			continue
		}
		d := time.Until(dl)
		if d <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		select {
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

func (p *pipe) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		p.changed()
	}
	return nil
}

func (p *pipe) SetReadDeadline(t time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.deadline = t
	p.changed()
	return nil
}

func (p *pipe) SetDeadline(t time.Time) error    { return p.SetReadDeadline(t) }
func (p *pipe) SetWriteDeadline(time.Time) error { return nil }
func (p *pipe) LocalAddr() net.Addr              { return p.local }
func (p *pipe) RemoteAddr() net.Addr             { return p.remote }
