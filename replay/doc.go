// Package replay serves what gofer captured in WARC archives (package
// warc) back to any client, read-only, in the protocol it was fetched
// with: a Gopher (RFC 1436) and Gopher+ server answers from the captured
// items, menus and attribute blocks of one captured server, an FTP
// server (RFC 959, RFC 2428, RFC 3659) from the captured files, listings
// and control conversations of one, an HTTP/1.1 server (RFC 9112) from
// the captured responses, and an NNTP server (RFC 3977) from the captured
// news articles.
//
// An Archive is built from the CDXJ indexes beside the segments, never by
// reading whole archives: each target URI maps to its captures (segment,
// offset, length, date). A file without an index (a segment whose writer
// was killed, or another tool's WARC: gzipped per record or whole, zstd,
// uncompressed, or an ARC file) is read once through warc.ScanFile to
// list its whole records, and what is not whole (a file cut short, a
// damaged gzip member) is reported and left out. When a URI was captured
// more than once, the capture nearest the chosen time is served (the
// latest by default); a revisit record stands for the record it refers
// to. A record is read by seeking to its gzip member (and into it, for a
// member of many records) or to the record itself (warc.OpenRecord) and
// streaming its block, so no payload is ever held in memory whole.
//
// The Gopher server (GopherServer) answers a request line
// "selector[TAB search][TAB Gopher+ string]" with the captured bytes of
// the item with that selector: the type character is not sent by
// clients, so the captures of every type with that selector are
// candidates, menus first. Menu lines (and the +INFO lines of attribute
// blocks) that name the captured server are rewritten to name the
// address the client reached, so that a client following them stays on
// the replay; every other byte is as captured. What was not captured is
// answered with a Gopher error line (type 3), or a Gopher+ error reply to
// a Gopher+ request.
//
// The FTP server (FTPServer) accepts any login and offers passive data
// connections only. Its tree is the captured files and the directories
// that hold them or whose listings were captured: LIST of a directory
// whose LIST was captured sends the captured bytes, every other listing
// (MLSD, MLST, NLST, LIST) is generated from the capture, sizes from the
// records, modification times from the MDTM replies in the captured
// control conversations, else from the captured listing of the file's
// directory (an MLSD fact, a LIST time at its precision: a mirror that
// had the time from the listing asked no MDTM). Commands that would
// change the tree are refused.
// Paths with a ".." segment name nothing.
//
// The HTTP server (HTTPServer) sends each captured response as it was
// recorded, status line, header block and body with its transfer coding,
// and closes the connection after it. A request for a path is answered
// from the captures of one server; a request whose target is an absolute
// URL, as a client sends to a proxy, from the capture of that URL. A
// revisit of a response sends the revisit's header block and the payload
// of the record it refers to. What was not captured is a 404.
//
// The NNTP server (NNTPServer) serves every captured article, found by
// its message-id, and by number in the group of the nntp: URL that
// fetched it (the record's Gofer-Fetched-Uri field), else of its Xref
// header. Overviews are generated from the articles' headers; articles
// are sent as captured, dot-stuffed (RFC 3977 §3.1.1). Posting is
// refused.
//
// Each server is a Server: Serve answers the connections of a listener
// until its context ends or Close is called; ListenAndServe listens
// first. Start starts the servers of any set of protocols, each on its
// own address (DefaultAddr when none is given, port 0 for any free one),
// binding every listener before any serves, and the Group it returns
// names the addresses bound and stops them all together.
//
// A Fetcher (NewFetcher) answers a client's fetches from the archive
// instead of a server, for browsing a capture offline (gofer browse
// --warc): it is a schemes.Fetcher for Gopher, FTP, HTTP, Gemini and news
// URLs whose Responses are those a live fetch gives, the recorded bytes
// read by the scheme packages' own parsers, and whose errors for what was
// not captured wrap ErrNotCaptured.
//
// Nothing in this package opens a connection.
package replay
