package replay

import (
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// At returns the archive as of t: the same captures, each URI answered by
// its capture nearest t (the later of two as near); the zero time answers
// with the latest. It shares the index with a, so it costs nothing to
// make one per request, as a gateway that travels in time does.
func (a *Archive) At(t time.Time) *Archive {
	b := *a
	b.at = t
	return &b
}

// Capture is one capture of a URI, as a list of captures shows it.
type Capture struct {
	URI       string
	Time      time.Time
	Type      string // the record's type: "response", "resource", "revisit", ...
	MediaType string // the record's content type as the index has it
}

// Captures returns the captures a fetch of raw would be answered from,
// oldest first, request records left out; nil when the archive holds none
// (or raw does not parse).
func (f *Fetcher) Captures(raw string) []Capture {
	u, err := schemes.Parse(raw)
	if err != nil {
		return nil
	}
	uri := f.uri(u)
	if uri == "" {
		return nil
	}
	var out []Capture
	for _, c := range f.a.byURI[uri] {
		if c.entry.Type == "request" || c.date.IsZero() {
			continue
		}
		out = append(out, Capture{URI: uri, Time: c.date, Type: c.entry.Type, MediaType: c.entry.Mime})
	}
	return out
}

// URIs returns every captured URI that starts with prefix, in the order
// the archive first holds it ("" for every one).
func (a *Archive) URIs(prefix string) []string {
	var out []string
	for _, uri := range a.uris {
		if strings.HasPrefix(uri, prefix) {
			out = append(out, uri)
		}
	}
	return out
}
