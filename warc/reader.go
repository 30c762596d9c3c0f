package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// DefaultMaxHeader is the longest header a Reader accepts by default, its
// version line and fields together: a record whose header is longer (a
// line that never ends) is an error of that record, and reading goes on
// after it.
const DefaultMaxHeader = 1 << 20

// Record is one record as a Reader reads it: its header as the file has
// it (nothing added, nothing repaired) and its block, streamed.
type Record struct {
	// Version is the version line, "WARC/1.0" or "WARC/1.1" (an ARC
	// record: "WARC/1.0", its fields mapped onto WARC's).
	Version string
	// Header holds the named fields as written, names canonical.
	Header textproto.MIMEHeader
	// Offset is where the record starts in the file: the start of its
	// gzip member, or of the record itself in an uncompressed file.
	Offset int64
	// Inner is where the record starts in the decompressed bytes of its
	// gzip member: 0 when it is the member's first record.
	Inner int64
	// ContentLength is the header's Content-Length.
	ContentLength int64
	// Block reads the record's block, ContentLength bytes at most.
	Block io.Reader
	// ARC is set for a record of an ARC file.
	ARC bool

	raw []byte // the header as read, version line to the empty line
}

// Type is the record's WARC-Type.
func (r *Record) Type() string { return r.Header.Get("WARC-Type") }

// TargetURI is the record's WARC-Target-URI without the angle brackets
// WARC/1.0's grammar puts around it (and some writers keep in 1.1).
func (r *Record) TargetURI() string { return TrimURI(r.Header.Get("WARC-Target-URI")) }

// TrimURI is a target URI without enclosing angle brackets and spaces.
func TrimURI(u string) string {
	u = strings.TrimSpace(u)
	if len(u) >= 2 && u[0] == '<' && u[len(u)-1] == '>' {
		return u[1 : len(u)-1]
	}
	return u
}

// Date is the record's WARC-Date, the zero time when it has none that
// parses.
func (r *Record) Date() time.Time {
	t, _ := time.Parse(time.RFC3339Nano, r.Header.Get("WARC-Date"))
	return t
}

// Digest is the payload digest the record's header names, else its block
// digest, "" when it names none.
func (r *Record) Digest() string { return digestOf(r.Header) }

// RecordError is a stretch of a file that holds no readable record: a
// header too long or malformed, a block cut short, a damaged gzip member,
// bytes between records. Reading goes on after it.
type RecordError struct {
	Offset int64  // where the stretch starts (its gzip member)
	Length int64  // how long it is, when it is a stretch left out whole; else 0
	URI    string // the target URI of the record whose block is wrong; "" for others
	Msg    string
}

func (e *RecordError) Error() string {
	if e.Length > 0 {
		return fmt.Sprintf("%d bytes at offset %d are not a whole record (%s)", e.Length, e.Offset, e.Msg)
	}
	if e.URI != "" {
		return fmt.Sprintf("offset %d: record of %s: %s", e.Offset, printableURI(e.URI), e.Msg)
	}
	return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
}

// ReadOptions are a Reader's limits.
type ReadOptions struct {
	// MaxHeader bounds a record's header (version line and fields);
	// DefaultMaxHeader when 0.
	MaxHeader int
}

// Reader reads the records of a WARC file in order, in memory bounded
// by MaxHeader whatever the input: gzip members holding one record each
// or many (the whole file in one member), uncompressed records, and ARC
// files (version 1 and 2, gzipped or not), each ARC record presented with
// WARC fields (WARC-Type, WARC-Target-URI, WARC-Date, Content-Type,
// Content-Length). A record that cannot be read is a *RecordError from
// Next, and the next call goes on from the next record found.
type Reader struct {
	max     int
	seeker  io.Seeker // the file, when it can be sought in
	base    int64     // what cr counts from
	cr      countReader
	br      *bufio.Reader // the file
	zr      *gzip.Reader
	zd      *zstd.Decoder
	zf      frameReader
	zdict   []byte        // a zstd file's dictionary
	dc      countReader   // the current member, decompressed
	dr      *bufio.Reader // what records are read from: dc's, or br in a plain file
	member  int64         // where the current gzip member starts; -1 outside one
	plain   bool          // reading an uncompressed stretch
	arc     int           // 0: not known yet, 1: WARC, 2: ARC
	anyARC  bool          // an ARC record may come without the file's first (OpenRecord)
	cur     *Record
	block   *io.LimitedReader
	pending []error
	records int

	kind       string       // "gzip member" or "zstd frame"
	memberErr  *RecordError // the first problem found in the current member
	memberRecs int          // records read from it
}

