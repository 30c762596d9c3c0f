// Command gowarc writes a WARC with gowarc (the Internet Archive's Go WARC
// library, published on the module proxy under its earlier module path
// github.com/CorentinB/warc), as its crawlers write them: each URL is
// fetched through the library's WARC-writing HTTP client, which writes a
// request and a response record per fetch (WARC/1.1), and a revisit
// record for a payload it already wrote when local deduplication is on.
// gofer's integration tests build it and read what it writes; it lives in
// a module of its own so that gowarc's dependencies stay out of gofer's.
//
// Usage: gowarc -dir DIR -prefix NAME [-compression GZIP|ZSTD|none] [-dedup] URL...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	warc "github.com/CorentinB/warc"
)

func main() {
	dir := flag.String("dir", ".", "directory the WARC file is written to")
	prefix := flag.String("prefix", "gowarc", "the WARC file name's prefix")
	compression := flag.String("compression", "GZIP", "GZIP, ZSTD or none")
	dedup := flag.Bool("dedup", false, "write a revisit record for a payload already written")
	flag.Parse()
	if err := run(*dir, *prefix, *compression, *dedup, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gowarc:", err)
		os.Exit(1)
	}
}

func run(dir, prefix, compression string, dedup bool, urls []string) error {
	rotator := warc.NewRotatorSettings()
	rotator.OutputDirectory = dir
	rotator.Prefix = prefix
	rotator.Compression = compression
	if compression == "none" {
		rotator.Compression = ""
	}
	client, err := warc.NewWARCWritingHTTPClient(warc.HTTPClientSettings{
		RotatorSettings: rotator,
		DedupeOptions:   warc.DedupeOptions{LocalDedupe: dedup, SizeThreshold: 1},
		TempDir:         dir,
	})
	if err != nil {
		return err
	}
	errs := make(chan error, 1)
	go func() {
		for e := range client.ErrChan {
			select {
			case errs <- fmt.Errorf("%s: %w", e.Func, e.Err):
			default:
			}
		}
	}()
	for _, u := range urls {
		resp, err := client.Get(u)
		if err != nil {
			client.Close()
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			client.Close()
			return fmt.Errorf("%s: %w", u, err)
		}
	}
	client.Close()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
