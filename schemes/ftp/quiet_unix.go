//go:build unix

package ftp

import (
	"net"
	"syscall"
)

// quiet reports whether nc is open and has nothing to read: a data
// connection dialled ahead hears nothing before its transfer's command,
// so anything else (an end, a reset) says that the server gave up on it.
// It looks without taking anything (MSG_PEEK) and without waiting.
func quiet(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && open
}
