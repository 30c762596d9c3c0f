package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// flagUses is every flag the integration tests (integration/*_test.go),
// their scripts (integration/bench, integration/demo) and the README
// pass to a command, one row per command and flag, with the number of
// places it is passed and one of them: 537 uses in all. Each must still
// parse where it is passed.
var flagUses = [][]string{
	{"browse", "--cacert", "x"},                      // 2, e.g. integration/browse_test.go:237
	{"browse", "--download-dir", "x"},                // 2, e.g. integration/browse_test.go:46
	{"browse", "--nntp-server", "127.0.0.1"},         // 1, e.g. integration/browse_test.go:265
	{"browse", "--warc", "x"},                        // 3, e.g. integration/browse_warc_test.go:27
	{"get", "--allow-port", "2121"},                  // 7, e.g. integration/guard_test.go:226
	{"get", "--auto-login"},                          // 5, e.g. integration/telnet_test.go:169
	{"get", "--body"},                                // 1, e.g. integration/nntp_test.go:74
	{"get", "--cacert", "x"},                         // 19, e.g. integration/warc_test.go:594
	{"get", "--client-cert", "x"},                    // 3, e.g. integration/gemini_test.go:178
	{"get", "--client-key", "x"},                     // 3, e.g. integration/gemini_test.go:178
	{"get", "--form", "1=a"},                         // 11, e.g. integration/gopher_test.go:561
	{"get", "--from", "me@example.org"},              // 10, e.g. integration/smtp_test.go:112
	{"get", "--ftp-ssl"},                             // 9, e.g. integration/ftpmatrix_test.go:740
	{"get", "--gemini-verify", "tofu"},               // 2, e.g. integration/gemini_test.go:134
	{"get", "--head"},                                // 1, e.g. integration/nntp_test.go:74
	{"get", "--header", "X-A: 1"},                    // 3, e.g. integration/smtp_test.go:113
	{"get", "--idle-timeout", "2s"},                  // 7, e.g. integration/prospero_test.go:72
	{"get", "--json"},                                // 20, e.g. integration/sn_test.go:54
	{"get", "--known-hosts", "x"},                    // 4, e.g. integration/demo:73
	{"get", "--linger", "1s"},                        // 5, e.g. integration/telnet_test.go:194
	{"get", "--max-redirects", "3"},                  // 2, e.g. integration/gemini_test.go:163
	{"get", "--max-size", "1M"},                      // 4, e.g. integration/hostile_test.go:42
	{"get", "--netrc-file", "x"},                     // 4, e.g. integration/smtp_test.go:157
	{"get", "--nntp-server", "127.0.0.1"},            // 27, e.g. integration/sn_test.go:144
	{"get", "--proxy", "socks5://127.0.0.1:1080"},    // 3, e.g. integration/proxy_test.go:241
	{"get", "--query", "rfc"},                        // 12, e.g. integration/warc_test.go:610
	{"get", "--remote-charset", "latin1"},            // 6, e.g. integration/charset_test.go:150
	{"get", "--segments", "2"},                       // 4, e.g. integration/segments_test.go:36
	{"get", "--smtp-server", "127.0.0.1:25"},         // 10, e.g. integration/smtp_test.go:112
	{"get", "--smtp-user", "x"},                      // 2, e.g. integration/smtp_test.go:157
	{"get", "--timeout", "5s"},                       // 26, e.g. integration/guard_test.go:208
	{"get", "--tofu=accept-new"},                     // 2, e.g. integration/gemini_test.go:108
	{"get", "--verify-listing"},                      // 1, e.g. integration/demo:59
	{"get", "--warc", "x"},                           // 14, e.g. integration/warc_test.go:472
	{"get", "-C"},                                    // 6, e.g. integration/http_test.go:181
	{"get", "-O"},                                    // 5, e.g. integration/charset_test.go:197
	{"get", "-k"},                                    // 3, e.g. integration/gophers_test.go:55
	{"get", "-o", "out"},                             // 36, e.g. integration/warc_test.go:558
	{"get", "-q"},                                    // 35, e.g. integration/warc_test.go:472
	{"get", "-v"},                                    // 9, e.g. integration/gopher_test.go:561
	{"mirror", "--allow-port", "2121"},               // 4, e.g. integration/mirror_faults_test.go:130
	{"mirror", "--cacert", "x"},                      // 1, e.g. integration/gophers_test.go:128
	{"mirror", "--cluster", "nats://127.0.0.1:4222"}, // 7, e.g. integration/cluster_test.go:61
	{"mirror", "--delete"},                           // 2, e.g. integration/ftpmatrix_test.go:634
	{"mirror", "--dry-run"},                          // 1, e.g. README.md:321
	{"mirror", "--exclude", "*.bin"},                 // 9, e.g. integration/smallgopher_test.go:98
	{"mirror", "--idle-timeout", "2s"},               // 3, e.g. integration/mirror_faults_test.go:129
	{"mirror", "--include", "*.txt"},                 // 1, e.g. integration/mirror_filter_test.go:63
	{"mirror", "--job", "j1"},                        // 7, e.g. integration/cluster_test.go:61
	{"mirror", "--json"},                             // 16, e.g. integration/cluster_test.go:61
	{"mirror", "--max-per-host", "2"},                // 2, e.g. integration/mirror_polite_test.go:36
	{"mirror", "--no-parent"},                        // 12, e.g. integration/browse_warc_test.go:22
	{"mirror", "--remote-charset", "latin1"},         // 3, e.g. integration/charset_test.go:305
	{"mirror", "--retries", "3"},                     // 4, e.g. integration/mirror_faults_test.go:129
	{"mirror", "--status"},                           // 2, e.g. integration/cluster_test.go:303
	{"mirror", "--wait", "10ms"},                     // 1, e.g. integration/mirror_polite_test.go:63
	{"mirror", "--warc", "x"},                        // 7, e.g. integration/warc_test.go:150
	{"mirror", "--warc-max-size", "1M"},              // 2, e.g. integration/warc_test.go:520
	{"mirror", "--warc-only"},                        // 7, e.g. integration/warc_test.go:277
	{"mirror", "--worker", "w1"},                     // 3, e.g. integration/cluster_test.go:61
	{"mirror", "-j", "2"},                            // 51, e.g. integration/warc_test.go:150
	{"mirror", "-k"},                                 // 1, e.g. integration/gophers_test.go:95
	{"mirror", "-q"},                                 // 25, e.g. integration/warc_test.go:150
	{"mirror", "-v"},                                 // 5, e.g. integration/warc_test.go:520
	{"parse", "--email", "me@example.org"},           // 1, e.g. integration/ftp_test.go:372
	{"parse", "--form", "1=a"},                       // 2, e.g. integration/gopher_test.go:588
	{"parse", "--json"},                              // 5, e.g. integration/gopher_test.go:588
	{"parse", "--remote-charset", "latin1"},          // 1, e.g. integration/charset_test.go:306
	{"replay", "--at", "20260101"},                   // 1, e.g. README.md:840
	{"replay", "--ftp", "127.0.0.1:0"},               // 3, e.g. integration/replay_test.go:36
	{"replay", "--gopher", "127.0.0.1:0"},            // 3, e.g. integration/replay_test.go:36
	{"replay", "--host", "127.0.0.70"},               // 1, e.g. README.md:841
	{"replay", "--http", "127.0.0.1:0"},              // 4, e.g. integration/replay_test.go:379
	{"replay", "--nntp", "127.0.0.1:0"},              // 4, e.g. integration/replay_test.go:379
	{"warc", "cat", "--at", "20260101"},              // 1, e.g. README.md:675
	{"warc", "pack", "--title", "t"},                 // 2, e.g. integration/wacz_test.go:158
	{"warc", "pack", "-o", "out"},                    // 4, e.g. integration/wacz_test.go:158
	// Several at once, as the fault benchmark and the WARC tests pass them.
	{"mirror", "-v", "--json", "-j", "8", "--idle-timeout", "2s", "--retries", "10", "--allow-port", "2121"},
	{"get", "-q", "--cacert", "ca.pem", "--warc", "x.warc.gz", "-o", "out"},
	{"get", "-v", "--from", "me@example.org", "--smtp-server", "127.0.0.1:587", "--header", "X-A: 1", "--netrc-file", "n", "--smtp-user", "me"},
	{"parse", "--json", "--form", "1=a", "--form", "2=b"},
}

