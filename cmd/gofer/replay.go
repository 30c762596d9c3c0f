package main

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/replay"
)

// replayFlags are the flags of gofer replay.
type replayFlags struct {
	gopher string
	ftp    string
	http   string
	nntp   string
	at     string
	hosts  []string
}

func (c *cli) replayCommand() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay [flags] ARCHIVE...",
		Short: "Serve what WARC archives captured, read-only, to any Gopher, FTP, HTTP or NNTP client",
		Long: `Serve what gofer captured in WARC archives (get --warc FILE, mirror --warc
PREFIX) back to any client, read-only, in the protocol it was fetched with.
ARCHIVE is a WARC file, a segment prefix, or a CDXJ index over segments
beside it (NAME.cdxj, as gofer warc merge prints one for a cluster job's
workers); the CDXJ indexes say where each record lies, and a file without
one is read once.
Of a URL captured more than once the latest capture is served, or with --at
the one nearest that time; a revisit record serves the record it refers to.

Gopher and Gopher+ (--gopher): items and menus byte for byte, except that
menu lines naming the captured server are rewritten to name the replay;
searches that were captured; attribute requests ("!", "$") from the captured
attribute blocks. What was not captured gets a Gopher error line.

FTP (--ftp): any USER and PASS, passive mode only (EPSV, PASV); RETR with
REST, SIZE, MDTM (when the captured conversation holds it), LIST (the
captured bytes, else generated), NLST, MLSD and MLST (generated); CWD, CDUP,
PWD, TYPE, MODE S, STRU F. Commands that would change anything get 550.

HTTP (--http): each captured response as it was recorded (status line,
headers, body, transfer coding included), one request per connection, GET
and HEAD. "GET /path?q" is answered from the capture of
http://HOST/path?q of the replayed server; a request line with an absolute
URL, as a client sends to a proxy (curl -x http://127.0.0.1:8080 URL), from
the capture of exactly that URL, of any server. Links and redirects are
served as captured. What was not captured gets 404.

NNTP (--nntp): every captured article, by message-id, and by number in the
group and under the number of the nntp: URL that fetched it (else of its
Xref header): CAPABILITIES, MODE READER, LIST (ACTIVE, NEWSGROUPS,
OVERVIEW.FMT), GROUP, LISTGROUP, ARTICLE, HEAD, BODY, STAT, NEXT, LAST,
OVER and XOVER (generated from the articles' headers), DATE, QUIT; any
AUTHINFO is accepted; POST (440) and IHAVE (435) are refused. Articles are
sent as captured, dot-stuffed.

A listener starts for each protocol the archives hold captures of; with
captures of several servers, --host picks the one replayed (default: the
first captured; NNTP serves every captured article). One line per listener is printed on stdout once it accepts
connections: "gopher gopher://127.0.0.1:7070/ HOST:PORT N selectors",
"ftp ftp://127.0.0.1:2121/ HOST:PORT N files",
"http http://127.0.0.1:8080/ HOST:PORT N urls",
"nntp nntp://127.0.0.1:1119/ N groups N articles". Problems found in the
archives (a file without its index, records not whole) are reported on
stderr, one line each, and what is whole is served. The replay opens no
connection of its own.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "replay needs at least one WARC file, segment prefix or CDXJ index"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.runReplay(cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gopher, "gopher", "127.0.0.1:7070", "address the Gopher replay listens on (\"\": none)")
	fl.StringVar(&f.ftp, "ftp", "127.0.0.1:2121", "address the FTP replay listens on (\"\": none)")
	fl.StringVar(&f.http, "http", "127.0.0.1:8080", "address the HTTP replay listens on (\"\": none)")
	fl.StringVar(&f.nntp, "nntp", "127.0.0.1:1119", "address the NNTP replay listens on (\"\": none)")
	fl.StringVar(&f.at, "at", "", "serve, of each URL captured more than once, the capture nearest this time (RFC 3339 or YYYYMMDDhhmmss; default: the latest)")
	fl.StringArrayVar(&f.hosts, "host", nil, "captured server to replay, HOST[:PORT], when the archives hold several (default: the first captured)")
	return cmd
}

func (c *cli) runReplay(cmd *cobra.Command, f replayFlags, args []string) error {
	var opt replay.Options
	if f.at != "" {
		t, err := replay.ParseTime(f.at)
		if err != nil {
			return &usageError{msg: "--at: " + err.Error()}
		}
		opt.At = t
	}
	if f.gopher == "" && f.ftp == "" && f.http == "" && f.nntp == "" {
		return &usageError{msg: "replay: no listener: --gopher, --ftp, --http and --nntp are all empty"}
	}
	opt.Warn = c.warnf
	a, err := replay.Open(args, opt)
	if err != nil {
		return err
	}
	type listener struct {
		scheme string
		ln     net.Listener
		serve  func(context.Context, net.Listener) error
	}
	var lns []listener
	var ready []string
	matched := map[string]bool{}
	defer func() {
		for _, l := range lns {
			l.ln.Close()
		}
	}()
	for _, p := range []struct {
		scheme, addr string
		hosts        []string
		defPort      string
	}{
		{"gopher", f.gopher, a.GopherHosts(), "70"},
		{"ftp", f.ftp, a.FTPHosts(), "21"},
		{"http", f.http, a.HTTPHosts(), "80"},
		{"nntp", f.nntp, newsHosts(a), ""},
	} {
		if p.addr == "" || len(p.hosts) == 0 {
			continue
		}
		host := ""
		if p.scheme != "nntp" {
			host = pickHost(p.hosts, f.hosts, p.defPort, matched)
		}
		if host == "" && p.scheme != "nntp" {
			host = p.hosts[0]
			if len(p.hosts) > 1 {
				c.warnf(fmt.Sprintf("the archives hold captures of %d %s servers; replaying %s (--host picks another: %s)",
					len(p.hosts), p.scheme, host, strings.Join(p.hosts[1:], ", ")))
			}
		}
		var serve func(context.Context, net.Listener) error
		var what string
		switch p.scheme {
		case "gopher":
			gs, err := replay.NewGopherServer(a, host, c.warnf)
			if err != nil {
				return err
			}
			serve, what = gs.Serve, fmt.Sprintf("%d selectors", gs.Items())
		case "ftp":
			fs, err := replay.NewFTPServer(a, host, c.warnf)
			if err != nil {
				return err
			}
			serve, what = fs.Serve, fmt.Sprintf("%d files", fs.Files())
		case "http":
			hs, err := replay.NewHTTPServer(a, host, c.warnf)
			if err != nil {
				return err
			}
			serve, what = hs.Serve, fmt.Sprintf("%d urls", hs.URLs())
		case "nntp":
			ns, err := replay.NewNNTPServer(a, c.warnf)
			if err != nil {
				return err
			}
			serve, what = ns.Serve, fmt.Sprintf("%d groups %d articles", ns.Groups(), ns.Articles())
		}
		ln, err := net.Listen("tcp", p.addr)
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		lns = append(lns, listener{p.scheme, ln, serve})
		if host != "" {
			what = host + " " + what
		}
		ready = append(ready, fmt.Sprintf("%s %s://%s/ %s", p.scheme, p.scheme, ln.Addr(), what))
	}
	for _, w := range f.hosts {
		if !matched[w] {
			return &usageError{msg: fmt.Sprintf("--host %s: no capture of it (gopher: %s; ftp: %s; http: %s)", w,
				strings.Join(a.GopherHosts(), ", "), strings.Join(a.FTPHosts(), ", "), strings.Join(a.HTTPHosts(), ", "))}
		}
	}
	if len(lns) == 0 {
		return fmt.Errorf("replay: %s: nothing to serve: no gopher, ftp, http or news capture with a listener", strings.Join(args, " "))
	}
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	errs := make(chan error, len(lns))
	for _, l := range lns {
		go func() { errs <- l.serve(ctx, l.ln) }()
	}
	for _, line := range ready {
		fmt.Fprintln(c.stdout, line)
	}
	var first error
	for range lns {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	return first
}

// newsHosts stands for the news servers: one entry when the archives
// hold an article (the NNTP replay serves them all, whatever server they
// came from), none when they hold none.
func newsHosts(a *replay.Archive) []string {
	if a.HasArticles() {
		return []string{""}
	}
	return nil
}

// pickHost returns the captured server that --host names among
// captured, "" when it names none of them; matched notes the --host
// values used.
func pickHost(captured, wanted []string, defPort string, matched map[string]bool) string {
	for _, w := range wanted {
		h := w
		if !strings.Contains(h, ":") {
			h += ":" + defPort
		}
		for _, g := range captured {
			if strings.EqualFold(g, h) {
				matched[w] = true
				return g
			}
		}
	}
	return ""
}
