// Package nntp is gofer's fetcher for news: and nntp: URLs (RFC 1738 §3.6
// and §3.7, RFC 5538). It speaks NNTP as RFC 3977 defines it, on
// net/textproto, with AUTHINFO USER/PASS (RFC 4643) and STARTTLS (RFC 4642);
// nntps: URLs use TLS from the first byte on port 563. Article headers are
// passed through as the server sends them (RFC 5536); only overview fields
// are interpreted.
//
// What each URL form sends after the session is set up:
//
//	news:message-id        ARTICLE <message-id>   (brackets added on the wire)
//	news:group             GROUP group, OVER low-high (XOVER on older servers)
//	news:*                 LIST NEWSGROUPS, LIST ACTIVE
//	nntp://host/group/N    GROUP group, ARTICLE N
//	nntp://host/group      GROUP group, OVER low-high
//
// Request.News.Part "head" or "body" turns ARTICLE into HEAD or BODY. The
// session reads the greeting, asks for CAPABILITIES, switches a
// mode-switching server to reader mode (MODE READER), starts TLS when the
// Fetcher's RequireTLS asks, and logs in with AUTHINFO only when
// credentials were given or the server answers 480. news: URLs name no
// server: they go to the Fetcher's Server.
//
// Articles and overviews are streamed: an article is an io.ReadCloser
// that undoes the dot-stuffing and, as textproto's DotReader does, gives
// lines LF ends instead of the wire's CR LF; a group is a Listing read line
// by line from the connection.
//
// Connections, their idle deadlines and their end when the context ends,
// the bounded reading of status and listing lines and the line check of
// each command as it is written (conn.send, the one place a command reaches
// the wire) come from the line-protocol kit, schemes/lineproto.
package nntp
