package wais

import (
	"errors"
	"fmt"
	"strconv"
)

// HeaderSize is the length of the ASCII header before every message.
const HeaderSize = 25

// Z39.50-1988 PDU types.
const (
	pduInitRequest    = 0x14
	pduInitResponse   = 0x15
	pduSearchRequest  = 0x16
	pduSearchResponse = 0x17
)

// Data tags: Z39.50-1988 (below 99), the WAIS extensions (99 and up) and
// the type-1 query terms (44-46).
const (
	tagReferenceID         = 2
	tagResultSetName       = 17
	tagDatabaseNames       = 18
	tagElementSetNames     = 19
	tagQueryType           = 20
	tagQuery               = 21
	tagResultSetStatus     = 26
	tagPresentStatus       = 27
	tagDiagnosticRecords   = 28
	tagAttributeList       = 44
	tagTerm                = 45
	tagOperator            = 46
	tagUserInformation     = 99
	tagSeedWords           = 106
	tagDateFactor          = 111
	tagMaxDocuments        = 114
	tagSeedWordsUsed       = 115
	tagDocumentID          = 116
	tagVersionNumber       = 117
	tagScore               = 118
	tagBestMatch           = 119
	tagDocumentLength      = 120
	tagSource              = 121
	tagDate                = 122
	tagHeadline            = 123
	tagOriginCity          = 124
	tagDocumentText        = 127
	tagLines               = 131
	tagTypeBlock           = 132
	tagType                = 133
	tagDocumentHeaderGroup = 150
	tagShortHeaderGroup    = 151
	tagLongHeaderGroup     = 152
	tagDocumentTextGroup   = 153
)

// errMalformed is wrapped by every decoding error.
var errMalformed = errors.New("malformed WAIS message")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// appendCompressed writes n in the compressed form: seven bits a byte,
// most significant first, the high bit set on every byte but the last.
func appendCompressed(b []byte, n uint64) []byte {
	var tmp [10]byte
	i := len(tmp) - 1
	tmp[i] = byte(n & 0x7f)
	for n >>= 7; n > 0; n >>= 7 {
		i--
		tmp[i] = byte(n&0x7f) | 0x80
	}
	return append(b, tmp[i:]...)
}

// maxCompressed bounds a compressed integer: five bytes hold 35 bits, more
// than any length a message can have (ten decimal digits).
const maxCompressed = 5

// readCompressed reads a compressed integer at b[i:], returning it and the
// offset after it.
func readCompressed(b []byte, i int) (uint64, int, error) {
	var n uint64
	for k := 0; k < maxCompressed; k++ {
		if i >= len(b) {
			return 0, i, malformed("compressed integer runs past the end")
		}
		c := b[i]
		i++
		n = n<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return n, i, nil
		}
	}
	return 0, i, malformed("compressed integer longer than %d bytes", maxCompressed)
}

// appendAny writes a tagged octet string: tag, length, bytes.
func appendAny(b []byte, tag int, v []byte) []byte {
	b = appendCompressed(b, uint64(tag))
	b = appendCompressed(b, uint64(len(v)))
	return append(b, v...)
}

// appendNum writes a tagged binary integer in as few bytes as it needs
// (one to four; negative numbers take four).
func appendNum(b []byte, tag int, n int64) []byte {
	size := 4
	switch {
	case n < 0:
	case n < 1<<8:
		size = 1
	case n < 1<<16:
		size = 2
	case n < 1<<24:
		size = 3
	}
	b = appendCompressed(b, uint64(tag))
	b = appendCompressed(b, uint64(size))
	for i := size - 1; i >= 0; i-- {
		b = append(b, byte(n>>(8*i)))
	}
	return b
}

// appendInt writes a fixed-size big-endian integer with no tag (the fixed
// fields of an APDU).
func appendInt(b []byte, n int64, size int) []byte {
	for i := size - 1; i >= 0; i-- {
		b = append(b, byte(n>>(8*i)))
	}
	return b
}

// field is one tag-length-value item.
type field struct {
	tag   int
	value []byte
}

// fields splits b into its tag-length-value items.
func fields(b []byte) ([]field, error) {
	var out []field
	for i := 0; i < len(b); {
		f, next, err := readField(b, i)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
		i = next
	}
	return out, nil
}

func readField(b []byte, i int) (field, int, error) {
	tag, i, err := readCompressed(b, i)
	if err != nil {
		return field{}, i, err
	}
	n, i, err := readCompressed(b, i)
	if err != nil {
		return field{}, i, err
	}
	if n > uint64(len(b)-i) {
		return field{}, i, malformed("tag %d claims %d bytes, %d remain", tag, n, len(b)-i)
	}
	return field{tag: int(tag), value: b[i : i+int(n)]}, i + int(n), nil
}

// number decodes a binary integer field (big-endian, at most eight bytes).
func (f field) number() (int64, error) {
	if len(f.value) == 0 || len(f.value) > 8 {
		return 0, malformed("tag %d: a number of %d bytes", f.tag, len(f.value))
	}
	var n int64
	for _, c := range f.value {
		n = n<<8 | int64(c)
	}
	if len(f.value) == 4 && n >= 1<<31 {
		n -= 1 << 32 // a negative number as 32-bit servers write it
	}
	return n, nil
}

// appendHeader writes the 25-byte header for a body of n bytes.
func appendHeader(b []byte, n int) []byte {
	b = append(b, fmt.Sprintf("%010d", n)...)
	b = append(b, 'z', '2')
	b = append(b, "wais      "...)
	return append(b, ' ', ' ', '0')
}

// Header is the decoded 25-byte message header.
type Header struct {
	Length      int64 // body length
	Type        byte  // 'z' Z39.50 APDU, 'a' ACK, 'n' NAK
	Version     byte
	Server      string
	Compression byte
	Encoding    byte
}

// ParseHeader decodes a message header. The checksum byte is not checked:
// servers write '0' and never compute it.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, malformed("header of %d bytes, want %d", len(b), HeaderSize)
	}
	for _, c := range b[:10] {
		if c < '0' || c > '9' {
			return Header{}, malformed("header length %q is not ten digits", b[:10])
		}
	}
	n, _ := strconv.ParseInt(string(b[:10]), 10, 64)
	h := Header{Length: n, Type: lower(b[10]), Version: b[11], Server: string(b[12:22]),
		Compression: lower(b[22]), Encoding: lower(b[23])}
	return h, nil
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
