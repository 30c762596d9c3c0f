// Command gowarc writes a WARC with gowarc (the Internet Archive's Go WARC
// library, github.com/internetarchive/gowarc), as its crawlers write
// them: each URL is fetched through the library's WARC-writing HTTP
// client, which writes a request and a response record per fetch
// (WARC/1.1), and a revisit record for a payload it already wrote when
// local deduplication is on. With -dict, a zstd file is compressed with
// that dictionary, which gowarc stores compressed in the file's first,
// skippable frame (the warc-zstd convention). gofer's integration tests
// build it and read what it writes; it lives in a module of its own so
// that gowarc's dependencies stay out of gofer's.
//
// Usage: gowarc -dir DIR -prefix NAME [-compression GZIP|ZSTD|none] [-dict FILE]
// [-digest sha1|sha256] [-dedup] URL...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	warc "github.com/internetarchive/gowarc"
)

func main() {
	dir := flag.String("dir", ".", "directory the WARC file is written to")
	prefix := flag.String("prefix", "gowarc", "the WARC file name's prefix")
	compression := flag.String("compression", "GZIP", "GZIP, ZSTD or none")
	dict := flag.String("dict", "", "a zstd dictionary `FILE` to compress with and store in the file")
	digest := flag.String("digest", "sha1", "digest algorithm: sha1 (base32) or sha256 (base16)")
	dedup := flag.Bool("dedup", false, "write a revisit record for a payload already written")
	flag.Parse()
	if err := run(*dir, *prefix, *compression, *dict, *digest, *dedup, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "gowarc:", err)
		os.Exit(1)
	}
}

func run(dir, prefix, compression, dict, digest string, dedup bool, urls []string) error {
	rotator := warc.NewRotatorSettings()
	rotator.OutputDirectory = dir
	rotator.Prefix = prefix
	rotator.Compression = compression
	if compression == "none" {
		rotator.Compression = ""
	}
	rotator.CompressionDictionary = dict
	algo := warc.SHA1
	switch digest {
	case "sha1":
	case "sha256":
		algo = warc.SHA256Base16
	default:
		return fmt.Errorf("-digest %q: want sha1 or sha256", digest)
	}
	client, err := warc.NewWARCWritingHTTPClient(warc.HTTPClientSettings{
		RotatorSettings: rotator,
		DedupeOptions:   warc.DedupeOptions{LocalDedupe: dedup, SizeThreshold: 1},
		TempDir:         dir,
		DigestAlgorithm: algo,
	})
	if err != nil {
		return err
	}
	errs := make(chan error, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for e := range client.ErrChan {
			select {
			case errs <- fmt.Errorf("%s: %w", e.Func, e.Err):
			default:
			}
		}
	}()
	var fetchErr error
	for _, u := range urls {
		resp, err := client.Get(u)
		if err != nil {
			fetchErr = err
			break
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			fetchErr = fmt.Errorf("%s: %w", u, err)
			break
		}
	}
	client.Close()
	<-drained
	if fetchErr != nil {
		return fetchErr
	}
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}
