package warc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nlnwa/gowarc"
)

// Entry is one record as a listing shows it.
type Entry struct {
	Type   string
	URI    string
	Date   time.Time
	Digest string // WARC-Payload-Digest, else WARC-Block-Digest
	Length int64  // Content-Length of the block
	Offset int64  // where the record starts in the file (its gzip member)
	ID     string
}

// Walk reads every record of the WARC file path (gzip members or plain)
// and calls fn with each; fn may read the record's payload (see Payload)
// before it returns. strict makes a record that breaks the standard, or
// whose digests do not match its block, an error.
func Walk(path string, strict bool, fn func(Entry, gowarc.WarcRecord) error) error {
	opts := []gowarc.WarcRecordOption{gowarc.WithBufferMaxMemBytes(1 << 20)}
	if strict {
		opts = append(opts, gowarc.WithStrictValidation())
	} else {
		opts = append(opts, gowarc.WithSyntaxErrorPolicy(gowarc.ErrIgnore), gowarc.WithSpecViolationPolicy(gowarc.ErrIgnore),
			gowarc.WithUnknownRecordTypePolicy(gowarc.ErrIgnore))
	}
	optionsMu.Lock()
	r, err := gowarc.NewWarcFileReader(path, 0, opts...)
	optionsMu.Unlock()
	if err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	defer r.Close()
	for {
		rec, off, val, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("warc: %s: record at offset %d: %w", path, off, err)
		}
		if strict && val != nil && !val.Valid() {
			rec.Close()
			return fmt.Errorf("warc: %s: record at offset %d: %s", path, off, val)
		}
		h := rec.WarcHeader()
		e := Entry{Type: rec.Type().String(), URI: h.Get(gowarc.WarcTargetURI), Offset: off, ID: h.Get(gowarc.WarcRecordID)}
		e.Date, _ = h.GetTime(gowarc.WarcDate)
		e.Length, _ = h.GetInt64(gowarc.ContentLength)
		e.Digest = h.Get(gowarc.WarcPayloadDigest)
		if e.Digest == "" {
			e.Digest = h.Get(gowarc.WarcBlockDigest)
		}
		if strict {
			if err := rec.ValidateDigest(val); err != nil || !val.Valid() {
				rec.Close()
				return fmt.Errorf("warc: %s: record at offset %d: digest: %v %s", path, off, err, val)
			}
		}
		err = fn(e, rec)
		rec.Close()
		if err != nil {
			return err
		}
	}
}

// Payload returns a reader of the record's payload: for an HTTP request or
// response the body after the header block, as it crossed the wire; for a
// Gemini response the body after its status line; for other records the
// whole block.
func Payload(rec gowarc.WarcRecord) (io.Reader, error) {
	switch b := rec.Block().(type) {
	case gowarc.PayloadBlock:
		return b.PayloadBytes()
	default:
		r, err := rec.Block().RawBytes()
		if err != nil || rec.Type() != gowarc.Response || !isGeminiResponse(rec.WarcHeader().Get(gowarc.ContentType)) {
			return r, err
		}
		br := bufio.NewReader(r)
		if _, err := br.ReadSlice('\n'); err != nil && err != bufio.ErrBufferFull {
			return strings.NewReader(""), nil // a status line alone, cut
		}
		return br, nil
	}
}

// ErrNotFound is Cat's answer when no record has the URI.
var ErrNotFound = errors.New("no record for that URI")

// Cat copies to w the payload of the first response or resource record
// of path whose target URI is uri (CatArchives of the one file).
func Cat(path, uri string, w io.Writer) error {
	return CatArchives([]string{path}, uri, time.Time{}, w)
}
