// Command genarchive writes gofer's sample archive: a deterministic tree of a
// few thousand small files whose names and contents exercise what retrieval
// and mirroring get wrong (spaces, %, ;, #, Latin-1 and UTF-8 bytes in
// names; text with lines that begin with '.'; binary files holding every
// byte value). It also writes a sha256 manifest in sha256sum format, with
// paths relative to the archive root, outside the tree so that mirrors of
// the tree can be compared against it.
//
// The same flags always give the same bytes: names and contents come from a
// fixed-seed generator, and modification times are set to one fixed instant
// so that servers report the same dates on every run.
//
// Usage:
//
//	genarchive -dir /tmp/gofer-it/archive -manifest /tmp/gofer-it/archive.sha256
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// modTime is the instant every generated file and directory carries.
var modTime = time.Date(1994, time.December, 20, 12, 0, 0, 0, time.UTC)

func main() {
	dir := flag.String("dir", "/tmp/gofer-it/archive", "where to write the archive (replaced if present)")
	manifest := flag.String("manifest", "", "where to write the sha256 manifest (default: DIR.sha256)")
	files := flag.Int("files", 3000, "number of generated files under tree/")
	flag.Parse()
	if *manifest == "" {
		*manifest = filepath.Clean(*dir) + ".sha256"
	}
	if err := run(*dir, *manifest, *files); err != nil {
		fmt.Fprintln(os.Stderr, "genarchive:", err)
		os.Exit(1)
	}
}

func run(dir, manifest string, treeFiles int) error {
	if rel, err := filepath.Rel(dir, manifest); err == nil && !strings.HasPrefix(rel, "..") {
		return fmt.Errorf("manifest %s must be outside the archive %s", manifest, dir)
	}
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	g := &gen{root: tmp, rnd: rng{state: 0x676f666572}} // "gofer"
	g.build(treeFiles)
	if g.err != nil {
		return g.err
	}
	if err := g.stamp(); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	return writeManifest(manifest, g.sums)
}

// rng is splitmix64: tiny, fast, and fixed forever, unlike math/rand's
// unspecified streams.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

type gen struct {
	root string
	rnd  rng
	sums map[string]string // relative path -> hex sha256
	err  error
}

func (g *gen) file(rel string, data []byte) {
	if g.err != nil {
		return
	}
	p := filepath.Join(g.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.err = err
		return
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		g.err = err
		return
	}
	if g.sums == nil {
		g.sums = map[string]string{}
	}
	s := sha256.Sum256(data)
	g.sums[rel] = hex.EncodeToString(s[:])
}

func (g *gen) emptyDir(rel string) {
	if g.err == nil {
		g.err = os.MkdirAll(filepath.Join(g.root, rel), 0o755)
	}
}

var words = strings.Fields(`gopher menu selector archive mirror anonymous
passive listing article server client retrieval protocol octet segment type
binary text search index veronica jughead archie wais prospero telnet news
group message university minnesota campus burrow hole root tree branch leaf`)

// text returns n lines of words; with dots, some lines begin with '.',
// including a lone "." and a "..", which a Gopher or NNTP server must
// dot-stuff and a client must unstuff.
func (g *gen) text(n int, dots bool) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if dots && i%5 == 2 {
			switch (i / 5) % 4 {
			case 0:
				b.WriteString(".\n")
			case 1:
				b.WriteString("..\n")
			case 2:
				b.WriteString(".hidden line that starts with a dot\n")
			default:
				b.WriteString(". space after the dot\n")
			}
			continue
		}
		k := 3 + g.rnd.intn(9)
		for j := 0; j < k; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[g.rnd.intn(len(words))])
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func (g *gen) binary(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rnd.next())
	}
	return b
}

