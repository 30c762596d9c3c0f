package warc

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http/httputil"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Problem is one way an archive breaks the WARC standard or gofer's record
// conventions (RECORDS.md), as Check finds it.
type Problem struct {
	File string
	// Record is the record's number in its file, from 1; 0 for a problem
	// of the file or of its index as a whole.
	Record int
	Offset int64 // where the record starts (its gzip member)
	URI    string
	Text   string
	// Warning marks what is common practice rather than an error (a file
	// that does not start with a warcinfo record, a WARC-Concurrent-To or
	// WARC-Refers-To naming a record in no file of the set); gofer warc
	// check fails on warnings only with --strict.
	Warning bool
}

// String is the problem as one line: "FILE: record N (offset O, URI): text".
func (p Problem) String() string {
	text := p.Text
	if p.Warning {
		text = "warning: " + text
	}
	if p.Record == 0 {
		return fmt.Sprintf("%s: %s", p.File, text)
	}
	where := "offset " + strconv.FormatInt(p.Offset, 10)
	if p.URI != "" {
		where += ", " + printableURI(p.URI)
	}
	return fmt.Sprintf("%s: record %d (%s): %s", p.File, p.Record, where, text)
}

func printableURI(s string) string {
	q := strconv.Quote(s)
	if q[1:len(q)-1] == s {
		return s
	}
	return q
}

// Archives returns the files the arguments name: a WARC file itself, or
// the segments of a prefix (CreateSegments), in order, each once.
func Archives(args []string) ([]string, error) {
	var files []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
	}
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			add(filepath.Clean(a))
			continue
		}
		segs, err := Segments(a)
		if err != nil {
			return nil, fmt.Errorf("warc: %s: %w", a, err)
		}
		if len(segs) == 0 {
			return nil, fmt.Errorf("warc: %s: no such file, and no segments %s", a, SegmentName(a, 0))
		}
		for _, seg := range segs {
			add(filepath.Clean(seg))
		}
	}
	return files, nil
}

// checked is what Check keeps of a record to check the links between
// records once every file is read.
type checked struct {
	at                                Problem // File, Record, Offset, URI
	version                           string
	typ, id, date, payload            string
	concurrent                        []string
	refersTo, refersToURI, refersDate string
}

// Check validates the archives (WARC files or segment prefixes, read as
// one set) and calls report with each problem found: a record that does
// not parse, a Content-Length or a digest that does not match the block, a
// WARC-Record-ID used twice, a WARC-Concurrent-To or WARC-Refers-To naming no record of the set, a
// revisit without the fields that name what it revisits, a Content-Type or
// WARC-Protocol the conventions do not name for the record's protocol and
// type, a file that does not start with a warcinfo record, and a CDXJ index
// beside a segment that does not list each of its records (but the
// warcinfo) at its offset and length, and nothing else. Files without an
// index beside them (another tool's WARCs) are checked without. The
// payload digest of a chunked HTTP response may be of its body as sent
// or with the chunked coding undone (the standard's reading). A
// WARC-Concurrent-To or WARC-Refers-To naming no record of the set, and
// a file that does not start with a warcinfo record, are warnings. The
// error is for an archive that cannot be read at all.
func Check(archives []string, report func(Problem)) error {
	return CheckWith(archives, ReadOptions{}, report)
}

// CheckWith is Check reading with opt (a header limit other than
// DefaultMaxHeader).
func CheckWith(archives []string, opt ReadOptions, report func(Problem)) error {
	files, err := Archives(archives)
	if err != nil {
		return err
	}
	l := newLinks()
	defer l.close()
	for _, f := range files {
		if err := checkFile(f, opt, l, report); err != nil {
			return err
		}
	}
	return l.check(report)
}

// fileRecord is one record as checkFile reads it.
type fileRecord struct {
	n      int
	offset int64
	length int64 // of its gzip member; 0 in a shared member
	h      textproto.MIMEHeader
	// version is the record's version line
	version string
	arc     bool // an ARC record, its fields mapped onto WARC's
}

