package main

// The command line's configuration of the fetchers: the one file of the
// command that imports scheme packages (fetch/layering_test.go holds the
// rule). Everything else reads responses through the contract.

import (
	"crypto/tls"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes/ftp"
	"github.com/goferurl/gofer/schemes/gemini"
	"github.com/goferurl/gofer/schemes/mailto"
	"github.com/goferurl/gofer/schemes/nntp"
	"github.com/goferurl/gofer/schemes/prospero"
	"github.com/goferurl/gofer/schemes/telnet"
)

// configureFetchers puts in opts the fetchers of the protocols whose
// settings the flags give, each setting a flag's when it was given, else
// what opts's fetchers took from the environment ($EMAIL, $NNTPSERVER,
// $SMTP_SERVER).
func (c *cli) configureFetchers(opts *fetch.Options) error {
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
	opts.SetFetcher(&ftp.Fetcher{Email: email, RequireTLS: c.ftpSSL, VerifyListing: c.verifyListing, ActivePort: c.ftpPort, ProxyTunnel: c.proxyTunnel}, ftp.Schemes()...)
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
	g, err := c.geminiFetcher()
	if err != nil {
		return err
	}
	opts.SetFetcher(g, "gemini")
	return nil
}

// flagOr is a string flag's value when it was given, else def.
func flagOr(flag, def string) string {
	if flag != "" {
		return flag
	}
	return def
}

// geminiFlags are the settings of the gemini fetcher.
type geminiFlags struct {
	tofu       string // "pin" or "accept-new"
	verify     string // "tofu" or "ca"
	clientCert string
	clientKey  string
	knownHosts string
	// store, when not "", keeps the pins of this use of gofer apart from
	// the person's own: the default known-hosts file becomes STORE/known_hosts
	// beside it (gofer serve pins for its browsers in "gateway").
	store string
}

// geminiFetcher builds the gemini fetcher the flags describe: trust on
// first use with the person's known-hosts file unless --gemini-verify ca,
// and the identity of --client-cert and --client-key.
func (c *cli) geminiFetcher() (*gemini.Fetcher, error) {
	g := c.gemini
	f := gemini.New()
	switch g.verify {
	case "", "tofu":
	case "ca":
		f.Trust = gemini.TrustCA
	default:
		return nil, &usageError{msg: fmt.Sprintf("--gemini-verify %q: give tofu or ca", g.verify)}
	}
	switch g.tofu {
	case "", "pin":
	case "accept-new":
		f.AcceptNew = true
	default:
		return nil, &usageError{msg: fmt.Sprintf("--tofu %q: give pin or accept-new", g.tofu)}
	}
	path := g.knownHosts
	if path == "" {
		// With no configuration directory (no $HOME) pins last the run.
		if path, _ = gemini.DefaultKnownHosts(); path != "" && g.store != "" {
			path = filepath.Join(filepath.Dir(path), g.store, "known_hosts")
		}
	}
	if path != "" {
		f.KnownHosts = &gemini.KnownHosts{Path: path}
		// Servers' own identities (browse makes them) live beside the pins.
		f.Identities = filepath.Join(filepath.Dir(path), "identities")
	}
	switch {
	case g.clientCert != "" && g.clientKey != "":
		id, err := tls.LoadX509KeyPair(g.clientCert, g.clientKey)
		if err != nil {
			return nil, &usageError{msg: fmt.Sprintf("--client-cert/--client-key: %v", err)}
		}
		f.Identity = &id
	case g.clientCert != "" || g.clientKey != "":
		return nil, &usageError{msg: "--client-cert and --client-key go together"}
	}
	return f, nil
}
