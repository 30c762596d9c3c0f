// Package security is gofer's guard: the port policy, line-injection checks,
// credential redaction and the safe-name rule for local paths, applied before
// any connection is opened (RFC 1738 §6 and draft-ietf-uri-url-03's security
// considerations). It does no network I/O.
package security
