package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/nlnwa/gowarc"
)

// The index in a WACZ is the one its readers expect, which is not the
// one beside a segment (index.go): ReplayWeb.page looks a URL up by
// warcio.js's key, and reads a record's media type and status from its
// line. So its lines are those warcio.js's CDX indexer makes:
//
//	URLKEY TIMESTAMP {"url":..,"mime":..,"status":..,"digest":..,"length":..,"offset":..,"filename":..}
//
// URLKEY is the SURT of an http or https URL (WACZSURT), any other URL as
// it is; TIMESTAMP the WARC-Date's first 14 digits; mime the HTTP
// Content-Type of an HTTP response (its media type alone), "warc/revisit"
// for a revisit, else the record's Content-Type; status the HTTP status of a
// response or of a revisit that keeps its header block; digest the
// WARC-Payload-Digest without its "sha1:"; length and offset, as strings,
// where the record lies in its file (its gzip member; in an uncompressed
// file, the record without the CR LF CR LF after it). Every record is indexed but requests,
// warcinfo records and application/warc-fields records.
//
// A Gemini response, which warcio.js would read as HTTP, has its own
// status (the two digits) and, for a success, the media type of its meta.

// cdxFields is the JSON of one line, in warcio.js's field order.
type cdxFields struct {
	URL      string `json:"url"`
	Mime     string `json:"mime,omitempty"`
	Status   string `json:"status,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Length   string `json:"length"`
	Offset   string `json:"offset"`
	Filename string `json:"filename"`
}

var wwwPrefix = regexp.MustCompile(`^(https?://)www\d*\.`)

// WACZSURT returns the index key of uri as warcio.js makes it: for an
// http or https URL, the URL folded to lower case, a leading "www." (or
// "www2." ...) label dropped, host labels (an address's too) reversed and
// joined by commas, a port other than the scheme's, ")", the path and the
// query's parameters sorted; any other URL as it is.
func WACZSURT(uri string) string {
	if !strings.HasPrefix(uri, "http:") && !strings.HasPrefix(uri, "https:") {
		return uri
	}
	lower := strings.ToLower(wwwPrefix.ReplaceAllString(uri, "$1"))
	u, err := url.Parse(lower)
	if err != nil || u.Host == "" {
		return uri
	}
	labels := strings.Split(u.Hostname(), ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	key := strings.Join(labels, ",")
	if p := u.Port(); p != "" && !(u.Scheme == "http" && p == "80") && !(u.Scheme == "https" && p == "443") {
		key += ":" + p
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	key += ")" + path
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		sort.Strings(args)
		key += "?" + strings.Join(args, "&")
	}
	return key
}

// waczIndex returns the WACZ index lines of the WARC file at path, and
// notes its pages in pages.
func waczIndex(path string, pages *pageList) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("warc: pack: %w", err)
	}
	name := fileBase(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("warc: pack: %w", err)
	}
	defer f.Close()
	// An uncompressed WARC's line leaves out the CR LF CR LF after each
	// record, as warcio.js's does; a compressed file's spans its member
	// or frame.
	var magic [5]byte
	f.ReadAt(magic[:], 0)
	plain := string(magic[:]) == "WARC/"
	var lines []string
	var pending *cdxPending // a record's line waits for where the next starts
	flush := func(end int64) {
		if pending != nil {
			n := end - pending.offset
			if plain {
				n = min(n, plainLength(f, pending.offset, pending.contentLength))
			}
			pending.f.Length = strconv.FormatInt(n, 10)
			lines = append(lines, pending.line())
			pending = nil
		}
	}
	err = Walk(path, false, func(e Entry, rec gowarc.WarcRecord) error {
		if e.Inner > 0 {
			return errSharedMembers
		}
		flush(e.Offset)
		h := rec.WarcHeader()
		typ := rec.Type()
		ct := h.Get(gowarc.ContentType)
		switch {
		case typ == gowarc.Warcinfo:
			pages.addRoots(rec)
			return nil
		case typ == gowarc.Request:
			return nil
		case (typ == gowarc.Metadata || typ == gowarc.Resource) && ct == gowarc.ApplicationWarcFields:
			return nil
		case e.URI == "":
			return nil
		}
		p := &cdxPending{offset: e.Offset, date: h.Get(gowarc.WarcDate), contentLength: e.Length}
		p.f = cdxFields{URL: e.URI, Offset: strconv.FormatInt(e.Offset, 10), Filename: name}
		if _, d, ok := strings.Cut(h.Get(gowarc.WarcPayloadDigest), ":"); ok {
			p.f.Digest, _, _ = strings.Cut(d, ":")
		}
		var cand pageCandidate
		switch {
		case typ == gowarc.Revisit:
			p.f.Mime = "warc/revisit"
			if n, _ := h.GetInt64(gowarc.ContentLength); n > 0 && !isGeminiResponse(ct) {
				if r, err := rec.Block().RawBytes(); err == nil {
					if resp, err := readResponse(r); err == nil {
						p.f.Status = strconv.Itoa(resp.StatusCode)
					}
				}
			}
		case typ == gowarc.Response && isGeminiResponse(ct):
			cand = geminiFields(rec, &p.f)
		case typ == gowarc.Response && isHTTPType(ct):
			cand = httpFields(rec, &p.f)
		default:
			p.f.Mime = ct
			cand = resourcePage(ct)
		}
		if typ == gowarc.Response || typ == gowarc.Resource {
			pages.consider(e, p.date, cand)
		}
		pending = p
		return nil
	})
	if errors.Is(err, errSharedMembers) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("warc: pack: %w", err)
	}
	flush(fi.Size())
	return lines, nil
}

