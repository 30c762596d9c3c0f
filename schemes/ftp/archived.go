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
	verb := "LIST"
	if mlsd {
		verb = "MLSD"
	}
	return parseReply(r, base, verb, now, req)
}

// parseReply reads the reply to verb (LIST, MLSD or NLST) from r, as
// ParseListing says; an NLST line is the entry a fetch makes of it.
func parseReply(r io.Reader, base *schemes.URL, verb string, now time.Time, req *schemes.Request) ([]schemes.Entry, error) {
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
		var es []schemes.Entry
		switch verb {
		case "NLST":
			if line != "" && line != "." && line != ".." {
				es = append(es, nlstEntry(base, dir, "", line))
			}
		case "MLSD":
			if e, ok := mlsdEntry(line, list.dir); ok {
				es = append(es, e)
			}
		default:
			es = list.feed(nil, line)
		}
		if err := add(es...); err != nil {
			return out, err
		}
	}
}

// Archived reads what an archive kept of FTP replies as the Fetcher reads
// them (schemes.ArchivedReader): a LIST, MLSD or NLST reply by the media
// type the capture gave it (text/x-ftp-list, text/x-ftp-mlsd,
// text/x-ftp-nlst), line by line as a fetch reads it; a file's bytes as
// they are.
type Archived struct{}

// Listing reads a captured listing of the directory base.
func (Archived) Listing(r io.Reader, mediaType string, base *schemes.URL, date time.Time, req *schemes.Request) schemes.Listing {
	verb := "LIST"
	if kind, ok := strings.CutPrefix(strings.ToLower(mediaType), "text/x-ftp-"); ok {
		kind, _, _ = strings.Cut(kind, ";")
		if kind == "mlsd" || kind == "nlst" {
			verb = strings.ToUpper(kind)
		}
	}
	return schemes.ListingOf(parseReply(r, base, verb, date, req))
}

// Document returns r: FTP sends a file as it is.
func (Archived) Document(r io.Reader, _ *schemes.URL) io.Reader { return r }

// Info returns nil: FTP keeps no metadata blocks.
func (Archived) Info(string, *schemes.URL) any { return nil }

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
