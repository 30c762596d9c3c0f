package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// ScanFile reads the records of the WARC or ARC file path (Reader) and
// calls fn with the index line and entry of each but a warcinfo, its
// Offset and Length those of its gzip member, or of the record in an
// uncompressed file. A record that shares its member with others has
// the member's Offset and Length, and Inner says where it starts in the
// member's decompressed bytes; the records of a member that does not end
// whole are left out. problem, when not nil, receives each stretch of the
// file that holds no readable record. A file without any record is
// ErrNoRecords.
//
// A WACZ file's lines are those of the WARC files it stores, each record's
// offset its offset in the WACZ file, which the lines name.
func ScanFile(path string, fn func(line string, e IndexEntry), problem func(error)) error {
	records := 0
	err := readParts(path, func(p part) error {
		n, err := scan(newPartReader(p, ReadOptions{}), path, p.name, fn, problem)
		records += n
		if err != nil && !errors.Is(err, ErrNoRecords) {
			return err
		}
		return nil
	})
	if err == nil && records == 0 {
		err = fmt.Errorf("warc: %s: %w", path, ErrNoRecords)
	}
	return err
}

// Scan is ScanFile of the WARC file's bytes in src (a file inside
// another, such as a WACZ's), path naming it in the lines and errors.
func Scan(src io.Reader, path string, fn func(line string, e IndexEntry), problem func(error)) error {
	_, err := scan(NewReader(src, ReadOptions{}), path, path, fn, problem)
	return err
}

// scan is Scan of what r reads, the lines naming the file path, errors
// naming name; it returns how many records it read.
func scan(r *Reader, path, name string, fn func(line string, e IndexEntry), problem func(error)) (int, error) {
	type held struct {
		uri, typ, mime, digest, id, date string
		offset, inner                    int64
	}
	var member []held
	emit := func(h held, length int64) {
		if h.typ == "warcinfo" {
			return
		}
		line, e := indexLineInner(path, h.offset, length, h.inner, h.uri, h.typ, h.mime, h.digest, h.id, h.date)
		fn(line, e)
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var re *RecordError
		if errors.As(err, &re) {
			if problem != nil {
				problem(fmt.Errorf("warc: %s: %w", name, err))
			}
			continue
		}
		if err != nil {
			return r.Records(), fmt.Errorf("warc: %s: %w", name, err)
		}
		h := held{uri: rec.TargetURI(), typ: rec.Type(), mime: rec.Header.Get("Content-Type"), digest: rec.Digest(),
			id: rec.Header.Get("WARC-Record-ID"), date: rec.Header.Get("WARC-Date"), offset: rec.Offset, inner: rec.Inner}
		if len(member) > 0 && member[0].offset != h.offset {
			member = nil // its member did not end whole
		}
		end, ended := r.Finish()
		if !ended {
			member = append(member, h)
			continue
		}
		if len(member) == 0 {
			emit(h, end-h.offset)
			continue
		}
		for _, m := range append(member, h) {
			emit(m, end-m.offset)
		}
		member = nil
	}
	if r.Records() == 0 {
		return 0, fmt.Errorf("warc: %s: %w", name, ErrNoRecords)
	}
	return r.Records(), nil
}

// OpenRecord reads the record that starts at offset in ra, in the gzip
// member of length bytes there, inner bytes into its decompressed bytes
// (or uncompressed at offset when the bytes there are no gzip member).
// The Reader returned reads on from it.
func OpenRecord(ra io.ReaderAt, offset, length, inner int64) (*Record, *Reader, error) {
	r := NewReader(io.NewSectionReader(ra, offset, length), ReadOptions{})
	r.cr.n, r.base, r.anyARC = offset, offset, true
	magic, _ := r.br.Peek(4)
	if bytes.Equal(magic, zstdMagic) {
		// A zstd file's dictionary, if any, is its first frame.
		if err := r.loadDict(ra); err != nil {
			return nil, nil, err
		}
		if !r.startZstd(offset) {
			return nil, nil, fmt.Errorf("zstd frame at offset %d cannot be read", offset)
		}
		if _, err := r.dr.Discard(int(min(inner, 1<<62))); err != nil {
			return nil, nil, fmt.Errorf("zstd frame at offset %d: %d bytes into it: %w", offset, inner, err)
		}
	} else if inner > 0 && len(magic) >= 2 && magic[0] == gzipMagic[0] && magic[1] == gzipMagic[1] {
		zr, err := gzip.NewReader(r.br)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip member at offset %d: %w", offset, err)
		}
		zr.Multistream(false)
		r.zr, r.member, r.kind = zr, offset, "gzip member"
		r.dc = countReader{r: zr}
		r.dr = bufio.NewReaderSize(&r.dc, 64<<10)
		if _, err := r.dr.Discard(int(min(inner, 1<<62))); err != nil {
			return nil, nil, fmt.Errorf("gzip member at offset %d: %d bytes into it: %w", offset, inner, err)
		}
	}
	rec, err := r.Next()
	if err != nil {
		return nil, nil, err
	}
	return rec, r, nil
}
