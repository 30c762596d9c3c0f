// Command smallgopherd is a Gopher server (RFC 1436) with the habits of
// the small servers written since the protocol's revival, for gofer's
// integration tests: it serves a directory as a hole with LF-only menus,
// no final "." line on menus or text, text files sent exactly as they are
// on disk (no dot-stuffing), and UTF-8 display strings. integration/up
// starts it on the sample archive; integration/LAYOUT.md describes it.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"os"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

func main() {
	addr := flag.String("listen", "127.0.0.74:70", "address to listen on")
	root := flag.String("root", "", "directory to serve")
	flag.Parse()
	r, err := os.OpenRoot(*root)
	if err != nil {
		log.Fatal(err)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(l.Addr().String())
	s := &server{root: r, host: host, port: port}
	log.Printf("smallgopherd: %s on %s", *root, l.Addr())
	for {
		c, err := l.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go s.serve(c)
	}
}

type server struct {
	root       *os.Root
	host, port string
}

func (s *server) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	line, err := bufio.NewReaderSize(c, 4096).ReadString('\n')
	if err != nil && line == "" {
		return
	}
	// The selector ends at the line end, or at a TAB (a search or a
	// Gopher+ string, which a small server ignores).
	sel, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), "\t")
	w := bufio.NewWriter(c)
	if err := s.answer(w, sel); err != nil {
		log.Printf("%q: %v", sel, err)
		// Small servers answer with one LF-ended error line, no ".".
		fmt.Fprintf(w, "3%s\t\terror.host\t1\n", strings.ReplaceAll(err.Error(), "\t", " "))
	}
	w.Flush()
}

// answer writes the item sel names: a menu for a directory, the file's
// bytes otherwise.
func (s *server) answer(w io.Writer, sel string) error {
	name := strings.Trim(path.Clean("/"+sel), "/")
	if name == "" {
		name = "."
	}
	fi, err := s.root.Stat(name)
	if err != nil {
		return errors.New("not found")
	}
	if fi.IsDir() {
		return s.menu(w, name)
	}
	f, err := s.root.Open(name)
	if err != nil {
		return errors.New("not found")
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// menu lists a directory, one LF-ended line an entry, sorted by name, and
// no final "." line.
func (s *server) menu(w io.Writer, dir string) error {
	// Not fs.ReadDir: io/fs refuses names that are not UTF-8.
	d, err := s.root.Open(dir)
	if err != nil {
		return err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if dir == "." {
		fmt.Fprintf(w, "iBienvenue au café — 日本語のゴーファー穴\t\t%s\t%s\n", s.host, s.port)
	}
	for _, e := range ents {
		n := e.Name()
		if strings.ContainsAny(n, "\t\r\n") {
			continue // a name a menu line cannot carry
		}
		sel := "/" + n
		if dir != "." {
			sel = "/" + dir + "/" + n
		}
		fmt.Fprintf(w, "%c%s\t%s\t%s\t%s\n", itemType(e), display(n), sel, s.host, s.port)
	}
	return nil
}

// itemType is the type by extension: 1 for a directory, 0 for text, 9
// for anything else.
func itemType(e fs.DirEntry) byte {
	n := strings.ToLower(e.Name())
	switch {
	case e.IsDir():
		return '1'
	case strings.HasSuffix(n, ".txt"), strings.HasPrefix(n, "readme"):
		return '0'
	}
	return '9'
}

// display is a name as UTF-8: a name that is not UTF-8 is taken as
// ISO 8859-1, the common encoding of old archives' names.
func display(n string) string {
	if utf8.ValidString(n) {
		return n
	}
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		b.WriteRune(rune(n[i]))
	}
	return b.String()
}
