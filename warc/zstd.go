package warc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// A WARC compressed with Zstandard (RFC 8878), as the IIPC's warc-zstd
// convention has it, is a sequence of zstd frames, each holding one
// record or more, the file's first frame perhaps a skippable frame
// (magic 0x184D2A5D) holding the dictionary the others were compressed
// with, itself perhaps zstd-compressed. A record's Offset is that of its
// frame, as of a gzip member's.

var (
	zstdMagic     = []byte{0x28, 0xb5, 0x2f, 0xfd}
	zstdDictMagic = []byte{0x37, 0xa4, 0x30, 0xec} // a dictionary's own magic
)

// maxZstdDict bounds the dictionary a file may carry.
const maxZstdDict = 16 << 20

// maxZstdWindow bounds the window a frame may ask its decoder to keep.
const maxZstdWindow = 64 << 20

// isSkippable reports whether b starts with a skippable frame's magic
// (0x184D2A50 to 0x184D2A5F, little-endian).
func isSkippable(b []byte) bool {
	return len(b) >= 4 && b[0]&0xf0 == 0x50 && b[1] == 0x2a && b[2] == 0x4d && b[3] == 0x18
}

// readSkippable reads a skippable frame at the reader's position; that of
// the warc-zstd convention's magic becomes the dictionary of the frames
// after it.
func (r *Reader) readSkippable(start int64) {
	hdr, err := r.br.Peek(8)
	if err != nil {
		r.skipGarbage(start, 1, "a zstd skippable frame cut short")
		return
	}
	size := int64(binary.LittleEndian.Uint32(hdr[4:]))
	dictFrame := hdr[0] == 0x5d
	r.br.Discard(8)
	if !dictFrame || size > maxZstdDict {
		if _, err := io.CopyN(io.Discard, r.br, size); err != nil {
			r.fail(start, "a zstd skippable frame cut short")
		}
		return
	}
	d := make([]byte, size)
	if _, err := io.ReadFull(r.br, d); err != nil {
		r.fail(start, "the zstd dictionary frame is cut short")
		return
	}
	if bytes.HasPrefix(d, zstdMagic) {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxZstdDict))
		if err == nil {
			d, err = dec.DecodeAll(d, nil)
			dec.Close()
		}
		if err != nil {
			r.fail(start, "the zstd dictionary frame: %v", err)
			return
		}
	}
	r.zdict = d
	if r.zd != nil {
		r.zd.Close()
		r.zd = nil
	}
}

// startZstd starts reading the zstd frame at start.
func (r *Reader) startZstd(start int64) bool {
	if r.zd == nil {
		opts := []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxZstdWindow)}
		if len(r.zdict) > 0 {
			if bytes.HasPrefix(r.zdict, zstdDictMagic) {
				opts = append(opts, zstd.WithDecoderDicts(r.zdict))
			} else if id, ok := r.frameDictID(); ok {
				opts = append(opts, zstd.WithDecoderDictRaw(id, r.zdict))
			}
		}
		zd, err := zstd.NewReader(nil, opts...)
		if err != nil {
			r.skipGarbage(start, 1, "a zstd frame ("+err.Error()+")")
			return false
		}
		r.zd = zd
	}
	r.zf = frameReader{br: r.br}
	if err := r.zd.Reset(&r.zf); err != nil {
		r.skipGarbage(start, 1, "a damaged zstd frame ("+err.Error()+")")
		return false
	}
	r.member, r.memberErr, r.memberRecs, r.kind = start, nil, 0, "zstd frame"
	r.dc = countReader{r: r.zd}
	r.dr = bufio.NewReaderSize(&r.dc, 64<<10)
	return true
}

// frameDictID is the dictionary ID the frame at the reader's position
// names.
func (r *Reader) frameDictID() (uint32, bool) {
	b, _ := r.br.Peek(18)
	var h zstd.Header
	if h.Decode(b) != nil || h.DictionaryID == 0 {
		return 0, false
	}
	return h.DictionaryID, true
}

// frameReader passes on the bytes of one zstd frame and ends there, so
// that the decoder reads no further: it follows the frame header's
// length, each block header's and the checksum's (RFC 8878 §3.1.1).
type frameReader struct {
	br    *bufio.Reader
	left  int64
	state int // 0: the frame header is next, 1: a block header, 2: the checksum, 3: the end
	sum   bool
}

var errZstdFrame = errors.New("not a zstd frame")

func (f *frameReader) Read(p []byte) (int, error) {
	for f.left == 0 {
		switch f.state {
		case 0:
			h, err := f.br.Peek(5)
			if err != nil {
				return 0, io.ErrUnexpectedEOF
			}
			if !bytes.Equal(h[:4], zstdMagic) {
				return 0, errZstdFrame
			}
			fhd := h[4]
			single := fhd&0x20 != 0
			n := int64(5) + int64([]int{0, 1, 2, 4}[fhd&3])
			if !single {
				n++
			}
			switch fcs := fhd >> 6; {
			case fcs == 0 && single:
				n++
			case fcs > 0:
				n += int64([]int{0, 2, 4, 8}[fcs])
			}
			f.sum = fhd&4 != 0
			f.left, f.state = n, 1
		case 1:
			b, err := f.br.Peek(3)
			if err != nil {
				return 0, io.ErrUnexpectedEOF
			}
			h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
			size := int64(h >> 3)
			switch (h >> 1) & 3 {
			case 1: // RLE: one byte repeated
				size = 1
			case 3:
				return 0, fmt.Errorf("zstd block of a reserved type")
			}
			f.left = 3 + size
			if h&1 != 0 {
				f.state = 3
				if f.sum {
					f.state = 2
				}
			}
		case 2:
			f.left, f.state = 4, 3
		default:
			return 0, io.EOF
		}
	}
	n, err := f.br.Read(p[:min(int64(len(p)), f.left)])
	f.left -= int64(n)
	if errors.Is(err, io.EOF) && f.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// loadDict reads the dictionary of the zstd file ra, when its first frame
// is one.
func (r *Reader) loadDict(ra io.ReaderAt) error {
	var hdr [8]byte
	if _, err := ra.ReadAt(hdr[:], 0); err != nil || !isSkippable(hdr[:]) || hdr[0] != 0x5d {
		return nil
	}
	d := NewReader(io.NewSectionReader(ra, 0, 8+int64(binary.LittleEndian.Uint32(hdr[4:]))), ReadOptions{})
	d.readSkippable(0)
	if len(d.pending) > 0 {
		return d.pending[0]
	}
	r.zdict = d.zdict
	return nil
}
