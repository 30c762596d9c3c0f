// Command waisd runs gofer's scripted WAIS server (package
// schemes/wais/waistest) with the database "test", for integration/up.
package main

import (
	"flag"
	"log"
	"net"

	"github.com/goferurl/gofer/schemes/wais/waistest"
)

func main() {
	addr := flag.String("listen", "127.0.0.210:210", "address to listen on")
	self := flag.String("self", "waisd.gofer.test:210", "the host:port the server names itself in document ids")
	flag.Parse()
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	s := waistest.NewTestServer(*self)
	s.Log = func(line string) { log.Print(line) }
	log.Printf("waisd: database %q on %s", s.Database, l.Addr())
	log.Fatal(s.Serve(l))
}
