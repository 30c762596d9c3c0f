// Command gopherbench is the library side of integration/bench/gopher-hole:
// it lists every item of a gopher hole by walking its menus, and fetches a
// list of item URLs with N workers through fetch.Client, reporting the time
// taken, the items fetched and the bytes read.
//
//	gopherbench list URL            item URLs reachable from the menu URL, one a line
//	gopherbench fetch -j N [-allow-port P] FILE
//	                                fetch every URL in FILE; print "items bytes seconds"
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "list":
		if len(os.Args) != 3 {
			usage()
		}
		err = list(context.Background(), os.Args[2])
	case "fetch":
		fs := flag.NewFlagSet("fetch", flag.ExitOnError)
		jobs := fs.Int("j", 8, "parallel workers")
		allow := fs.Int("allow-port", 0, "lift the guard's port refusal for this port (a relay's)")
		fs.Parse(os.Args[2:])
		if fs.NArg() != 1 {
			usage()
		}
		if *allow > 0 {
			allowPorts = []int{*allow}
		}
		err = fetchAll(context.Background(), fs.Arg(0), *jobs)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gopherbench:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: gopherbench list URL | gopherbench fetch -j N FILE")
	os.Exit(2)
}

// allowPorts are the ports fetch -allow-port lets through the guard.
var allowPorts []int

func client() *fetch.Client {
	return fetch.NewClient(fetch.Options{Warn: func(string) {}, AllowPorts: allowPorts})
}

// list walks menus breadth first from start, staying on its host and port,
// and prints every item that is not a menu, a search, a link or an info line.
func list(ctx context.Context, start string) error {
	c := client()
	seen := map[string]bool{start: true}
	queue := []string{start}
	host := hostOf(start)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for len(queue) > 0 {
		menu := queue[0]
		queue = queue[1:]
		resp, err := c.Get(ctx, menu)
		if err != nil {
			return fmt.Errorf("%s: %w", menu, err)
		}
		for {
			e, err := resp.Listing.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				resp.Close()
				return fmt.Errorf("%s: %w", menu, err)
			}
			if !strings.HasPrefix(e.URL, "gopher://") || hostOf(e.URL) != host || seen[e.URL] {
				continue
			}
			seen[e.URL] = true
			if e.Gopher == nil {
				continue
			}
			switch e.Gopher.Type {
			case "1":
				queue = append(queue, e.URL)
			case "0", "9", "g", "I", "s", "4", "5", "6", "d", "p":
				fmt.Fprintln(out, e.URL)
			}
		}
		resp.Close()
	}
	return nil
}

func hostOf(u string) string {
	rest := strings.TrimPrefix(u, "gopher://")
	h, _, _ := strings.Cut(rest, "/")
	return h
}

// fetchAll fetches every URL of file with jobs workers and reads each body
// to its end.
func fetchAll(ctx context.Context, file string, jobs int) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	urls := strings.Fields(string(b))
	c := client()
	work := make(chan string)
	var items, bytes atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range work {
				n, err := get(ctx, c, u)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("%s: %w", u, err)
					}
					mu.Unlock()
					continue
				}
				items.Add(1)
				bytes.Add(n)
			}
		}()
	}
	for _, u := range urls {
		work <- u
	}
	close(work)
	wg.Wait()
	fmt.Printf("%d %d %.3f\n", items.Load(), bytes.Load(), time.Since(start).Seconds())
	return firstErr
}

func get(ctx context.Context, c *fetch.Client, u string) (int64, error) {
	resp, err := c.Get(ctx, u)
	if err != nil {
		return 0, err
	}
	defer resp.Close()
	if resp.Kind != schemes.KindFile {
		return 0, fmt.Errorf("not a file")
	}
	return io.Copy(io.Discard, resp.Body)
}