// checkFile checks the records of one file and its index, and notes
// their links in l.
func checkFile(path string, opt ReadOptions, l *links, report func(Problem)) error {
	// A segment with an index beside it: its records' entries are
	// sorted with the index's lines (on disk past a bound) to compare.
	_, err := os.Stat(IndexName(path))
	hasIndex := err == nil && strings.HasSuffix(path, ".warc.gz")
	var read *links
	if hasIndex {
		read = newLinks()
		defer read.close()
	}
	var last fileRecord
	var linkErr error
	gofer := false
	onRecord := func(fr fileRecord, blockErr string, block *blockSums) {
		h := fr.h
		p := Problem{File: path, Record: fr.n, Offset: fr.offset, URI: TrimURI(h.Get("WARC-Target-URI"))}
		if fr.arc {
			// An ARC file has none of WARC's fields to check: it is
			// read, its framing checked, and said to be one once.
			if fr.n == 1 {
				q := p
				q.Record, q.Text, q.Warning = 0, "an ARC file: its records are read, not held to WARC's rules", true
				report(q)
			}
			last = fr
			return
		}
		bad := func(format string, args ...any) {
			q := p
			q.Text = fmt.Sprintf(format, args...)
			report(q)
		}
		typ := h.Get("WARC-Type")
		if fr.n == 1 {
			if typ != "warcinfo" {
				q := p
				q.Text, q.Warning = "the file does not start with a warcinfo record", true
				report(q)
			} else {
				gofer = strings.HasPrefix(block.head, "software: gofer ")
			}
		}
		if blockErr != "" {
			bad("%s", blockErr)
		}
		for _, f := range []string{"WARC-Record-ID", "WARC-Date", "WARC-Type"} {
			if h.Get(f) == "" {
				bad("no %s", f)
			}
		}
		if block != nil {
			if d := h.Get("WARC-Block-Digest"); d != "" {
				if ok, known := block.block.matches(d); known && !ok {
					bad("WARC-Block-Digest %s does not match the block", d)
				}
			}
			if d := h.Get("WARC-Payload-Digest"); d != "" && typ != "revisit" && block.payload != nil {
				if ok, known := block.payloadMatches(d); known && !ok {
					bad("WARC-Payload-Digest %s does not match the payload", d)
				}
			}
		}
		for _, problem := range conventionProblems(h, gofer) {
			bad("%s", problem)
		}
		c := checked{at: p, version: fr.version, typ: typ, id: h.Get("WARC-Record-ID"), date: h.Get("WARC-Date"),
			payload: h.Get("WARC-Payload-Digest"), concurrent: h.Values("WARC-Concurrent-To"),
			refersTo: h.Get("WARC-Refers-To"), refersToURI: h.Get("WARC-Refers-To-Target-URI"),
			refersDate: h.Get("WARC-Refers-To-Date")}
		if c.refersTo != "" && c.refersTo == c.id {
			bad("WARC-Refers-To names the record itself")
			c.refersTo = ""
		}
		if typ == "revisit" && c.version != "WARC/1.0" && (c.refersToURI == "" || c.refersDate == "") {
			// WARC-Refers-To-Target-URI and WARC-Refers-To-Date are
			// WARC/1.1 fields: a WARC/1.0 revisit names what it
			// revisits by WARC-Refers-To, when at all.
			bad("revisit without WARC-Refers-To-Target-URI and WARC-Refers-To-Date")
		}
		if err := l.record(c); err != nil && linkErr == nil {
			linkErr = err
		}
		last = fr
		if checkedRecord != nil {
			checkedRecord()
		}
		if read != nil {
			if err := indexed(read, path, fr); err != nil && linkErr == nil {
				linkErr = err
			}
		}
	}
	n := 0 // records read before the part
	err = readParts(path, func(pt part) error {
		readRecords(newPartReader(pt, opt), n, onRecord, func(e *RecordError) {
			switch {
			case e.Offset < 0:
				report(Problem{File: path, Text: e.Msg})
			case e.URI != "" && last.n > 0 && last.offset == e.Offset:
				report(Problem{File: path, Record: last.n, Offset: e.Offset, URI: e.URI, Text: e.Msg})
			default:
				report(Problem{File: path, Text: e.Error()})
			}
		})
		n = last.n
		return nil
	})
	if err != nil {
		return err
	}
	if last.n == 0 {
		report(Problem{File: path, Text: "no WARC records"})
	}
	if read != nil {
		checkIndex(path, read, report)
	}
	return linkErr
}

