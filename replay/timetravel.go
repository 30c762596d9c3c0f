package replay

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/textproto"
	"os"
	"slices"
	"strconv"
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

// Origin is a URL a capture started from: one its warcinfo record names on
// the command line that wrote the archive (a mirror's starting URL, a
// get's URL), as the archive holds it.
type Origin struct {
	// URI is the captured URI a fetch of the URL is answered from.
	URI string
	// Captures is when it was captured, oldest first, one time each.
	Captures []time.Time
}

// Origins returns the URLs the archive's captures started from, in the
// order the archive first holds them: each URL of the command line that
// a segment's warcinfo record names in its description field, of a scheme
// the archive serves and captured at least once. Archives written by other
// tools, whose warcinfo names no such URL, have none.
func (f *Fetcher) Origins() []Origin {
	var segs []string
	seen := map[string]bool{}
	for _, uri := range f.a.uris {
		for _, c := range f.a.byURI[uri] {
			if !seen[c.seg] {
				seen[c.seg] = true
				segs = append(segs, c.seg)
			}
		}
	}
	var out []Origin
	listed := map[string]bool{}
	for _, seg := range segs {
		for _, arg := range commandURLs(seg) {
			u, err := schemes.Parse(arg)
			if err != nil || !slices.Contains(f.Schemes(), u.Scheme) {
				continue
			}
			uri := f.uri(u)
			if uri == "" || listed[uri] {
				continue
			}
			listed[uri] = true
			s := Origin{URI: uri}
			for _, c := range f.Captures(uri) {
				if n := len(s.Captures); n == 0 || !s.Captures[n-1].Equal(c.Time) {
					s.Captures = append(s.Captures, c.Time)
				}
			}
			if len(s.Captures) > 0 {
				out = append(out, s)
			}
		}
	}
	return out
}

// commandURLs returns the words of the command line a segment's first
// record, its warcinfo, names in its description field that read as URLs
// (a scheme and "://", or news:); nil when the segment starts otherwise.
func commandURLs(seg string) []string {
	file, err := os.Open(seg)
	if err != nil {
		return nil
	}
	defer file.Close()
	br := bufio.NewReader(file)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil
		}
		defer zr.Close()
		r = zr
	}
	tr := textproto.NewReader(bufio.NewReader(io.LimitReader(r, 2<<20)))
	if v, err := tr.ReadLine(); err != nil || !strings.HasPrefix(v, "WARC/") {
		return nil
	}
	h, err := tr.ReadMIMEHeader()
	if err != nil || !strings.EqualFold(h.Get("WARC-Type"), "warcinfo") {
		return nil
	}
	n, err := strconv.ParseInt(h.Get("Content-Length"), 10, 64)
	if err != nil || n < 0 {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(io.LimitReader(tr.R, n))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "description") {
			continue
		}
		for _, w := range strings.Fields(value) {
			if strings.Contains(w, "://") || strings.HasPrefix(w, "news:") {
				out = append(out, w)
			}
		}
	}
	return out
}
