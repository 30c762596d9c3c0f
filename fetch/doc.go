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
//
// # Settings of one protocol
//
// Options hold what applies to every scheme (limits, the guard's ports,
// proxies, TLS trust, logins from netrc). What concerns one protocol is a
// field of that scheme's Fetcher, as net/http's Transport carries its
// own: ftp.Fetcher's Email (the anonymous password), RequireTLS and
// VerifyListing; nntp.Fetcher's Server (for news: URLs) and RequireTLS;
// mailto.Fetcher's SMTPServer, SMTPUser, From and RequireTLS;
// telnet.Fetcher's AutoLogin and Linger. A program configures one and
// puts it under every scheme it serves in one line:
//
//	opts.SetFetcher(&ftp.Fetcher{Email: "me@example.org"}, ftp.Schemes()...)
//
// The zero Options read nothing from the environment; OptionsFromEnvironment
// gives fetchers configured from $EMAIL, $NNTPSERVER and $SMTP_SERVER, as
// gofer's command line takes them.
//
// # One call and the settings of every call
//
// A Request is a URL and a schemes.Call: what this call asks beyond the
// URL (offset and length, a condition, a search or form, a capture, and
// the typed views of one scheme's call: an article's part in News, a
// message's text in Mail). Every fetcher sees that same Call, unchanged,
// in its schemes.Request. What holds for every call (dialer, limits,
// timeouts, logins, prompt, TLS trust, charset, transcript) NewClient
// makes once from the Options, as one schemes.Settings per scheme, and
// every schemes.Request the Client makes points at it; the guard of each
// call (its URL and port checks, its warnings) is the request's own.
//
//	resp, err := client.Do(ctx, &fetch.Request{URL: u, Call: schemes.Call{Offset: 1 << 20}})
//
// # Responses
//
// A Response's Kind says what it holds, and its Body is never nil:
//
//	KindFile      Body streams the bytes
//	KindListing   Listing yields entries; Body reads them as text (one or the other)
//	KindInfo      Info holds metadata (Gopher+ attributes); Body reads its readable form
//	KindSession   Session relays a terminal (telnet); Body's Read says to use Session
//	KindHandoff   Command names a program (rlogin, tn3270); Body's Read says so
//	KindRedirect  Location names where the resource is; Client follows it
//	              (see Options.MaxRedirects) and returns it only when it may not
//
// The caller closes the Response (or, with Get, any part of it).
//
// A page of links reads the same whatever its scheme. A Gopher menu, an
// FTP listing, a group or a group list is KindListing. A document that is
// also a page of links, a text/gemini page over gemini or an HTML page over
// any scheme, is KindFile with Response.Page set: Page reads the page's
// bytes (Body itself, or a copy kept on disk) as entries whose URL is
// each link resolved against the page (schemes.Links keeps only the
// links). PageReader gives the same reader for a page read again later.
// What a fetch stops to ask a person is an error of the contract too:
// *schemes.InputError, *schemes.CertChangedError (Accept, then fetch
// again) and *schemes.CertRequiredError (NewIdentity, then fetch again).
//
// Client.Download writes a file into an io.WriterAt over several streams
// at once (FTP REST, HTTP Range), as lftp's pget does, and falls back to
// one stream, with a warning, where the server gives no size or no ranges.
//
// # The packages
//
//	schemes            the URL model (Parse, URL and its typed view per scheme,
//	                   escaping, default ports) and the contract a scheme
//	                   implements: Fetcher, Request, Response, Listing, Entry.
//	                   No I/O.
//	schemes/ftp        RFC 959 and its extensions, FTPS      ftp, ftps
//	schemes/http       HTTP/1.1 through net/http             http, https
//	schemes/gopher     RFC 1436 and Gopher+, and over TLS    gopher, gophers
//	schemes/nntp       RFC 3977, RFC 4642 (STARTTLS)         news, nntp, nntps
//	schemes/telnet     RFC 854 sessions; rlogin and tn3270   telnet, rlogin, tn3270
//	                   handed to a local program
//	schemes/file       the local file system                 file
//	schemes/wais       Z39.50-1988 as WAIS speaks it         wais
//	schemes/prospero   ARDP v5 over UDP, resolving to the    prospero
//	                   URL that holds the object
//	schemes/mailto     RFC 5321 SMTP and RFC 6068 URLs       mailto
//	schemes/gemini     Gemini over TLS, trust on first use,  gemini
//	                   gemtext pages read as listings
//	schemes/lineproto  what the line protocols share: dial, cancel, error
//	                   kinds, bounded reads, the guard at every written line
//	security           the guard: port policy, line checks, password
//	                   redaction, safe local names. No I/O.
//	dial               every connection: context, timeouts, idle deadlines,
//	                   SOCKS5 and HTTP CONNECT proxies, TLS. No policy.
//	fetch              this package: Client, the registry of schemes (wired
//	                   explicitly in NewClient), redirects, size limit, errors.
//	fetch/mirror       recursive copies of FTP, Gopher and HTTP trees on top
//	                   of a Client: workers, state, resume, atomic writes,
//	                   exact times, filters, retries, politeness.
//	fetch/mirror/cluster  one mirror shared by many workers through NATS
//	                   JetStream: the frontier, the seen set, per-host slots.
//	warc               WARC/1.1 capture: a schemes.Capture that a fetch hands
//	                   the raw bytes it reads (Options.Capture), segments,
//	                   CDXJ index, revisits, recovery; reading archives back.
//	browse             the terminal client (gofer browse) on tview and tcell.
//	cmd/gofer          the command: flags onto Options, rendering, exit codes.
//
// Each layer only asks the one below it through the contract: outside this
// package (which wires the schemes) and the scheme packages, no package
// imports a scheme package but cmd/gofer's configuration of the fetchers
// from flags and, for now, replay's reading of captured FTP listings and
// Gopher menus (layering_test.go holds the list, which only shrinks); and
// a scheme package knows nothing of the CLI.
//
// # The path of a request
//
//  1. ParseURL (schemes.Parse) turns the string into a *schemes.URL, once:
//     the generic parts, decoded per part, and the scheme's typed view. A
//     caller that parsed it already passes it as Request.Parsed.
//  2. With Options.RemoteCharset, the URL's names that are UTF-8 text (FTP
//     segments, Gopher selector, news group) are written in that charset
//     (charset.go). Client.Do then applies the guard to what will be sent:
//     a refused port or an injected line ends the request here, before any
//     dial.
//  3. The registry names the scheme's Fetcher; the Client builds its
//     schemes.Request (the URL plus limits, login sources, the Dialer for
//     the scheme's proxy) and calls Fetch.
//  4. The scheme package writes its protocol lines, each passing the
//     guard's line check as it is written, over connections from dial, and
//     returns a Response whose Body or Listing streams from the socket.
//  5. A redirect (KindRedirect) goes back to step 2 for its target; a body
//     is bounded by Options.MaxBytes; every Response gets a Body.
//     With Options.RemoteCharset, a listing's names and the Response's
//     Name come back read in it; entry URLs keep the server's bytes.
//  6. The caller (cmd/gofer prints it, fetch/mirror writes it to disk, a
//     program reads it) consumes the Response and closes it.
package fetch
