package schemes

import (
	"io"
	"time"
)

// ArchivedReader reads what an archive kept of one protocol's replies the
// way that protocol's fetcher reads them off the wire, so that a fetcher
// serving captures (replay) answers as the live server did. The fetch
// package gives the shipped ones by scheme (fetch.ArchivedReader): FTP's
// and Gopher's, whose replies are in the protocol's own forms.
type ArchivedReader interface {
	// Listing reads the captured reply to a listing of base: of media
	// type mediaType as the capture names it (text/x-ftp-list,
	// text/x-ftp-mlsd, text/x-ftp-nlst; application/gopher-menu), date
	// the time of the capture, which places a listing's year-less dates.
	// req gives the line and entry limits. Closing the listing leaves r
	// open.
	Listing(r io.Reader, mediaType string, base *URL, date time.Time, req *Request) Listing
	// Document reads the captured reply to a fetch of the document u as
	// the fetcher gives its body: a Gopher text item without its
	// dot-stuffing and "." line; r itself where the protocol sends a
	// document as it is.
	Document(r io.Reader, u *URL) io.Reader
	// Info reads a captured block of metadata about u (Gopher+
	// attributes) as a response's Info; nil for a protocol that keeps
	// none.
	Info(text string, u *URL) any
}

// ListingOf returns a Listing of entries already read, in their order,
// whose Next returns err after the last of them (io.EOF when err is nil).
// Closing it does nothing.
func ListingOf(entries []Entry, err error) Listing {
	if err == nil {
		err = io.EOF
	}
	return &entryList{entries: entries, err: err}
}

type entryList struct {
	entries []Entry
	err     error
}

func (l *entryList) Next() (Entry, error) {
	if len(l.entries) == 0 {
		return Entry{}, l.err
	}
	e := l.entries[0]
	l.entries = l.entries[1:]
	return e, nil
}

func (l *entryList) Close() error { return nil }
