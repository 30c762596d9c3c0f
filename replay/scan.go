package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"strings"

	"github.com/goferurl/gofer/warc"
)

// scanSegment lists the whole records of a segment that has no index:
// its gzip members in order, fn called with the entry of each record but
// a warcinfo. A member that does not hold a whole record (damaged, or cut
// short at the end of the file) is skipped to the next member that does,
// and each stretch skipped is one line of the problems returned.
func scanSegment(seg string, fn func(warc.IndexEntry)) (problems []string, err error) {
	f, err := os.Open(seg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	m := &memberReader{f: f, size: size}
	var pos int64
	for pos < size {
		end, e, ok := m.read(pos)
		if ok {
			if e.Type != "warcinfo" {
				e.Filename = fileBase(seg)
				fn(e)
			}
			pos = end
			continue
		}
		// Find the next member that holds a whole record.
		next := size
		for q := m.nextMagic(pos + 1); q < size; q = m.nextMagic(q + 1) {
			if _, _, ok := m.read(q); ok {
				next = q
				break
			}
		}
		what := "not a whole record"
		if next == size {
			what = "not a whole record (the file is cut short?)"
		}
		problems = append(problems, fmt.Sprintf("%s: %d bytes at offset %d are %s; left out", seg, next-pos, pos, what))
		pos = next
	}
	return problems, nil
}

func fileBase(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// memberReader reads single gzip members of a file at given offsets.
type memberReader struct {
	f    *os.File
	size int64
	zr   *gzip.Reader
	br   *bufio.Reader
}

// read decompresses the member at off whole and returns where it ends and
// its record's index entry; ok is false when it is not a gzip member
// holding a whole WARC record.
func (m *memberReader) read(off int64) (end int64, e warc.IndexEntry, ok bool) {
	cr := &countReader{r: io.NewSectionReader(m.f, off, m.size-off)}
	if m.br == nil {
		m.br = bufio.NewReaderSize(cr, 64<<10)
	} else {
		m.br.Reset(cr)
	}
	var err error
	if m.zr == nil {
		m.zr, err = gzip.NewReader(m.br)
	} else {
		err = m.zr.Reset(m.br)
	}
	if err != nil {
		return 0, e, false
	}
	m.zr.Multistream(false)
	tp := textproto.NewReader(bufio.NewReaderSize(m.zr, 4096))
	v, err := tp.ReadLine()
	if err != nil || !strings.HasPrefix(v, "WARC/") {
		return 0, e, false
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return 0, e, false
	}
	// The rest of the block, read through the textproto's buffer: the
	// member's CRC and length are checked at its end.
	if _, err := io.Copy(io.Discard, tp.R); err != nil {
		return 0, e, false
	}
	end = off + cr.n - int64(m.br.Buffered())
	e = warc.IndexEntry{URL: h.Get("WARC-Target-URI"), Type: h.Get("WARC-Type"), Mime: h.Get("Content-Type"),
		Digest: h.Get("WARC-Payload-Digest"), Offset: off, Length: end - off, ID: h.Get("WARC-Record-ID"),
		Date: h.Get("WARC-Date")}
	if e.Digest == "" {
		e.Digest = h.Get("WARC-Block-Digest")
	}
	return end, e, true
}

// gzipMagic starts every gzip member (RFC 1952 §2.3.1: ID1, ID2, CM
// deflate).
var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// nextMagic returns the offset of the next gzip magic at or after off, the
// file's size when there is none.
func (m *memberReader) nextMagic(off int64) int64 {
	buf := make([]byte, 64<<10)
	for off < m.size {
		n, err := m.f.ReadAt(buf, off)
		if i := bytes.Index(buf[:n], gzipMagic); i >= 0 {
			return off + int64(i)
		}
		if err != nil || n < len(gzipMagic) {
			return m.size
		}
		off += int64(n - len(gzipMagic) + 1)
	}
	return m.size
}
