package replay

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/warc"
)

// Payload is the captured payload of one record, streamed from its
// segment. Close it when done.
type Payload struct {
	io.Reader
	// URI, Type and ContentType are the record's (a revisit's: the record
	// it refers to).
	URI         string
	Type        string
	ContentType string
	// Size is the length of the payload in bytes.
	Size int64
	// Date is the capture's WARC-Date (a revisit's own date).
	Date time.Time

	rec gowarc.WarcRecord
	f   *os.File
}

// Close releases the record and its segment.
func (p *Payload) Close() error {
	if p.rec != nil {
		p.rec.Close()
		p.rec = nil
	}
	return p.f.Close()
}

// Lookup returns the payload of uri's capture nearest the archive's time
// whose record type is one of types (all when none is given); a revisit
// is followed to the record it refers to. It is ErrNotCaptured, wrapped,
// when no such capture exists.
func (a *Archive) Lookup(uri string, types ...string) (*Payload, error) {
	return a.lookup(uri, false, types)
}

// lookup is Lookup; raw has the Payload read the record's whole block
// rather than its payload.
func (a *Archive) lookup(uri string, raw bool, types []string) (*Payload, error) {
	c := a.pick(uri, func(c *capture) bool {
		if c.entry.Type == "revisit" || len(types) == 0 {
			return true
		}
		for _, t := range types {
			if c.entry.Type == t {
				return true
			}
		}
		return false
	})
	if c == nil {
		return nil, fmt.Errorf("%s: %w", uri, ErrNotCaptured)
	}
	orig := c
	if c.entry.Type == "revisit" {
		var err error
		if c, err = a.revisited(c); err != nil {
			return nil, err
		}
	}
	p, err := a.open(c, raw)
	if err != nil {
		return nil, err
	}
	p.Date = orig.date
	return p, nil
}

// revisited returns the capture a revisit record stands for: the
// capture of the same URI with the same payload digest made before it (as
// the writer links them), else the record its WARC-Refers-To names, else
// the capture of its WARC-Refers-To-Target-URI at its
// WARC-Refers-To-Date.
func (a *Archive) revisited(rv *capture) (*capture, error) {
	var found *capture
	for _, c := range a.byURI[rv.entry.URL] {
		if c.entry.Type != "revisit" && c.entry.Digest == rv.entry.Digest && rv.entry.Digest != "" && !c.date.After(rv.date) {
			found = c
		}
	}
	if found != nil {
		return found, nil
	}
	h, err := a.header(rv)
	if err != nil {
		return nil, err
	}
	if c := a.byID[h.Get(gowarc.WarcRefersTo)]; c != nil && c.entry.Type != "revisit" {
		return c, nil
	}
	target, date := h.Get(gowarc.WarcRefersToTargetURI), h.Get(gowarc.WarcRefersToDate)
	for _, c := range a.byURI[target] {
		if c.entry.Type != "revisit" && c.entry.Date == date {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s: revisit record at %s offset %d refers to a record not in the archive: %w",
		rv.entry.URL, rv.seg, rv.entry.Offset, ErrNotCaptured)
}

// header reads the WARC header of a capture's record.
func (a *Archive) header(c *capture) (*gowarc.WarcFields, error) {
	p, err := a.open(c, false)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.rec.WarcHeader(), nil
}

// open reads the header of c's record, by seeking to its gzip member (and
// into it, for a member holding many records) or to the record itself in
// an uncompressed file, and returns its payload unread, or its whole
// block when raw.
func (a *Archive) open(c *capture, raw bool) (*Payload, error) {
	f, err := os.Open(c.seg)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	var ra io.ReaderAt = f
	if c.base > 0 {
		ra = io.NewSectionReader(f, c.base, 1<<62) // the WARC file inside a WACZ
	}
	wr, _, err := warc.OpenRecord(ra, c.entry.Offset, c.entry.Length, c.entry.Inner)
	var rec gowarc.WarcRecord
	if err == nil {
		rec, err = wr.Parse()
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("replay: %s: record of %s at offset %d: %w", c.seg, c.entry.URL, c.entry.Offset, err)
	}
	h := rec.WarcHeader()
	p := &Payload{URI: warc.TrimURI(h.Get(gowarc.WarcTargetURI)), Type: rec.Type().String(), ContentType: h.Get(gowarc.ContentType),
		rec: rec, f: f}
	p.Size, _ = h.GetInt64(gowarc.ContentLength)
	var r io.Reader
	if raw {
		r, err = rec.Block().RawBytes()
	} else {
		r, err = warc.Payload(rec)
		if ph, ok := rec.Block().(gowarc.ProtocolHeaderBlock); ok {
			// The payload of an HTTP message: its block past the header.
			p.Size -= int64(len(ph.ProtocolHeaderBytes()))
		}
	}
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("replay: %s: record of %s at offset %d: %w", c.seg, c.entry.URL, c.entry.Offset, err)
	}
	p.Reader = r
	return p, nil
}

// lookupResponse returns the HTTP response of uri's capture nearest the
// archive's time, as it was recorded: status line, header block and body,
// transfer coding included. Of a revisit, the header block is the
// revisit's own and the body the payload of the record it refers to.
// head is the header block alone.
func (a *Archive) lookupResponse(uri string) (p *Payload, head []byte, err error) {
	c := a.pick(uri, func(c *capture) bool { return c.entry.Type == "response" || c.entry.Type == "revisit" })
	if c == nil {
		return nil, nil, fmt.Errorf("%s: %w", uri, ErrNotCaptured)
	}
	orig := c
	if c.entry.Type == "revisit" {
		rv, err := a.open(c, false)
		if err != nil {
			return nil, nil, err
		}
		if ph, ok := rv.rec.Block().(gowarc.ProtocolHeaderBlock); ok {
			head = slices.Clone(ph.ProtocolHeaderBytes())
		}
		rv.Close()
		if c, err = a.revisited(c); err != nil {
			return nil, nil, err
		}
	}
	if p, err = a.open(c, false); err != nil {
		return nil, nil, err
	}
	ph, ok := p.rec.Block().(gowarc.ProtocolHeaderBlock)
	if !ok || p.Type != "response" {
		p.Close()
		return nil, nil, fmt.Errorf("%s: the record at %s offset %d is no HTTP response: %w", uri, c.seg, c.entry.Offset, ErrNotCaptured)
	}
	if head == nil {
		head = ph.ProtocolHeaderBytes()
	}
	p.Reader = io.MultiReader(bytes.NewReader(head), p.Reader)
	p.Size += int64(len(head))
	p.Date = orig.date
	return p, head, nil
}
