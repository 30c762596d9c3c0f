// Package hostile holds scripted servers that misbehave on purpose, one per
// protocol gofer speaks (RFC 959 FTP, RFC 1436 Gopher and Gopher+, RFC 3977
// NNTP, RFC 9112 HTTP, RFC 854 telnet): endless lines, bodies past any size
// limit, trickles, silences, cuts, garbage, huge listings, foreign PASV
// addresses, reply storms, redirect loops. Real servers will not do these
// things on demand; gofer's integration tests need them to prove that every
// failure ends with the documented exit code, bounded memory and time, and
// nothing half-written on disk.
//
// Every server listens on a loopback address only and stops when its
// client goes away or Close is called.
package hostile

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"time"
)

// Server accepts connections on loopback and hands each to its handler.
type Server struct {
	ln     net.Listener
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed chan struct{}
}

// Start listens on addr ("127.0.0.1:0" for any port) and serves handle.
func Start(addr string, handle func(c *Conn)) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, conns: map[net.Conn]bool{}, closed: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.track(nc, true)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer s.track(nc, false)
				defer nc.Close()
				handle(&Conn{Conn: nc, r: newReader(nc), closed: s.closed})
			}()
		}
	}()
	return s, nil
}

func (s *Server) track(c net.Conn, add bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		s.conns[c] = true
	} else {
		delete(s.conns, c)
	}
}

// Addr is the "host:port" the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server and every connection it holds.
func (s *Server) Close() {
	close(s.closed)
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// Conn is one client connection with line reading.
type Conn struct {
	net.Conn
	r      *bufio.Reader
	closed chan struct{}
}

// ReadLine reads one request line without its line end; ok is false when
// the client is gone.
func (c *Conn) ReadLine() (string, bool) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", false
	}
	return strings.TrimRight(line, "\r\n"), true
}

// Send writes s; it reports whether the client is still there.
func (c *Conn) Send(s string) bool {
	_, err := c.Write([]byte(s))
	return err == nil
}

// Endless writes the same chunk until the client goes away.
func (c *Conn) Endless(chunk string) {
	b := []byte(strings.Repeat(chunk, 1+4096/len(chunk)))
	for {
		if _, err := c.Write(b); err != nil {
			return
		}
	}
}

// Trickle writes one byte of s every interval, over and over, until the
// client goes away: never silent long enough for an idle timeout.
func (c *Conn) Trickle(s string, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-t.C:
		case <-c.closed:
			return
		}
		if _, err := c.Write([]byte{s[i%len(s)]}); err != nil {
			return
		}
	}
}

// Silent holds the connection open, saying nothing, until the client
// closes it or the server stops.
func (c *Conn) Silent() {
	done := make(chan struct{})
	go func() {
		buf := make([]byte, 512)
		for {
			if _, err := c.Conn.Read(buf); err != nil {
				close(done)
				return
			}
		}
	}()
	select {
	case <-done:
	case <-c.closed:
	}
}

// Bytes writes n bytes of filler.
func (c *Conn) Bytes(n int64) bool {
	chunk := []byte(strings.Repeat("0123456789abcdef", 4096))
	for n > 0 {
		k := int64(len(chunk))
		if n < k {
			k = n
		}
		if _, err := c.Write(chunk[:k]); err != nil {
			return false
		}
		n -= k
	}
	return true
}

func newReader(c net.Conn) *bufio.Reader { return bufio.NewReader(c) }
