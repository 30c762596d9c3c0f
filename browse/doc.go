// Package browse is gofer's full-screen terminal client (gofer browse):
// one navigable view for Gopher and Gopher+ menus (RFC 1436 and the
// University of Minnesota's Gopher+ document), FTP and file: directories,
// newsgroups and group lists, a pager for text items and articles, real
// forms for Gopher+ +ASK blocks, type-7 search prompts, downloads, history
// and bookmarks.
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
// Keys follow Lynx and the UMN gopher client where they agree: arrows,
// Enter or Right to open, Left, Backspace or u to go back; Help lists
// every key.
package browse