// NewReader reads the records of r.
func NewReader(r io.Reader, opt ReadOptions) *Reader {
	max := opt.MaxHeader
	if max <= 0 {
		max = DefaultMaxHeader
	}
	rd := &Reader{max: max, member: -1}
	rd.cr.r = r
	rd.seeker, _ = r.(io.Seeker)
	rd.br = bufio.NewReaderSize(&rd.cr, 64<<10)
	return rd
}

// pos is how far into the file the reader is.
func (r *Reader) pos() int64 { return r.cr.n - int64(r.br.Buffered()) }

// inner is how far into the current member's decompressed bytes it is.
func (r *Reader) inner() int64 { return r.dc.n - int64(r.dr.Buffered()) }

// recordOffset is where a record starting now starts.
func (r *Reader) recordOffset() (off, inner int64) {
	if r.member >= 0 {
		return r.member, r.inner()
	}
	return r.pos(), 0
}

// fail reports a problem at off; in a gzip member, the member's first
// problem is reported once, when the member ends.
func (r *Reader) fail(off int64, format string, args ...any) {
	r.failRecord(off, "", format, args...)
}

// failRecord is fail for the block of the record of uri.
func (r *Reader) failRecord(off int64, uri, format string, args ...any) {
	e := &RecordError{Offset: off, URI: uri, Msg: fmt.Sprintf(format, args...)}
	if r.member >= 0 && r.dr != nil {
		if r.memberErr == nil {
			r.memberErr = e
		}
		return
	}
	r.pending = append(r.pending, e)
}

// Next returns the next record, a *RecordError for a stretch that holds
// none, or io.EOF at the end of the file. The previous record's block is
// read to its end first.
func (r *Reader) Next() (*Record, error) {
	if r.cur != nil {
		r.finish()
	}
	for {
		if len(r.pending) > 0 {
			err := r.pending[0]
			r.pending = r.pending[1:]
			return nil, err
		}
		rec, err := r.next()
		if err != nil {
			if len(r.pending) > 0 && errors.Is(err, io.EOF) {
				continue
			}
			return nil, err
		}
		if rec != nil {
			r.records++
			r.memberRecs++
			return rec, nil
		}
	}
}