// parseOnly runs args through the real command tree, flags, argument
// checks' stand-ins and PersistentPreRunE included, with every command's
// work replaced by nothing, so that no network is used; it returns the
// exit code and stderr.
func parseOnly(args []string) (int, string) {
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	root := c.rootCommand()
	var stub func(*cobra.Command)
	stub = func(cmd *cobra.Command) {
		if cmd.RunE != nil || cmd.Run != nil {
			cmd.Args = cobra.ArbitraryArgs
			cmd.RunE = func(*cobra.Command, []string) error { return nil }
		}
		for _, sub := range cmd.Commands() {
			stub(sub)
		}
	}
	stub(root)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.Execute()
	if err != nil {
		c.errorf("%v", err)
	}
	return exitCode(err), errb.String()
}

// Every flag passed today where it acts still parses there.
func TestFlagUsesParse(t *testing.T) {
	for _, args := range flagUses {
		if code, errOut := parseOnly(append(args, "gopher://127.0.0.1/")); code != 0 {
			t.Errorf("gofer %q: exit %d: %s", args, code, errOut)
		}
	}
}

// A flag given to a command that does not act on it is a usage error:
// exit 2, one line naming the flag.
func TestMisplacedFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"version", "--head"}, "--head"},
		{[]string{"version", "--smtp-user", "x"}, "--smtp-user"},
		{[]string{"version", "--tofu", "accept-new"}, "--tofu"},
		{[]string{"parse", "--tofu", "accept-new", "gopher://h/"}, "--tofu"},
		{[]string{"parse", "--proxy", "socks5://h:1080", "gopher://h/"}, "--proxy"},
		{[]string{"parse", "-o", "x", "gopher://h/"}, "'o'"},
		{[]string{"extract", "--json"}, "--json"},
		{[]string{"warc", "list", "--proxy", "x", "f.warc"}, "--proxy"},
		{[]string{"warc", "pack", "--json", "f.warc", "-o", "x.wacz"}, "--json"},
		{[]string{"warc", "check", "-q", "f.warc"}, "'q'"},
		{[]string{"replay", "--timeout", "1s", "f.warc"}, "--timeout"},
		{[]string{"mirror", "--smtp-user", "x", "ftp://h/", "d"}, "--smtp-user"},
		{[]string{"mirror", "--head", "ftp://h/", "d"}, "--head"},
		{[]string{"mirror", "--auto-login", "ftp://h/", "d"}, "--auto-login"},
		{[]string{"mirror", "-o", "x", "ftp://h/", "d"}, "'o'"},
		{[]string{"mirror", "--query", "x", "ftp://h/", "d"}, "--query"},
		{[]string{"browse", "--from", "me@example.org"}, "--from"},
		{[]string{"browse", "--json"}, "--json"},
		{[]string{"browse", "-v"}, "'v'"},
		{[]string{"man", "--verbose", "d"}, "--verbose"},
		{[]string{"--json", "get", "gopher://h/"}, "--json"},
		{[]string{"get", "--no-such-flag", "gopher://h/"}, "--no-such-flag"},
	} {
		code, _, errOut := gofer(t, "", c.args...)
		if code != exitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.flag) {
			t.Errorf("gofer %q: exit %d, stderr %q; want exit 2 and one line naming %s", c.args, code, errOut, c.flag)
		}
	}
}

