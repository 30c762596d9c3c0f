// Command bigtree writes a tree the size of a real archive for the scale
// benchmark (integration/bench/scale): N small files spread over N/100
// directories, or one directory of N names (-wide), with a manifest beside
// it that lists every file's path, size and sha256.
//
// The same flags always give the same bytes: names, sizes and contents come
// from a generator seeded by -seed and N, and every file and directory
// carries one fixed modification time, so a server lists the tree the same
// way on every run and a mirror's unchanged rerun finds nothing new.
//
// Files are a few hundred bytes to a few KiB (200 to 4295 bytes, varied),
// half of them text lines and half random bytes. The manifest is written
// last, under a temporary name renamed into place, so its presence says the
// tree is complete: a second run with the same flags finds it and does
// nothing.
//
// Usage:
//
//	bigtree -dir /tmp/gofer-it/big/scale/20000 -manifest /tmp/gofer-it/etc/scale/20000.manifest -n 20000
//	bigtree -dir /tmp/gofer-it/big/scale/wide100000 -manifest ... -n 100000 -wide
//
// Manifest lines are "PATH SIZE SHA256", PATH relative to -dir, in the
// order the files were written (directory by directory, names ascending).
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// modTime is the instant every generated file and directory carries (the
// sample archive's too).
var modTime = time.Date(1994, time.December, 20, 12, 0, 0, 0, time.UTC)

// perDir is how many files the tree puts in one directory.
const perDir = 100

func main() {
	dir := flag.String("dir", "", "where to write the tree (replaced unless the manifest says it is complete)")
	manifest := flag.String("manifest", "", "where to write the manifest (outside -dir)")
	n := flag.Int("n", 200000, "number of files")
	wide := flag.Bool("wide", false, "put every file in one directory instead of N/100")
	seed := flag.Uint64("seed", 0x676f666572, "generator seed")
	flag.Parse()
	if *dir == "" || *manifest == "" || *n <= 0 {
		fmt.Fprintln(os.Stderr, "usage: bigtree -dir DIR -manifest FILE [-n N] [-wide] [-seed S]")
		os.Exit(2)
	}
	if err := run(*dir, *manifest, *n, *wide, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "bigtree:", err)
		os.Exit(1)
	}
}

// stamp is the manifest's first line: the parameters the tree was made with.
func stamp(n int, wide bool, seed uint64) string {
	return fmt.Sprintf("# bigtree n=%d wide=%t seed=%#x", n, wide, seed)
}

func run(dir, manifest string, n int, wide bool, seed uint64) error {
	dir, manifest = filepath.Clean(dir), filepath.Clean(manifest)
	if rel, err := filepath.Rel(dir, manifest); err == nil && !strings.HasPrefix(rel, "..") {
		return fmt.Errorf("manifest %s must be outside the tree %s", manifest, dir)
	}
	if f, err := os.Open(manifest); err == nil {
		first, _ := bufio.NewReader(f).ReadString('\n')
		f.Close()
		if strings.TrimSpace(first) == stamp(n, wide, seed) {
			return nil // already made
		}
	}
	if err := os.MkdirAll(filepath.Dir(manifest), 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	dirs := 1
	if !wide {
		dirs = (n + perDir - 1) / perDir
	}
	// Directories are written by a few workers; each returns its manifest
	// lines, which are printed in directory order.
	type result struct {
		lines []string
		err   error
	}
	results := make([]chan result, dirs)
	for i := range results {
		results[i] = make(chan result, 1)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for d := range next {
				lines, err := writeDir(dir, d, dirs, n, wide, seed)
				results[d] <- result{lines, err}
			}
		})
	}
	go func() {
		for d := range dirs {
			next <- d
		}
		close(next)
	}()
	tmp := manifest + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	fmt.Fprintln(bw, stamp(n, wide, seed))
	var first error
	for d := range dirs {
		r := <-results[d]
		if r.err != nil && first == nil {
			first = r.err
		}
		for _, l := range r.lines {
			bw.WriteString(l)
			bw.WriteByte('\n')
		}
	}
	wg.Wait()
	if first != nil {
		f.Close()
		return first
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chtimes(dir, modTime, modTime); err != nil {
		return err
	}
	return os.Rename(tmp, manifest)
}

// writeDir writes directory d of dirs and returns its manifest lines. The
// wide tree's one directory is dir itself; otherwise directory d is
// dir/dDDDD (four digits or more) and holds files d*100 to d*100+99.
func writeDir(dir string, d, dirs, n int, wide bool, seed uint64) ([]string, error) {
	sub, lo, hi := "", 0, n
	if !wide {
		sub = fmt.Sprintf("d%04d", d)
		lo, hi = d*perDir, min((d+1)*perDir, n)
	}
	path := filepath.Join(dir, sub)
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, err
	}
	rnd := rand.New(rand.NewPCG(seed, uint64(n)<<20|uint64(d)))
	buf := make([]byte, 0, 4400)
	lines := make([]string, 0, hi-lo)
	for i := lo; i < hi; i++ {
		name, body := file(rnd, i, buf[:0])
		if err := os.WriteFile(filepath.Join(path, name), body, 0o644); err != nil {
			return nil, err
		}
		if err := os.Chtimes(filepath.Join(path, name), modTime, modTime); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		rel := name
		if sub != "" {
			rel = sub + "/" + name
		}
		lines = append(lines, fmt.Sprintf("%s %d %s", rel, len(body), hex.EncodeToString(sum[:])))
	}
	if sub != "" {
		if err := os.Chtimes(path, modTime, modTime); err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// words make the text files.
var words = strings.Fields(`gopher archive mirror listing veronica
	jughead anonymous retrieval directory selector menu index binary text
	server client protocol university minnesota internet document`)

// file returns file i's name and contents (appended to buf): a text file
// (.txt) of word lines or random bytes (.bin), 200 to 4295 bytes.
func file(rnd *rand.Rand, i int, buf []byte) (string, []byte) {
	size := 200 + rnd.IntN(4096)
	if rnd.IntN(2) == 0 {
		for len(buf) < size {
			buf = append(buf, words[rnd.IntN(len(words))]...)
			if rnd.IntN(8) == 0 {
				buf = append(buf, '\n')
			} else {
				buf = append(buf, ' ')
			}
		}
		buf = append(buf[:size-1], '\n')
		return fmt.Sprintf("f%06d.txt", i), buf
	}
	for len(buf) < size {
		buf = append(buf, byte(rnd.Uint32()))
	}
	return fmt.Sprintf("f%06d.bin", i), buf
}
