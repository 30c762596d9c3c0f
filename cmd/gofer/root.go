package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/goferurl/gofer/fetch"
)

// cli holds one invocation's streams and flags; nothing is global, so tests
// can run many invocations in one process.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	code           int // exit code a command set itself

	// warned holds the warnings already printed, so that a mirror's
	// thousands of requests to one non-default port say it once.
	warnMu sync.Mutex
	warned map[string]bool

	output        string
	remoteName    bool
	resume        bool
	quiet         bool
	verbose       bool
	json          bool
	timeout       time.Duration
	idleTimeout   time.Duration
	netrc         bool
	netrcFile     string
	email         string
	query         string
	forms         []string
	nntpServer    string
	charset       string
	allowPorts    []int
	maxSize       string
	ftpSSL        bool
	verifyListing bool
	ftpPort       string
	proxyTunnel   bool
	cacert        string
	insecure      bool
	head, body    bool
	autoLogin     bool
	linger        time.Duration
	proxy         string
	showProgress  bool
	from          string
	headers       []string
	smtpServer    string
	smtpUser      string
	gemini        geminiFlags
	maxRedirects  int
	segments      int

	jobs     int
	depth    int
	dryRun   bool
	delete   bool
	noParent bool
	mf       mirrorFlags
	wf       watchFlags

	warc warcFlags
	cl   clusterFlags

	// shared holds the flags several commands take (flags.go).
	shared *pflag.FlagSet

	// warn and prompt, when set, replace stderr and the terminal prompt
	// (gofer browse shows both on its own screen).
	warn   func(string)
	prompt func(question string, secret bool) (string, error)
}

