package gopher

import (
	"bufio"
	"io"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// NewMenu returns the listing of a menu read from r: the bytes a server
// sent for it, as an archive holds them (RFC 1436 §3.8, with or without
// its "." line). host and port are the server's, for the lines that leave
// them out; tls makes the lines that name that server gophers URLs. req
// gives the line and entry limits. Closing the listing leaves r open.
func NewMenu(r io.Reader, host string, port int, tls bool, req *schemes.Request) schemes.Listing {
	req = req.Ready()
	m := newMenuListing(r, nil, host, port, req)
	m.tls = tls
	return m
}

// NewText returns a reader of a text item (type 0) read from r: the bytes
// a server sent for it, as an archive holds them. It undoes what a fetch
// undoes: the dot-stuffing and the "." line of a server that sends them
// (RFC 1436 §3.8), leaving the text of one that does not as it is.
func NewText(r io.Reader) io.Reader {
	return newTextReader(bufio.NewReader(r))
}

// Archived reads what an archive kept of Gopher replies as the Fetcher
// reads them (schemes.ArchivedReader): a menu (type 1 or 7) with NewMenu,
// a text item (type 0) with NewText, any other item as it is, and a
// Gopher+ attribute block with ParseAttributes.
type Archived struct{}

// Listing reads a captured menu of base.
func (Archived) Listing(r io.Reader, _ string, base *schemes.URL, _ time.Time, req *schemes.Request) schemes.Listing {
	return NewMenu(r, base.Host, base.EffectivePort(), base.Scheme == "gophers", req)
}

// Document reads a captured item of u: text undone of its line protocol.
func (Archived) Document(r io.Reader, u *schemes.URL) io.Reader {
	if u.Gopher != nil && u.Gopher.Type == '0' {
		return NewText(r)
	}
	return r
}

// Info reads a captured attribute block of u's server.
func (Archived) Info(text string, u *schemes.URL) any {
	return ParseAttributes(text, u.Host, u.EffectivePort())
}
