package ftp

import (
	"net"
	"syscall"
)

// quickAck returns a function that has the kernel acknowledge what comes
// next on nc at once (TCP_QUICKACK), nil when nc is no TCP connection of
// this machine's (a proxy's tunnel, a test's pipe).
//
// An FTP server that writes each reply in a write of its own, with Nagle's
// algorithm on (inetutils ftpd, Twisted), holds its second reply until the
// first is acknowledged, and a client that has nothing to send delays that
// acknowledgement by up to 40 ms: every CWD after the first, every 226
// after its 150, waited that long, 13 ms a file with four mirror workers. The setting does
// not last (the kernel falls back to delayed acknowledgements), so it is
// set again before each read of the control connection.
func quickAck(nc net.Conn) func() {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() {
		rc.Control(func(fd uintptr) {
			syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
		})
	}
}
