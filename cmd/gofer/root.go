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
	"golang.org/x/term"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes/ftp"
	"github.com/goferurl/gofer/schemes/mailto"
	"github.com/goferurl/gofer/schemes/nntp"
	"github.com/goferurl/gofer/schemes/prospero"
	"github.com/goferurl/gofer/schemes/telnet"
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

	warc warcFlags
	cl   clusterFlags

	// warn and prompt, when set, replace stderr and the terminal prompt
	// (gofer browse shows both on its own screen).
	warn   func(string)
	prompt func(question string, secret bool) (string, error)
}

func (c *cli) rootCommand() *cobra.Command {
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		// Checked before any command opens a file or a connection.
		if err := fetch.CheckCharset(c.charset); err != nil {
			return &usageError{msg: "--remote-charset: " + err.Error()}
		}
		return nil
	}
	pf := root.PersistentFlags()
	pf.StringVarP(&c.output, "output", "o", "", "write the body to `FILE` (\"-\" for stdout)")
	pf.BoolVarP(&c.remoteName, "remote-name", "O", false, "write the body to a local file named like the remote one")
	pf.BoolVarP(&c.resume, "continue", "C", false, "resume a partial download of the -o/-O file")
	pf.BoolVarP(&c.quiet, "quiet", "q", false, "no progress output")
	pf.BoolVarP(&c.verbose, "verbose", "v", false, "print the wire conversation on stderr (passwords as ****)")
	pf.BoolVar(&c.json, "json", false, "machine-readable metadata or listing on stdout")
	pf.DurationVar(&c.timeout, "timeout", 0, "give up after this long in all (e.g. 30s); also bounds connecting and each operation")
	pf.DurationVar(&c.idleTimeout, "idle-timeout", 0, "fail an operation that makes no progress for this long (default 60s)")
	pf.BoolVar(&c.netrc, "netrc", false, "take logins from ~/.netrc")
	pf.StringVar(&c.netrcFile, "netrc-file", "", "take logins from this netrc `FILE`")
	pf.StringVar(&c.email, "email", "", "anonymous FTP password (default $EMAIL, else user@host)")
	pf.StringVar(&c.query, "query", "", "search `TEXT` for gopher type 7 and wais")
	pf.StringArrayVar(&c.forms, "form", nil, "answer a Gopher+ +ASK question: `NAME=VALUE` (NAME: question text or position)")
	pf.StringVar(&c.nntpServer, "nntp-server", "", "NNTP server `HOST[:PORT]` for news: URLs (default $NNTPSERVER)")
	pf.StringVar(&c.charset, "remote-charset", "", "read and write remote names in `CHARSET` (latin1, cp1252, cp437, cp850, koi8-r, gbk, big5, euc-jp, shift_jis, euc-kr); default: names are bytes")
	pf.IntSliceVar(&c.allowPorts, "allow-port", nil, "lift the guard's port refusal for `PORT`")
	pf.StringVar(&c.maxSize, "max-size", "", "stop a transfer past `BYTES` (suffixes K, M, G)")
	pf.BoolVar(&c.ftpSSL, "ftp-ssl", false, "require explicit TLS (FTP AUTH TLS, NNTP STARTTLS)")
	pf.BoolVar(&c.ftpSSL, "ssl-reqd", false, "the same as --ftp-ssl, for any scheme")
	pf.BoolVar(&c.verifyListing, "verify-listing", false, "ftp: list each directory with MLSD and LIST and report every difference")
	pf.StringVar(&c.cacert, "cacert", "", "trust the CA certificates in `FILE`")
	pf.BoolVarP(&c.insecure, "insecure", "k", false, "do not verify TLS certificates")
	pf.BoolVar(&c.head, "head", false, "news: only the article's headers")
	pf.BoolVar(&c.body, "body", false, "news: only the article's body")
	pf.BoolVar(&c.autoLogin, "auto-login", false, "telnet: answer login prompts with the URL's user and password")
	pf.StringVar(&c.proxy, "proxy", "", "connect through this proxy `URL` (socks5://, socks5h://, http:// CONNECT); default from ALL_PROXY and <scheme>_proxy")
	pf.StringVar(&c.from, "from", "", "mailto: sender `ADDR` (default $EMAIL)")
	pf.StringArrayVar(&c.headers, "header", nil, "mailto: add a header line `'Name: value'` (repeatable)")
	pf.StringVar(&c.smtpServer, "smtp-server", "", "mailto: send through this SMTP server `HOST[:PORT]` (default $SMTP_SERVER, else /usr/sbin/sendmail)")
	pf.StringVar(&c.smtpUser, "smtp-user", "", "mailto: log in to the SMTP server as `USER` (password from netrc or asked)")
	pf.IntVar(&c.maxRedirects, "max-redirects", fetch.DefaultMaxRedirects, "follow at most `N` redirects (http, https, gemini); 0 follows none")
	pf.StringVar(&c.gemini.tofu, "tofu", "pin", "gemini: a server's changed certificate is refused (`pin`) or pinned in place of the old one (accept-new)")
	pf.StringVar(&c.gemini.verify, "gemini-verify", "tofu", "gemini: trust certificates on first use (`tofu`) or verify them against CAs (ca, with --cacert)")
	pf.StringVar(&c.gemini.clientCert, "client-cert", "", "gemini: client certificate `FILE` (PEM) for servers that ask for one")
	pf.StringVar(&c.gemini.clientKey, "client-key", "", "gemini: the client certificate's key `FILE` (PEM)")
	pf.StringVar(&c.gemini.knownHosts, "known-hosts", "", "gemini: pinned certificates `FILE` (default $XDG_CONFIG_HOME/gofer/known_hosts)")
	pf.DurationVar(&c.linger, "linger", 0, "telnet without a terminal: end this long after stdin ends (default 5s)")

	root.AddCommand(c.getCommand(), c.mirrorCommand(), c.parseCommand(), c.extractCommand(), c.versionCommand(), c.warcCommand(), c.replayCommand(), c.browseCommand(), c.manCommand())
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
	c.configureFetchers(&opts)
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
	g, err := c.geminiFetcher()
	if err != nil {
		return nil, err
	}
	opts.SetFetcher(g, "gemini")
	return fetch.NewClient(opts), nil
}

