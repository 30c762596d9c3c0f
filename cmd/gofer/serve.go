package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/fetch/mirror/cluster"
	"github.com/goferurl/gofer/fetch/mirror/watch"
	"github.com/goferurl/gofer/gateway"
	"github.com/goferurl/gofer/replay"
)

func (c *cli) serveCommand() *cobra.Command {
	var o serveFlags
	cmd := &cobra.Command{
		Use:   "serve [flags] [ARCHIVE...]",
		Short: "Serve a web gateway: FTP, Gopher, Gemini, news and WAIS shown to a web browser",
		Long: `Serve a web gateway that shows what URLs of the old protocols name to a web
browser, which speaks none of them any more: /live/URL fetches URL now and
shows a Gopher menu, an FTP listing or a group as a page whose links stay in
the gateway, renders a gemtext page, and streams a file as its bytes;
/raw/URL gives the bytes as the protocol gave them. The start page, /, has a
box for a URL. One line on stdout says where it listens, once it does.

With archives (WARC files, segment prefixes or merged indexes, as gofer
replay takes them) it travels in time through their captures, in the
Wayback Machine's and Memento's conventions: /web/TIMESTAMP/URL is the
capture nearest TIMESTAMP (YYYYMMDDhhmmss, or a prefix of it), its links
leading to captures of the same time, with a banner naming the previous and
next captures; /web/TIMESTAMPid_/URL the captured bytes; /web/*/URL every
capture; /web/URL a Memento TimeGate (Accept-Datetime); /timemap/link/URL
a Memento TimeMap.

Every URL passes the same security guard as gofer get's; file:, telnet:,
rlogin:, tn3270:, mailto: and prospero: URLs and URLs with a login are
never fetched for a browser (403). The gateway listens on loopback unless
told otherwise: to listen on any other address it needs --allow-hosts (the
only upstream hosts it fetches from; every other host is refused, loopback
and private addresses included) or --no-live. Redirects are not followed
behind the browser's back: each is a redirect to the gateway's page of its
target, which is checked again.`,
		Example: `  gofer serve
  gofer serve --listen 127.0.0.1:8080
  gofer serve --no-live crawl-2025.warc.gz crawl-2026
  gofer serve --listen 0.0.0.0:8070 --allow-hosts '*.example.org' --allow-hosts '[2001:db8::1]:70'`,
		RunE: func(cmd *cobra.Command, archives []string) error { return c.runServe(cmd.Context(), archives, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:8070", "listen on `ADDR` (HOST:PORT; port 0 picks a free one)")
	f.StringArrayVar(&o.allowHosts, "allow-hosts", nil, "fetch only from hosts matching `PATTERN` (a host glob such as *.example.org or 192.0.2.*, or [IPv6], each with an optional :PORT; repeatable)")
	f.BoolVar(&o.noLive, "no-live", false, "fetch nothing live")
	f.IntVar(&o.maxPerHost, "max-per-host", gateway.DefaultMaxPerHost, "fetch from one upstream host and port at most `N` at once, or as many as the server was found to allow when fewer (the rest wait)")
	f.StringVar(&o.clusterURL, "cluster", "", "also show the shared crawls (gofer mirror --cluster) on the NATS server `URL` at /jobs/, and steer them with the token printed on start")
	f.StringVar(&o.clusterCreds, "cluster-creds", "", "with --cluster: a NATS credentials `FILE`")
	f.IntVar(&o.maxEntries, "max-entries", gateway.DefaultMaxEntries, "show at most `N` entries of a listing on a page (the rest at /raw/)")
	c.addFlags(cmd, []string{groupGemini}, "idle-timeout", "proxy", "allow-port", "max-size", "remote-charset",
		"ssl-reqd", "cacert", "insecure", "email", "ftp-ssl", "nntp-server")
	return cmd
}

// serveFlags are gofer serve's own flags.
type serveFlags struct {
	listen                   string
	allowHosts               []string
	noLive                   bool
	maxEntries, maxPerHost   int
	clusterURL, clusterCreds string
}

// runServe checks o, opens the archives and the live client, and serves
// the gateway on o.listen until ctx ends.
func (c *cli) runServe(ctx context.Context, archives []string, o serveFlags) error {
	for _, p := range o.allowHosts {
		if err := gateway.CheckAllowPattern(p); err != nil {
			return &usageError{msg: "--allow-hosts: " + err.Error()}
		}
	}
	if !loopbackListen(o.listen) && len(o.allowHosts) == 0 && !o.noLive {
		return &usageError{msg: fmt.Sprintf("--listen %s is not a loopback address: give --allow-hosts (the upstream hosts the gateway may fetch from) or --no-live", o.listen)}
	}
	cfg := gateway.Config{AllowHosts: o.allowHosts, MaxEntries: o.maxEntries, MaxPerHost: o.maxPerHost}
	if len(archives) > 0 {
		a, err := replay.Open(archives, replay.Options{Warn: c.warnf})
		if err != nil {
			return err
		}
		cfg.Archive = a
	}
	if !o.noLive {
		c.maxRedirects = 0 // each hop is the browser's, and checked again
		// Nothing is asked at the terminal gofer serve runs in: an
		// input request is the browser's page to answer.
		c.stdin = strings.NewReader("")
		// The gateway pins certificates in a store of its own.
		c.gemini.store = "gateway"
		client, err := c.client()
		if err != nil {
			return err
		}
		defer client.Close()
		cfg.Client = client
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.listen, err)
	}
	var handler http.Handler = gateway.New(cfg)
	token := ""
	if o.clusterURL != "" {
		token = watch.NewToken()
		board := watch.NewBoard(cluster.Options{URL: o.clusterURL, Creds: o.clusterCreds}, token)
		go board.Run(ctx)
		handler = withBoard(handler, board.Handler(), o.noLive && len(archives) == 0)
	}
	fmt.Fprintf(c.stdout, "gofer serve: listening on http://%s/\n", ln.Addr())
	if token != "" {
		fmt.Fprintf(c.stdout, "gofer serve: shared crawls at http://%s/jobs/?token=%s (token %s)\n", ln.Addr(), token, token)
	}
	return serveUntil(ctx, &http.Server{Handler: handler, ReadHeaderTimeout: 30 * time.Second}, ln)
}

// serveUntil serves srv on ln until ctx ends, then shuts it down, giving
// the requests under way 5 seconds.
func serveUntil(ctx context.Context, srv *http.Server, ln net.Listener) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return nil
	}
}

// withBoard serves the shared crawls' board at /jobs/ and /api/jobs, and
// the gateway elsewhere; alone (nothing live, no archive), the start
// page leads to the board. Paths are routed as they come: the gateway's
// hold whole URLs ("/live/gopher://..."), which a ServeMux would clean.
func withBoard(gw, board http.Handler, alone bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case strings.HasPrefix(p, "/jobs/"), p == "/api/jobs", strings.HasPrefix(p, "/api/jobs/"):
			board.ServeHTTP(w, r)
		case alone && p == "/" && r.Method == http.MethodGet:
			http.Redirect(w, r, "/jobs/", http.StatusFound)
		default:
			gw.ServeHTTP(w, r)
		}
	})
}

// loopbackListen reports whether a listen address is on loopback only: a
// loopback IP or "localhost". An empty host listens on every address.
func loopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