// next reads on to the next record: nil without an error when it only
// moved on (to the next member, past garbage).
func (r *Reader) next() (*Record, error) {
	if r.dr == nil {
		// Between members, or at the start of an uncompressed stretch.
		start := r.pos()
		magic, err := r.br.Peek(4)
		if len(magic) == 0 {
			if err == nil || errors.Is(err, io.EOF) {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("warc: %w", err)
		}
		switch {
		case isSkippable(magic):
			r.readSkippable(start)
			return nil, nil
		case bytes.Equal(magic, zstdMagic):
			r.startZstd(start)
			return nil, nil
		}
		if len(magic) >= 2 && bytes.Equal(magic[:2], gzipMagic[:2]) {
			if r.zr == nil {
				r.zr, err = gzip.NewReader(r.br)
			} else {
				err = r.zr.Reset(r.br)
			}
			if err != nil {
				r.skipGarbage(start, 1, "a damaged gzip member header ("+err.Error()+")")
				return nil, nil
			}
			r.zr.Multistream(false)
			r.member, r.memberErr, r.memberRecs, r.kind = start, nil, 0, "gzip member"
			r.dc = countReader{r: r.zr}
			r.dr = bufio.NewReaderSize(&r.dc, 64<<10)
			return nil, nil
		}
		r.plain, r.member = true, -1
		r.dr = r.br
	}
	// Blank lines between records are tolerated.
	for {
		b, err := r.dr.Peek(1)
		if len(b) == 0 {
			return nil, r.endStream(err)
		}
		if b[0] != '\r' && b[0] != '\n' {
			break
		}
		r.dr.Discard(1)
	}
	off, inner := r.recordOffset()
	if r.plain {
		// A compressed stretch may follow an uncompressed one.
		if m, _ := r.dr.Peek(4); bytes.HasPrefix(m, gzipMagic) || bytes.Equal(m, zstdMagic) || isSkippable(m) {
			r.dr, r.plain = nil, false
			return nil, nil
		}
	}
	head, err := r.dr.Peek(5)
	if len(head) < 5 && err != nil {
		r.fail(off, "%d bytes that are not a WARC record at the end", len(head))
		r.dr.Discard(len(head))
		return nil, nil
	}
	switch {
	case string(head) == "WARC/":
		if r.arc == 0 {
			r.arc = 1
		}
		return r.readWARC(off, inner)
	case r.arc != 1 && r.looksARC(r.arc == 2 || r.anyARC):
		r.arc = 2
		return r.readARC(off, inner)
	}
	if r.plain {
		r.skipPlain(off)
		return nil, nil
	}
	r.skipInMember(off)
	return nil, nil
}

// endStream ends the current member, or the uncompressed stretch, at
// the error err its reader returned.
func (r *Reader) endStream(err error) error {
	if r.plain {
		r.dr, r.plain = nil, false
		if err == nil || errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("warc: %w", err)
	}
	start, e := r.member, r.memberErr
	r.dr, r.member, r.memberErr = nil, -1, nil
	if err != nil && !errors.Is(err, io.EOF) {
		if e == nil {
			e = &RecordError{Offset: start, Msg: r.kind + " damaged: " + err.Error()}
		}
		r.skipGarbage(start, 1, "")
	}
	if e != nil {
		if r.memberRecs == 0 {
			e.Length, e.URI = r.pos()-start, ""
		}
		r.pending = append(r.pending, e)
	}
	return nil
}

// skipGarbage moves the file's reader from start+from to the next gzip
// member header or the next "WARC/" line, and reports what it skipped
// when what is not "".
func (r *Reader) skipGarbage(start, from int64, what string) {
	r.dr, r.member, r.plain = nil, -1, false
	// The reader is at or past start; bytes before the current position
	// are gone, so the search starts where the reader is, at least
	// start+from.
	if skip := start + from - r.pos(); skip > 0 {
		r.br.Discard(int(min(skip, 1<<30)))
	} else if skip < 0 && r.seeker != nil {
		// A damaged member's decompressor read past where the search
		// starts, maybe into the next member: go back.
		if _, err := r.seeker.Seek(start+from-r.base, io.SeekStart); err == nil {
			r.cr.n = start + from
			r.br.Reset(&r.cr)
		}
	}
	for {
		buf, err := r.br.Peek(64 << 10)
		if len(buf) == 0 {
			break
		}
		i := nextStart(buf)
		if i >= 0 {
			r.br.Discard(i)
			break
		}
		keep := 4
		if len(buf) <= keep || err != nil {
			r.br.Discard(len(buf))
			if err != nil {
				break
			}
			continue
		}
		r.br.Discard(len(buf) - keep)
	}
	if what != "" {
		r.fail(start, "%s: %d bytes skipped", what, r.pos()-start)
	}
}

// nextStart is the index in buf of the first gzip member header or
// "WARC/" at a line's start, -1 when there is none.
func nextStart(buf []byte) int {
	g := bytes.Index(buf, gzipMagic)
	if z := bytes.Index(buf, zstdMagic); z >= 0 && (g < 0 || z < g) {
		g = z
	}
	w := bytes.Index(buf, []byte("\nWARC/"))
	if w >= 0 {
		w++
	}
	switch {
	case g < 0:
		return w
	case w < 0:
		return g
	}
	return min(g, w)
}

// skipPlain skips, in an uncompressed stretch, to the next "WARC/" line
// or gzip member.
func (r *Reader) skipPlain(off int64) {
	r.skipGarbage(off, 1, "bytes that are not a WARC record")
}

// skipInMember skips, inside a gzip member, to the next "WARC/" line
// or the member's end.
func (r *Reader) skipInMember(off int64) {
	from := r.inner()
	r.dr.Discard(1)
	for {
		buf, err := r.dr.Peek(64 << 10)
		if i := bytes.Index(buf, []byte("\nWARC/")); i >= 0 {
			r.dr.Discard(i + 1)
			break
		}
		if len(buf) == 0 || err != nil {
			r.dr.Discard(len(buf))
			break
		}
		if len(buf) > 6 {
			r.dr.Discard(len(buf) - 6)
		}
	}
	r.fail(off, "bytes that are not a WARC record (at %d in the gzip member): %d bytes skipped", from, r.inner()-from)
}

// readLine reads one line of a header, its end cut, failing past room
// bytes.
func (r *Reader) readLine(room int) ([]byte, []byte, error) {
	var line []byte
	for {
		frag, err := r.dr.ReadSlice('\n')
		if len(line)+len(frag) > room {
			return nil, nil, errHeaderTooLong
		}
		line = append(line, frag...)
		if err == nil {
			return bytes.TrimRight(line, "\r\n"), line, nil
		}
		if err != bufio.ErrBufferFull {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, nil, err
		}
	}
}

var errHeaderTooLong = errors.New("header too long")

// readWARC reads a WARC record's header and sets up its block.
func (r *Reader) readWARC(off, inner int64) (*Record, error) {
	rec := &Record{Header: textproto.MIMEHeader{}, Offset: off, Inner: inner}
	room := r.max
	var raw bytes.Buffer
	line, full, err := r.readLine(room)
	if err != nil {
		return r.badHeader(off, err)
	}
	room -= len(full)
	raw.Write(full)
	rec.Version = string(line)
	var last string
	for {
		line, full, err := r.readLine(room)
		if err != nil {
			return r.badHeader(off, err)
		}
		room -= len(full)
		raw.Write(full)
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if last != "" {
				vs := rec.Header[last]
				vs[len(vs)-1] += " " + strings.TrimSpace(string(line))
			}
			continue
		}
		name, value, ok := strings.Cut(string(line), ":")
		if !ok {
			r.fail(off, "header line without a colon: %.60q", line)
			r.resync()
			return nil, nil
		}
		last = textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
		rec.Header[last] = append(rec.Header[last], strings.TrimSpace(value))
	}
	rec.raw = raw.Bytes()
	cl := rec.Header.Get("Content-Length")
	n, err := strconv.ParseInt(cl, 10, 64)
	if err != nil || n < 0 {
		r.fail(off, "record header: Content-Length %q is not a length", cl)
		r.resync()
		return nil, nil
	}
	rec.ContentLength = n
	r.block = &io.LimitedReader{R: r.dr, N: n}
	rec.Block = r.block
	r.cur = rec
	return rec, nil
}

