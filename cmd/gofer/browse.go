package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/goferurl/gofer/browse"
	"github.com/goferurl/gofer/fetch"
)

func (c *cli) browseCommand() *cobra.Command {
	var downloadDir string
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
browser for the session.`,
		Example: `  gofer browse gopher://gopher.floodgap.com/
  gofer browse --download-dir ~/Downloads gophers://gopher.example.org/
  gofer browse gemini://geminiprotocol.net/
  gofer browse ftp://ftp.funet.fi/pub/`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &usageError{msg: "browse takes at most one URL"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
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
			if c.verbose {
				return &usageError{msg: "browse does not take -v: the transcript would write over the screen"}
			}
			if downloadDir == "" {
				downloadDir = "."
			}
			if fi, err := os.Stat(downloadDir); err != nil || !fi.IsDir() {
				return &usageError{msg: fmt.Sprintf("--download-dir %s: not a directory", downloadDir)}
			}
			var b *browse.Browser
			c.warn = func(msg string) { b.Warn(msg) }
			c.prompt = func(q string, secret bool) (string, error) { return b.Prompt(q, secret) }
			client, err := c.client()
			if err != nil {
				return err
			}
			defer client.Close()
			b = browse.New(browse.Config{Client: client, DownloadDir: downloadDir, Stdin: in, Stdout: out})
			return b.Run(cmd.Context(), start)
		},
	}
	cmd.Flags().StringVar(&downloadDir, "download-dir", ".", "save downloads in `DIR`")
	return cmd
}
