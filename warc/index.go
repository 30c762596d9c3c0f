package warc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/internal/atomicfile"
)

// An index (CDXJ, as pywb and the IIPC's "CDXJ" draft use it) lies beside
// each segment, PREFIX-NNNNN.cdxj: one line per record but the warcinfo,
// "KEY TIMESTAMP {json}", sorted, KEY being the target URI in SURT form
// (host labels reversed, "127.0.0.21)/archive/" for an address). The JSON
// names the URI, record type, media type, payload digest, the offset and
// length of the record's gzip member, the segment's file name and the
// record's ID. It is written when the segment is closed; a segment left
// without one (a killed run) has it rebuilt from its records.

// IndexEntry is one CDXJ line's JSON: a record's target URI, type, media
// type, payload digest (else block digest), where its gzip member lies
// (Offset, Length, Filename), its ID and its WARC-Date.
type IndexEntry struct {
	URL      string `json:"url"`
	Type     string `json:"type"`
	Mime     string `json:"mime,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Offset   int64  `json:"offset"`
	Length   int64  `json:"length"`
	Filename string `json:"filename"`
	ID       string `json:"record_id"`
	Date     string `json:"date"`
	// Inner is where the record starts in its gzip member's
	// decompressed bytes when it is not the member's first (a member
	// holding many records, as in a WARC compressed whole).
	Inner int64 `json:"inner_offset,omitempty"`
}

// IndexName is the index of segment seg.
func IndexName(seg string) string {
	return strings.TrimSuffix(seg, ".warc.gz") + ".cdxj"
}

// SURT returns the index key of a URI: scheme and host folded to lower
// case, host labels reversed and comma-separated (a literal address kept
// as it is), then ")" and the rest. An http or https key leaves the scheme
// out, as web archive indexes do.
func SURT(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return strings.ToLower(uri)
	}
	host := strings.ToLower(u.Hostname())
	if !isAddress(host) {
		labels := strings.Split(strings.TrimPrefix(host, "www."), ".")
		slices.Reverse(labels)
		host = strings.Join(labels, ",")
	}
	if p := u.Port(); p != "" {
		host += ":" + p
	}
	rest := u.EscapedPath()
	if u.RawQuery != "" || u.ForceQuery {
		rest += "?" + u.RawQuery
	}
	if rest == "" {
		rest = "/"
	}
	key := host + ")" + rest
	switch s := strings.ToLower(u.Scheme); s {
	case "http", "https":
		return key
	default:
		return s + "://" + key
	}
}

func isAddress(h string) bool {
	return strings.Trim(h, "0123456789.") == "" || strings.Contains(h, ":")
}

// indexLine is the CDXJ line of a record written at offset, length bytes.
func indexLine(seg string, offset, length int64, rec gowarc.WarcRecord) (string, IndexEntry) {
	h := rec.WarcHeader()
	d := h.Get(gowarc.WarcPayloadDigest)
	if d == "" {
		d = h.Get(gowarc.WarcBlockDigest)
	}
	return indexLineFields(seg, offset, length, h.Get(gowarc.WarcTargetURI), rec.Type().String(),
		h.Get(gowarc.ContentType), d, h.Get(gowarc.WarcRecordID), h.Get(gowarc.WarcDate))
}

func indexLineFields(seg string, offset, length int64, uri, typ, mime, digest, id, date string) (string, IndexEntry) {
	return indexLineInner(seg, offset, length, 0, uri, typ, mime, digest, id, date)
}

func indexLineInner(seg string, offset, length, inner int64, uri, typ, mime, digest, id, date string) (string, IndexEntry) {
	e := IndexEntry{URL: uri, Type: typ, Mime: mime, Digest: digest, Offset: offset, Length: length,
		Filename: fileBase(seg), ID: id, Date: date, Inner: inner}
	ts := date
	if t, err := time.Parse(time.RFC3339Nano, date); err == nil {
		ts = t.UTC().Format("20060102150405")
	}
	var j strings.Builder
	enc := json.NewEncoder(&j)
	enc.SetEscapeHTML(false)
	enc.Encode(e)
	return fmt.Sprintf("%s %s %s", SURT(uri), ts, strings.TrimSuffix(j.String(), "\n")), e
}

func fileBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// writeIndex writes the sorted lines as the index of seg, atomically.
func writeIndex(seg string, lines []string) error {
	slices.Sort(lines)
	err := atomicfile.Write(IndexName(seg), 0o644, func(bw *bufio.Writer) error {
		for _, l := range lines {
			bw.WriteString(l)
			bw.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("warc: index: %w", err)
	}
	return nil
}

// Index calls fn with each index line of segment seg and its entry: the
// lines of the index beside it, or, for a segment without one (its writer
// was killed, or is still writing, or another tool wrote the file), those
// of its whole records as ScanFile reads them, without changing the
// segment (a record cut short at its end is left out). A file without an
// index and without any record is ErrNoRecords.
func Index(seg string, fn func(line string, e IndexEntry)) error {
	err := readIndex(IndexName(seg), fn)
	if !errors.Is(err, os.ErrNotExist) {
		if err != nil {
			return fmt.Errorf("warc: %w", err)
		}
		return nil
	}
	return ScanFile(seg, fn, nil)
}

// IndexFile calls fn with each line of the CDXJ index file name (a
// segment's, or one gofer warc merge printed) and its entry.
func IndexFile(name string, fn func(line string, e IndexEntry)) error {
	if err := readIndex(name, fn); err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	return nil
}

// readIndex calls fn with each line of an index file and its entry; a
// line that is not CDXJ is an error naming the file.
func readIndex(name string, fn func(line string, e IndexEntry)) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.IndexByte(line, '{')
		var e IndexEntry
		if i < 0 || json.Unmarshal([]byte(line[i:]), &e) != nil {
			return fmt.Errorf("%s: not a CDXJ line: %.60q", name, line)
		}
		fn(line, e)
	}
	return sc.Err()
}
