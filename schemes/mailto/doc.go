// Package mailto is gofer's fetcher for mailto: URLs (RFC 1738 §3.5, RFC
// 6068). A mailto URL names a mailbox, so fetching one sends it a message:
// the recipients are the URL's addresses and its "to" and "cc" header
// fields, the subject, keywords, in-reply-to and references fields come
// from the URL, the text is the URL's "body" followed by Request.Mail.Body,
// and Request.Mail.Headers add the sender's own header lines; the sender is
// the Fetcher's From. Other URL header
// fields (bcc among them: a recipient hidden from the person sending) are
// left out with a warning, as RFC 6068 §6 advises.
//
// The message is submitted over SMTP (RFC 5321) on net/smtp to
// the Fetcher's SMTPServer: port 25 by default, STARTTLS (RFC 3207)
// whenever the server offers it, and always when the Fetcher's RequireTLS
// asks and on the submission port 587 (RFC 6409), where
// a login (AUTH PLAIN, RFC 4954 and RFC 4616) is required too; port 465 is
// TLS from the first byte (RFC 8314). A password never crosses a connection
// without TLS. With no server named, the message goes to the local
// sendmail program instead, with the recipients as its arguments.
//
// A message is built as a mail user agent builds it (RFC 5322): From, To,
// Cc, Subject (RFC 2047 encoded when not ASCII), Date, Message-ID and
// MIME-Version with a UTF-8 text/plain type, then the sender's own lines,
// which replace generated fields of the same name. Body lines end in CR LF
// whatever they ended in; a NUL ends the send before the message is
// complete, so nothing is delivered.
//
// The response is KindInfo: a *Receipt naming the recipients, the server
// and the queue id from the server's reply to the end of DATA
// ("250 2.0.0 Ok: queued as 4C1D2E3F").
package mailto
