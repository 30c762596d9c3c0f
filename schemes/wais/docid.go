package wais

import (
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// DocID is a WAIS document id as the server sent it: opaque bytes, handed
// back unchanged in a retrieval. The servers of the WAIS distributions
// write it as tag-length-value fields (1 the original server, 2 its
// database, 3 the local id, 4-6 the same for a distributor, 7 the copyright
// disposition), which is what its URL form needs.
type DocID []byte

// DocIDField is one field of a document id.
type DocIDField struct {
	Number int
	Value  []byte
}

// Fields splits the id into its numbered fields.
func (d DocID) Fields() ([]DocIDField, error) {
	fs, err := fields(d)
	if err != nil {
		return nil, err
	}
	out := make([]DocIDField, len(fs))
	for i, f := range fs {
		out[i] = DocIDField{Number: f.tag, Value: f.value}
	}
	return out, nil
}

// WPath is the id's URL form (draft-ietf-uri-url-03, WAIS): each field in
// order as its number, "=", its bytes percent-encoded, and ";". The result
// is written as it goes into a URL, escapes included.
func (d DocID) WPath() (string, error) {
	fs, err := d.Fields()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(strconv.Itoa(f.Number))
		b.WriteByte('=')
		b.WriteString(schemes.Escape(string(f.Value)))
		b.WriteByte(';')
	}
	return b.String(), nil
}

// ParseWPath reads a wpath as written in a URL (escapes not yet decoded:
// an encoded ";" belongs to a field, a bare one ends it) into the id it
// names. The last field's ";" may be left out.
func ParseWPath(raw string) (DocID, error) {
	if raw == "" {
		return nil, schemes.Errorf(schemes.ErrUsage, "the wais URL names no document id (wpath)")
	}
	var id []byte
	for rest := raw; rest != ""; {
		eq := strings.IndexByte(rest, '=')
		if eq <= 0 {
			return nil, schemes.Errorf(schemes.ErrUsage, "wais document id %q: a field is not NUMBER=VALUE;", raw)
		}
		n, err := strconv.Atoi(rest[:eq])
		if err != nil || n < 0 || n > 1<<20 {
			return nil, schemes.Errorf(schemes.ErrUsage, "wais document id %q: field number %q is not a number", raw, rest[:eq])
		}
		rest = rest[eq+1:]
		value := rest
		if semi := strings.IndexByte(rest, ';'); semi >= 0 {
			value, rest = rest[:semi], rest[semi+1:]
		} else {
			rest = ""
		}
		id = appendAny(id, n, []byte(schemes.Decode(value)))
	}
	return DocID(id), nil
}
