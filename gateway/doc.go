// Package gateway shows what URLs of the old protocols name to a web
// browser: an http.Handler over a fetch.Client (gofer serve). Browsers
// speak none of FTP (RFC 959), Gopher (RFC 1436) and Gopher+, NNTP (RFC
// 3977), WAIS or Gemini any more; the gateway speaks them for the browser
// and answers in HTML.
//
// The URL space:
//
//	/                the start page: a box for a URL and, with an archive,
//	                 the URLs its captures started from (those its warcinfo
//	                 records name on the command line), each with the
//	                 number of its captures
//	/go?url=URL      the box's form: a redirect to /live/URL
//	/live/URL        URL fetched now and shown as a page: a Gopher menu, an
//	                 FTP listing or a group as a list of links that stay in
//	                 the gateway (a group's articles threaded by their
//	                 References), a gemtext page rendered, a file streamed
//	/raw/URL         URL fetched now, its bytes as the protocol gave them
//	/search/URL?q=W  a search form's answer: a redirect to /live/ of URL with
//	                 W as its search part (TAB W for Gopher, ?W for the others)
//	/info/URL        a Gopher+ item's attributes, as the server gave them,
//	                 and each of its +VIEWS views as links to the item
//	                 fetched in it (schemes.Viewer)
//	/ask/URL         a Gopher+ item's +ASK form (Gopher+ §2.8) as an HTML form
//	                 (schemes.Former); its answers fetch the item
//
// With an archive (Config.Archive), time travel through its captures, in
// the Wayback Machine's conventions and Memento's (RFC 7089):
//
//	/web/TIMESTAMP/URL     the capture nearest TIMESTAMP (1 to 14 digits, a
//	                       short one padded with the earliest values; another
//	                       than the capture's own is a 302 to it), its links
//	                       leading to captures of the same time, under a banner
//	                       with the previous and next captures
//	/web/TIMESTAMPid_/URL  the captured bytes unchanged
//	/web/*/URL             every capture of URL; /web/*/PREFIX* every captured
//	                       URL under PREFIX
//	/web/URL               a TimeGate: Accept-Datetime picks the capture, 302
//	/timemap/link/URL      a TimeMap in application/link-format
//
// What the archive answers comes from it alone: its client dials nothing.
// A captured HTML page (an HTTP capture, a Gopher h item) is served as
// captured, under the sandbox policy, with the URLs its elements name
// (href, src, action, srcset, ...) leading to the captures of the page's
// time, and the banner at the top of its body.
//
// URL is the target URL as typed, query included; its percent-escapes are
// kept as the browser sent them, never decoded twice, and a browser's
// collapsed "gopher:/host" is read as "gopher://host".
//
// Pages of links are read through the contract alone (fetch.Response's
// Listing and Page, the entries' typed views), so the gateway imports no
// scheme package: a page of any scheme the library reads is shown.
//
// Security: a gateway that fetches for others must not become a way to
// reach what they could not. Every URL passes the client's guard, as gofer
// get's do (another protocol's port refused, CR, LF and NUL refused before
// any connection: 403); file:, telnet:, rlogin:, tn3270:, mailto: and
// prospero: are never fetched for a browser, nor a URL with a login (403);
// with Config.AllowHosts only the hosts it names are fetched from. Every
// byte of remote text is escaped by html/template for where it stands; a
// link of a page leads through the gateway only for the schemes it
// fetches, and javascript:, data: or any other link is shown as text. The
// gateway's pages carry a strict Content-Security-Policy (no script at all);
// files from servers are served under a sandbox policy, so that HTML from a
// server runs no script in the gateway's origin; no cookie is ever set.
//
// Status codes: 403 for what the guard or the gateway refuses, 400 for a
// URL that does not read or a scheme gofer does not speak, 404 for what
// the upstream says does not exist (schemes.ErrNotFound: FTP 550, a Gopher
// error item, Gemini 51, NNTP 411, 423, 430) or an archive never captured,
// 504 for an upstream that timed out, 502 for any other upstream failure,
// with the reason on the page.
package gateway