// badHeader reports a header that could not be read and moves on.
func (r *Reader) badHeader(off int64, err error) (*Record, error) {
	switch {
	case errors.Is(err, errHeaderTooLong):
		r.fail(off, "record header longer than %d bytes", r.max)
	case errors.Is(err, io.ErrUnexpectedEOF):
		r.fail(off, "record header cut short")
	default:
		r.fail(off, "record header: %v", err)
	}
	r.resync()
	return nil, nil
}

// resync goes on from the middle of a record to the next one.
func (r *Reader) resync() {
	if r.dr == nil {
		return
	}
	if r.plain {
		r.skipGarbage(r.pos(), 0, "")
		return
	}
	for {
		buf, err := r.dr.Peek(64 << 10)
		if i := bytes.Index(buf, []byte("\nWARC/")); i >= 0 {
			r.dr.Discard(i + 1)
			return
		}
		if len(buf) == 0 || err != nil {
			r.dr.Discard(len(buf))
			return
		}
		if len(buf) > 6 {
			r.dr.Discard(len(buf) - 6)
		}
	}
}

// finish reads the rest of the current record: its block and the CR LF
// CR LF after it.
func (r *Reader) finish() {
	rec := r.cur
	r.cur = nil
	_, err := io.Copy(io.Discard, r.block)
	got := rec.ContentLength - r.block.N
	if err != nil || r.block.N > 0 {
		r.memberRecs--
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			r.failRecord(rec.Offset, rec.TargetURI(), "block: %v", err)
		} else {
			r.failRecord(rec.Offset, rec.TargetURI(), "Content-Length %d, but the block ends after %d bytes",
				rec.ContentLength, got)
		}
		r.resync()
		return
	}
	end := "\r\n\r\n"
	if rec.ARC {
		end = "\n"
	}
	b, _ := r.dr.Peek(len(end))
	if string(b) == end {
		r.dr.Discard(len(end))
		return
	}
	// Writers differ in what ends a record: blank lines of any kind
	// are skipped before the next; anything else is reported there.
	if len(b) > 0 && b[0] != '\r' && b[0] != '\n' {
		r.failRecord(rec.Offset, rec.TargetURI(), "Content-Length %d, but the block is not followed by CR LF CR LF",
			rec.ContentLength)
		r.resync()
	}
}