// checkedRecord, when set, is called after each record is checked (a
// test measures memory there).
var checkedRecord func()

// checkIndex compares the index beside a segment, if there is one, with
// the records read from it.
func checkIndex(path string, read *links, report func(Problem)) {
	name := IndexName(path)
	err := readIndex(name, func(_ string, e IndexEntry) {
		j, _ := json.Marshal(e)
		read.add(fmt.Sprintf("%020d", e.Offset), "0", string(j))
	})
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		report(Problem{File: path, Text: "index: " + err.Error()})
		return
	}
	// The index's lines and the records, sorted by offset together: an
	// index line comes before the record at its offset.
	var listed *IndexEntry
	listedAt := ""
	flush := func() {
		if listed != nil {
			report(Problem{File: path, Text: fmt.Sprintf("index %s lists a record at offset %d (%s) that is not there",
				fileBase(name), listed.Offset, printableURI(listed.URL))})
		}
		listed = nil
	}
	err = read.each(func(line string) {
		f := strings.SplitN(line, "\t", 5)
		if len(f) < 3 {
			return
		}
		if f[1] == "0" {
			var e IndexEntry
			json.Unmarshal([]byte(f[2]), &e)
			if listedAt == f[0] {
				report(Problem{File: path, Text: fmt.Sprintf("index %s lists offset %d twice", fileBase(name), e.Offset)})
				return
			}
			flush()
			listed, listedAt = &e, f[0]
			return
		}
		if len(f) < 5 {
			return
		}
		var want IndexEntry
		json.Unmarshal([]byte(f[4]), &want)
		n, _ := strconv.Atoi(f[2])
		p := Problem{File: path, Record: n, Offset: want.Offset, URI: f[3]}
		bad := func(format string, args ...any) {
			q := p
			q.Text = fmt.Sprintf("index %s: ", fileBase(name)) + fmt.Sprintf(format, args...)
			report(q)
		}
		e := listed
		if listedAt != f[0] {
			flush()
			e = nil
		}
		listed = nil
		if want.Type == "warcinfo" {
			if e != nil {
				bad("lists the warcinfo record")
			}
			return
		}
		if e == nil {
			bad("does not list the record")
			return
		}
		for _, d := range []struct{ field, got, want string }{
			{"url", e.URL, want.URL}, {"type", e.Type, want.Type}, {"mime", e.Mime, want.Mime},
			{"digest", e.Digest, want.Digest}, {"filename", e.Filename, want.Filename},
			{"record_id", e.ID, want.ID}, {"date", e.Date, want.Date},
			{"length", strconv.FormatInt(e.Length, 10), strconv.FormatInt(want.Length, 10)},
		} {
			if d.got != d.want {
				bad("%s is %q, the record's is %q", d.field, d.got, d.want)
			}
		}
	})
	if err != nil {
		report(Problem{File: path, Text: "index: " + err.Error()})
		return
	}
	flush()
}

// indexed notes a record for checkIndex: the index entry it should have.
func indexed(read *links, path string, fr fileRecord) error {
	h := fr.h
	want := IndexEntry{URL: h.Get("WARC-Target-URI"), Type: h.Get("WARC-Type"), Mime: h.Get("Content-Type"),
		Digest: digestOf(h), Offset: fr.offset, Length: fr.length, Filename: fileBase(path),
		ID: h.Get("WARC-Record-ID"), Date: h.Get("WARC-Date")}
	j, _ := json.Marshal(want)
	return read.add(fmt.Sprintf("%020d", fr.offset), "1", strconv.Itoa(fr.n), field(h.Get("WARC-Target-URI")), string(j))
}

