package warc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/nlnwa/gowarc"
)

// location is where a record lies, as an index or a scan finds it.
type location struct {
	file   string
	offset int64
	inner  int64
	uri    string
	typ    string
	id     string
	date   time.Time
}

// locate lists the records of files: from the CDXJ index beside a
// segment, without reading the segment; by reading the file otherwise.
func locate(files []string) ([]location, error) {
	var locs []location
	for _, f := range files {
		if strings.HasSuffix(f, ".warc.gz") {
			var got []location
			err := readIndex(IndexName(f), func(_ string, e IndexEntry) {
				d, _ := time.Parse(time.RFC3339Nano, e.Date)
				got = append(got, location{file: f, offset: e.Offset, inner: e.Inner, uri: TrimURI(e.URL), typ: e.Type, id: e.ID, date: d})
			})
			if err == nil {
				locs = append(locs, got...)
				continue
			}
			if !errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("warc: %w", err)
			}
		}
		err := Walk(f, false, func(e Entry, _ gowarc.WarcRecord) error {
			locs = append(locs, location{file: f, offset: e.Offset, inner: e.Inner, uri: e.URI,
				typ: e.Type, id: e.ID, date: e.Date})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return locs, nil
}

// ParseTimestamp reads a capture time as CDXJ and wayback URLs write it,
// YYYYMMDDhhmmss in UTC or any leading part of it ("2026", "20261127"), or
// as RFC 3339.
func ParseTimestamp(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	const full = "20060102150405"
	if len(s) >= 4 && len(s) <= len(full) && len(s)%2 == 0 && strings.Trim(s, "0123456789") == "" {
		// The parts left out are the earliest they can be.
		pad := s + "0101000000"[max(0, len(s)-4):]
		if t, err := time.Parse(full, pad[:len(full)]); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("warc: timestamp %q: want YYYYMMDDhhmmss (or a leading part) or RFC 3339", s)
}

// CatArchives copies to w the payload of a capture of uri in the
// archives (WARC files or segment prefixes, as Archives reads them): the
// first capture (a response, resource or revisit record) in archive
// order, or, with a non-zero at, the capture nearest to at. Records are found
// through the CDXJ index beside each segment and read where it says; a
// file without one is read through. A revisit is resolved to the record
// whose payload it stands for (WARC-Refers-To, else its
// WARC-Refers-To-Target-URI and WARC-Refers-To-Date).
func CatArchives(archives []string, uri string, at time.Time, w io.Writer) error {
	files, err := Archives(archives)
	if err != nil {
		return err
	}
	locs, err := locate(files)
	if err != nil {
		return err
	}
	var pick *location
	for i, l := range locs {
		if l.uri != uri || (l.typ != "response" && l.typ != "resource" && l.typ != "revisit") {
			continue
		}
		if pick == nil || !at.IsZero() && absDuration(l.date.Sub(at)) < absDuration(pick.date.Sub(at)) {
			pick = &locs[i]
		}
		if at.IsZero() {
			break
		}
	}
	if pick == nil {
		return fmt.Errorf("warc: %s: %w: %s", strings.Join(archives, " "), ErrNotFound, strings.TrimSpace(uri))
	}
	for range 8 { // a revisit of a revisit, at most a few deep
		next, err := catAt(*pick, w)
		if err != nil || next == nil {
			return err
		}
		pick = resolve(locs, next)
		if pick == nil {
			return fmt.Errorf("warc: %s: the revisit of %s refers to %s, which is in none of the archives",
				next.file, uri, next.id)
		}
	}
	return fmt.Errorf("warc: %s: revisits refer to revisits too deep", uri)
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// resolve finds the record a revisit refers to: by ID, else by target and
// date (ref.uri and ref.date).
func resolve(locs []location, ref *location) *location {
	for i, l := range locs {
		if ref.id != "" && l.id == ref.id {
			return &locs[i]
		}
	}
	for i, l := range locs {
		if ref.id == "" && l.uri == ref.uri && l.date.Equal(ref.date) && l.typ != "revisit" {
			return &locs[i]
		}
	}
	return nil
}

// catAt reads the record at l and copies its payload to w; for a revisit
// it copies nothing and returns what it refers to.
func catAt(l location, w io.Writer) (*location, error) {
	f, err := os.Open(l.file)
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	var ra io.ReaderAt = f
	base, size := int64(0), fi.Size()
	if isWACZ(l.file) {
		// Read in the WARC file that holds the record, where a zstd
		// file's dictionary is its first frame.
		if base, size, err = partAt(l.file, l.offset); err != nil {
			return nil, err
		}
		ra = io.NewSectionReader(f, base, size)
	}
	r, _, err := OpenRecord(ra, l.offset-base, size-(l.offset-base), l.inner)
	if err != nil {
		return nil, fmt.Errorf("warc: %s: record at offset %d: %w", l.file, l.offset, err)
	}
	if r.Type() == "revisit" {
		h := r.Header
		ref := &location{file: l.file, id: h.Get("WARC-Refers-To"), uri: TrimURI(h.Get("WARC-Refers-To-Target-URI"))}
		ref.date, _ = time.Parse(time.RFC3339Nano, h.Get("WARC-Refers-To-Date"))
		return ref, nil
	}
	rec, err := r.Parse()
	if err != nil {
		return nil, fmt.Errorf("warc: %s: record at offset %d: %w", l.file, l.offset, err)
	}
	defer rec.Close()
	p, err := Payload(rec)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(w, p)
	return nil, err
}
