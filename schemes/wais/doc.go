// Package wais is gofer's fetcher for wais URLs (RFC 1738 §3.9): the Wide
// Area Information Servers protocol, which is Z39.50-1988 (ANSI/NISO
// Z39.50, "Information Retrieval Service Definition and Protocol
// Specification for Library Applications") with the WAIS extensions of
// Thinking Machines' "WAIS Interface Protocol" (prototype functional
// specification, 1990), the protocol freeWAIS and freeWAIS-sf servers speak
// on port 210.
//
// Every message is a fixed 25-byte ASCII header (ten decimal digits of body
// length, message type 'z', header version '2', a ten-byte server name,
// compression, encoding and a checksum that nobody computes) followed by
// the body: a two-byte big-endian length and the Z39.50 APDU, then the WAIS
// part. Fields are tag-length-value with tags and lengths written in the
// compressed form of Z39.50-1988 (seven bits a byte, the high bit set on
// every byte but the last).
//
// The URL forms:
//
//   - wais://host:port/database?search: a relevance search (query type "3",
//     the seed words and the WAIS search parameters), answered by a
//     SearchResponse whose WAIS part holds one document header per hit. The
//     result is a Listing, one entry per document: its headline, score,
//     size, type and the wais://host:port/database/wtype/wpath URL that
//     retrieves it. Request.Query supplies or replaces the words.
//   - wais://host:port/database/wtype/wpath: retrieval of one document by
//     its id. The wpath is the document id's fields in order, each written
//     as its field number, "=", the field's bytes percent-encoded, and ";"
//     (the URL draft's rule); the wtype is the document type the search gave
//     (TEXT, HTML, ...). The document is asked for in byte ranges of
//     RangeSize with type-1 queries ("un re ig ig ig ig" = the document id,
//     AND the type, AND byte >= start, AND byte < end) under the element set
//     "Document Text"; each answer carries the bytes under tag 127. The body
//     streams range by range, so memory does not grow with the document; a
//     resume starts the ranges at Request.Offset. The URL names no length,
//     so the end is the first range that comes back short or empty, or,
//     after full ranges, one the server answers with no text (a diagnostic).
//     The W3C clients' form .../database/wtype/LENGTH/wpath is read too,
//     and gives the document's size.
//   - wais://host:port/database: what the server says about the database.
//     WAIS has no request for a description, so gofer sends a search with
//     no words, which a freeWAIS server answers with the database's
//     catalogue record; the records listed are those of the answer, and an
//     answer with none is a listing with one info entry saying so.
//
// A search that matches nothing is answered by freeWAIS with one record,
// the database's catalogue, whose headline says that the search produced no
// result: gofer lists it like any hit, so that its URL retrieves the
// catalogue. A diagnostic record in an answer ("The following database is
// not available: NAME") is ErrRefused with the server's text.
//
// The document id's fields are opaque bytes (server host names, paths,
// byte offsets): gofer hands them back exactly as received.
package wais
