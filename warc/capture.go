package warc

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"hash"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/schemes"
)

// Content types of the blocks gofer records beside those a protocol names.
const (
	TypeFTPConversation = "text/x-ftp-control-conversation"
	TypeGopherPlusAttrs = "text/x-gopher-plus-attributes"
	TypeHTTPRequest     = "application/http;msgtype=request"
	TypeHTTPResponse    = "application/http;msgtype=response"
)

// maxConversation bounds the control conversation kept for one fetch.
const maxConversation = 1 << 20

// Capture records one fetch into a Writer. It implements schemes.Capture:
// hand it to the fetch (fetch.Request.Capture), then call Close after the
// response is closed.
type Capture struct {
	w    *Writer
	uri  string
	date time.Time

	mu      sync.Mutex
	ip      string
	firstID string
	n       int
	err     error
	conv    bytes.Buffer
	convCut bool
	ftp     bool
	// proto is the WARC-Protocol of the first record kept: the control
	// conversation crossed the same connection.
	proto []string
	open  []*block // blocks started, for Close to drop those never committed
}

// Capture starts the capture of a fetch of uri (the URL as given, password
// masked).
func (w *Writer) Capture(uri string) *Capture {
	scheme, _, _ := strings.Cut(uri, ":")
	scheme = strings.ToLower(scheme)
	return &Capture{w: w, uri: uri, date: time.Now(), ftp: scheme == "ftp" || scheme == "ftps"}
}

// Dialed notes the address of the fetch's first connection.
func (c *Capture) Dialed(nc net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ip != "" || nc == nil || nc.RemoteAddr() == nil {
		return
	}
	if host, _, err := net.SplitHostPort(nc.RemoteAddr().String()); err == nil && net.ParseIP(host) != nil {
		c.ip = host
	}
}

// Conversation returns the writer that receives the fetch's control
// conversation (the transcript, passwords masked). It is kept as a
// metadata record for FTP only.
func (c *Capture) Conversation() io.Writer {
	if !c.ftp {
		return nil
	}
	return convWriter{c}
}

type convWriter struct{ c *Capture }

func (cw convWriter) Write(p []byte) (int, error) {
	c := cw.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxConversation - c.conv.Len(); len(p) > room {
		c.conv.Write(p[:max(room, 0)])
		c.convCut = true
	} else {
		c.conv.Write(p)
	}
	return len(p), nil
}

// Records returns how many records the capture has written.
func (c *Capture) Records() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Close writes what is recorded at the end of a fetch (the FTP control
// conversation) and returns the first error met writing any record.
func (c *Capture) Close() error {
	c.mu.Lock()
	conv := bytes.Clone(c.conv.Bytes())
	c.conv.Reset()
	n := c.n
	proto := c.proto
	open := c.open
	c.open = nil
	c.mu.Unlock()
	for _, b := range open {
		b.drop()
	}
	if len(conv) > 0 && n > 0 {
		b := c.Record(schemes.CaptureRecord{Type: "metadata", ContentType: TypeFTPConversation, Protocol: proto})
		b.Write(conv)
		b.Commit()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Record starts one record of the fetch.
func (c *Capture) Record(rec schemes.CaptureRecord) schemes.CaptureBlock {
	t := recordType(rec.Type)
	b := &block{c: c, rec: rec, rb: newBuilder(t, c.w.spool), h: sha1.New(), typ: t}
	if t == gowarc.Response && isGeminiResponse(rec.ContentType) {
		// Its payload is what follows the status line.
		b.payload, b.status = sha1.New(), true
	}
	c.mu.Lock()
	c.open = append(c.open, b)
	c.mu.Unlock()
	return b
}

func recordType(s string) gowarc.RecordType {
	switch s {
	case "metadata":
		return gowarc.Metadata
	case "request":
		return gowarc.Request
	case "response":
		return gowarc.Response
	case "revisit":
		return gowarc.Revisit
	}
	return gowarc.Resource
}

type block struct {
	c   *Capture
	rec schemes.CaptureRecord
	rb  gowarc.WarcRecordBuilder
	h   hash.Hash
	typ gowarc.RecordType
	// payload hashes a Gemini response's body, after its status line
	// (status: the line has not ended yet); nil for other records.
	payload hash.Hash
	status  bool
	mu      sync.Mutex // Write and Commit against a late drop
	err     error
	done    bool
}

// drop releases a block never committed (its spool file with it).
func (b *block) drop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done {
		b.done = true
		b.rb.Close()
	}
}

func (b *block) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done || b.err != nil {
		return len(p), nil
	}
	if _, err := b.rb.Write(p); err != nil {
		b.err = err
		return len(p), nil
	}
	b.h.Write(p)
	if b.payload != nil {
		body := p
		if b.status {
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				return len(p), nil
			}
			b.status, body = false, p[i+1:]
		}
		b.payload.Write(body)
	}
	return len(p), nil
}

// Digest returns "sha1:" and the base32 SHA-1 of data so far in h.
func digest(h hash.Hash) string {
	return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
}

