// Command warcgen writes a large multi-segment WARC archive for
// integration/bench/warcread: segments PREFIX-NNNNN.warc.gz of about
// -segment bytes each, up to -size bytes in all, every record its own gzip
// member, each segment a warcinfo then request and response pairs of HTTP
// exchanges whose bodies (text that compresses as pages do, 1 to 64 KiB)
// come from a fixed-seed generator; every record carries its block and
// payload digests (SHA-1, base32), so that gofer warc check has everything
// to verify. It prints the number of records written.
//
// Usage:
//
//	warcgen -size 1073741824 -segment 104857600 PREFIX
package main

import (
	"bufio"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

func digest(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

func main() {
	size := flag.Int64("size", 1<<30, "bytes to write in all (compressed)")
	segment := flag.Int64("segment", 100<<20, "bytes per segment (compressed)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: warcgen [-size N] [-segment N] PREFIX")
		os.Exit(2)
	}
	prefix := flag.Arg(0)
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over a lazy dog gopher menu archive server file " +
		"record capture replay index segment page link title body header digest offset length")
	var total int64
	records, id := 0, 0
	for seg := 0; total < *size; seg++ {
		name := fmt.Sprintf("%s-%05d.warc.gz", prefix, seg)
		f, err := os.Create(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		cw := &counter{w: bufio.NewWriterSize(f, 1<<20)}
		zw, _ := gzip.NewWriterLevel(cw, gzip.BestSpeed)
		write := func(typ, uri, ct string, block []byte, payload []byte) {
			id++
			var h strings.Builder
			fmt.Fprintf(&h, "WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n", typ, id)
			fmt.Fprintf(&h, "WARC-Date: 2026-01-02T03:04:05Z\r\n")
			if uri != "" {
				fmt.Fprintf(&h, "WARC-Target-URI: %s\r\n", uri)
			}
			if typ == "response" {
				fmt.Fprintf(&h, "WARC-Concurrent-To: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n", id-1)
			}
			fmt.Fprintf(&h, "WARC-Block-Digest: %s\r\n", digest(block))
			if payload != nil {
				fmt.Fprintf(&h, "WARC-Payload-Digest: %s\r\n", digest(payload))
			}
			fmt.Fprintf(&h, "Content-Type: %s\r\nContent-Length: %d\r\n\r\n", ct, len(block))
			zw.Reset(cw)
			zw.Write([]byte(h.String()))
			zw.Write(block)
			zw.Write([]byte("\r\n\r\n"))
			zw.Close()
			records++
		}
		info := []byte("software: warcgen\r\nformat: WARC File Format 1.1\r\n")
		write("warcinfo", "", "application/warc-fields", info, nil)
		for cw.n < *segment && total+cw.n < *size {
			uri := fmt.Sprintf("http://example.org/%d/page.html", id)
			req := []byte("GET /" + uri[len("http://example.org/"):] + " HTTP/1.1\r\nHost: example.org\r\n\r\n")
			write("request", uri, "application/http;msgtype=request", req, nil)
			var body strings.Builder
			for n := 1024 + rng.IntN(63*1024); body.Len() < n; {
				body.WriteString(words[rng.IntN(len(words))])
				body.WriteByte(' ')
			}
			head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n", body.Len())
			write("response", uri, "application/http;msgtype=response", []byte(head+body.String()), []byte(body.String()))
		}
		if err := cw.w.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		f.Close()
		total += cw.n
	}
	fmt.Println(records)
}

type counter struct {
	w *bufio.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
