package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
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
}

// String is the problem as one line: "FILE: record N (offset O, URI): text".
func (p Problem) String() string {
	if p.Record == 0 {
		return fmt.Sprintf("%s: %s", p.File, p.Text)
	}
	where := "offset " + strconv.FormatInt(p.Offset, 10)
	if p.URI != "" {
		where += ", " + printableURI(p.URI)
	}
	return fmt.Sprintf("%s: record %d (%s): %s", p.File, p.Record, where, p.Text)
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
// index beside them (another tool's WARCs) are checked without. The error
// is for an archive that cannot be read at all.
func Check(archives []string, report func(Problem)) error {
	files, err := Archives(archives)
	if err != nil {
		return err
	}
	var recs []checked
	for _, f := range files {
		rs, err := checkFile(f, report)
		if err != nil {
			return err
		}
		recs = append(recs, rs...)
	}
	checkLinks(recs, report)
	return nil
}

// checkLinks reports the links that name no record of the set.
func checkLinks(recs []checked, report func(Problem)) {
	byID := make(map[string]*checked, len(recs))
	for i, r := range recs {
		if r.id == "" {
			continue
		}
		if first := byID[r.id]; first != nil {
			p := r.at
			p.Text = fmt.Sprintf("WARC-Record-ID %s is also that of %s record %d", r.id, first.at.File, first.at.Record)
			report(p)
			continue
		}
		byID[r.id] = &recs[i]
	}
	for _, r := range recs {
		bad := func(format string, args ...any) {
			p := r.at
			p.Text = fmt.Sprintf(format, args...)
			report(p)
		}
		for _, c := range r.concurrent {
			if byID[c] == nil {
				bad("WARC-Concurrent-To %s names no record of the archive", c)
			}
		}
		if r.refersTo != "" && byID[r.refersTo] == nil {
			bad("WARC-Refers-To %s names no record of the archive", r.refersTo)
		}
		if r.typ != "revisit" {
			continue
		}
		if r.refersToURI == "" || r.refersDate == "" {
			bad("revisit without WARC-Refers-To-Target-URI and WARC-Refers-To-Date")
			continue
		}
		orig := byID[r.refersTo]
		if orig == nil {
			continue
		}
		if orig.at.URI != r.refersToURI {
			bad("WARC-Refers-To-Target-URI %s, but the record it refers to is of %s", r.refersToURI, orig.at.URI)
		}
		if orig.date != r.refersDate {
			bad("WARC-Refers-To-Date %s, but the record it refers to is of %s", r.refersDate, orig.date)
		}
		if r.payload != "" && orig.payload != "" && !sameDigest(r.payload, orig.payload) {
			bad("revisit payload digest %s, but the record it refers to has %s", r.payload, orig.payload)
		}
	}
}

// fileRecord is one record as checkFile reads it.
type fileRecord struct {
	n      int
	offset int64
	length int64 // of its gzip member; 0 in a plain file or a shared member
	h      textproto.MIMEHeader
}

// checkFile checks the records of one file and its index.
func checkFile(path string, report func(Problem)) ([]checked, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	defer f.Close()
	var recs []checked
	var read []fileRecord
	gofer := false
	onRecord := func(fr fileRecord, blockErr string, block *blockSums) {
		h := fr.h
		p := Problem{File: path, Record: fr.n, Offset: fr.offset, URI: h.Get("WARC-Target-URI")}
		bad := func(format string, args ...any) {
			q := p
			q.Text = fmt.Sprintf(format, args...)
			report(q)
		}
		typ := h.Get("WARC-Type")
		if fr.n == 1 {
			if typ != "warcinfo" {
				bad("the file does not start with a warcinfo record")
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
				if ok, known := block.payload.matches(d); known && !ok {
					bad("WARC-Payload-Digest %s does not match the payload", d)
				}
			}
		}
		for _, problem := range conventionProblems(h, gofer) {
			bad("%s", problem)
		}
		recs = append(recs, checked{at: p, typ: typ, id: h.Get("WARC-Record-ID"), date: h.Get("WARC-Date"),
			payload: h.Get("WARC-Payload-Digest"), concurrent: h.Values("WARC-Concurrent-To"),
			refersTo: h.Get("WARC-Refers-To"), refersToURI: h.Get("WARC-Refers-To-Target-URI"),
			refersDate: h.Get("WARC-Refers-To-Date")})
		read = append(read, fr)
	}
	if err := readRecords(f, onRecord); err != nil {
		report(Problem{File: path, Record: len(read) + 1, Offset: err.offset, Text: err.Error()})
	}
	if len(read) == 0 {
		report(Problem{File: path, Text: "no WARC records"})
	}
	checkIndex(path, read, report)
	return recs, nil
}

// checkIndex compares the index beside a segment, if there is one, with
// the records read from it.
func checkIndex(path string, read []fileRecord, report func(Problem)) {
	if !strings.HasSuffix(path, ".warc.gz") {
		return
	}
	name := IndexName(path)
	byOffset := map[int64]IndexEntry{}
	var dup []int64
	err := readIndex(name, func(_ string, e IndexEntry) {
		if _, ok := byOffset[e.Offset]; ok {
			dup = append(dup, e.Offset)
		}
		byOffset[e.Offset] = e
	})
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		report(Problem{File: path, Text: "index: " + err.Error()})
		return
	}
	for _, o := range dup {
		report(Problem{File: path, Text: fmt.Sprintf("index %s lists offset %d twice", fileBase(name), o)})
	}
	for _, fr := range read {
		h := fr.h
		p := Problem{File: path, Record: fr.n, Offset: fr.offset, URI: h.Get("WARC-Target-URI")}
		bad := func(format string, args ...any) {
			q := p
			q.Text = fmt.Sprintf("index %s: ", fileBase(name)) + fmt.Sprintf(format, args...)
			report(q)
		}
		e, ok := byOffset[fr.offset]
		delete(byOffset, fr.offset)
		if h.Get("WARC-Type") == "warcinfo" {
			if ok {
				bad("lists the warcinfo record")
			}
			continue
		}
		if !ok {
			bad("does not list the record")
			continue
		}
		want := IndexEntry{URL: h.Get("WARC-Target-URI"), Type: h.Get("WARC-Type"), Mime: h.Get("Content-Type"),
			Digest: digestOf(h), Offset: fr.offset, Length: fr.length, Filename: fileBase(path),
			ID: h.Get("WARC-Record-ID"), Date: h.Get("WARC-Date")}
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
	}
	for o, e := range byOffset {
		report(Problem{File: path, Text: fmt.Sprintf("index %s lists a record at offset %d (%s) that is not there",
			fileBase(name), o, printableURI(e.URL))})
	}
}

