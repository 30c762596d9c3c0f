// Package fetch is gofer's front door: a Client that retrieves whatever an
// RFC 1738 URL names (FTP, HTTP, Gopher and Gopher+, NNTP and news, telnet,
// file, and any "x-" scheme a program registers) by speaking that URL's
// protocol.
//
// Client is the policy layer. Before any connection is opened it applies
// security.Guard to the URL (RFC 1738 §6: ports of other protocols, line
// injection, passwords in URLs); it follows redirects only to http, https
// and ftp, at most Options.MaxRedirects times, never carrying a login to
// another host and guarding every hop again; it stops a body at
// Options.MaxBytes. The scheme packages under schemes/ are the mechanism.
//
// Every error is a *Error{Op, URL, Err} whose URL has its password masked;
// errors.Is and errors.As reach the kind inside (schemes.ErrConnect,
// security.ErrPort, *schemes.ParseError, ...).
package fetch
