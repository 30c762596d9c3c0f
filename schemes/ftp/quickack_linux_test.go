package ftp

import (
	"net"
	"syscall"
	"testing"
)

// The control connection's reads ask the kernel for quick acknowledgements
// (TCP_QUICKACK); a connection that is not plain TCP gets nothing.
func TestQuickAck(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ack := quickAck(nc)
	if ack == nil {
		t.Fatal("no quick acknowledgements for a TCP connection")
	}
	rc, _ := nc.(*net.TCPConn).SyscallConn()
	get := func() int {
		v := -1
		rc.Control(func(fd uintptr) { v, _ = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK) })
		return v
	}
	rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 0) })
	if get() != 0 {
		t.Skip("this kernel does not report TCP_QUICKACK")
	}
	ack()
	if v := get(); v != 1 {
		t.Errorf("TCP_QUICKACK %d after ack, want 1", v)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if quickAck(a) != nil {
		t.Error("quick acknowledgements for a pipe")
	}
}
