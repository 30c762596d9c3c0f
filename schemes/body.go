package schemes

import (
	"bytes"
	"sync"
)

// SetBody gives r a Body if it has none, so that Body is never nil whatever
// the Kind:
//
//   - a listing's Body reads its text form (WriteListing), streamed from
//     the Listing one entry at a time. Both read the same entries: use the
//     one or the other. Closing either closes the listing.
//   - an info response's Body reads Info's readable form (WriteInfo).
//   - a session's, hand-off's or redirect's Body fails every Read with an
//     error that says to use Session, Command or Location instead.
//
// A fetcher may leave Body nil for those kinds; the fetch package calls
// SetBody on every Response it returns.
func (r *Response) SetBody() {
	if r.Body != nil {
		return
	}
	switch r.Kind {
	case KindListing:
		if r.Listing != nil {
			l := &onceListing{Listing: r.Listing}
			r.Listing = l
			r.Body = &listingBody{l: l}
			return
		}
	case KindInfo:
		r.Body = &infoBody{info: r.Info}
		return
	}
	r.Body = noBody{what: r.describe()}
}

// describe names what a response without a body holds, for its error.
func (r *Response) describe() string {
	scheme := "the"
	if r.URL != nil && r.URL.Scheme != "" {
		scheme = r.URL.Scheme
	}
	switch r.Kind {
	case KindSession:
		return scheme + " session: the response carries no body; use Session"
	case KindHandoff:
		return scheme + " hand-off: the response carries no body; use Command"
	case KindRedirect:
		return scheme + " redirect: the response carries no body; use Location"
	}
	return scheme + " response carries no body"
}

// noBody is the Body of a response that has none: every Read says so.
type noBody struct{ what string }

func (b noBody) Read([]byte) (int, error) { return 0, Errorf(ErrUsage, "%s", b.what) }
func (noBody) Close() error               { return nil }

// onceListing closes its Listing once, whether the Body or the Listing is
// closed first, or both.
type onceListing struct {
	Listing
	once sync.Once
	err  error
}

func (l *onceListing) Close() error {
	l.once.Do(func() { l.err = l.Listing.Close() })
	return l.err
}

// listingBody reads a listing's text form, rendering one entry at a time
// as the reader asks for more: memory holds one line, however long the
// listing. A Read that has a line to give returns it rather than wait for
// the next entry, so that a reader sees each entry as soon as it arrives.
type listingBody struct {
	l    *onceListing
	text listingText
	buf  []byte // the rest of the current line
	err  error  // the listing's end (io.EOF) or failure, given after buf
}

func (b *listingBody) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(b.buf) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		e, err := b.l.Next()
		if err != nil {
			b.err = err
			return 0, err
		}
		b.buf = append(b.buf[:0], b.text.line(e)...)
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

func (b *listingBody) Close() error { return b.l.Close() }

// infoBody reads Info's readable form, rendered on the first Read.
type infoBody struct {
	info     any
	rendered bool
	r        bytes.Reader
}

func (b *infoBody) Read(p []byte) (int, error) {
	if !b.rendered {
		b.rendered = true
		var buf bytes.Buffer
		if err := WriteInfo(&buf, b.info); err != nil {
			return 0, err
		}
		b.r.Reset(buf.Bytes())
	}
	return b.r.Read(p)
}

func (*infoBody) Close() error { return nil }
