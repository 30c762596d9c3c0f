package warc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nlnwa/gowarc"
)

// Entry is one record as a listing shows it: what its header says.
type Entry struct {
	Type   string
	URI    string // WARC-Target-URI, angle brackets taken off
	Date   time.Time
	Digest string // WARC-Payload-Digest, else WARC-Block-Digest; "" when the header names neither
	Length int64  // Content-Length of the block, as the header has it
	Offset int64  // where the record starts in the file (its gzip member)
	Inner  int64  // where it starts in its gzip member's decompressed bytes (0: the member's first)
	ID     string
}

// EntryOf is the listing entry of a record.
func EntryOf(rec *Record) Entry {
	return Entry{Type: rec.Type(), URI: rec.TargetURI(), Date: rec.Date(), Digest: rec.Digest(),
		Length: rec.ContentLength, Offset: rec.Offset, Inner: rec.Inner, ID: rec.Header.Get("WARC-Record-ID")}
}

// ErrNoRecords is the error of a file in which no WARC (or ARC) record
// was found.
var ErrNoRecords = errors.New("no WARC record in the file")

// WalkOptions are what Walk reads with.
type WalkOptions struct {
	// Strict makes a record that breaks the standard, or whose digests
	// do not match its block, an error that ends the walk.
	Strict bool
	// MaxHeader bounds a record's header (ReadOptions).
	MaxHeader int
	// Problem receives each stretch of the file that holds no readable
	// record (a *RecordError), and the walk goes on; when nil, the walk
	// goes on and returns the first such problem at the end.
	Problem func(error)
}

// Walk reads every record of the WARC file path (WalkWith, with strict
// as WalkOptions.Strict).
func Walk(path string, strict bool, fn func(Entry, gowarc.WarcRecord) error) error {
	return WalkWith(path, WalkOptions{Strict: strict}, fn)
}

// WalkWith reads every record of the WARC or ARC file path, however it
// is compressed (Reader), and calls fn with each; fn may read the
// record's payload (see Payload) before it returns. What Entry and the
// record's header show is what the file says: nothing is added or
// repaired. A file without any record is ErrNoRecords.
func WalkWith(path string, opt WalkOptions, fn func(Entry, gowarc.WarcRecord) error) error {
	return walk(path, opt, true, fn)
}

// Entries is WalkWith for a listing: fn gets each record's Entry, and no
// block is parsed.
func Entries(path string, opt WalkOptions, fn func(Entry) error) error {
	return walk(path, opt, false, func(e Entry, _ gowarc.WarcRecord) error { return fn(e) })
}

func walk(path string, opt WalkOptions, parse bool, fn func(Entry, gowarc.WarcRecord) error) error {
	var first error
	problems, records := 0, 0
	err := readParts(path, func(p part) error {
		r := newPartReader(p, ReadOptions{MaxHeader: opt.MaxHeader})
		defer func() { records += r.Records() }()
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			var re *RecordError
			if errors.As(err, &re) {
				problems++
				err = fmt.Errorf("warc: %s: %w", p.name, err)
				if opt.Strict {
					return err
				}
				if opt.Problem != nil {
					opt.Problem(err)
				} else if first == nil {
					first = err
				}
				continue
			}
			if err != nil {
				return fmt.Errorf("warc: %s: %w", p.name, err)
			}
			if !parse {
				if err := fn(EntryOf(rec), nil); err != nil {
					return err
				}
				continue
			}
			wr, err := rec.parse(opt.Strict)
			if err != nil {
				if opt.Strict {
					return fmt.Errorf("warc: %s: record at offset %d: %w", p.name, rec.Offset, err)
				}
				continue
			}
			err = fn(EntryOf(rec), wr)
			wr.Close()
			if err != nil {
				return err
			}
		}
	})
	if err != nil {
		return err
	}
	if records == 0 {
		if first != nil {
			return fmt.Errorf("%w (%w)", first, ErrNoRecords)
		}
		return fmt.Errorf("warc: %s: %w", path, ErrNoRecords)
	}
	if first != nil && problems > 1 {
		return fmt.Errorf("%w (and %d more problems)", first, problems-1)
	}
	return first
}

// unmarshalers parse a record's block once a Reader framed it; each is
// made with every repair off, so that a header is never changed.
var unmarshalers = map[bool]*sync.Pool{false: {}, true: {}}

func unmarshaler(strict bool) gowarc.Unmarshaler {
	if u, ok := unmarshalers[strict].Get().(gowarc.Unmarshaler); ok {
		return u
	}
	optionsMu.Lock()
	defer optionsMu.Unlock()
	opts := []gowarc.WarcRecordOption{gowarc.WithBufferMaxMemBytes(1 << 20),
		gowarc.WithAddMissingDigest(false), gowarc.WithFixContentLength(false), gowarc.WithFixDigest(false),
		gowarc.WithAddMissingRecordId(false), gowarc.WithAddMissingContentLength(false),
		gowarc.WithFixSyntaxErrors(false)}
	if strict {
		opts = append(opts, gowarc.WithStrictValidation())
	} else {
		opts = append(opts, gowarc.WithSyntaxErrorPolicy(gowarc.ErrIgnore), gowarc.WithSpecViolationPolicy(gowarc.ErrIgnore),
			gowarc.WithUnknownRecordTypePolicy(gowarc.ErrIgnore))
	}
	return gowarc.NewUnmarshaler(opts...)
}

// Parse reads the record's block as a gowarc record (an HTTP message
// split into its header and payload), the header as the file has it.
// Close the record when done; the Reader's next record comes after.
func (r *Record) Parse() (gowarc.WarcRecord, error) { return r.parse(false) }

func (r *Record) parse(strict bool) (gowarc.WarcRecord, error) {
	u := unmarshaler(strict)
	defer unmarshalers[strict].Put(u)
	block := r.Block
	if r.Type() == "revisit" {
		// A revisit's block, a protocol header at most, is read whole.
		block = io.LimitReader(block, DefaultMaxHeader)
	}
	src := io.MultiReader(bytes.NewReader(r.raw), &headGuard{r: block, max: DefaultMaxHeader},
		strings.NewReader("\r\n\r\n"))
	rec, _, val, err := u.Unmarshal(bufio.NewReaderSize(src, 32<<10))
	if err != nil {
		if rec != nil {
			rec.Close()
		}
		return nil, err
	}
	if strict {
		if val != nil && !val.Valid() {
			rec.Close()
			return nil, fmt.Errorf("%s", val)
		}
		if err := rec.ValidateDigest(val); err != nil || !val.Valid() {
			rec.Close()
			return nil, fmt.Errorf("digest: %v %s", err, val)
		}
	}
	return rec, nil
}

// headGuard passes a block on, but ends it when more than max bytes pass
// before the first empty line: a protocol header is parsed into memory,
// and one that never ends must not take it all.
type headGuard struct {
	r    io.Reader
	max  int
	n    int
	tail [3]byte
	done bool
}

func (g *headGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if g.done || n == 0 {
		return n, err
	}
	buf := append(g.tail[:0:0], g.tail[:]...)
	buf = append(buf, p[:n]...)
	if bytes.Contains(buf, []byte("\n\r\n")) || bytes.Contains(buf, []byte("\n\n")) {
		g.done = true
		return n, err
	}
	copy(g.tail[:], buf[len(buf)-3:])
	g.n += n
	if g.n > g.max {
		return n, fmt.Errorf("protocol header longer than %d bytes", g.max)
	}
	return n, err
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