func (g *gen) build(treeFiles int) {
	g.file("README.txt", []byte(readme))

	// Text files. dots.txt is the one Gopher and mirror tests use for
	// dot-stuffing; crlf.txt already has CRLF line ends on disk.
	g.file("text/plain.txt", g.text(40, false))
	g.file("text/dots.txt", []byte(".\n..\n...\n.leading dot\nmiddle line\n. \n.\r\nlast line\n"))
	g.file("text/dotted-words.txt", g.text(60, true))
	g.file("text/crlf.txt", []byte("first line\r\nsecond line\r\n.\r\nafter a lone dot\r\n"))
	g.file("text/no-final-newline.txt", []byte("no newline at the end"))
	g.file("text/empty.txt", nil)
	g.file("text/long-line.txt", []byte(strings.Repeat("0123456789", 1000)+"\n"))

	// Binary files: every byte value, CR/LF/NUL runs, random data.
	all := make([]byte, 256*4)
	for i := range all {
		all[i] = byte(i)
	}
	g.file("binary/all-bytes.bin", all)
	g.file("binary/crlf-nul.bin", []byte("\r\n.\r\n\x00\r\r\n\n\x00.\r\n"))
	g.file("binary/random-64k.bin", g.binary(64<<10))
	g.file("binary/random-1m.bin", g.binary(1<<20))
	g.file("binary/image.gif", append([]byte("GIF89a"), g.binary(2000)...))

	// Names that need escaping in URLs or are not UTF-8. Each name is
	// unique by its part before the extension, so servers that group
	// files by base name (pygopherd's views) still list every one.
	for _, name := range []string{
		"with space.txt",
		"two  spaces and trailing space .txt",
		"100%.txt",
		"%41 not an escape.txt",
		"semi;colon.txt",
		"semi;type=a",
		"hash#fragment.txt",
		"question?mark.txt",
		"plus+sign.txt",
		"ampersand&equals=.txt",
		"at@sign.txt",
		"colon:name.txt",
		"tilde~name.txt",
		"brackets[1].txt",
		"quote'single.txt",
		"caf\xe9-latin1.txt",   // Latin-1 é: not valid UTF-8
		"\xfcber-latin1.txt",   // Latin-1 ü
		"café-utf8.txt",        // UTF-8 é
		"日本語-utf8.txt",         // UTF-8, three bytes a rune
		"mixed \xe9 and é.txt", // Latin-1 and UTF-8 in one name
		"UPPER.TXT",
		"upper-case-twin.txt",
	} {
		g.file("names/"+name, []byte("this file is named "+name+"\n"))
	}
	g.file("names/dir with space/inner file.txt", []byte("inside a directory with a space\n"))
	g.file("names/percent%25dir/file.txt", []byte("inside percent%25dir\n"))
	g.file("names/semi;dir/file.txt", []byte("inside semi;dir\n"))
	g.file("names/latin1-\xe9-dir/file.txt", []byte("inside a Latin-1 named directory\n"))
	g.file("names/utf8-é-dir/file.txt", []byte("inside a UTF-8 named directory\n"))
	g.emptyDir("names/empty dir")

	// Deep nesting.
	deep := "deep"
	for i := 1; i <= 12; i++ {
		deep += fmt.Sprintf("/level%02d", i)
		g.file(deep+"/marker.txt", []byte(fmt.Sprintf("depth %d\n", i)))
	}

	// The bulk: tree/dAA/dBB/fNNNN.ext, 10 x 10 directories.
	for i := 0; i < treeFiles; i++ {
		dir := fmt.Sprintf("tree/d%02d/d%02d", i%10, (i/10)%10)
		switch i % 4 {
		case 0, 1:
			g.file(fmt.Sprintf("%s/f%04d.txt", dir, i), g.text(1+g.rnd.intn(30), i%8 == 1))
		case 2:
			g.file(fmt.Sprintf("%s/f%04d.bin", dir, i), g.binary(g.rnd.intn(4096)))
		default:
			g.file(fmt.Sprintf("%s/f%04d.dat", dir, i), g.binary(g.rnd.intn(512)))
		}
	}
}

// stamp sets every file's and directory's times to modTime, deepest first
// so that setting a child does not disturb its parent.
func (g *gen) stamp() error {
	var paths []string
	err := filepath.WalkDir(g.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(paths) - 1; i >= 0; i-- {
		if err := os.Chtimes(paths[i], modTime, modTime); err != nil {
			return err
		}
	}
	return nil
}

func writeManifest(path string, sums map[string]string) error {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, n := range names {
		// sha256sum format: hash, two spaces, path. No generated name
		// holds a backslash or newline, so no escaping is needed.
		fmt.Fprintf(w, "%s  %s\n", sums[n], n)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

const readme = `gofer sample archive

This tree is generated by integration/cmd/genarchive. Its sha256 manifest
lives beside it (archive.sha256), outside the tree.

text/     text files, some with lines that begin with '.'
binary/   binary files, every byte value
names/    names with spaces, %, ;, #, Latin-1 and UTF-8 bytes
deep/     twelve levels of directories
tree/     a few thousand small text and binary files
`
