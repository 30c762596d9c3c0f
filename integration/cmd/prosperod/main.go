// Command prosperod runs gofer's scripted Prospero server (package
// schemes/prospero/prosperotest) on a loopback address for the integration tests
// and the demo; integration/up prospero starts it. It prints a "listening"
// line once its socket is bound, then one line per request.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/goferurl/gofer/schemes/prospero/prosperotest"
)

func main() {
	addr := flag.String("addr", "127.0.0.15:1525", "UDP address to serve")
	ftp := flag.String("ftp", "127.0.0.21", "FTP server the access methods name")
	gopher := flag.String("gopher", "127.0.0.71", "Gopher server the access methods name")
	flag.Parse()
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatalf("prosperod: -addr %q: %v", *addr, err)
	}
	if !strings.HasPrefix(host, "127.") {
		log.Fatalf("prosperod: -addr %q is not a loopback address", *addr)
	}
	pc, err := net.ListenPacket("udp", *addr)
	if err != nil {
		log.Fatalf("prosperod: %v", err)
	}
	self := host + "(" + port + ")"
	srv := prosperotest.New(prosperotest.Catalog(prosperotest.Hosts{FTP: *ftp, Gopher: *gopher}, self), os.Stdout)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		pc.Close()
	}()
	fmt.Printf("prosperod: listening on udp %s\n", pc.LocalAddr())
	if err := srv.Serve(pc); err != nil {
		log.Fatalf("prosperod: %v", err)
	}
}