func (c *cli) rootCommand() *cobra.Command {
	// The library's default for a command that does not take
	// --max-redirects (parse builds a client too).
	c.maxRedirects = fetch.DefaultMaxRedirects
	root := &cobra.Command{
		Use:   "gofer",
		Short: "Retrieve what an RFC 1738 URL names: ftp, ftps, http, https, gopher, gophers, news, nntp, nntps, telnet, rlogin, tn3270, wais, prospero, file, mailto, gemini",
		Long: `gofer retrieves whatever an RFC 1738 URL names by speaking the protocol the
URL names: FTP and FTPS (ftp:, ftps:), HTTP and HTTPS (http:, https:), Gopher
and Gopher+ (gopher:, and gophers: over TLS), NNTP (news:, nntp:, nntps:),
telnet (and rlogin:, tn3270:, handed to their programs), WAIS (wais:),
Prospero names (prospero:, resolved and then fetched), local files (file:),
mailto: (it sends the message), and Gemini (gemini:, its certificates trusted
on first use). A security guard checks every URL before
any connection: it warns on non-default ports, refuses another protocol's
well-known port, and refuses URLs whose decoded parts would inject CR/LF into
a line protocol.

Exit codes: 0 ok, 1 other failure, 2 usage or malformed URL, 3 refused by the
security guard (nothing was sent), 4 could not connect or resolve, 5 the server
refused, 6 authentication failed, 7 timed out, 8 transfer interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// The root runs no command of its own: it prints its help, and a word
	// it does not know is a usage error. Given Args, cobra parses the
	// root's flags first, so a flag before the command ("gofer --json
	// get") is named as the unknown flag it is there.
	root.Args = func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return &usageError{msg: fmt.Sprintf("unknown command %q", args[0])}
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		// Checked before any command that takes --remote-charset opens a
		// file or a connection (for the others it stays "").
		if err := fetch.CheckCharset(c.charset); err != nil {
			return &usageError{msg: "--remote-charset: " + err.Error()}
		}
		return nil
	}
	root.SetUsageFunc(usage)
	root.AddCommand(c.getCommand(), c.mirrorCommand(), c.parseCommand(), c.extractCommand(), c.versionCommand(), c.warcCommand(), c.replayCommand(), c.browseCommand(), c.serveCommand(), c.manCommand(), c.bagCommand())
	return root
}

// session gives a command its context (bounded by --timeout) and client;
// done releases both.
func (c *cli) session(cmd *cobra.Command) (context.Context, *fetch.Client, func(), error) {
	client, err := c.client()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := cmd.Context(), context.CancelFunc(func() {})
	if c.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
	}
	return ctx, client, func() { cancel(); client.Close() }, nil
}

// client builds the fetch.Client the flags describe, over what the
// environment says ($EMAIL, $NNTPSERVER, $SMTP_SERVER, proxies).
func (c *cli) client() (*fetch.Client, error) {
	opts := fetch.OptionsFromEnvironment()
	opts.Warn = c.warnf
	opts.AllowPorts = c.allowPorts
	opts.IdleTimeout = c.idleTimeout
	opts.RemoteCharset = c.charset
	if err := c.configureFetchers(&opts); err != nil {
		return nil, err
	}
	if c.timeout > 0 {
		opts.ConnectTimeout = c.timeout
		if opts.IdleTimeout == 0 || opts.IdleTimeout > c.timeout {
			opts.IdleTimeout = c.timeout
		}
	}
	if c.proxy != "" {
		opts.Proxy = c.proxy
	}
	switch {
	case c.maxRedirects < 0:
		return nil, &usageError{msg: fmt.Sprintf("--max-redirects %d: give 0 or more", c.maxRedirects)}
	case c.maxRedirects == 0:
		opts.MaxRedirects = -1 // the redirect itself is the answer
	default:
		opts.MaxRedirects = c.maxRedirects
	}
	if c.maxSize != "" {
		n, err := parseSize(c.maxSize)
		if err != nil {
			return nil, &usageError{msg: fmt.Sprintf("--max-size %q: %v", c.maxSize, err)}
		}
		opts.MaxBytes = n
	}
	switch {
	case c.netrcFile != "":
		opts.Netrc = c.netrcFile
	case c.netrc:
		if p := os.Getenv("NETRC"); p != "" {
			opts.Netrc = p
		} else if home, err := os.UserHomeDir(); err == nil {
			opts.Netrc = filepath.Join(home, ".netrc")
		}
	}
	if c.cacert != "" || c.insecure {
		cfg := &tls.Config{InsecureSkipVerify: c.insecure}
		if c.cacert != "" {
			pem, err := os.ReadFile(c.cacert)
			if err != nil {
				return nil, &usageError{msg: fmt.Sprintf("--cacert: %v", err)}
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, &usageError{msg: fmt.Sprintf("--cacert %s: no PEM certificates in it", c.cacert)}
			}
			cfg.RootCAs = pool
		}
		opts.TLSConfig = cfg
	}
	if c.verbose {
		opts.Transcript = c.stderr
	}
	if f, ok := c.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		opts.Prompt = c.prompter(f)
	}
	if c.warn != nil {
		opts.Warn, opts.Prompt = c.warn, c.prompt
	}
	opts.Capture = c.capture()
	return fetch.NewClient(opts), nil
}

// prompter asks on the terminal: the question on stderr, the answer from
// stdin, without echo for secrets.
func (c *cli) prompter(tty *os.File) func(string, bool) (string, error) {
	return func(question string, secret bool) (string, error) {
		fmt.Fprint(c.stderr, question)
		if !strings.HasSuffix(question, " ") {
			fmt.Fprint(c.stderr, " ")
		}
		if secret {
			b, err := term.ReadPassword(int(tty.Fd()))
			fmt.Fprintln(c.stderr)
			return string(b), err
		}
		var line []byte
		buf := make([]byte, 1)
		for {
			n, err := tty.Read(buf)
			if n == 1 {
				if buf[0] == '\n' {
					break
				}
				line = append(line, buf[0])
			}
			if err != nil {
				return string(line), err
			}
		}
		return strings.TrimRight(string(line), "\r"), nil
	}
}

// parseSize reads a byte count with an optional K, M or G suffix (powers of 1024).
func parseSize(s string) (int64, error) {
	mult := int64(1)
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "B")
	if t == "" {
		return 0, fmt.Errorf("not a size")
	}
	switch t[len(t)-1] {
	case 'K':
		mult, t = 1<<10, t[:len(t)-1]
	case 'M':
		mult, t = 1<<20, t[:len(t)-1]
	case 'G':
		mult, t = 1<<30, t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("not a size")
	}
	return n * mult, nil
}
