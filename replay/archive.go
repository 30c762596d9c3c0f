package replay

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/warc"
)

// ErrNotCaptured is the error of a lookup for a URI the archive holds no
// usable capture of.
var ErrNotCaptured = errors.New("not captured")

// Options are what Open needs besides the archives.
type Options struct {
	// At picks, for each URI captured more than once, the capture nearest
	// this time; the zero time picks the latest.
	At time.Time
	// Warn receives one line per problem found in the archives (a
	// segment without an index, records not whole), and, from the
	// servers Start starts, per record that cannot be read while
	// serving; nil discards them.
	Warn func(string)
}

// Archive is the index of one or more WARC files: every captured target
// URI and where its records lie.
type Archive struct {
	at    time.Time
	warn  func(string)
	byURI map[string][]*capture // in date order
	byID  map[string]*capture
	uris  []string // in the order first seen
}

// capture is one record as the index names it.
type capture struct {
	seg string // the segment's path (a WACZ's, for a WARC file inside it)
	// base is where the WARC file begins in seg: 0 but inside a WACZ.
	base  int64
	entry warc.IndexEntry
	date  time.Time
	seq   int // order across the archives
}

// Open indexes the archives: each is a WARC file, a segment prefix as
// gofer mirror --warc writes them (warc.Segments), or a CDXJ index file
// (NAME.cdxj) over several segments, as gofer warc merge prints one for
// the workers of a cluster job, whose records are read from the segments
// its lines name, in the index's directory, or a WACZ file (NAME.wacz: a
// ZIP archive whose archive/ directory holds WARC files, stored
// uncompressed as the WACZ convention has them).
func Open(archives []string, opt Options) (*Archive, error) {
	a := &Archive{at: opt.At, warn: opt.Warn, byURI: map[string][]*capture{}, byID: map[string]*capture{}}
	if a.warn == nil {
		a.warn = func(string) {}
	}
	for _, name := range archives {
		if strings.HasSuffix(name, ".cdxj") {
			if err := a.addIndex(name); err != nil {
				return nil, err
			}
			continue
		}
		if strings.HasSuffix(strings.ToLower(name), ".wacz") {
			if err := a.addWACZ(name); err != nil {
				return nil, err
			}
			continue
		}
		segs, err := segmentsOf(name)
		if err != nil {
			return nil, err
		}
		for _, seg := range segs {
			if err := a.addSegment(seg); err != nil {
				return nil, err
			}
		}
	}
	for _, cs := range a.byURI {
		slices.SortStableFunc(cs, func(x, y *capture) int { return x.date.Compare(y.date) })
	}
	return a, nil
}

// segmentsOf returns the WARC files an archive argument names.
func segmentsOf(name string) ([]string, error) {
	if fi, err := os.Stat(name); err == nil {
		if fi.IsDir() {
			return nil, fmt.Errorf("replay: %s is a directory, not a WARC file or segment prefix", name)
		}
		return []string{name}, nil
	}
	segs, err := warc.Segments(name)
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", name, err)
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("replay: %s: no WARC file or segments %s-NNNNN.warc.gz", name, name)
	}
	return segs, nil
}

