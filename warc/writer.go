package warc

import (
	"bufio"
	"compress/gzip"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nlnwa/gowarc"
)

// DefaultMaxSize is the size past which a segmented Writer starts a new
// segment when none is given.
const DefaultMaxSize = 1 << 30

// Info is what a file's warcinfo record says of the capture.
type Info struct {
	// Software is the program and its version, "gofer 1.2.3".
	Software string
	// Command is the command line, passwords already masked.
	Command string
}

// Writer appends records to one WARC file, or to numbered segments
// PREFIX-00000.warc.gz, PREFIX-00001.warc.gz, ... It is safe for
// concurrent use: records are written whole, one at a time.
type Writer struct {
	mu      sync.Mutex
	info    Info
	path    string // one file; "" when segmented
	prefix  string
	maxSize int64
	seq     int
	f       *os.File
	name    string
	size    int64
	infoID  string
	err     error
	gz      *gzip.Writer
	// lines is the index of the open segment; seen the last payload
	// recorded per target URI (resource and response records), from the
	// earlier segments' indexes and this run's records.
	lines []string
	seen  map[string]IndexEntry
	// spool holds blocks larger than 1 MiB while they stream in.
	spool string
	// items and attrs link Gopher items to their Gopher+ attribute
	// blocks (links.go).
	items map[string]string
	attrs map[string]string
	// failed counts records that could not be made, firstFail the first
	// reason: a capture cannot fail the fetch it watches, so the archive
	// reports them at its end (Err).
	failed    int
	firstFail error
	records   int
	// Recovered lists segments a killed run had left half written, and
	// how many bytes were cut off the end of each to make it whole.
	Recovered []string
}

// Create returns a Writer that writes one file, path, replacing it.
func Create(path string, info Info) (*Writer, error) {
	w := &Writer{info: info, path: path}
	if err := w.makeSpool(path); err != nil {
		return nil, err
	}
	if err := w.open(path); err != nil {
		os.RemoveAll(w.spool)
		return nil, err
	}
	return w, nil
}

// CreateSegments returns a Writer of segments PREFIX-NNNNN.warc.gz, a new
// one started when the current one has grown past maxSize (0:
// DefaultMaxSize). Numbering goes on after the highest segment already
// there, so a rerun never writes into an earlier run's files.
func CreateSegments(prefix string, maxSize int64, info Info) (*Writer, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	w := &Writer{info: info, prefix: prefix, maxSize: maxSize, seen: map[string]IndexEntry{}}
	if fi, err := os.Stat(filepath.Dir(prefix)); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("warc: %s: no such directory for the segments", filepath.Dir(prefix))
	}
	segs, err := Segments(prefix)
	if err != nil {
		return nil, err
	}
	if err := w.makeSpool(prefix); err != nil {
		return nil, err
	}
	for _, seg := range segs {
		idx := IndexName(seg)
		if _, err := os.Stat(idx); errors.Is(err, os.ErrNotExist) {
			// A segment is indexed when it is closed: one without an
			// index was open when its run was killed.
			lines, cut, err := Recover(seg)
			if err != nil {
				return nil, err
			}
			if fi, err := os.Stat(seg); err == nil && fi.Size() == 0 {
				// Killed before its first record was whole: a segment
				// with no record is no WARC, and goes.
				if err := os.Remove(seg); err != nil {
					return nil, fmt.Errorf("warc: %w", err)
				}
				w.Recovered = append(w.Recovered, fmt.Sprintf("%s: removed, no record in it was finished (%d bytes)", seg, cut))
				continue
			}
			if cut > 0 {
				w.Recovered = append(w.Recovered, fmt.Sprintf("%s: cut %d bytes of a record left unfinished", seg, cut))
			}
			if err := writeIndex(seg, lines); err != nil {
				return nil, err
			}
		}
		if err := readIndex(idx, func(_ string, e IndexEntry) { w.remember(e) }); err != nil {
			return nil, fmt.Errorf("warc: %w", err)
		}
	}
	if len(segs) > 0 {
		var n int
		fmt.Sscanf(strings.TrimSuffix(segs[len(segs)-1][len(prefix)+1:], ".warc.gz"), "%d", &n)
		w.seq = n + 1
	}
	return w, nil
}

// Segments returns the segment files of prefix, in order.
func Segments(prefix string) ([]string, error) {
	m, err := filepath.Glob(globEscape(prefix) + "-[0-9][0-9][0-9][0-9][0-9]*.warc.gz")
	if err != nil {
		return nil, err
	}
	sort.Strings(m)
	return m, nil
}

func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// SegmentName is the name of segment n of prefix.
func SegmentName(prefix string, n int) string {
	return fmt.Sprintf("%s-%05d.warc.gz", prefix, n)
}

// open starts a file with its warcinfo record.
func (w *Writer) open(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	w.f, w.name, w.size = f, path, 0
	b := newBuilder(gowarc.Warcinfo, w.spool)
	id := NewID()
	b.AddWarcHeader(gowarc.WarcRecordID, id)
	b.AddWarcHeaderTime(gowarc.WarcDate, time.Now())
	b.AddWarcHeader(gowarc.WarcFilename, filepath.Base(path))
	b.AddWarcHeader(gowarc.ContentType, gowarc.ApplicationWarcFields)
	fmt.Fprintf(b, "software: %s\r\n", w.info.Software)
	fmt.Fprintf(b, "format: WARC File Format 1.1\r\n")
	fmt.Fprintf(b, "conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n")
	if w.info.Command != "" {
		fmt.Fprintf(b, "description: %s\r\n", oneLine(w.info.Command))
	}
	rec, _, err := b.Build()
	if err != nil {
		f.Close()
		return fmt.Errorf("warc: warcinfo: %w", err)
	}
	defer rec.Close()
	w.infoID = ""
	if err := w.writeLocked(rec); err != nil {
		return err
	}
	w.infoID = id
	return nil
}

func oneLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

// optionsMu serialises the making of gowarc options: each one enables the
// uuid package's random pool, an unsynchronised write to a global.
var optionsMu sync.Mutex

// newBuilder returns a record builder of type t with gofer's options,
// spooling past 1 MiB into files in spool ("": the system's temporary
// directory).
func newBuilder(t gowarc.RecordType, spool string) gowarc.WarcRecordBuilder {
	optionsMu.Lock()
	defer optionsMu.Unlock()
	return gowarc.NewRecordBuilder(t, gowarc.WithVersion(gowarc.V1_1),
		gowarc.WithBufferMaxMemBytes(1<<20), gowarc.WithBufferTmpDir(spool))
}

// makeSpool makes the directory the writer of name (a file or a segment
// prefix) spools large blocks in: beside the archive, hidden, so that a
// run killed with blocks half spooled leaves them where the next run on
// the same archive removes them.
func (w *Writer) makeSpool(name string) error {
	w.spool = filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".spool")
	if err := os.RemoveAll(w.spool); err != nil {
		return fmt.Errorf("warc: clear spool: %w", err)
	}
	if err := os.Mkdir(w.spool, 0o700); err != nil {
		return fmt.Errorf("warc: spool: %w", err)
	}
	return nil
}

// NewID returns a fresh record ID, "<urn:uuid:...>" (RFC 4122 version 4).
func NewID() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// Write appends rec as one gzip member, starting a new segment first when
// the current one is full.
func (w *Writer) Write(rec gowarc.WarcRecord) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f != nil && w.path == "" && w.size >= w.maxSize {
		if err := w.closeLocked(); err != nil {
			return err
		}
	}
	if w.f == nil {
		if w.path != "" {
			return errors.New("warc: write to a closed file")
		}
		if err := w.open(SegmentName(w.prefix, w.seq)); err != nil {
			w.err = err
			return err
		}
		w.seq++
	}
	if err := w.writeLocked(rec); err != nil {
		w.err = err
		return err
	}
	return nil
}

// writeLocked writes one record as one gzip member at the end of the file.
func (w *Writer) writeLocked(rec gowarc.WarcRecord) error {
	if w.infoID != "" {
		rec.WarcHeader().Set(gowarc.WarcWarcinfoID, w.infoID)
	}
	start := w.size
	cw := &countWriter{w: w.f}
	bw := bufio.NewWriterSize(cw, 64<<10)
	if w.gz == nil {
		w.gz = gzip.NewWriter(bw)
	} else {
		w.gz.Reset(bw)
	}
	if _, _, err := gowarc.NewMarshaler().Marshal(w.gz, rec, 0); err != nil {
		return w.undo(start, err)
	}
	if err := w.gz.Close(); err != nil {
		return w.undo(start, err)
	}
	if err := bw.Flush(); err != nil {
		return w.undo(start, err)
	}
	w.size += cw.n
	if rec.Type() != gowarc.Warcinfo {
		w.records++
	}
	if w.path == "" && rec.Type() != gowarc.Warcinfo {
		line, e := indexLine(w.name, start, cw.n, rec)
		w.lines = append(w.lines, line)
		w.remember(e)
	}
	return nil
}

// remember notes the payload an index entry records for its URI.
func (w *Writer) remember(e IndexEntry) {
	if w.seen != nil && dedupable(e.Type, e.Mime) && e.Digest != "" {
		w.seen[e.URL] = e
	}
}

// previous returns the record made earlier of uri when its payload had
// this digest.
func (w *Writer) previous(uri, digest string) (IndexEntry, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.seen[uri]
	return e, ok && digest != "" && e.Digest == digest
}

// undo cuts a record that failed half way off the file, so that the file
// ends with its last whole record.
func (w *Writer) undo(at int64, err error) error {
	if terr := w.f.Truncate(at); terr == nil {
		w.f.Seek(at, io.SeekStart)
	}
	return fmt.Errorf("warc: write %s: %w", w.name, err)
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Close ends the current file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.closeLocked()
	if w.spool != "" {
		os.RemoveAll(w.spool)
	}
	return err
}

func (w *Writer) closeLocked() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Sync()
	if w.path == "" && err == nil {
		err = writeIndex(w.name, w.lines)
		w.lines = nil
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if err != nil {
		return fmt.Errorf("warc: close %s: %w", w.name, err)
	}
	return nil
}

// Files returns the files written: the one file, or every segment of
// the prefix, in order.
func (w *Writer) Files() ([]string, error) {
	if w.path != "" {
		return []string{w.path}, nil
	}
	return Segments(w.prefix)
}

func (w *Writer) noteFailure(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failed++
	if w.firstFail == nil {
		w.firstFail = err
	}
}

// Err reports the records that could not be written, nil when none.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed == 0 {
		return nil
	}
	return fmt.Errorf("warc: %d records could not be written; the first: %w", w.failed, w.firstFail)
}

// Records returns how many records have been written besides the
// warcinfo records.
func (w *Writer) Records() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.records
}
