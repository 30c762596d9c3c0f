package warc

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"strings"
)

// Recover makes a segment a killed run may have left half written valid
// again: it reads the segment's gzip members in order and cuts the file
// back to the end of the last one that holds a whole record (a member
// whose deflate stream, CRC and length check out). It returns the index
// lines of the records kept and how many bytes were cut.
func Recover(seg string) (lines []string, cut int64, err error) {
	f, err := os.OpenFile(seg, os.O_RDWR, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("warc: recover: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("warc: recover: %w", err)
	}
	good := scanMembers(f, seg, func(l string, _ IndexEntry) { lines = append(lines, l) })
	if good < fi.Size() {
		if err := f.Truncate(good); err != nil {
			return nil, 0, fmt.Errorf("warc: recover %s: %w", seg, err)
		}
		if err := f.Sync(); err != nil {
			return nil, 0, fmt.Errorf("warc: recover %s: %w", seg, err)
		}
	}
	return lines, fi.Size() - good, nil
}

func digestOf(h textproto.MIMEHeader) string {
	if d := h.Get("WARC-Payload-Digest"); d != "" {
		return d
	}
	return h.Get("WARC-Block-Digest")
}

// readHeader reads a record's version line and header fields.
func readHeader(r io.Reader) (textproto.MIMEHeader, error) {
	tp := textproto.NewReader(bufio.NewReaderSize(r, 4096))
	v, err := tp.ReadLine()
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(v, "WARC/") {
		return nil, errors.New("not a WARC record")
	}
	h, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	// What the bufio.Reader read ahead is the block: the caller drains
	// r, and the member's check comes at its end either way.
	return h, nil
}

// scanMembers reads gzip members from r in order while each holds a whole
// record, calls fn with the index line and entry of each record but a
// warcinfo (named as in seg), and returns where the last of them ends.
func scanMembers(r io.Reader, seg string, fn func(string, IndexEntry)) (good int64) {
	cr := &countReader{r: r}
	br := bufio.NewReaderSize(cr, 64<<10)
	pos := func() int64 { return cr.n - int64(br.Buffered()) }
	var zr *gzip.Reader
	for {
		start := pos()
		if _, err := br.Peek(1); err != nil {
			return good
		}
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(br)
		} else {
			err = zr.Reset(br)
		}
		if err != nil {
			return good
		}
		zr.Multistream(false)
		h, err := readHeader(zr)
		if err != nil {
			return good
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			return good
		}
		end := pos()
		if h.Get("WARC-Type") != "warcinfo" {
			fn(indexLineFields(seg, start, end-start, h.Get("WARC-Target-URI"), h.Get("WARC-Type"),
				h.Get("Content-Type"), digestOf(h), h.Get("WARC-Record-ID"), h.Get("WARC-Date")))
		}
		good = end
	}
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