// --remote-charset is checked before anything is opened, by every command
// that takes it.
func TestRemoteCharsetChecked(t *testing.T) {
	for _, args := range [][]string{
		{"get", "--remote-charset", "klingon", "ftp://127.0.0.1:1/"},
		{"mirror", "--remote-charset", "klingon", "ftp://127.0.0.1:1/", t.TempDir()},
		{"parse", "--remote-charset", "klingon", "ftp://127.0.0.1:1/"},
		{"browse", "--remote-charset", "klingon"},
	} {
		code, errOut := parseOnly(args)
		if code != exitUsage || !strings.Contains(errOut, "--remote-charset") || !strings.Contains(errOut, "klingon") {
			t.Errorf("gofer %q: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// Help shows a command's flags by section; a command shows only its own.
func TestHelpSections(t *testing.T) {
	for _, c := range []struct {
		cmd          string
		want, absent []string
	}{
		{"get", []string{"\nFlags:\n", "\nOutput:\n", "\nConnection:\n", "\nFTP:\n", "\nGopher and WAIS:\n", "\nNews:\n", "\nMail:\n", "\nTelnet:\n", "\nGemini:\n", "--segments", "--smtp-user"}, nil},
		{"mirror", []string{"\nConnection:\n", "\nGemini:\n", "--symlinks", "--tofu", "--verify-listing"}, []string{"\nMail:\n", "\nTelnet:\n", "--smtp-user", "--auto-login", "--head"}},
		{"version", []string{"--help"}, []string{"--head", "--json", "Output:"}},
		{"parse", []string{"--json", "--nntp-server", "--head"}, []string{"--proxy", "--tofu", "--timeout"}},
	} {
		code, out, errOut := gofer(t, "", c.cmd, "--help")
		if code != 0 {
			t.Fatalf("%s --help: exit %d: %s", c.cmd, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s --help lacks %q", c.cmd, w)
			}
		}
		for _, a := range c.absent {
			if strings.Contains(out, a) {
				t.Errorf("%s --help shows %q", c.cmd, a)
			}
		}
	}
}
