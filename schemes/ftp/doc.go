// Package ftp is gofer's fetcher for ftp and ftps URLs: RFC 1738 §3.2
// retrieval over FTP (RFC 959) with the extensions of RFC 2389 (FEAT),
// RFC 3659 (SIZE, MDTM, REST in stream mode, MLSD), RFC 2428 (EPSV, and
// EPRT for active mode, Fetcher.ActivePort) and RFC 2228/4217 (AUTH TLS,
// PBSZ, PROT: explicit FTPS, and implicit FTPS on port 990). Through an
// HTTP proxy an ftp:// URL is asked of the proxy itself in an HTTP/1.1
// request (RFC 9112 §3.2.2), unless Fetcher.ProxyTunnel has every
// connection tunnelled (httpproxy.go).
//
// The package speaks FTP itself rather than through the client of
// github.com/jlaffaye/ftp. That client sends a command and reads its reply
// before it sends the next (its Login is USER, PASS, FEAT, TYPE, and PBSZ
// and PROT with TLS, one round trip each); it opens a transfer's data
// connection only when the transfer's own command needs one, through a
// dial callback that carries no context; it collects a whole listing
// before it returns one; and it reads the greeting itself. gofer
// pipelines commands and reads their replies ahead, logs in spare
// connections once the server has greeted the first, dials a data
// connection as soon as a passive reply read ahead names it, streams
// listings, and ends a connection with the fetch's context: all of it
// through one reader of the control connection, which that client would
// keep to itself.
//
// This package decides which lines go out: the login (USER, then PASS, FEAT,
// TYPE I, PBSZ and PROT for TLS, PWD and NOOP together; USER goes alone,
// its reply read first, only for a user's first login to a server), one
// CWD per decoded segment, whatever the server's path syntax (RFC 1738 §3.2.2:
// ftp://h/%2Fetc/motd is CWD /etc, RETR motd; ftp://h//etc/motd is an empty
// CWD, CWD etc, RETR motd), then TYPE, RETR or a listing. Every
// connection, data connections included, is opened through the request's
// Dialer with the request's context and per-operation idle deadlines
// (schemes/lineproto); the address of a passive reply is dialled only when
// it is the control connection's peer. Every command line passes the
// security guard's line check as it is written on the control connection:
// one with a CR, LF or NUL inside is refused before any byte of it leaves.
//
// Listings (MLSD where the server has it, else LIST; NLST for ";type=d")
// are streamed one entry at a time. LIST lines are read in the forms of
// Unix ls (month names in the languages servers are set to), DOS and IIS,
// VMS, EPLF, OS/2, OS/400, MVS (datasets and PDS members), NetWare and
// NonStop; a line in none of them is reported, never guessed at. A link
// that MLSD names without its target gets the one LIST shows. A file's body goes from the socket
// into a file by splice when it can.
//
// Commands whose replies do not decide what is sent next are pipelined
// (RFC 959 servers answer in order): a new connection's login with the
// CWDs and passive command of its first fetch; the CWDs of a path with TYPE, SIZE,
// MDTM and EPSV; MDTM with the RETR of a file in the directory the
// connection is in; and behind a RETR on a kept connection, the file's MDTM
// (which answers an If-Modified-Since fetch of the file made right after,
// within a few seconds: the server answered it once the transfer was over)
// and the next transfer's EPSV; a RETR or a listing behind its CWDs when
// its data connection was asked for ahead (it is read only once they have
// worked). A RETR never goes out behind any other CWD, behind a passive
// command not yet seen to work, or behind a reply that decides whether it
// is sent. A server that drops commands sent together, found at
// login, gets one command at a time. A command sent behind a transfer's
// may reach the server, in a packet of its own, while the transfer runs:
// ProFTPD then answers it "450 EPSV: data transfer in progress" before
// the transfer's end and does not run it; that reply is taken as the
// command's, and the next transfer asks for its data connection again.
// The data connection of a passive
// reply read ahead is dialled as soon as the reply is read, while the
// transfer before it ends. Data connections are only read; vsftpd, which
// waits for the client's end of one before its 226, has them half-closed
// at once: its 226 comes a round trip sooner.
//
// TLS data connections (PROT P) resume the control connection's TLS
// session (RFC 4217 §10.2), which servers may demand: vsftpd with
// require_ssl_reuse, ProFTPD's mod_tls by default. A TLS 1.3 session is
// resumed from its pre-shared key and a TLS 1.2 session from its session
// ticket (RFC 5077), as crypto/tls does; a TLS 1.2 session the server
// gave no ticket for is resumed by its session ID (RFC 5246 §7.4.1.2),
// which crypto/tls does not do by itself and no maintained Go TLS library
// does: the control connection's handshake is watched for its master
// secret and session ID, a client session is made of them in the session
// encoding crypto/tls defines, and each data connection's ClientHello
// carries the ID (resume.go says how). A data connection the server still
// refuses for not resuming (vsftpd's 522, ProFTPD's 425) is an error that
// says so rather than a broken transfer.
//
// Server-side checksums (hash.go): the HASH command of the draft
// draft-bryan-ftp-hash, the X-commands (XSHA512, XSHA256, XSHA1, XMD5,
// XCRC) and MD5 (draft-twine-ftpmd5), asked with a file (Request.Hash) or,
// for each file a listing names, in pipelined batches once it ends
// (Request.ListHashes); hashes a server writes among a file's MLSD facts
// (RFC 3659 §7 lets it add facts of its own: "x.sha256=HEX" and kin) are
// read into the entry and need no command. Directories of a LIST listing
// are dated to the second by MDTM where the server answers it for a
// directory (Request.DirTimes), probed once per server (DirTimesProbe).
//
// Control connections are kept for reuse across fetches, keyed by every
// setting that decides what a connection is or how it was made: host,
// port, login, TLS mode and configuration, dialer, idle timeout and
// charset. Before a kept connection serves another URL it
// returns to the directory recorded at login: RFC 1738 §3.2.2 allows reuse,
// but after CWDs the only reliable way to another path is a fresh control
// connection or that return. Fetcher.Close ends them.
package ftp
