package main

import (
	"fmt"
	"strings"
	"text/template"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goferurl/gofer/fetch"
)

// The flags that several commands share are defined here, once, each in
// one help section; a command takes only those it acts on (addFlags), so
// that a flag given to a command that would ignore it is a usage error.
// Flags that belong to one command are defined with that command and show
// under "Flags:".

// The help sections of the shared flags, in the order help shows them.
const (
	groupOutput     = "Output"
	groupConnection = "Connection"
	groupFTP        = "FTP"
	groupGopher     = "Gopher and WAIS"
	groupNews       = "News"
	groupMail       = "Mail"
	groupTelnet     = "Telnet"
	groupGemini     = "Gemini"
)

// flagGroups is the order of the help sections.
func flagGroups() []string {
	return []string{groupOutput, groupConnection, groupFTP, groupGopher, groupNews, groupMail, groupTelnet, groupGemini}
}

// groupAnnotation is the pflag annotation that names a flag's section.
const groupAnnotation = "gofer-group"

// sharedFlags defines every shared flag on one set, bound to c's fields;
// commands add the flags they take from it.
func (c *cli) sharedFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("gofer", pflag.ContinueOnError)
	group := func(g string, define func()) {
		before := map[string]bool{}
		fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
		define()
		fs.VisitAll(func(f *pflag.Flag) {
			if !before[f.Name] {
				fs.SetAnnotation(f.Name, groupAnnotation, []string{g})
			}
		})
	}
	group(groupOutput, func() {
		fs.StringVarP(&c.output, "output", "o", "", "write the body to `FILE` (\"-\" for stdout)")
		fs.BoolVarP(&c.remoteName, "remote-name", "O", false, "write the body to a local file named like the remote one")
		fs.BoolVarP(&c.resume, "continue", "C", false, "resume a partial download of the -o/-O file")
		fs.BoolVarP(&c.quiet, "quiet", "q", false, "no progress output")
		fs.BoolVarP(&c.verbose, "verbose", "v", false, "print the wire conversation on stderr (passwords as ****)")
		fs.BoolVar(&c.json, "json", false, "machine-readable metadata or listing on stdout")
	})
	group(groupConnection, func() {
		fs.DurationVar(&c.timeout, "timeout", 0, "give up after this long in all (e.g. 30s); also bounds connecting and each operation")
		fs.DurationVar(&c.idleTimeout, "idle-timeout", 0, "fail an operation that makes no progress for this long (default 60s)")
		fs.StringVar(&c.proxy, "proxy", "", "connect through this proxy `URL` (socks5://, socks5h://, http:// CONNECT); default from ALL_PROXY and <scheme>_proxy")
		fs.BoolVarP(&c.proxyTunnel, "proxy-tunnel", "p", false, "ftp through an http:// proxy: tunnel every connection with CONNECT instead of asking the proxy for the ftp:// URL")
		fs.IntSliceVar(&c.allowPorts, "allow-port", nil, "lift the guard's port refusal for `PORT`")
		fs.IntVar(&c.maxRedirects, "max-redirects", fetch.DefaultMaxRedirects, "follow at most `N` redirects (http, https, gemini); 0 follows none")
		fs.StringVar(&c.maxSize, "max-size", "", "stop a transfer past `BYTES` (suffixes K, M, G)")
		fs.StringVar(&c.charset, "remote-charset", "", "read and write remote names in `CHARSET` (latin1, cp1252, cp437, cp850, koi8-r, gbk, big5, euc-jp, shift_jis, euc-kr); default: names are bytes")
		fs.BoolVar(&c.ftpSSL, "ssl-reqd", false, "the same as --ftp-ssl, for any scheme")
		fs.StringVar(&c.cacert, "cacert", "", "trust the CA certificates in `FILE`")
		fs.BoolVarP(&c.insecure, "insecure", "k", false, "do not verify TLS certificates")
		fs.BoolVar(&c.netrc, "netrc", false, "take logins from ~/.netrc")
		fs.StringVar(&c.netrcFile, "netrc-file", "", "take logins from this netrc `FILE`")
	})
	group(groupFTP, func() {
		fs.StringVar(&c.email, "email", "", "anonymous FTP password (default $EMAIL, else user@host)")
		fs.BoolVar(&c.ftpSSL, "ftp-ssl", false, "require explicit TLS (FTP AUTH TLS, NNTP STARTTLS)")
		fs.BoolVar(&c.verifyListing, "verify-listing", false, "ftp: list each directory with MLSD and LIST and report every difference")
		fs.StringVarP(&c.ftpPort, "ftp-port", "P", "", "ftp: active mode, the server connecting back to `ADDR[:LOW-HIGH]`: an address, an interface name, or - for the control connection's (EPRT, else PORT)")
	})
	group(groupGopher, func() {
		fs.StringVar(&c.query, "query", "", "search `TEXT` for gopher type 7 and wais")
		fs.StringArrayVar(&c.forms, "form", nil, "answer a Gopher+ +ASK question: `NAME=VALUE` (NAME: question text or position)")
	})
	group(groupNews, func() {
		fs.StringVar(&c.nntpServer, "nntp-server", "", "NNTP server `HOST[:PORT]` for news: URLs (default $NNTPSERVER)")
		fs.BoolVar(&c.head, "head", false, "news: only the article's headers")
		fs.BoolVar(&c.body, "body", false, "news: only the article's body")
	})
	group(groupMail, func() {
		fs.StringVar(&c.from, "from", "", "mailto: sender `ADDR` (default $EMAIL)")
		fs.StringArrayVar(&c.headers, "header", nil, "mailto: add a header line `'Name: value'` (repeatable)")
		fs.StringVar(&c.smtpServer, "smtp-server", "", "mailto: send through this SMTP server `HOST[:PORT]` (default $SMTP_SERVER, else /usr/sbin/sendmail)")
		fs.StringVar(&c.smtpUser, "smtp-user", "", "mailto: log in to the SMTP server as `USER` (password from netrc or asked)")
	})
	group(groupTelnet, func() {
		fs.BoolVar(&c.autoLogin, "auto-login", false, "telnet: answer login prompts with the URL's user and password")
		fs.DurationVar(&c.linger, "linger", 0, "telnet without a terminal: end this long after stdin ends (default 5s)")
	})
	group(groupGemini, func() {
		fs.StringVar(&c.gemini.tofu, "tofu", "pin", "gemini: a server's changed certificate is refused (`pin`) or pinned in place of the old one (accept-new)")
		fs.StringVar(&c.gemini.verify, "gemini-verify", "tofu", "gemini: trust certificates on first use (`tofu`) or verify them against CAs (ca, with --cacert)")
		fs.StringVar(&c.gemini.clientCert, "client-cert", "", "gemini: client certificate `FILE` (PEM) for servers that ask for one")
		fs.StringVar(&c.gemini.clientKey, "client-key", "", "gemini: the client certificate's key `FILE` (PEM)")
		fs.StringVar(&c.gemini.knownHosts, "known-hosts", "", "gemini: pinned certificates `FILE` (default $XDG_CONFIG_HOME/gofer/known_hosts)")
	})
	return fs
}

