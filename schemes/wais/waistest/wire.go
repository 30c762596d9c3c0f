// Package waistest is a scripted WAIS server (Z39.50-1988 with the WAIS
// extensions, RFC 1738 §3.9) for tests of WAIS clients, beside the client
// it fakes as httptest sits beside net/http; gofer's integration servers
// and demo run it too (integration/cmd/waisd). No WAIS server is
// packaged for Debian, so it reproduces what freeWAIS-sf 2.2.10's
// waisserver was seen to send and accept: the 25-byte header before every
// message, searches (query type "3") answered with document headers,
// retrievals (query type "1", a type-1 query naming the document id, its
// type and a byte range) answered with the range's bytes under tag 127, a
// diagnostic record for an unknown database, and the database's catalogue
// as the one record of a search that matches nothing.
//
// Its encoder and decoder are written apart from gofer's client (package
// schemes/wais), so that each checks the other. Besides Server, the
// building blocks (ReadRequest, SearchAnswer, TextAnswer,
// DiagnosticAnswer) let a test script faults: an answer cut short, held
// back, or never sent.
package waistest

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

const headerSize = 25

// Tags of the messages this server reads and writes.
const (
	tReferenceID     = 2
	tResultSetName   = 17
	tDatabaseNames   = 18
	tElementSetNames = 19
	tQueryType       = 20
	tQuery           = 21
	tDiagnostic      = 28
	tAttributeList   = 44
	tTerm            = 45
	tOperator        = 46
	tUserInfo        = 99
	tSeedWords       = 106
	tDateFactor      = 111
	tMaxDocs         = 114
	tDocumentID      = 116
	tVersion         = 117
	tScore           = 118
	tDocumentLength  = 120
	tSource          = 121
	tDate            = 122
	tHeadline        = 123
	tDocumentText    = 127
	tLines           = 131
	tTypeBlock       = 132
	tType            = 133
	tHeaderGroup     = 150
	tTextGroup       = 153
)

var errFormat = errors.New("waistest: malformed request")

// putVar writes a compressed integer: seven bits a byte, the high bit on
// every byte but the last.
func putVar(b []byte, n uint64) []byte {
	var groups []byte
	groups = append(groups, byte(n&0x7f))
	for n >>= 7; n > 0; n >>= 7 {
		groups = append(groups, byte(n&0x7f)|0x80)
	}
	for i := len(groups) - 1; i >= 0; i-- {
		b = append(b, groups[i])
	}
	return b
}

func getVar(b []byte, i int) (uint64, int, error) {
	var n uint64
	for k := 0; k < 5 && i < len(b); k++ {
		c := b[i]
		i++
		n = n<<7 | uint64(c&0x7f)
		if c&0x80 == 0 {
			return n, i, nil
		}
	}
	return 0, i, errFormat
}

func putTLV(b []byte, tag int, v []byte) []byte {
	b = putVar(b, uint64(tag))
	b = putVar(b, uint64(len(v)))
	return append(b, v...)
}

// putNum writes a tagged binary integer in 1 to 4 bytes, as freeWAIS does.
func putNum(b []byte, tag int, n int64) []byte {
	size := 4
	switch {
	case n < 0:
	case n < 256:
		size = 1
	case n < 65536:
		size = 2
	case n < 1<<24:
		size = 3
	}
	v := make([]byte, size)
	for i := size - 1; i >= 0; i-- {
		v[i] = byte(n)
		n >>= 8
	}
	return putTLV(b, tag, v)
}

type tlv struct {
	tag int
	val []byte
}

func getTLVs(b []byte) ([]tlv, error) {
	var out []tlv
	for i := 0; i < len(b); {
		tag, j, err := getVar(b, i)
		if err != nil {
			return nil, err
		}
		n, j, err := getVar(b, j)
		if err != nil || n > uint64(len(b)-j) {
			return nil, errFormat
		}
		out = append(out, tlv{int(tag), b[j : j+int(n)]})
		i = j + int(n)
	}
	return out, nil
}

// message puts the 25-byte header before body, as freeWAIS-sf's server
// writes it: server name "wais", no compression, no encoding, checksum '0'.
func message(body []byte) []byte {
	b := fmt.Appendf(nil, "%010dz2%-10s  0", len(body), "wais")
	return append(b, body...)
}

// Request is a SearchRequest as the server decoded it.
type Request struct {
	Database    string
	QueryType   string // "3" a search, "1" a retrieval
	ResultSet   string
	ElementSets string
	ReferenceID []byte
	// A search: the seed words and the WAIS search parameters.
	Words      string
	DateFactor int64
	MaxDocs    int64
	// A retrieval: the document id, its type and the byte range [Start, End).
	DocID      []byte
	Type       string
	Start, End int64
	// Body is the message body as received.
	Body []byte
}