// addSegment reads the index of one segment, or its records when it has
// none, and checks that every record it names lies whole in the file.
func (a *Archive) addSegment(seg string) error {
	fi, err := os.Stat(seg)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if _, err := os.Stat(warc.IndexName(seg)); err != nil {
		a.warn(fmt.Sprintf("%s: no index beside it; reading its records", seg))
		problems, err := scanSegment(seg, func(e warc.IndexEntry) { a.add(seg, e) })
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		for _, p := range problems {
			a.warn(p)
		}
		return nil
	}
	err = warc.Index(seg, func(_ string, e warc.IndexEntry) {
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > fi.Size() {
			a.warn(fmt.Sprintf("%s: record of %s at offset %d lies past the end of the file (%d bytes); left out",
				seg, e.URL, e.Offset, fi.Size()))
			return
		}
		a.add(seg, e)
	})
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

// addIndex reads a CDXJ index over segments beside it: each line's record
// is read from the segment its filename names, in the index's directory.
func (a *Archive) addIndex(name string) error {
	dir := filepath.Dir(name)
	sizes := map[string]int64{}
	err := warc.IndexFile(name, func(_ string, e warc.IndexEntry) {
		seg := filepath.Join(dir, filepath.Base(e.Filename))
		size, ok := sizes[seg]
		if !ok {
			size = -1
			if fi, err := os.Stat(seg); err == nil {
				size = fi.Size()
			} else {
				a.warn(fmt.Sprintf("%s: the segment %s it names is not beside it; its records are left out", name, e.Filename))
			}
			sizes[seg] = size
		}
		if size < 0 {
			return
		}
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > size {
			a.warn(fmt.Sprintf("%s: record of %s at offset %d lies past the end of %s (%d bytes); left out", name, e.URL, e.Offset, seg, size))
			return
		}
		a.add(seg, e)
	})
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// addWACZ reads the records of every WARC file (.warc, .warc.gz,
// .warc.zst) in a WACZ's archive/ directory, where the ZIP archive stores
// it: a file the ZIP compressed
// (against the convention) is left out with a warning.
func (a *Archive) addWACZ(name string) error {
	zr, err := zip.OpenReader(name)
	if err != nil {
		return fmt.Errorf("replay: %s: not a WACZ (ZIP) file: %w", name, err)
	}
	defer zr.Close()
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	found := 0
	for _, zf := range zr.File {
		if !warc.WACZArchived(zf.Name) {
			continue
		}
		if zf.Method != zip.Store {
			a.warn(fmt.Sprintf("%s: %s is compressed in the ZIP, not stored; left out", name, zf.Name))
			continue
		}
		base, err := zf.DataOffset()
		if err != nil {
			return fmt.Errorf("replay: %s: %s: %w", name, zf.Name, err)
		}
		found++
		sec := io.NewSectionReader(f, base, int64(zf.UncompressedSize64))
		err = warc.Scan(sec, name+"#"+zf.Name, func(_ string, e warc.IndexEntry) { a.addAt(name, base, e) }, func(err error) {
			a.warn(strings.TrimPrefix(err.Error(), "warc: ") + "; left out")
		})
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	if found == 0 {
		return fmt.Errorf("replay: %s: no WARC file in its archive/ directory", name)
	}
	return nil
}

func (a *Archive) add(seg string, e warc.IndexEntry) { a.addAt(seg, 0, e) }

// addAt adds the record e of the WARC file that begins base bytes into seg.
func (a *Archive) addAt(seg string, base int64, e warc.IndexEntry) {
	c := &capture{seg: seg, base: base, entry: e, seq: len(a.byID)}
	c.date, _ = time.Parse(time.RFC3339Nano, e.Date)
	if _, ok := a.byURI[e.URL]; !ok {
		a.uris = append(a.uris, e.URL)
	}
	a.byURI[e.URL] = append(a.byURI[e.URL], c)
	if e.ID != "" {
		a.byID[e.ID] = c
	}
}

// pick returns the capture of uri nearest the archive's time among those
// keep accepts, nil when none.
func (a *Archive) pick(uri string, keep func(*capture) bool) *capture {
	var best *capture
	for _, c := range a.byURI[uri] {
		if !keep(c) {
			continue
		}
		if best == nil || a.nearer(c, best) {
			best = c
		}
	}
	return best
}

// nearer reports whether c is nearer the archive's time than d (the later
// of two as near).
func (a *Archive) nearer(c, d *capture) bool {
	if a.at.IsZero() {
		return !c.date.Before(d.date)
	}
	dc, dd := absDuration(c.date.Sub(a.at)), absDuration(d.date.Sub(a.at))
	return dc < dd || dc == dd && !c.date.Before(d.date)
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// ParseTime reads a time as --at gives it: RFC 3339, or the 14 digits
// YYYYMMDDhhmmss of a WARC index (UTC), or a prefix of them (20260101).
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if _, err := strconv.ParseUint(s, 10, 64); err == nil && len(s) >= 4 && len(s) <= 14 && len(s)%2 == 0 {
		layout := "20060102150405"[:len(s)]
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("replay: time %q: want RFC 3339 (2006-01-02T15:04:05Z) or YYYYMMDDhhmmss", s)
}

// hostKey is the "host:port" a URI's server is known by, lower case, an
// IPv6 address in brackets ("[::1]:70").
func hostKey(host string, port int) string {
	return net.JoinHostPort(strings.ToLower(host), strconv.Itoa(port))
}

// wantedHost is the hostKey a --host value names: "host", "host:port",
// "[v6]" or "[v6]:port", with defPort when it names no port. A bare IPv6
// address ("::1") names the address, not a port.
func wantedHost(h string, defPort int) string {
	if host, port, err := net.SplitHostPort(h); err == nil {
		return net.JoinHostPort(strings.ToLower(host), port)
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return hostKey(h, defPort)
}