// isHTTPType reports whether a record's Content-Type says its block is
// an HTTP message, or says nothing; another response (Heritrix's text/dns
// lookups) is indexed under its own Content-Type.
func isHTTPType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.TrimSpace(mt)
	return mt == "" || strings.EqualFold(mt, "application/http")
}

// errSharedMembers is waczIndex's answer for a file whose gzip members
// hold many records: a WACZ reader reads a record from its index line's
// offset and length, which cannot name one record of such a member.
var errSharedMembers = errors.New("gzip members hold many records")

// rechunk writes the records of the file at path to w each as its own
// gzip member, header and block as they are.
func rechunk(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := NewReader(f, ReadOptions{})
	zw := gzip.NewWriter(w)
	for {
		rec, err := r.Next()
		var re *RecordError
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.As(err, &re):
			continue
		case err != nil:
			return err
		}
		zw.Reset(w)
		zw.Write(rec.raw)
		if _, err := io.Copy(zw, rec.Block); err != nil {
			return err
		}
		zw.Write([]byte("\r\n\r\n"))
		if err := zw.Close(); err != nil {
			return err
		}
	}
}

type cdxPending struct {
	f             cdxFields
	offset        int64
	date          string
	contentLength int64
}

// plainLength is the length of the record at offset of an uncompressed
// WARC file without the CR LF CR LF that ends it (warcio.js's length): its
// header, through the blank line, and its block.
func plainLength(f *os.File, offset, contentLength int64) int64 {
	buf := make([]byte, 64<<10)
	n, _ := f.ReadAt(buf, offset)
	i := bytes.Index(buf[:n], []byte("\r\n\r\n"))
	if i < 0 {
		return math.MaxInt64
	}
	return int64(i+4) + contentLength
}

// line is the index line: warcio.js's key and timestamp, then the JSON as
// JSON.stringify writes it (no HTML escapes).
func (p *cdxPending) line() string {
	ts := strings.NewReplacer("-", "", ":", "", "T", "").Replace(p.date)
	if len(ts) > 14 {
		ts = ts[:14]
	}
	var j strings.Builder
	enc := json.NewEncoder(&j)
	enc.SetEscapeHTML(false)
	enc.Encode(p.f)
	return WACZSURT(p.f.URL) + " " + ts + " " + j.String()
}

// maxTitleRead bounds how much of a page is read for its title.
const maxTitleRead = 1 << 20