// readError is a record that could not be read, and where.
type readError struct {
	offset int64
	msg    string
}

func (e *readError) Error() string { return e.msg }

// readRecords reads the records of r, gzip members or a plain WARC, and
// calls fn with each: its header, what was wrong with its block framing
// ("" when nothing), and the digests of its block and payload. It stops
// at the first record that cannot be parsed.
func readRecords(r io.Reader, fn func(fileRecord, string, *blockSums)) *readError {
	cr := &countReader{r: r}
	br := bufio.NewReaderSize(cr, 64<<10)
	pos := func() int64 { return cr.n - int64(br.Buffered()) }
	magic, _ := br.Peek(2)
	n := 0
	if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		for {
			start := pos()
			if _, err := br.Peek(1); err != nil {
				return nil
			}
			n++
			h, sums, framing, err := readRecord(br)
			if err != nil {
				return &readError{start, err.Error()}
			}
			fn(fileRecord{n: n, offset: start, h: h}, framing, sums)
			if framing != "" && strings.HasPrefix(framing, "Content-Length") {
				return nil // the next record cannot be found
			}
		}
	}
	var zr *gzip.Reader
	for {
		start := pos()
		if _, err := br.Peek(1); err != nil {
			return nil
		}
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(br)
		} else {
			err = zr.Reset(br)
		}
		if err != nil {
			return &readError{start, "not a gzip member: " + err.Error()}
		}
		zr.Multistream(false)
		mr := bufio.NewReaderSize(zr, 64<<10)
		var got []fileRecord
		var framings []string
		var sums []*blockSums
		for {
			n++
			h, s, framing, err := readRecord(mr)
			if err != nil {
				return &readError{start, err.Error()}
			}
			got, framings, sums = append(got, fileRecord{n: n, offset: start, h: h}), append(framings, framing), append(sums, s)
			if framing != "" {
				// The next record of the member cannot be found: skip
				// to the next member.
				if _, err := io.Copy(io.Discard, mr); err != nil {
					return &readError{start, "gzip member: " + err.Error()}
				}
				break
			}
			if _, err := mr.Peek(1); err != nil {
				if !errors.Is(err, io.EOF) {
					return &readError{start, "gzip member: " + err.Error()}
				}
				break
			}
		}
		length := pos() - start
		for i, fr := range got {
			if len(got) == 1 {
				fr.length = length
			}
			fn(fr, framings[i], sums[i])
		}
	}
}

