package main

import (
	"fmt"
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
	fl.StringVar(&f.gopher, "gopher", replay.DefaultAddr("gopher"), "address the Gopher replay listens on (\"\": none)")
	fl.StringVar(&f.ftp, "ftp", replay.DefaultAddr("ftp"), "address the FTP replay listens on (\"\": none)")
	fl.StringVar(&f.http, "http", replay.DefaultAddr("http"), "address the HTTP replay listens on (\"\": none)")
	fl.StringVar(&f.nntp, "nntp", replay.DefaultAddr("nntp"), "address the NNTP replay listens on (\"\": none)")
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
	var listens []replay.Listen
	for _, l := range []replay.Listen{{Scheme: "gopher", Addr: f.gopher}, {Scheme: "ftp", Addr: f.ftp},
		{Scheme: "http", Addr: f.http}, {Scheme: "nntp", Addr: f.nntp}} {
		if l.Addr != "" {
			l.Hosts = f.hosts
			listens = append(listens, l)
		}
	}
	g, err := replay.Start(cmd.Context(), a, listens)
	if err != nil {
		return err
	}
	defer g.Close()
	captured := map[string][]string{"gopher": a.GopherHosts(), "ftp": a.FTPHosts(), "http": a.HTTPHosts()}
	matched := map[string]bool{}
	for _, r := range g.Running() {
		if r.Chosen != "" {
			matched[r.Chosen] = true
		}
		if hosts := captured[r.Scheme]; r.Chosen == "" && len(hosts) > 1 {
			c.warnf(fmt.Sprintf("the archives hold captures of %d %s servers; replaying %s (--host picks another: %s)",
				len(hosts), r.Scheme, r.Host, strings.Join(hosts[1:], ", ")))
		}
	}
	for _, w := range f.hosts {
		if !matched[w] {
			return &usageError{msg: fmt.Sprintf("--host %s: no capture of it (gopher: %s; ftp: %s; http: %s)", w,
				strings.Join(a.GopherHosts(), ", "), strings.Join(a.FTPHosts(), ", "), strings.Join(a.HTTPHosts(), ", "))}
		}
	}
	if len(g.Running()) == 0 {
		return fmt.Errorf("replay: %s: nothing to serve: no gopher, ftp, http or news capture with a listener", strings.Join(args, " "))
	}
	for _, r := range g.Running() {
		fmt.Fprintf(c.stdout, "%s %s://%s/ %s\n", r.Scheme, r.Scheme, r.Addr, r.Server)
	}
	return g.Wait()
}
