// Package gemini is gofer's fetcher for gemini URLs: the Gemini protocol
// and its text/gemini document format ("gemtext"), as the Gemini project's
// specifications of the network protocol and of gemtext define them.
//
// A gemini URL has the generic syntax of RFC 3986 (it shares the
// schemes.HTTP view): gemini://host[:port]/path?query, default port 1965.
// A request is one connection: TLS 1.2 or later from the first byte, with
// the host as server name (SNI), then exactly one request line, the
// absolute URL and CR LF, at most 1024 bytes; a longer one is refused
// before anything is dialled, and the line passes the guard's line check
// where it is written. The server answers with a status line, two digits,
// a space and a META of at most 1024 bytes of UTF-8, then, for a success,
// the body until the connection closes. Status classes:
//
//	1x  input: META is a prompt; the answer (Request.Query, else the
//	    first Request.Form value, else Request.Prompt, masked for 11)
//	    is sent as the URL's query in a second request
//	2x  success: META is the body's MIME type (text/gemini when empty);
//	    the body streams
//	3x  redirect: a KindRedirect response, which the fetch package follows
//	    under its redirect policy (gemini to gemini only)
//	4x  temporary failure, 5x permanent failure: schemes.ErrRefused with
//	    the server's text
//	6x  a client certificate is needed, or the one sent was refused:
//	    schemes.ErrAuth
//
// Servers are trusted as Gemini clients trust them, on first use: the
// SHA-256 fingerprint of the first certificate a host:port presents is
// pinned with its expiry in a known-hosts file (KnownHosts), and a later
// different certificate is refused with a *CertChangedError naming both
// fingerprints, unless the pinned one has expired or the caller accepts
// the new one. TrustCA verifies against certificate authorities instead.
// A client certificate (an identity) is offered to the servers the
// Fetcher is given one for.
//
// A text/gemini body is a document of lines: text, links ("=>"),
// headings, list items, quotes and preformatted blocks. NewListing reads
// one as a schemes.Listing, one Entry per line (Entry.Gemini.Kind is the
// line's kind), links resolved against the page's URL; a mirror or a
// browser walks pages through it. The response itself is a KindFile whose
// Body is the document's bytes, exactly as the server sent them.
//
// With Request.Capture set, the request line and the whole response
// (status line and body) are recorded as a request and a response record.
package gemini
