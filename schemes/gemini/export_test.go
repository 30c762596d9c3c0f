package gemini

import (
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// The scripted server, for the tests of package gemini_test, which reach
// the fetch package (it imports this one).

// NewTestServer starts a scripted server that answers every request with
// answer, presenting a certificate made for the test.
func NewTestServer(t *testing.T, answer func(line string) string) *gemServer {
	return newServer(t, NewTestCert(t), func(c net.Conn, line string) {
		c.Write([]byte(answer(line)))
	})
}

// NewTestCert makes a certificate for 127.0.0.1 valid for an hour.
func NewTestCert(t *testing.T) tls.Certificate {
	return newCert(t, "gemini test", time.Now().Add(time.Hour))
}

// Next is the exchange of the next connection the server accepted, once
// that connection is closed.
func (s *gemServer) Next(t *testing.T) exchange { return s.next(t) }

// Port is the server's port.
func (s *gemServer) Port() int { return s.port }

// Pending is how many accepted connections Next has not yet returned.
func (s *gemServer) Pending() int { return len(s.seen) }
