package main

import (
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/replay"
)

// replayFlags are the flags of gofer replay.
type replayFlags struct {
	gopher string
	at     string
	hosts  []string
}

func (c *cli) replayCommand() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay [flags] ARCHIVE...",
		Short: "Serve what WARC archives captured, read-only, to any Gopher client",
		Long: `Serve what gofer captured in WARC archives (get --warc FILE, mirror --warc
PREFIX) back to any client, read-only, in the protocol it was fetched with.
ARCHIVE is a WARC file or a segment prefix. Gopher and Gopher+ captures are
served on --gopher: items and menus byte for byte, menu lines that name the
captured server rewritten to name the replay, attribute requests ("!", "$")
answered from the captured attribute blocks; anything not captured gets a
Gopher error line. Nothing is fetched: the replay opens no connection.

One line per listener is printed on stdout once it accepts connections:
"gopher gopher://127.0.0.1:7070/ HOST:PORT N selectors". Problems found in the
archives (a segment without its index, records not whole) are reported on
stderr, one line each, and what is whole is served.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "replay needs at least one WARC file or segment prefix"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.runReplay(cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gopher, "gopher", "127.0.0.1:7070", "address the Gopher replay listens on (\"\": none)")
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
	opt.Warn = c.warnf
	a, err := replay.Open(args, opt)
	if err != nil {
		return err
	}
	if f.gopher == "" {
		return &usageError{msg: "replay: no listener: --gopher is empty"}
	}
	hosts := a.GopherHosts()
	if len(hosts) == 0 {
		return fmt.Errorf("replay: %s: no gopher capture to serve", strings.Join(args, " "))
	}
	host := ""
	for _, h := range f.hosts {
		if !strings.Contains(h, ":") {
			h += ":70"
		}
		for _, g := range hosts {
			if strings.EqualFold(g, h) {
				host = g
			}
		}
	}
	if len(f.hosts) > 0 && host == "" {
		return &usageError{msg: fmt.Sprintf("--host %s: no gopher capture of it (captured: %s)",
			strings.Join(f.hosts, ", "), strings.Join(hosts, ", "))}
	}
	if host == "" && len(hosts) > 1 {
		c.warnf(fmt.Sprintf("the archives hold captures of %d gopher servers; replaying %s (--host picks another: %s)",
			len(hosts), hosts[0], strings.Join(hosts[1:], ", ")))
	}
	gs, err := replay.NewGopherServer(a, host, c.warnf)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.gopher)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	fmt.Fprintf(c.stdout, "gopher gopher://%s/ %s %d selectors\n", ln.Addr(), gs.Host(), gs.Items())
	return gs.Serve(cmd.Context(), ln)
}
