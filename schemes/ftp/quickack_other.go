//go:build !linux

package ftp

import "net"

// quickAck is Linux's TCP_QUICKACK (quickack_linux.go); elsewhere nothing.
func quickAck(net.Conn) func() { return nil }