// ReadRequest reads one message and decodes its SearchRequest; io.EOF
// means the client closed the connection between requests.
func ReadRequest(r io.Reader) (*Request, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(string(h[:10]), 10, 64)
	if err != nil || n < 2 || n > 1<<20 || h[10] != 'z' {
		return nil, fmt.Errorf("%w: header %q", errFormat, h[:])
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return ParseRequest(body)
}

// ParseRequest decodes the body of a SearchRequest message.
func ParseRequest(body []byte) (*Request, error) {
	n := int(body[0])<<8 | int(body[1])
	if n+2 > len(body) || n < 11 || body[2] != 0x16 {
		return nil, fmt.Errorf("%w: not a SearchRequest APDU", errFormat)
	}
	apdu, rest := body[2:2+n], body[2+n:]
	q := &Request{Body: body, Start: -1, End: -1}
	items, err := getTLVs(apdu[11:])
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		switch it.tag {
		case tResultSetName:
			q.ResultSet = string(it.val)
		case tDatabaseNames:
			q.Database = string(it.val)
		case tQueryType:
			q.QueryType = string(it.val)
		case tElementSetNames:
			q.ElementSets = string(it.val)
		case tReferenceID:
			q.ReferenceID = it.val
		}
	}
	parts, err := getTLVs(rest)
	if err != nil || len(parts) != 1 {
		return nil, fmt.Errorf("%w: the part after the APDU", errFormat)
	}
	switch {
	case q.QueryType == "3" && parts[0].tag == tUserInfo:
		items, err := getTLVs(parts[0].val)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			switch it.tag {
			case tSeedWords:
				q.Words = string(it.val)
			case tDateFactor:
				q.DateFactor = num(it.val)
			case tMaxDocs:
				q.MaxDocs = num(it.val)
			}
		}
	case q.QueryType == "1" && parts[0].tag == tQuery:
		terms, err := getTLVs(parts[0].val)
		if err != nil {
			return nil, err
		}
		// Attribute list, term; attribute list, term, operator; ...
		for i := 0; i+1 < len(terms); i++ {
			if terms[i].tag != tAttributeList || terms[i+1].tag != tTerm {
				continue
			}
			attrs, term := string(terms[i].val), terms[i+1].val
			switch attrs {
			case "un re ig ig ig ig":
				q.DocID = term
			case "wt re ig ig ig ig":
				q.Type = string(term)
			case "wb ro ig ig ig ig":
				q.Start, _ = strconv.ParseInt(string(term), 10, 64)
			case "wb rl ig ig ig ig":
				q.End, _ = strconv.ParseInt(string(term), 10, 64)
			}
		}
		if q.DocID == nil || q.Start < 0 || q.End < q.Start {
			return nil, fmt.Errorf("%w: a retrieval without a document id or byte range", errFormat)
		}
	default:
		return nil, fmt.Errorf("%w: query type %q with tag %d", errFormat, q.QueryType, parts[0].tag)
	}
	return q, nil
}

func num(b []byte) int64 {
	var n int64
	for _, c := range b {
		n = n<<8 | int64(c)
	}
	return n
}

// Hit is one document header of a search answer.
type Hit struct {
	DocID    []byte
	Score    int64
	Length   int64
	Lines    int64
	Type     string
	Source   string
	Date     string
	Headline string
}

// response is a SearchResponse message: the APDU, then the WAIS part.
func response(count int, refID []byte, info []byte) []byte {
	apdu := []byte{0x17, 0}
	for _, v := range []int{count, count, count + 1} {
		apdu = append(apdu, byte(v>>16), byte(v>>8), byte(v))
	}
	if refID != nil {
		apdu = putTLV(apdu, tReferenceID, refID)
	}
	body := []byte{byte(len(apdu) >> 8), byte(len(apdu))}
	body = append(body, apdu...)
	if info != nil {
		body = putTLV(body, tUserInfo, info)
	}
	return message(body)
}

// SearchAnswer is the message answering a search with hits.
func SearchAnswer(hits []Hit, refID []byte) []byte {
	var info []byte
	for _, h := range hits {
		var g []byte
		g = putTLV(g, tDocumentID, h.DocID)
		g = putNum(g, tVersion, 0)
		g = putNum(g, tScore, h.Score)
		g = putNum(g, tDocumentLength, h.Length)
		g = putNum(g, tLines, h.Lines)
		g = putTLV(g, tTypeBlock, putTLV(nil, tType, []byte(h.Type)))
		g = putTLV(g, tSource, []byte(h.Source))
		g = putTLV(g, tDate, []byte(h.Date))
		g = putTLV(g, tHeadline, []byte(h.Headline))
		info = putTLV(info, tHeaderGroup, g)
	}
	return response(len(hits), refID, info)
}

// TextAnswer is the message answering a retrieval with text, the bytes of
// one range. The text is the last thing in the message, so a script can
// write the message up to any byte of the text and hold back the rest.
func TextAnswer(docID, text, refID []byte) []byte {
	var g []byte
	g = putTLV(g, tDocumentID, docID)
	g = putNum(g, tVersion, 0)
	g = putTLV(g, tDocumentText, text)
	return response(1, refID, putTLV(nil, tTextGroup, g))
}

// DiagnosticAnswer is the message carrying one diagnostic record in the
// layout of Z39.50-1988 appendix D: tag 28, a two-byte length, the code,
// the text, the surrogate flag and the end-of-record byte 0x1D.
func DiagnosticAnswer(code, text string, refID []byte) []byte {
	rec := putVar(nil, tDiagnostic)
	l := 3 + len(text)
	rec = append(rec, byte(l>>8), byte(l))
	rec = append(rec, code[:2]...)
	rec = append(rec, text...)
	rec = append(rec, 0, 0x1D)
	return response(0, refID, rec)
}

// DocID builds a document id the way freeWAIS-sf does: 1 the server's own
// name ("host:port"), 2 the database's path, 3 "start end file", 4 to 6
// the same again, 7 the copyright disposition (one byte, 0).
func DocID(self, dbPath, local string) []byte {
	var b []byte
	for round := 0; round < 2; round++ {
		b = putTLV(b, 1+3*round, []byte(self))
		b = putTLV(b, 2+3*round, []byte(dbPath))
		b = putTLV(b, 3+3*round, []byte(local))
	}
	return putTLV(b, 7, []byte{0})
}
