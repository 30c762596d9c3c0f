// Command faultsbench is the helper of integration/bench/faults.
//
//	faultsbench tree DIR FILES BIG BIGSIZE   make DIR (once): FILES small files and BIG files of BIGSIZE bytes; write DIR.sha256
//	faultsbench check DIR MANIFEST           compare a mirror in DIR with MANIFEST; print what differs
//	faultsbench xfer LOG OFFSET PREFIX RETRIED   count vsftpd's complete downloads under PREFIX from byte OFFSET of LOG
//
// tree is deterministic: the same bytes for the same arguments on every
// machine, small files of 0 to 4 KiB in directories of 500, every mtime
// 2001-02-03 04:05 UTC. It writes DIR.sha256 (sha256sum format, paths
// relative to DIR) and DIR.stamp, and leaves a DIR whose stamp matches
// as it is.
//
// check prints one line, "files N ok N missing N differ N extra N
// temporary N", and exits 1 unless every file is there, byte for byte,
// with nothing else but DIR/.gofer and no file in DIR/.gofer/tmp.
//
// xfer reads vsftpd's transfer lines ("OK DOWNLOAD: ... \"/PATH\", N
// bytes") and prints "downloads N paths N twice N unexplained N": the
// complete downloads, the paths downloaded, those downloaded completely
// more than once, and of those the ones not in RETRIED (one a line: the
// URLs of gofer -v's "retry" lines, the paths, relative to the mirror,
// of its "changed" lines), which a client that fetches each file once
// must never have.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/integration/itest"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch a := os.Args[2:]; os.Args[1] {
	case "tree":
		if len(a) != 4 {
			usage()
		}
		err = tree(a[0], atoi(a[1]), atoi(a[2]), atoi(a[3]))
	case "check":
		if len(a) != 2 {
			usage()
		}
		var ok bool
		if ok, err = check(a[0], a[1]); err == nil && !ok {
			os.Exit(1)
		}
	case "xfer":
		if len(a) != 4 {
			usage()
		}
		err = xfer(a[0], int64(atoi(a[1])), a[2], a[3])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "faultsbench:", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: faultsbench tree DIR FILES BIG BIGSIZE | check DIR MANIFEST | xfer LOG OFFSET PREFIX RETRIED")
	os.Exit(2)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		usage()
	}
	return n
}

// perDir is how many small files share a directory: well under what a
// mirror holds of one listing in memory.
const perDir = 500

var treeTime = time.Date(2001, 2, 3, 4, 5, 0, 0, time.UTC)

func tree(dir string, files, big, bigSize int) error {
	stamp := fmt.Sprintf("faultsbench tree v1 %d %d %d\n", files, big, bigSize)
	if b, err := os.ReadFile(dir + ".stamp"); err == nil && string(b) == stamp {
		if _, err := os.Stat(dir + ".sha256"); err == nil {
			return nil
		}
	}
	os.Remove(dir + ".stamp")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(files), uint64(bigSize)))
	var manifest strings.Builder
	write := func(rel string, b []byte) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		fmt.Fprintf(&manifest, "%s  %s\n", hex.EncodeToString(sum[:]), rel)
		return os.Chtimes(p, treeTime, treeTime)
	}
	fill := func(b []byte) {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
	for i := range files {
		b := make([]byte, rng.IntN(4097))
		fill(b)
		if err := write(fmt.Sprintf("d%03d/f%06d.bin", i/perDir, i), b); err != nil {
			return err
		}
	}
	b := make([]byte, bigSize)
	for i := range big {
		fill(b)
		if err := write(fmt.Sprintf("big/big%02d.bin", i), b); err != nil {
			return err
		}
	}
	// Directories too carry the old time, so that a listing looks alike on every run.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			defer os.Chtimes(p, treeTime, treeTime)
		}
		return nil
	})
	if err := os.WriteFile(dir+".sha256", []byte(manifest.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(dir+".stamp", []byte(stamp), 0o644)
}

func check(dir, manifestPath string) (bool, error) {
	want, err := itest.ReadManifest(manifestPath)
	if err != nil {
		return false, err
	}
	var ok, differ, extra, temporary int
	seen := map[string]bool{}
	var shown []string
	show := func(what, rel string) {
		if len(shown) < 10 {
			shown = append(shown, what+" "+rel)
		}
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir():
			return nil
		case strings.HasPrefix(rel, ".gofer/tmp/"):
			temporary++
			show("temporary", rel)
			return nil
		case strings.HasPrefix(rel, ".gofer/"):
			return nil
		}
		sum, listed := want[rel]
		if !listed {
			extra++
			show("extra", rel)
			return nil
		}
		seen[rel] = true
		got, err := itest.FileSHA256(p)
		if err != nil {
			return err
		}
		if got == sum {
			ok++
		} else {
			differ++
			show("differs", rel)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	missing := len(want) - len(seen)
	for rel := range want {
		if !seen[rel] {
			show("missing", rel)
		}
	}
	fmt.Printf("files %d ok %d missing %d differ %d extra %d temporary %d\n", len(want), ok, missing, differ, extra, temporary)
	for _, s := range shown {
		fmt.Fprintln(os.Stderr, "  "+s)
	}
	return ok == len(want) && extra == 0 && temporary == 0, nil
}

var okDownload = regexp.MustCompile(`OK DOWNLOAD: Client "[^"]*", "([^"]*)", \d+ bytes`)

func xfer(logPath string, offset int64, prefix, retriedPath string) error {
	retried := map[string]bool{}
	if b, err := os.ReadFile(retriedPath); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if l == "" {
				continue
			}
			if !strings.HasPrefix(l, "ftp:") {
				// A local path, relative to the mirror's root.
				retried[path.Join(prefix, l)] = true
				continue
			}
			u, err := url.Parse(strings.TrimSuffix(l, ";type=i"))
			if err != nil {
				continue
			}
			retried[u.Path] = true
		}
	}
	f, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return err
	}
	count := map[string]int{}
	downloads := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := okDownload.FindStringSubmatch(sc.Text())
		if m == nil || !strings.HasPrefix(m[1], prefix) {
			continue
		}
		downloads++
		count[m[1]]++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var twice, unexplained []string
	for p, n := range count {
		if n > 1 {
			twice = append(twice, p)
			if !retried[p] {
				unexplained = append(unexplained, p)
			}
		}
	}
	sort.Strings(unexplained)
	fmt.Printf("downloads %d paths %d twice %d unexplained %d\n", downloads, len(count), len(twice), len(unexplained))
	for _, p := range unexplained[:min(len(unexplained), 10)] {
		fmt.Fprintf(os.Stderr, "  downloaded %d times, never retried: %s\n", count[p], p)
	}
	return nil
}
