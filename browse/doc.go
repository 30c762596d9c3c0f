// Package browse is gofer's full-screen terminal client (gofer browse):
// one navigable view for Gopher and Gopher+ menus (RFC 1436 and the
// University of Minnesota's Gopher+ document), Gemini pages (text/gemini,
// one row a line, links selectable), FTP and file: directories,
// newsgroups and group lists, a pager for text items and articles, real
// forms for Gopher+ +ASK blocks, type-7 search prompts and Gemini input
// requests, downloads, history and bookmarks.
//
// A Gemini input request (status 10, or 11 for sensitive input, masked)
// reaches the browser through the fetch client's Prompt, which gofer sets
// to Browser.Prompt. A gemini server that presents another certificate
// than the one pinned for it (a *schemes.CertChangedError) is shown with
// both fingerprints and a y/n question; y pins the new certificate and
// fetches again.
//
// It draws with github.com/rivo/tview on github.com/gdamore/tcell/v2:
// tview gives the table, pager, form and input widgets, and tcell's
// SimulationScreen lets tests type keys into the real interface and read
// back what the screen shows, with no terminal at all.
//
// The browser fetches through a Client (a *fetch.Client in gofer), so every
// URL it opens, typed or followed, passes the same security guard as gofer
// get: nothing is fetched that gofer get would refuse, and every warning or
// refusal appears on the status line. Fetches run off the interface's
// goroutine and end with the browser; telnet and tn3270 items suspend the
// interface, run the session on the terminal, and restore it.
//
// With Config.Captured set the browser browses an archive (gofer browse
// --warc): its Client answers from the captures and dials nothing, each
// page's title says when the page was captured, and http and https pages
// open in the pager as text.
//
// Keys follow Lynx and the UMN gopher client where they agree: arrows,
// Enter or Right to open, Left, Backspace or u to go back; Help lists
// every key.
package browse
