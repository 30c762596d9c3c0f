package wais

import (
	"encoding/binary"
	"strings"
)

// SearchResponse is a decoded SearchResponse APDU with its WAIS part.
type SearchResponse struct {
	// Status is the Z39.50 search status: 0 success, 1 failure.
	Status       int
	ResultCount  int64
	Returned     int64
	NextPosition int64
	// SeedWordsUsed are the words the server searched for, if it says.
	SeedWordsUsed string
	// Documents are the document headers (long and short headers too).
	Documents []DocumentHeader
	// Texts are the document texts of a retrieval.
	Texts []DocumentText
	// Diagnostics are the server's diagnostic records.
	Diagnostics []Diagnostic
}

// DocumentHeader describes one document of a search result. Numbers the
// server left out are -1.
type DocumentHeader struct {
	ID         DocID
	Version    int64
	Score      int64
	BestMatch  int64
	Length     int64 // bytes
	Lines      int64
	Types      []string // TEXT, HTML, GIF, ...
	Source     string
	Date       string
	Headline   string
	OriginCity string
}

// DocumentText is one range of a document's bytes.
type DocumentText struct {
	ID      DocID
	Version int64
	Text    []byte
}

// Diagnostic is a Z39.50 diagnostic record: a two-character code ("S1" a
// permanent system error) and the server's text.
type Diagnostic struct {
	Code      string
	Info      string
	Surrogate bool
}

func (d Diagnostic) String() string {
	info := strings.TrimSpace(d.Info)
	if info == "" {
		return "diagnostic " + d.Code
	}
	return info + " (diagnostic " + d.Code + ")"
}

// ParseSearchResponse decodes the body of a SearchResponse message: the
// two-byte APDU length, the APDU (PDU type 0x17, search status, result
// count, records returned, next position, then optional tagged fields) and
// the WAIS part (tag 99) with its document headers, texts and diagnostics.
// Unknown tags are skipped; a field that runs past its container is an
// error.
func ParseSearchResponse(body []byte) (*SearchResponse, error) {
	if len(body) < 2 {
		return nil, malformed("body of %d bytes has no APDU length", len(body))
	}
	n := int(binary.BigEndian.Uint16(body))
	if n > len(body)-2 {
		return nil, malformed("APDU length %d, %d bytes follow", n, len(body)-2)
	}
	apdu, rest := body[2:2+n], body[2+n:]
	if len(apdu) < 11 {
		return nil, malformed("APDU of %d bytes is too short for a SearchResponse", len(apdu))
	}
	if apdu[0] != pduSearchResponse {
		return nil, malformed("PDU type 0x%02x, want a SearchResponse (0x17)", apdu[0])
	}
	r := &SearchResponse{
		Status:       int(apdu[1]),
		ResultCount:  int64(uint32(apdu[2])<<16 | uint32(apdu[3])<<8 | uint32(apdu[4])),
		Returned:     int64(uint32(apdu[5])<<16 | uint32(apdu[6])<<8 | uint32(apdu[7])),
		NextPosition: int64(uint32(apdu[8])<<16 | uint32(apdu[9])<<8 | uint32(apdu[10])),
	}
	if err := r.items(apdu[11:]); err != nil {
		return nil, err
	}
	if len(rest) == 0 {
		return r, nil
	}
	info, next, err := readField(rest, 0)
	if err != nil {
		return nil, err
	}
	if info.tag != tagUserInformation {
		return nil, malformed("WAIS part has tag %d, want %d", info.tag, tagUserInformation)
	}
	if next != len(rest) {
		return nil, malformed("%d bytes after the WAIS part", len(rest)-next)
	}
	if err := r.items(info.value); err != nil {
		return nil, err
	}
	return r, nil
}

// items decodes a sequence of tagged items of the APDU or the WAIS part.
func (r *SearchResponse) items(b []byte) error {
	for i := 0; i < len(b); {
		tag, _, err := readCompressed(b, i)
		if err != nil {
			return err
		}
		if tag == tagDiagnosticRecords {
			d, next, err := readDiagnostic(b, i)
			if err != nil {
				return err
			}
			r.Diagnostics = append(r.Diagnostics, d)
			i = next
			continue
		}
		f, next, err := readField(b, i)
		if err != nil {
			return err
		}
		i = next
		switch f.tag {
		case tagSeedWordsUsed:
			r.SeedWordsUsed = string(f.value)
		case tagDocumentHeaderGroup, tagShortHeaderGroup, tagLongHeaderGroup:
			h, err := parseDocumentHeader(f.value)
			if err != nil {
				return err
			}
			r.Documents = append(r.Documents, h)
		case tagDocumentTextGroup:
			t, err := parseDocumentText(f.value)
			if err != nil {
				return err
			}
			r.Texts = append(r.Texts, t)
		}
	}
	return nil
}

// readDiagnostic reads a diagnostic record, which has its own layout
// (Z39.50-1988 appendix D): tag 28, a two-byte length L, the two-character
// code, L-3 bytes of text, the surrogate flag, and 0x1D.
func readDiagnostic(b []byte, i int) (Diagnostic, int, error) {
	_, i, err := readCompressed(b, i)
	if err != nil {
		return Diagnostic{}, i, err
	}
	if len(b)-i < 2 {
		return Diagnostic{}, i, malformed("diagnostic record has no length")
	}
	l := int(binary.BigEndian.Uint16(b[i:]))
	i += 2
	if l < 3 || l+1 > len(b)-i {
		return Diagnostic{}, i, malformed("diagnostic record of length %d, %d bytes remain", l, len(b)-i)
	}
	rec := b[i : i+l+1]
	d := Diagnostic{Code: string(rec[:2]), Info: string(rec[2 : l-1]), Surrogate: rec[l-1] != 0}
	d.Info = strings.TrimRight(d.Info, "\x00")
	return d, i + l + 1, nil
}

func parseDocumentHeader(b []byte) (DocumentHeader, error) {
	h := DocumentHeader{Version: -1, Score: -1, BestMatch: -1, Length: -1, Lines: -1}
	fs, err := fields(b)
	if err != nil {
		return h, err
	}
	for _, f := range fs {
		var num *int64
		switch f.tag {
		case tagDocumentID:
			h.ID = DocID(f.value)
		case tagVersionNumber:
			num = &h.Version
		case tagScore:
			num = &h.Score
		case tagBestMatch:
			num = &h.BestMatch
		case tagDocumentLength:
			num = &h.Length
		case tagLines:
			num = &h.Lines
		case tagTypeBlock:
			ts, err := fields(f.value)
			if err != nil {
				return h, err
			}
			for _, t := range ts {
				if t.tag == tagType {
					h.Types = append(h.Types, string(t.value))
				}
			}
		case tagSource:
			h.Source = string(f.value)
		case tagDate:
			h.Date = string(f.value)
		case tagHeadline:
			h.Headline = string(f.value)
		case tagOriginCity:
			h.OriginCity = string(f.value)
		}
		if num != nil {
			if *num, err = f.number(); err != nil {
				return h, err
			}
		}
	}
	if h.ID == nil {
		return h, malformed("document header without a document id")
	}
	return h, nil
}

func parseDocumentText(b []byte) (DocumentText, error) {
	t := DocumentText{Version: -1}
	fs, err := fields(b)
	if err != nil {
		return t, err
	}
	for _, f := range fs {
		switch f.tag {
		case tagDocumentID:
			t.ID = DocID(f.value)
		case tagVersionNumber:
			if t.Version, err = f.number(); err != nil {
				return t, err
			}
		case tagDocumentText:
			t.Text = f.value
		}
	}
	return t, nil
}
