// Command ftpbench is the helper of integration/bench/ftp-1g.
//
//	ftpbench bigfile SIZE      make (once) the itest.BigFile of SIZE bytes; print its path and sha256
//	ftpbench tcpcopy FILE OUT  copy FILE to OUT over one loopback TCP connection; print the seconds
//
// tcpcopy is the physical limit an FTP client can approach: the sender
// reads the file as a server would (sendfile), the receiver writes what
// arrives to OUT (splice), with nothing of a protocol in between.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

func main() {
	if len(os.Args) < 3 {
		usage()
	}
	switch os.Args[1] {
	case "bigfile":
		size, err := strconv.ParseInt(os.Args[2], 10, 64)
		if err != nil {
			usage()
		}
		path, sum := itest.BigFile(tb{}, size)
		fmt.Println(path, sum)
	case "tcpcopy":
		if len(os.Args) != 4 {
			usage()
		}
		secs, err := tcpcopy(os.Args[2], os.Args[3])
		if err != nil {
			fmt.Fprintln(os.Stderr, "ftpbench:", err)
			os.Exit(1)
		}
		fmt.Printf("%.3f\n", secs)
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: ftpbench bigfile SIZE | ftpbench tcpcopy FILE OUT")
	os.Exit(2)
}

// tb lets itest.BigFile report a failure outside a test.
type tb struct{ testing.TB }

func (tb) Helper() {}
func (tb) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "ftpbench: "+format+"\n", args...)
	os.Exit(1)
}

func tcpcopy(src, dst string) (float64, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	sent := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			sent <- err
			return
		}
		defer c.Close()
		f, err := os.Open(src)
		if err != nil {
			sent <- err
			return
		}
		defer f.Close()
		_, err = io.Copy(c, f) // sendfile
		sent <- err
	}()
	out, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	start := time.Now()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if _, err := io.Copy(out, c); err != nil { // splice
		return 0, err
	}
	if err := out.Close(); err != nil {
		return 0, err
	}
	secs := time.Since(start).Seconds()
	return secs, <-sent
}
