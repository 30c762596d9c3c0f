package replay_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/goferurl/gofer/replay"
)

// Serve a capture (a segment prefix of mirror --warc) over Gopher and
// HTTP on ports the system picks, until interrupted.
func ExampleStart() {
	a, err := replay.Open([]string{"crawl"}, replay.Options{})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	g, err := replay.Start(ctx, a, []replay.Listen{
		{Scheme: "gopher", Addr: "127.0.0.1:0"},
		{Scheme: "http", Addr: "127.0.0.1:0"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range g.Running() {
		fmt.Printf("%s://%s/ replays %s\n", r.Scheme, r.Addr, r.Server)
	}
	if err := g.Wait(); err != nil {
		log.Fatal(err)
	}
}