// blockSums are the digests of a block and of its payload, and the
// block's first bytes.
type blockSums struct {
	block   *sums
	payload *sums // nil when the payload cannot be told apart
	head    string
}

// readRecord reads one record: its version line and header, its block of
// Content-Length bytes and the CR LF CR LF that ends it. framing says what
// is wrong with the lengths, "" when nothing.
func readRecord(br *bufio.Reader) (textproto.MIMEHeader, *blockSums, string, error) {
	tp := textproto.NewReader(br)
	v, err := tp.ReadLine()
	if err != nil {
		return nil, nil, "", fmt.Errorf("record header: %w", err)
	}
	if !strings.HasPrefix(v, "WARC/") {
		return nil, nil, "", fmt.Errorf("not a WARC record: %.40q", v)
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, nil, "", fmt.Errorf("record header: %w", err)
	}
	length, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || length < 0 {
		return nil, nil, "", fmt.Errorf("Content-Length %q", h.Get("Content-Length"))
	}
	ps := payloadSplitter(h)
	s := &blockSums{block: newSums(h.Get("WARC-Block-Digest"))}
	if ps != nil {
		s.payload = newSums(h.Get("WARC-Payload-Digest"))
		ps.payload = s.payload
	}
	var head bytes.Buffer
	w := io.MultiWriter(s.block, headWriter{&head, 256}, splitWriter{ps})
	got, err := io.Copy(w, io.LimitReader(br, length))
	s.head = head.String()
	if err != nil {
		return nil, nil, "", fmt.Errorf("block: %w", err)
	}
	if got < length {
		return h, s, fmt.Sprintf("Content-Length %d, but the block ends after %d bytes", length, got), nil
	}
	if ps != nil && !ps.split {
		s.payload = nil
	}
	end := make([]byte, 4)
	k, _ := io.ReadFull(br, end)
	if string(end[:k]) != "\r\n\r\n" {
		return h, s, fmt.Sprintf("Content-Length %d, but the block is not followed by CR LF CR LF", length), nil
	}
	return h, s, "", nil
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
}

func payloadSplitter(h textproto.MIMEHeader) *splitter {
	ct := normalType(h.Get("Content-Type"))
	switch {
	case h.Get("WARC-Type") == "revisit":
		return nil
	case strings.HasPrefix(ct, "application/http"):
		return &splitter{sep: []byte("\r\n\r\n")}
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
		return len(p), nil
	}
	buf := append(s.tail, p...)
	if i := bytes.Index(buf, s.sep); i >= 0 {
		s.split = true
		s.payload.Write(buf[i+len(s.sep):])
		s.tail = nil
		return len(p), nil
	}
	if len(buf) > len(s.sep) {
		buf = buf[len(buf)-len(s.sep):]
	}
	s.tail = append([]byte(nil), buf...)
	return len(p), nil
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
	h := s.hs[strings.ReplaceAll(strings.ToLower(alg), "-", "")]
	if h == nil {
		return false, false
	}
	sum := h.Sum(nil)
	return strings.EqualFold(val, base32.StdEncoding.EncodeToString(sum)) ||
		strings.EqualFold(val, strings.TrimRight(base32.StdEncoding.EncodeToString(sum), "=")) ||
		strings.EqualFold(val, hex.EncodeToString(sum)), true
}

// sameDigest compares two labelled digests, the algorithm's case aside.
func sameDigest(a, b string) bool {
	aa, av, _ := strings.Cut(a, ":")
	ba, bv, _ := strings.Cut(b, ":")
	return strings.EqualFold(aa, ba) && strings.EqualFold(av, bv)
}
