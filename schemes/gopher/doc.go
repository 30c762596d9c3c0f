// Package gopher is gofer's fetcher for gopher URLs: the Internet Gopher
// protocol (RFC 1436), its Gopher+ extensions (the University of Minnesota's
// "Gopher+: upward compatible enhancements", 1993) and the URL forms of
// RFC 1738 §3.4, draft-ietf-uri-url-03 ("GOPHER") and RFC 4266.
//
// gophers URLs are the same protocol inside TLS from the first byte, on
// the same default port 70, as curl speaks it: the handshake comes before
// any request, the certificate is verified with Request.TLSConfig, and a
// failed handshake (a plain-text server included) is ErrConnect, never a
// plain-text retry. Items of a menu that came over TLS that name the same
// host and port get gophers URLs; items on other servers keep gopher.
//
// A fetch opens one connection per request and writes exactly one request:
// the selector, then TAB and the search, then TAB and the Gopher+ string,
// as the URL gives them; the type character is never sent. Gopher+ replies
// are framed by their "+N", "+-1", "+-2" or "--N" header; plain replies are
// told apart by the item type: menus and text end at a lone "." line, every
// other type runs to the close of the connection, byte for byte.
//
// Everything streams: menus are parsed one line at a time into a Listing and
// bodies are readers over the connection. Only attribute replies ("!", "$")
// are read whole, within a limit, because they become one structured value.
//
// An item marked "?" has a +ASK form: the fetcher reads the form from the
// item's attributes ("!+ASK", or "!" for servers that answer only that),
// answers it from Request.Form or Request.Prompt, and submits the answers as
// a Gopher+ "+-1" data block, one line per answer (AskL: a line count, then
// the lines; Select: "1" or "0"; Choose: the choice's text). AskF and
// ChooseF answers are sent as the file name given: gofer never reads a
// local file into a submission. A URL that carries a filled form is sent as
// it is, once security.CheckAskBlock has accepted its exact shape.
//
// Connections, their idle deadlines and their end when the context ends,
// the bounded reading of menu lines and the line check of the request as it
// is written (conn.send, the one place a request reaches the wire) come
// from the line-protocol kit, schemes/lineproto.
package gopher
