package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/goferurl/gofer/browse"
	"github.com/goferurl/gofer/fetch"
)

func (c *cli) browseCommand() *cobra.Command {
	var o browseFlags
	cmd := &cobra.Command{
		Use:   "browse [flags] [URL]",
		Short: "Browse Gopher, Gopher+, Gemini, FTP, file: and news listings in a full-screen terminal client",
		Long: `Browse URLs in a full-screen terminal client: Gopher menus, Gemini pages,
FTP and file: directories, newsgroups and group lists as one listing, a
pager for text (/ search, n next, w wrap, r raw bytes), type-7 searches,
Gopher+ +ASK forms and Gemini input pages, downloads into --download-dir
(never over an existing file), back and forward history, and bookmarks in
$XDG_CONFIG_HOME/gofer/bookmarks (a adds, v views). Without a URL it opens
the bookmarks. ? lists every key.

Gemini servers are trusted on first use as gofer get trusts them (the
--tofu, --gemini-verify, --known-hosts, --client-cert and --client-key
flags apply); a server that presents another certificate than the one
pinned for it shows both fingerprints and asks whether to accept the new
one.

Every URL goes through the same security guard as gofer get; its warnings
and refusals show on the status line. telnet and tn3270 items suspend the
browser for the session.

With --warc ARCHIVE (a WARC file or segment prefix; repeat it for more)
the browser browses what the archive captured, offline, with the same
keys: every page and item comes from the archive and no connection is
opened. Gopher menus, items and Gopher+ attribute blocks, FTP listings
and files, HTTP pages (as text), news articles and Gemini pages and
files are served; each page's title says when it was captured, and a
link to what was not captured opens nothing and says "not captured". Of
a URL captured more than once the latest capture is shown, or with --at
the one nearest that time. Without a URL it opens the archive's first
captured menu or listing.`,
		Example: `  gofer browse gopher://gopher.floodgap.com/
  gofer browse --download-dir ~/Downloads gophers://gopher.example.org/
  gofer browse gemini://geminiprotocol.net/
  gofer browse ftp://ftp.funet.fi/pub/
  gofer browse --warc hole.warc.gz
  gofer browse --warc crawl --at 20261127 gopher://127.0.0.1/1/`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &usageError{msg: "browse takes at most one URL"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return c.runBrowse(cmd.Context(), args, o) },
	}
	// The browser shows a mailto: URL and sends nothing; it prompts for
	// searches and forms itself; telnet runs on its terminal.
	c.addFlags(cmd, []string{groupConnection, groupFTP, groupGemini}, "nntp-server", "auto-login")
	cmd.Flags().StringVar(&o.downloadDir, "download-dir", ".", "save downloads in `DIR`")
	cmd.Flags().StringArrayVar(&o.archives, "warc", nil, "browse what the WARC file or segment prefix `ARCHIVE` captured, offline (repeatable)")
	cmd.Flags().StringVar(&o.at, "at", "", "with --warc, show of each URL captured more than once the capture nearest this time (RFC 3339 or YYYYMMDDhhmmss; default: the latest)")
	return cmd
}

// browseFlags are gofer browse's own flags.
type browseFlags struct {
	downloadDir, at string
	archives        []string
}

// runBrowse checks the terminal and o, and browses from args' URL (the
// bookmarks, or an archive's first menu, without one) until the person
// quits.
func (c *cli) runBrowse(ctx context.Context, args []string, o browseFlags) error {
	start := ""
	if len(args) == 1 {
		start = args[0]
		if _, err := fetch.ParseURL(start); err != nil {
			return err
		}
	}
	in, inOK := c.stdin.(*os.File)
	out, outOK := c.stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return &usageError{msg: "browse needs a terminal on stdin and stdout (use gofer get in scripts)"}
	}
	if o.downloadDir == "" {
		o.downloadDir = "."
	}
	if fi, err := os.Stat(o.downloadDir); err != nil || !fi.IsDir() {
		return &usageError{msg: fmt.Sprintf("--download-dir %s: not a directory", o.downloadDir)}
	}
	var b *browse.Browser
	c.warn = func(msg string) { b.Warn(msg) }
	c.prompt = func(q string, secret bool) (string, error) { return b.Prompt(q, secret) }
	cfg := browse.Config{DownloadDir: o.downloadDir, Stdin: in, Stdout: out}
	var client *fetch.Client
	if len(o.archives) > 0 {
		ac, err := c.archiveClient(o.archives, o.at, &start)
		if err != nil {
			return err
		}
		client, cfg.Captured = ac.client, ac.captured
	} else {
		if o.at != "" {
			return &usageError{msg: "--at applies only with --warc"}
		}
		var err error
		if client, err = c.client(); err != nil {
			return err
		}
	}
	defer client.Close()
	cfg.Client = client
	b = browse.New(cfg)
	return b.Run(ctx, start)
}