// httpFields fills in an HTTP response's status and media type; a 200
// text/html response is a page, titled by its <title>.
func httpFields(rec gowarc.WarcRecord, f *cdxFields) pageCandidate {
	r, err := rec.Block().RawBytes()
	if err != nil {
		return pageCandidate{}
	}
	resp, err := readResponse(r)
	if err != nil {
		return pageCandidate{}
	}
	defer resp.Body.Close()
	f.Status = strconv.Itoa(resp.StatusCode)
	mt, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	f.Mime = strings.TrimSpace(mt)
	if resp.StatusCode != http.StatusOK || !strings.EqualFold(f.Mime, "text/html") {
		return pageCandidate{}
	}
	body, err := decodedBody(resp)
	if err != nil {
		return pageCandidate{page: true}
	}
	return pageCandidate{page: true, title: htmlTitle(io.LimitReader(body, maxTitleRead))}
}

// readResponse reads an HTTP response as it was recorded. One that Go's
// parser refuses (a Content-Length of -1 beside a chunked transfer
// coding, as some writers record it; a malformed header line) is read as
// written: its status line and each header line that has a colon, the
// body after the empty line, chunked when it says so.
func readResponse(r io.Reader) (*http.Response, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(br.Size())
	if len(head) == 0 {
		return nil, err
	}
	end := bytes.Index(head, []byte("\n\r\n"))
	if end < 0 {
		end = bytes.Index(head, []byte("\n\n"))
	}
	if resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(head)), nil); err == nil && end >= 0 {
		resp.Body.Close()
		return http.ReadResponse(br, nil)
	}
	// Read as written.
	line, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	proto, status, _ := strings.Cut(strings.TrimSpace(line), " ")
	code, _, _ := strings.Cut(status, " ")
	n, err := strconv.Atoi(code)
	if !strings.HasPrefix(proto, "HTTP/") || err != nil || n < 100 || n > 999 {
		return nil, fmt.Errorf("not an HTTP status line: %.40q", line)
	}
	resp := &http.Response{Status: status, StatusCode: n, Proto: proto, Header: http.Header{}}
	for read := 0; ; {
		l, err := br.ReadString('\n')
		if read += len(l); err != nil || read > DefaultMaxHeader {
			return nil, fmt.Errorf("HTTP header not ended")
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "" {
			break
		}
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) != "" && !strings.ContainsAny(k, " \t") {
			resp.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	var body io.Reader = br
	if strings.EqualFold(strings.TrimSpace(resp.Header.Get("Transfer-Encoding")), "chunked") {
		body = httputil.NewChunkedReader(br)
	}
	resp.Body = io.NopCloser(body)
	return resp, nil
}

// geminiFields fills in a Gemini response's status and, for a success,
// its media type; a text/gemini success is a page, titled by its first
// heading.
func geminiFields(rec gowarc.WarcRecord, f *cdxFields) pageCandidate {
	r, err := rec.Block().RawBytes()
	if err != nil {
		return pageCandidate{}
	}
	br := bufio.NewReader(r)
	line, err := br.ReadString('\n')
	if err != nil {
		return pageCandidate{}
	}
	status, meta, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
	f.Status = status
	if !strings.HasPrefix(status, "2") {
		return pageCandidate{}
	}
	mt, _, _ := strings.Cut(meta, ";")
	f.Mime = strings.TrimSpace(mt)
	if !strings.EqualFold(f.Mime, "text/gemini") {
		return pageCandidate{}
	}
	return pageCandidate{page: true, title: gemtextTitle(io.LimitReader(br, maxTitleRead))}
}

// resourcePage says whether a resource of this type is a page: a Gopher
// menu or an FTP listing.
func resourcePage(ct string) pageCandidate {
	return pageCandidate{page: ct == "application/gopher-menu" || strings.HasPrefix(ct, "text/x-ftp-list") ||
		strings.HasPrefix(ct, "text/x-ftp-mlsd") || strings.HasPrefix(ct, "text/x-ftp-nlst")}
}