// readRecords reads the records rd reads, however compressed, and calls
// fn with each: its header, numbered on from n, and the digests of its
// block and payload. A stretch that holds no readable record goes to
// problem, and reading goes on after it.
func readRecords(rd *Reader, n int, fn func(fileRecord, string, *blockSums), problem func(*RecordError)) {
	for {
		rec, err := rd.Next()
		if err != nil {
			var re *RecordError
			if errors.As(err, &re) {
				problem(re)
				continue
			}
			if !errors.Is(err, io.EOF) {
				problem(&RecordError{Offset: -1, Msg: err.Error()})
			}
			return
		}
		n++
		h := rec.Header
		ps := payloadSplitter(h)
		s := &blockSums{block: newSums(h.Get("WARC-Block-Digest"))}
		if ps != nil {
			ps.digest = h.Get("WARC-Payload-Digest")
			s.payload = newSums(ps.digest)
			ps.payload = s.payload
		}
		var head bytes.Buffer
		w := io.MultiWriter(s.block, headWriter{&head, 256}, splitWriter{ps})
		got, _ := io.Copy(w, rec.Block)
		s.head = head.String()
		if ps != nil && !ps.split {
			s.payload = nil
		}
		if ps != nil && ps.chunked != nil {
			s.dechunked = ps.chunked.finish()
		}
		whole := got == rec.ContentLength
		end, ended := rd.Finish()
		fr := fileRecord{n: n, offset: rec.Offset, h: h, version: rec.Version, arc: rec.ARC}
		if ended && rec.Inner == 0 {
			fr.length = end - rec.Offset
		}
		if !whole {
			s = nil // the Reader reports the block cut short
		}
		fn(fr, "", s)
	}
}

// blockSums are the digests of a block and of its payload, and the
// block's first bytes.
type blockSums struct {
	block   *sums
	payload *sums // nil when the payload cannot be told apart
	// dechunked are the digests of a chunked HTTP payload with its
	// transfer coding undone (the standard's payload); nil for any other
	// payload, or one whose chunks do not read.
	dechunked *sums
	head      string
}

// payloadMatches says whether the payload digest d is the payload's: of
// the bytes after the HTTP header, or, for a chunked message, of those
// with the chunked coding undone. WARC (1.0 and 1.1, §5.9) defines the
// payload of an HTTP message as its body without transfer coding; most
// writers digest the bytes as sent. known is false for an algorithm
// check does not know.
func (s *blockSums) payloadMatches(d string) (ok, known bool) {
	if ok, known = s.payload.matches(d); ok || !known || s.dechunked == nil {
		return ok, known
	}
	return s.dechunked.matches(d)
}

type headWriter struct {
	b   *bytes.Buffer
	max int
}

