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
	dir := dirSegments(base)
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

// Archived reads what an archive kept of FTP replies as the Fetcher reads
// them (schemes.ArchivedReader): a LIST, MLSD or NLST reply by the media
// type the capture gave it (text/x-ftp-list, text/x-ftp-mlsd,
// text/x-ftp-nlst) with ParseListing and, for NLST, one file entry per
// name; a file's bytes as they are.
type Archived struct{}

// Listing reads a captured listing of the directory base.
func (Archived) Listing(r io.Reader, mediaType string, base *schemes.URL, date time.Time, req *schemes.Request) schemes.Listing {
	mt := strings.ToLower(mediaType)
	if strings.HasPrefix(mt, "text/x-ftp-nlst") {
		return schemes.ListingOf(parseNLST(r, base, req.Ready()))
	}
	return schemes.ListingOf(ParseListing(r, base, strings.HasPrefix(mt, "text/x-ftp-mlsd"), date, req))
}

// Document returns r: FTP sends a file as it is.
func (Archived) Document(r io.Reader, _ *schemes.URL) io.Reader { return r }

// Info returns nil: FTP keeps no metadata blocks.
func (Archived) Info(string, *schemes.URL) any { return nil }

// parseNLST reads the names of an NLST reply, each a file of base (NLST
// says no more), leaving out ".", ".." and names with a slash.
func parseNLST(r io.Reader, base *schemes.URL, req *schemes.Request) ([]schemes.Entry, error) {
	dir := dirSegments(base)
	lines := lineproto.NewReader(bufio.NewReader(r), req.LineLimit())
	var out []schemes.Entry
	for {
		line, err := lines.ReadLine()
		if err != nil && (err != io.EOF || line == "") {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		name := strings.TrimRight(line, "\r")
		if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
			continue
		}
		if len(out) == req.EntryLimit() {
			return out, schemes.Errorf(schemes.ErrTooLarge, "ftp: listing has more than %d entries", req.EntryLimit())
		}
		out = append(out, schemes.Entry{Name: name, Type: schemes.TypeFile, Size: -1, URL: entryURL(base, dir, name, false)})
	}
}

// dirSegments is the directory base names, as segments without the empty
// one a directory's URL ends in.
func dirSegments(base *schemes.URL) []string {
	if base.FTP == nil {
		return nil
	}
	dir := base.FTP.Segments
	if n := len(dir); n > 0 && dir[n-1] == "" {
		dir = dir[:n-1]
	}
	return dir
}
