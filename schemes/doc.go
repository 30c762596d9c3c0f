// Package schemes is gofer's model of Uniform Resource Locators as RFC 1738
// (with RFC 1630 and draft-ietf-uri-url-03) defines them: the generic syntax,
// escaping, a typed view per scheme, default ports, partial-URL resolution and
// URLs found in plain text. It also holds the contract every scheme package
// implements (Fetcher, Request, Response, Entry).
//
// Parsing splits on the raw delimiters first and then decodes each part once,
// so an encoded delimiter stays data: %2F inside an FTP segment is a slash in
// one name, %3B before "type=" is not a type code. Gopher is the one
// exception: there %09 separates selector, search and Gopher+ string, because
// a selector can never hold a TAB.
//
// The package does no I/O and never resolves host names.
package schemes
