package gopher

import (
	"bufio"
	"io"

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