// configureFetchers puts in opts the fetchers of the protocols whose
// settings the flags give, each setting a flag's when it was given, else
// what opts's fetchers took from the environment ($EMAIL, $NNTPSERVER,
// $SMTP_SERVER).
func (c *cli) configureFetchers(opts *fetch.Options) {
	envFTP, _ := opts.Fetchers["ftp"].(*ftp.Fetcher)
	envNews, _ := opts.Fetchers["news"].(*nntp.Fetcher)
	envMail, _ := opts.Fetchers["mailto"].(*mailto.Fetcher)
	if envFTP == nil {
		envFTP = &ftp.Fetcher{}
	}
	if envNews == nil {
		envNews = &nntp.Fetcher{}
	}
	if envMail == nil {
		envMail = &mailto.Fetcher{}
	}
	email := flagOr(c.email, envFTP.Email)
	opts.SetFetcher(&ftp.Fetcher{Email: email, RequireTLS: c.ftpSSL, VerifyListing: c.verifyListing}, ftp.Schemes()...)
	opts.SetFetcher(&nntp.Fetcher{Server: flagOr(c.nntpServer, envNews.Server), RequireTLS: c.ftpSSL}, nntp.Schemes()...)
	opts.SetFetcher(&mailto.Fetcher{
		SMTPServer: flagOr(c.smtpServer, envMail.SMTPServer),
		SMTPUser:   c.smtpUser,
		From:       flagOr(c.from, envMail.From),
		RequireTLS: c.ftpSSL,
	}, mailto.Schemes()...)
	opts.SetFetcher(&telnet.Fetcher{AutoLogin: c.autoLogin, Linger: c.linger}, telnet.Schemes()...)
	// Prospero names its user as the anonymous FTP password's local part.
	user, _, _ := strings.Cut(email, "@")
	opts.SetFetcher(&prospero.Fetcher{User: user}, "prospero")
}

// flagOr is a string flag's value when it was given, else def.
func flagOr(flag, def string) string {
	if flag != "" {
		return flag
	}
	return def
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
