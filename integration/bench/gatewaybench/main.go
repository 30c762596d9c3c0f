// Command gatewaybench is many browsers at once against gofer serve: C
// clients, each with its own connections, fetch the gateway paths given
// round-robin until N responses have come back, and every response is
// checked (status 200 and a text it must hold). It prints the count, the
// failures, the requests per second and the latency's median, 99th
// percentile and maximum:
//
//	gatewaybench -c 200 -n 4000 BASE PATH=TEXT...
//
// It exits 1 when any response was wrong.
//
//	gatewaybench -o FILE URL
//
// fetches one URL into FILE as gofer get writes a file: the response's
// body moved from the socket into the file by the kernel (splice), never
// copied through the client's memory, so that the time is the server's
// (the gateway's) and the disk's, not a client's copying. It exits 1 when
// the status is not 200 or the body is not as long as Content-Length.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type target struct{ path, want string }

func main() {
	clients := flag.Int("c", 200, "browsers at once")
	total := flag.Int("n", 4000, "responses in all")
	out := flag.String("o", "", "fetch the one URL given into `FILE`")
	flag.Parse()
	if *out != "" {
		if flag.NArg() != 1 {
			fmt.Fprintln(os.Stderr, "usage: gatewaybench -o FILE URL")
			os.Exit(2)
		}
		if err := fetchInto(*out, flag.Arg(0)); err != nil {
			fmt.Fprintln(os.Stderr, "gatewaybench:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() < 2 {
		fmt.Fprintln(os.Stderr, "usage: gatewaybench [-c N] [-n N] BASE PATH=TEXT...")
		os.Exit(2)
	}
	base := strings.TrimSuffix(flag.Arg(0), "/")
	var targets []target
	for _, a := range flag.Args()[1:] {
		p, want, ok := strings.Cut(a, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "gatewaybench: %q is not PATH=TEXT\n", a)
			os.Exit(2)
		}
		targets = append(targets, target{p, want})
	}
	var next, failed atomic.Int64
	lat := make([][]time.Duration, *clients)
	var firstErr sync.Once
	start := time.Now()
	var wg sync.WaitGroup
	for c := range *clients {
		wg.Go(func() {
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 2 * time.Minute}
			for {
				i := next.Add(1) - 1
				if i >= int64(*total) {
					return
				}
				t := targets[int(i)%len(targets)]
				t0 := time.Now()
				resp, err := hc.Get(base + t.path)
				var body []byte
				if err == nil {
					body, err = io.ReadAll(resp.Body)
					resp.Body.Close()
					if err == nil && (resp.StatusCode != 200 || !bytes.Contains(body, []byte(t.want))) {
						err = fmt.Errorf("%s: status %d, %d bytes without %q", t.path, resp.StatusCode, len(body), t.want)
					}
				}
				lat[c] = append(lat[c], time.Since(t0))
				if err != nil {
					failed.Add(1)
					firstErr.Do(func() { fmt.Fprintln(os.Stderr, "gatewaybench:", err) })
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	q := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	fmt.Printf("%d responses, %d wrong, %d browsers at once: %.0f requests/s; latency median %v, p99 %v, max %v\n",
		len(all), failed.Load(), *clients, float64(len(all))/took.Seconds(),
		q(0.50).Round(100*time.Microsecond), q(0.99).Round(100*time.Microsecond), all[len(all)-1].Round(100*time.Microsecond))
	if failed.Load() > 0 {
		os.Exit(1)
	}
}

// fetchInto fetches raw (http://HOST:PORT/PATH) over one HTTP/1.1
// connection into the file name: the header is read, what came with it
// written, and the rest of the body spliced from the socket to the file.
func fetchInto(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" {
		return fmt.Errorf("%s: want an http:// URL", raw)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", u.RequestURI(), u.Host); err != nil {
		return err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || resp.ContentLength < 0 || len(resp.TransferEncoding) > 0 {
		return fmt.Errorf("%s: status %d, Content-Length %d, Transfer-Encoding %q", raw, resp.StatusCode, resp.ContentLength, resp.TransferEncoding)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	head := min(int64(br.Buffered()), resp.ContentLength)
	buffered, _ := br.Peek(int(head))
	n0, err := f.Write(buffered)
	if err != nil {
		f.Close()
		return err
	}
	n, err := f.ReadFrom(io.LimitReader(conn, resp.ContentLength-int64(n0))) // splice
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if int64(n0)+n != resp.ContentLength {
		return fmt.Errorf("%s: %d bytes of %d", raw, int64(n0)+n, resp.ContentLength)
	}
	return nil
}