// addFlags gives cmd the shared flags named, and every flag of the
// groups named.
func (c *cli) addFlags(cmd *cobra.Command, groups []string, names ...string) {
	if c.shared == nil {
		c.shared = c.sharedFlags()
	}
	in := map[string]bool{}
	for _, g := range groups {
		in[g] = true
	}
	c.shared.VisitAll(func(f *pflag.Flag) {
		if in[flagGroup(f)] {
			cmd.Flags().AddFlag(f)
		}
	})
	for _, n := range names {
		f := c.shared.Lookup(n)
		if f == nil {
			panic("gofer: no shared flag --" + n)
		}
		cmd.Flags().AddFlag(f)
	}
}

// flagGroup is the help section of a shared flag, "" for a command's own.
func flagGroup(f *pflag.Flag) string {
	if g := f.Annotations[groupAnnotation]; len(g) == 1 {
		return g[0]
	}
	return ""
}

// usageTemplate is cobra's usage text with the flags in their sections.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Available Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{flagSections .}}{{if .HasHelpSubCommands}}

Additional help topics:{{range .Commands}}{{if .IsAdditionalHelpTopicCommand}}
  {{rpad .CommandPath .CommandPathPadding}} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// usage writes a command's usage: the root's UsageFunc, which every
// command inherits.
func usage(cmd *cobra.Command) error {
	t := template.Must(template.New("usage").Funcs(template.FuncMap{
		"rpad":         func(s string, n int) string { return fmt.Sprintf("%-*s", n, s) },
		"flagSections": flagSections,
	}).Parse(usageTemplate))
	return t.Execute(cmd.OutOrStderr(), cmd)
}

// flagSections lists a command's flags: its own under "Flags:", then each
// section of shared flags it takes, each section's columns aligned.
func flagSections(cmd *cobra.Command) string {
	sets := map[string]*pflag.FlagSet{}
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		g := flagGroup(f)
		if sets[g] == nil {
			sets[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			sets[g].SortFlags = false
		}
		sets[g].AddFlag(f)
	})
	var b strings.Builder
	section := func(title string, fs *pflag.FlagSet) {
		if fs == nil || !fs.HasAvailableFlags() {
			return
		}
		fmt.Fprintf(&b, "\n\n%s:\n%s", title, strings.TrimRight(fs.FlagUsages(), " \n"))
	}
	section("Flags", sets[""])
	for _, g := range flagGroups() {
		section(g, sets[g])
	}
	section("Global Flags", cmd.InheritedFlags())
	return b.String()
}