func (w headWriter) Write(p []byte) (int, error) {
	if room := w.max - w.b.Len(); room > 0 {
		w.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// splitter hands a payload digest the bytes of a block after its
// protocol header: after the first CR LF CR LF of an HTTP message, after
// the first line of a Gemini response.
type splitter struct {
	sep     []byte
	tail    []byte // the last bytes seen before the separator was found
	split   bool
	payload *sums
	// Of an HTTP message: its header's first bytes (up to
	// maxChunkedHead), to tell a chunked body, and the chunks undone.
	http    bool
	head    []byte
	digest  string // the WARC-Payload-Digest, naming the algorithm
	chunked *dechunker
}

// maxChunkedHead bounds the HTTP header read to find a chunked transfer
// coding; a longer header's payload is digested as sent only.
const maxChunkedHead = 64 << 10

func payloadSplitter(h textproto.MIMEHeader) *splitter {
	ct := normalType(h.Get("Content-Type"))
	switch {
	case h.Get("WARC-Type") == "revisit":
		return nil
	case strings.HasPrefix(ct, "application/http"):
		return &splitter{sep: []byte("\r\n\r\n"), http: true}
	case ct == normalType(ResponseGemini):
		return &splitter{sep: []byte("\n")}
	}
	return &splitter{split: true}
}

type splitWriter struct{ s *splitter }

func (w splitWriter) Write(p []byte) (int, error) {
	s := w.s
	if s == nil {
		return len(p), nil
	}
	if s.split {
		s.payload.Write(p)
		if s.chunked != nil {
			s.chunked.Write(p)
		}
		return len(p), nil
	}
	if s.http && len(s.head) < maxChunkedHead {
		s.head = append(s.head, p[:min(len(p), maxChunkedHead-len(s.head))]...)
	}
	buf := append(s.tail, p...)
	if i := bytes.Index(buf, s.sep); i >= 0 {
		s.split = true
		rest := buf[i+len(s.sep):]
		s.payload.Write(rest)
		s.tail = nil
		if h, _, found := bytes.Cut(s.head, s.sep); found && isChunked(h) {
			s.chunked = newDechunker(s.digest)
			s.chunked.Write(rest)
		}
		s.head = nil
		return len(p), nil
	}
	if len(buf) > len(s.sep) {
		buf = buf[len(buf)-len(s.sep):]
	}
	s.tail = append([]byte(nil), buf...)
	return len(p), nil
}

// isChunked says whether an HTTP header names the chunked transfer coding.
func isChunked(head []byte) bool {
	for _, line := range strings.Split(string(head), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Transfer-Encoding") &&
			strings.Contains(strings.ToLower(value), "chunked") {
			return true
		}
	}
	return false
}

// dechunker digests a chunked HTTP body with its chunked coding undone,
// as it streams in.
type dechunker struct {
	pw     *io.PipeWriter
	sums   *sums
	failed bool
	done   chan struct{}
}

func newDechunker(digest string) *dechunker {
	pr, pw := io.Pipe()
	c := &dechunker{pw: pw, sums: newSums(digest), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		if _, err := io.Copy(c.sums, httputil.NewChunkedReader(pr)); err != nil {
			c.failed = true
		}
		io.Copy(io.Discard, pr) // the trailer, or what follows a bad chunk
	}()
	return c
}

func (c *dechunker) Write(p []byte) (int, error) { return c.pw.Write(p) }

// finish ends the body and returns its digests, nil when its chunks did
// not read.
func (c *dechunker) finish() *sums {
	c.pw.Close()
	<-c.done
	if c.failed {
		return nil
	}
	return c.sums
}

// sums hashes a block with the digest algorithm its record names.
type sums struct {
	hs map[string]hash.Hash
	w  io.Writer
}

// newSums hashes with the algorithm of the labelled digest d
// ("sha1:..."), when it is one known; with none otherwise.
func newSums(d string) *sums {
	s := &sums{hs: map[string]hash.Hash{}, w: io.Discard}
	alg, _, _ := strings.Cut(d, ":")
	alg = strings.ReplaceAll(strings.ToLower(alg), "-", "")
	var h hash.Hash
	switch alg {
	case "sha1":
		h = sha1.New()
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	case "md5":
		h = md5.New()
	default:
		return s
	}
	s.hs[alg], s.w = h, h
	return s
}

func (s *sums) Write(p []byte) (int, error) { return s.w.Write(p) }

// matches says whether the labelled digest ("sha1:BASE32") is the data's,
// and whether its algorithm is one known at all.
func (s *sums) matches(d string) (ok, known bool) {
	alg, val, _ := strings.Cut(d, ":")
	alg = strings.ReplaceAll(strings.ToLower(alg), "-", "")
	h := s.hs[alg]
	if h == nil {
		return false, false
	}
	return bytes.Equal(decodeDigest(alg, val), h.Sum(nil)), true
}

// digestSizes are the sizes of the digests check knows, in bytes.
var digestSizes = map[string]int{"sha1": 20, "sha256": 32, "sha512": 64, "md5": 16}

// decodeDigest reads a digest's value in whichever encoding writers use
// (base32, the standard's example and the common form, with or without
// padding and in either case; base16; base64, standard or URL-safe),
// told apart by their lengths; nil when it reads as none.
func decodeDigest(alg, val string) []byte {
	size := digestSizes[alg]
	val = strings.TrimSpace(val)
	try := func(b []byte, err error) []byte {
		if err != nil || size > 0 && len(b) != size {
			return nil
		}
		return b
	}
	up := strings.ToUpper(strings.TrimRight(val, "="))
	if b := try(base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(up)); b != nil {
		return b
	}
	if b := try(hex.DecodeString(strings.ToLower(val))); b != nil {
		return b
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b := try(enc.DecodeString(val)); b != nil {
			return b
		}
	}
	return nil
}

// sameDigest compares two labelled digests, the algorithm's case and the
// value's encoding aside.
func sameDigest(a, b string) bool {
	aa, av, _ := strings.Cut(a, ":")
	ba, bv, _ := strings.Cut(b, ":")
	aa = strings.ReplaceAll(strings.ToLower(aa), "-", "")
	ba = strings.ReplaceAll(strings.ToLower(ba), "-", "")
	if aa != ba {
		return false
	}
	if strings.EqualFold(av, bv) {
		return true
	}
	da, db := decodeDigest(aa, av), decodeDigest(ba, bv)
	return da != nil && bytes.Equal(da, db)
}
