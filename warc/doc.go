// Package warc writes and reads WARC/1.1 archives (ISO 28500:2017, "The
// WARC File Format 1.1"): what gofer fetches, captured as the exact bytes
// the server sent, in records standard web archive tools read.
//
// Every reading (Walk, ScanFile and Index, Check, CatArchives, Pack, and
// replay through OpenRecord) goes through one Reader (reader.go), which
// reads what other tools write as well: WARC/1.0 and 1.1; gzip (RFC 1952)
// members of one record each or of many (a file gzipped whole); zstd
// (RFC 8878) frames likewise, with the warc-zstd dictionary frame;
// uncompressed records; ARC files; the WARC files a WACZ stores, read
// where its ZIP archive stores them (parts.go); target URIs with or
// without angle brackets. It shows each header as the file has it (no digest made up,
// no length repaired), bounds a header to a settable limit (1 MiB), and
// reports a stretch that holds no readable record once and goes on after
// it, in memory that does not grow with the file.
//
// Records are built and read with github.com/nlnwa/gowarc. Its record
// builder needs a block's length and digests before the record header is
// written, so a block is spooled while it streams in: the first MiB in
// memory, the rest in a file in a hidden spool directory beside the archive
// (gowarc's disk buffer; a run killed mid-block leaves its spool for the
// next writer of the same archive to clear), then copied
// into the archive. Memory therefore never grows with the size of a
// payload; disk use grows by one payload at a time.
//
// Every record is its own gzip member (the ".warc.gz" convention), so a
// reader can seek to any record and a file cut short loses only the
// record it ends in. Every file starts with a warcinfo record naming the
// software and the command that wrote it, passwords masked. Digests are
// "sha1:" followed by the base32 (RFC 4648) SHA-1, the form web archive
// tools compare.
//
// Record conventions per protocol (the block is always the bytes as
// received, never a rendering; RECORDS.md in this directory is the whole
// contract, which Check validates):
//
//   - FTP (RFC 959): a file is a resource record; the control conversation
//     of its fetch is a metadata record of type
//     text/x-ftp-control-conversation (one line per command "> " or reply
//     "< ", the password as "****") with WARC-Concurrent-To naming the
//     resource. A directory listing is a resource record of the raw LIST or
//     MLSD bytes, text/x-ftp-list or text/x-ftp-mlsd.
//   - Gopher (RFC 1436) and Gopher+: an item or a menu is a resource record
//     of the bytes after the Gopher+ header line, if any (a menu raw, with
//     its terminating line); the content type follows the item type
//     (ContentType). A type-7 result has the search in its target URI
//     (after %09). A Gopher+ attribute block is a metadata record of type
//     text/x-gopher-plus-attributes whose target is the URL that asked for
//     it, linked to the items it describes (links.go): WARC-Refers-To
//     names an item recorded before it, and an item recorded after it
//     names it in WARC-Concurrent-To.
//   - HTTP: a request record and a response record
//     (application/http;msgtype=request and msgtype=response) holding the
//     bytes as they crossed the connection, status line, headers and body
//     with its transfer and content codings.
//   - News (RFC 3977, RFC 5536): an article is a resource record of type
//     message/rfc822 holding the article as the server sent it with the
//     dot-stuffing (RFC 3977 §3.1.1) undone and CR LF line ends kept; its
//     target is news:<message-id>, and the nntp: or news: URL that
//     fetched it is in the extension field Gofer-Fetched-Uri.
//   - Gemini: a request record of the request line as sent (the URL and
//     CR LF) and a response record of the whole response, status line and
//     body (application/gemini;msgtype=request and msgtype=response), each
//     with WARC-Protocol fields naming gemini and the TLS version
//     ("tls/1.3"), the IIPC proposal's extension field; a response's
//     payload, which WARC-Payload-Digest and Payload cover, is the body
//     after the status line. An input request answered is two exchanges,
//     the second's target carrying the answer as its query; a redirect,
//     a failure or an input request is a response of its status line
//     alone. A Gemini response is never made a revisit.
//
// Every record but a warcinfo names the protocols its bytes crossed in
// WARC-Protocol fields (the IIPC proposal's extension field), the
// application protocol first ("ftp", "gopher", "http/1.1", "nntp",
// "gemini"), then the TLS version ("tls/1.3") over a TLS connection.
//
// All records of one fetch after the first carry WARC-Concurrent-To naming
// the first, so a file and its conversation, or a request and its
// response, are linked.
//
// Segments (CreateSegments) each have a CDXJ index beside them, written
// when the segment is closed. A payload fetched again whose digest equals
// the last one archived under the same URI (in this run or in the indexes
// of earlier segments) becomes a revisit record of the
// identical-payload-digest profile (WARC 1.1 §6.7.2) instead. A segment
// found without its index was open when its run was killed: the next
// writer cuts it back to the end of its last whole record (Recover),
// indexes it, and goes on in a new segment, so every closed segment stays
// valid.
package warc