func (b *block) Commit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return nil
	}
	b.done = true
	c := b.c
	if b.err != nil {
		b.rb.Close()
		return c.fail(b.err)
	}
	uri := b.rec.URI
	if uri == "" {
		uri = c.uri
	}
	id := NewID()
	c.mu.Lock()
	first := c.firstID
	if first == "" {
		c.firstID = id
	}
	if c.proto == nil {
		c.proto = b.rec.Protocol
	}
	ip := c.ip
	c.mu.Unlock()
	rb := b.rb
	rb.AddWarcHeader(gowarc.WarcRecordID, id)
	rb.AddWarcHeader(gowarc.WarcTargetURI, uri)
	rb.AddWarcHeaderTime(gowarc.WarcDate, c.date)
	if ip != "" {
		rb.AddWarcHeader(gowarc.WarcIPAddress, ip)
	}
	if first != "" {
		rb.AddWarcHeader(gowarc.WarcConcurrentTo, first)
	}
	for _, p := range b.rec.Protocol {
		rb.AddWarcHeader(FieldProtocol, p)
	}
	for _, also := range b.rec.Also {
		rb.AddWarcHeader(FieldFetchedURI, also)
	}
	if b.rec.ServerDigest != "" {
		rb.AddWarcHeader(FieldServerDigest, b.rec.ServerDigest)
	}
	ct := b.rec.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	attrs := b.typ == gowarc.Metadata && ct == TypeGopherPlusAttrs
	var item string // the Gopher item the record is of or describes
	if attrs || b.typ == gowarc.Resource {
		item = itemKey(uri)
	}
	switch link := c.w.linkOf(item, attrs); {
	case link == "":
	case attrs:
		rb.AddWarcHeader(gowarc.WarcRefersTo, link)
	case link != first:
		rb.AddWarcHeader(gowarc.WarcConcurrentTo, link)
	}
	rb.AddWarcHeader(gowarc.ContentType, ct)
	d := digest(b.h)
	rb.AddWarcHeader(gowarc.WarcBlockDigest, d)
	switch {
	case b.payload != nil:
		rb.AddWarcHeader(gowarc.WarcPayloadDigest, digest(b.payload))
	case !strings.HasPrefix(ct, "application/http") && !strings.HasPrefix(ct, "application/gemini"):
		rb.AddWarcHeader(gowarc.WarcPayloadDigest, d)
	}
	rec, _, err := rb.Build()
	if err != nil {
		if rec != nil {
			rec.Close()
		}
		return c.fail(err)
	}
	if dedupable(rec.Type().String(), ct) {
		if prev, ok := c.w.previous(uri, rec.WarcHeader().Get(gowarc.WarcPayloadDigest)); ok {
			rv, err := revisitOf(rec, prev)
			rec.Close()
			if err != nil {
				return c.fail(err)
			}
			rec = rv
		}
	}
	defer rec.Close()
	if err := c.w.Write(rec); err != nil {
		return c.fail(err)
	}
	switch {
	case attrs:
		c.w.notedAttrs(id, item, b.rec.Describes)
	case b.typ == gowarc.Resource:
		c.w.notedItem(id, item)
	}
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return nil
}

// FieldProtocol names a protocol a record's bytes crossed, one field per
// protocol (the IIPC proposal for WARC 1.1 extensions).
const FieldProtocol = "WARC-Protocol"

// FieldFetchedURI is the extension field naming the URL that fetched a
// record whose target is another name for it (a news article's
// news:<message-id>).
const FieldFetchedURI = "Gofer-Fetched-Uri"

// FieldServerDigest is the extension field holding the server's own claim
// of a file's checksum ("sha-256:HEX"), beside the WARC-Block-Digest gofer
// computed of the bytes it received.
const FieldServerDigest = "Gofer-Server-Digest"

func (c *Capture) fail(err error) error {
	c.w.noteFailure(err)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	return err
}

var _ schemes.Capture = (*Capture)(nil)

// revisitOf returns the revisit record (identical-payload-digest profile,
// WARC 1.1 §6.7.2) that stands for rec, whose payload prev recorded
// already: the same fields, the payload left out. A response keeps its
// HTTP header block, as the profile asks.
func revisitOf(rec gowarc.WarcRecord, prev IndexEntry) (gowarc.WarcRecord, error) {
	h := rec.WarcHeader()
	b := newBuilder(gowarc.Revisit, "")
	for _, f := range []string{gowarc.WarcRecordID, gowarc.WarcTargetURI, gowarc.WarcDate, gowarc.WarcIPAddress,
		gowarc.WarcConcurrentTo, FieldProtocol, FieldFetchedURI, gowarc.WarcPayloadDigest} {
		for _, v := range h.GetAll(f) {
			b.AddWarcHeader(f, v)
		}
	}
	b.AddWarcHeader(gowarc.WarcProfile, gowarc.ProfileIdenticalPayloadDigestV1_1)
	b.AddWarcHeader(gowarc.WarcRefersTo, prev.ID)
	b.AddWarcHeader(gowarc.WarcRefersToTargetURI, prev.URL)
	b.AddWarcHeader(gowarc.WarcRefersToDate, prev.Date)
	if ph, ok := rec.Block().(gowarc.ProtocolHeaderBlock); ok && rec.Type() == gowarc.Response {
		b.AddWarcHeader(gowarc.ContentType, h.Get(gowarc.ContentType))
		b.Write(ph.ProtocolHeaderBytes())
	}
	rv, _, err := b.Build()
	return rv, err
}

// dedupable says whether a record of this type and content type is
// recorded as a revisit when its payload is one already archived under its
// URI: files, menus, listings, HTTP responses and Gopher+ attribute blocks
// (an FTP control conversation is this capture's own, kept every time).
func dedupable(typ, contentType string) bool {
	if isGeminiResponse(contentType) {
		// Its status line is in no header block a revisit could keep.
		return false
	}
	return typ == "resource" || typ == "response" || typ == "metadata" && contentType == TypeGopherPlusAttrs
}

// isGeminiResponse reports whether a content type is a Gemini response's:
// a status line, then the body.
func isGeminiResponse(contentType string) bool {
	return strings.HasPrefix(contentType, "application/gemini") && strings.Contains(contentType, "msgtype=response")
}
