package hostile

import (
	"crypto/tls"
	"net"

	"github.com/goferurl/gofer/internal/testcert"
)

// StartTLS is Start behind TLS with a fresh self-signed certificate that
// no client trusts: the "bad certificate" server.
func StartTLS(addr string, handle func(c *Conn)) (*Server, error) {
	cert, err := selfSigned()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ln.Close()
	s, err := Start(ln.Addr().String(), func(c *Conn) {
		tc := tls.Server(c.Conn, &tls.Config{Certificates: []tls.Certificate{cert}})
		if err := tc.Handshake(); err != nil {
			return
		}
		handle(&Conn{Conn: tc, r: newReader(tc), closed: c.closed})
	})
	return s, err
}

func selfSigned() (tls.Certificate, error) {
	cert, _, err := testcert.New("hostile")
	return cert, err
}