// Records is how many records were read so far.
func (r *Reader) Records() int { return r.records }

// Finish reads the rest of the current record (Next does it when it was
// not called) and says where the record ends in the file: for a record
// alone in its gzip member, or uncompressed, its end, ended true; for a
// record that shares its member, the member's end with ended true once
// the member ends after it, -1 and false while more of it follows.
func (r *Reader) Finish() (end int64, ended bool) {
	if r.cur != nil {
		r.finish()
	}
	if r.dr == nil {
		return r.pos(), true
	}
	if r.plain {
		return r.pos(), true
	}
	for {
		b, err := r.dr.Peek(1)
		if len(b) == 0 {
			if err != nil && !errors.Is(err, io.EOF) {
				r.endStream(err)
				return -1, false
			}
			r.endStream(err)
			return r.pos(), true
		}
		if b[0] != '\r' && b[0] != '\n' {
			return -1, false
		}
		r.dr.Discard(1)
	}
}

// looksARC says whether what follows is an ARC record's header line:
// the first record of an ARC file ("filedesc://"), or, once the file is
// known to be one, a line of at least five fields ending in a length.
func (r *Reader) looksARC(known bool) bool {
	if !known {
		b, _ := r.dr.Peek(11)
		return string(b) == "filedesc://"
	}
	b, _ := r.dr.Peek(4096)
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(b[:i]))
	if len(f) < 5 {
		return false
	}
	_, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	return err == nil
}

// readARC reads an ARC record (version 1 or 2: "URL IP DATE TYPE LENGTH",
// or with result code, checksum, location, offset and file name before
// the length) and presents it with WARC fields: the file's header record
// (filedesc:) as a warcinfo, an http or https capture as a response of
// application/http (its block is the HTTP response), anything else as a
// resource of its own type.
func (r *Reader) readARC(off, inner int64) (*Record, error) {
	line, _, err := r.readLine(r.max)
	if err != nil {
		return r.badHeader(off, err)
	}
	f := strings.Fields(string(line))
	if len(f) < 5 {
		r.fail(off, "ARC record header %.60q has fewer than five fields", line)
		r.resync()
		return nil, nil
	}
	n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil || n < 0 {
		r.fail(off, "ARC record header %.60q does not end in a length", line)
		r.resync()
		return nil, nil
	}
	uri, date, mime := f[0], f[2], f[3]
	typ, ct := "resource", mime
	switch {
	case strings.HasPrefix(uri, "filedesc:"):
		typ = "warcinfo"
	case strings.HasPrefix(uri, "http:"), strings.HasPrefix(uri, "https:"):
		typ, ct = "response", "application/http;msgtype=response"
	}
	h := textproto.MIMEHeader{}
	h.Set("WARC-Type", typ)
	h.Set("WARC-Target-URI", uri)
	if t, err := time.Parse("20060102150405", date); err == nil {
		h.Set("WARC-Date", t.UTC().Format(time.RFC3339))
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	var raw bytes.Buffer
	raw.WriteString("WARC/1.0\r\n")
	for _, k := range []string{"WARC-Type", "WARC-Target-URI", "WARC-Date", "Content-Type", "Content-Length"} {
		if v := h.Get(k); v != "" {
			fmt.Fprintf(&raw, "%s: %s\r\n", k, v)
		}
	}
	raw.WriteString("\r\n")
	rec := &Record{Version: "WARC/1.0", Header: h, Offset: off, Inner: inner, ContentLength: n, ARC: true,
		raw: raw.Bytes()}
	r.block = &io.LimitedReader{R: r.dr, N: n}
	rec.Block = r.block
	r.cur = rec
	return rec, nil
}

// gzipMagic starts every gzip member (RFC 1952 §2.3.1: ID1, ID2, CM
// deflate).
var gzipMagic = []byte{0x1f, 0x8b, 0x08}
