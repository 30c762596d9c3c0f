// Package lineproto is the kit gofer's line protocols stand on, as
// net/textproto is for net/smtp: FTP's control connection (RFC 959, with
// RFC 2228 and RFC 4217 TLS), Gopher and Gopher+ (RFC 1436), and NNTP
// (RFC 3977). Each of those packages speaks its own protocol; what they
// share lives here, written once:
//
//   - Dial opens a connection for a request: through Request.Dialer (a
//     direct connection when it is nil), with Request.Idle() as the
//     deadline of every read and write, and closed the moment the request's
//     context ends, so that no read or write outlives a cancelled fetch.
//   - Conn.Classify gives every I/O error one of the schemes error kinds: a
//     cancelled context is schemes.ErrInterrupted, a deadline or an idle
//     server schemes.ErrTimeout, a connection that ends or is reset in the
//     middle of a transfer schemes.ErrInterrupted, a failed dial
//     schemes.ErrConnect.
//   - Handshake starts TLS on such a connection (ftps and nntps from the
//     first byte, AUTH TLS, STARTTLS) and classifies its failure the same
//     way for every protocol.
//   - Reader reads lines of bounded length: a line longer than the limit
//     is a schemes.ErrTooLarge error, and the reader keeps failing after it.
//   - Lines cuts the bytes crossing a connection into lines as they pass,
//     for transcripts that mask credentials, bounding a line's length; Replay
//     hands an engine a greeting already read before TLS started.
//   - ServerText makes a server's text safe to show in a one-line error.
//   - WriteText and Writer are the choke point of the wire: every request
//     line passes the security guard's line check (no CR, LF or NUL but the
//     CR LF that ends it) at the moment it is written, and a line that
//     fails is refused with security.ErrInjection before any byte of it
//     leaves.
package lineproto
