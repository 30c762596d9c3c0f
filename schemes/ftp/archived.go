package ftp

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// ParseListing reads a directory listing from r: the bytes of a LIST
// reply, or of an MLSD reply (RFC 3659 §7) when mlsd, as an archive holds
// them. It returns the entries a fetch of base, the directory's URL, would
// list: each with the URL that fetches it, a line in no known form as an
// entry of type schemes.TypeUnparsed. now places the year-less dates of
// Unix listings; req gives the line and entry limits.
func ParseListing(r io.Reader, base *schemes.URL, mlsd bool, now time.Time, req *schemes.Request) ([]schemes.Entry, error) {
	req = req.Ready()
	var dir []string
	if base.FTP != nil {
		dir = base.FTP.Segments
		if n := len(dir); n > 0 && dir[n-1] == "" {
			dir = dir[:n-1]
		}
	}
	lines := lineproto.NewReader(bufio.NewReader(r), req.LineLimit())
	list := newListParser(now)
	list.dir = strings.Join(dir, "/")
	var out []schemes.Entry
	add := func(es ...schemes.Entry) error {
		for _, e := range es {
			if len(out) == req.EntryLimit() {
				return schemes.Errorf(schemes.ErrTooLarge, "ftp: listing has more than %d entries", req.EntryLimit())
			}
			if e.Type != schemes.TypeUnparsed {
				name := e.Name
				if e.Version > 0 && e.Type != schemes.TypeDir {
					name += ";" + strconv.Itoa(e.Version)
				}
				e.URL = entryURL(base, dir, name, e.Type == schemes.TypeDir)
			}
			out = append(out, e)
		}
		return nil
	}
	for {
		line, err := lines.ReadLine()
		if errors.Is(err, schemes.ErrTooLarge) {
			return out, schemes.Errorf(schemes.ErrTooLarge, "ftp: listing line longer than %d bytes", req.LineLimit())
		}
		if err == io.EOF && line == "" {
			return out, add(list.end(nil)...)
		}
		if err != nil && err != io.EOF {
			return out, err
		}
		if mlsd {
			if e, ok := mlsdEntry(line, list.dir); ok {
				if err := add(e); err != nil {
					return out, err
				}
			}
			continue
		}
		if err := add(list.feed(nil, line)...); err != nil {
			return out, err
		}
	}
}
