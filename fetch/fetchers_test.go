package fetch

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/ftp"
	"github.com/goferurl/gofer/schemes/mailto"
	"github.com/goferurl/gofer/schemes/nntp"
	"github.com/goferurl/gofer/schemes/prospero"
)

// passwordSeen runs a scripted FTP server that refuses every login, has a
// Client of opts fetch from it, and returns the PASS argument it received.
func passwordSeen(t *testing.T, opts Options) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	pass := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			pass <- "(no connection)"
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		c.Write([]byte("220 scripted server ready\r\n"))
		sent := false
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				if !sent {
					pass <- "(no PASS)"
				}
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case strings.HasPrefix(line, "USER "):
				c.Write([]byte("331 Please specify the password.\r\n"))
			case strings.HasPrefix(line, "PASS ") && !sent:
				pass <- strings.TrimPrefix(line, "PASS ")
				sent = true
				c.Write([]byte("530 Login incorrect.\r\n"))
			default:
				c.Write([]byte("503 Login with USER first.\r\n"))
			}
		}
	}()
	opts.Warn = func(string) {}
	c := NewClient(opts)
	defer c.Close()
	_, err = c.Get(context.Background(), "ftp://"+l.Addr().String()+"/f")
	if err == nil {
		t.Fatal("the login was refused, and the fetch succeeded")
	}
	return <-pass
}

// TestFTPEmailFromFetchers: an ftp.Fetcher configured through
// Options.Fetchers is the one that logs in, with its Email as the
// anonymous password; without one it is user@hostname, never $EMAIL.
func TestFTPEmailFromFetchers(t *testing.T) {
	t.Setenv("EMAIL", "env@example.invalid")
	var opts Options
	opts.SetFetcher(&ftp.Fetcher{Email: "configured@example.invalid"}, ftp.Schemes()...)
	if got := passwordSeen(t, opts); got != "configured@example.invalid" {
		t.Errorf("PASS %q, want the configured fetcher's Email", got)
	}
	if got := passwordSeen(t, OptionsFromEnvironment()); got != "env@example.invalid" {
		t.Errorf("PASS %q, want $EMAIL through OptionsFromEnvironment", got)
	}
	host, _ := os.Hostname()
	if got := passwordSeen(t, Options{}); got == "env@example.invalid" || !strings.HasSuffix(got, "@"+host) || strings.HasPrefix(got, "@") {
		t.Errorf("PASS %q with zero Options, want user@%s", got, host)
	}
}

func TestOptionsFromEnvironment(t *testing.T) {
	t.Setenv("EMAIL", "env@example.invalid")
	t.Setenv("NNTPSERVER", "127.0.0.119")
	t.Setenv("SMTP_SERVER", "127.0.0.25")
	opts := OptionsFromEnvironment()
	if !opts.ProxyFromEnvironment {
		t.Error("proxies are not taken from the environment")
	}
	for _, s := range ftp.Schemes() {
		if f, ok := opts.Fetchers[s].(*ftp.Fetcher); !ok || f.Email != "env@example.invalid" {
			t.Errorf("%s fetcher %#v, want an ftp.Fetcher with $EMAIL", s, opts.Fetchers[s])
		}
	}
	if opts.Fetchers["ftp"] != opts.Fetchers["ftps"] {
		t.Error("ftp and ftps have two fetchers, and two connection pools")
	}
	for _, s := range []string{"news", "nntp", "nntps"} {
		if f, ok := opts.Fetchers[s].(*nntp.Fetcher); !ok || f.Server != "127.0.0.119" {
			t.Errorf("%s fetcher %#v, want an nntp.Fetcher with $NNTPSERVER", s, opts.Fetchers[s])
		}
	}
	if f, ok := opts.Fetchers["mailto"].(*mailto.Fetcher); !ok || f.SMTPServer != "127.0.0.25" || f.From != "env@example.invalid" {
		t.Errorf("mailto fetcher %#v, want $SMTP_SERVER and $EMAIL", opts.Fetchers["mailto"])
	}
	if f, ok := opts.Fetchers["prospero"].(*prospero.Fetcher); !ok || f.User != "env" {
		t.Errorf("prospero fetcher %#v, want the local part of $EMAIL", opts.Fetchers["prospero"])
	}

	// The Client uses them: a news: URL goes to $NNTPSERVER.
	c := NewClient(opts)
	defer c.Close()
	p, err := c.Plan(&Request{URL: "news:comp.infosystems.gopher"})
	if err != nil || p.Notes["server"] != "127.0.0.119:119" {
		t.Errorf("plan %+v, %v; want the news server from the environment", p, err)
	}
}

// TestZeroOptionsReadNoEnvironment: Options{} holds no fetcher, and a
// news: URL through it has no server whatever $NNTPSERVER says: the
// error names the setting.
func TestZeroOptionsReadNoEnvironment(t *testing.T) {
	t.Setenv("NNTPSERVER", "127.0.0.119")
	t.Setenv("SMTP_SERVER", "127.0.0.25")
	c := NewClient(Options{})
	defer c.Close()
	if f := c.Fetcher("news").(*nntp.Fetcher); f.Server != "" {
		t.Errorf("news server %q from zero Options", f.Server)
	}
	if f := c.Fetcher("mailto").(*mailto.Fetcher); f.SMTPServer != "" || f.From != "" {
		t.Errorf("mailto fetcher %#v from zero Options", f)
	}
	_, err := c.Get(context.Background(), "news:comp.infosystems.gopher")
	var se *schemes.SettingError
	if !errors.Is(err, schemes.ErrUsage) || !errors.As(err, &se) || se.Setting != "nntp.Fetcher.Server" {
		t.Errorf("err %v, want a SettingError for nntp.Fetcher.Server", err)
	}
}

// TestSetFetcher: one call puts a fetcher under each scheme named, in
// place of the shipped one, and leaves the other schemes' alone.
func TestSetFetcher(t *testing.T) {
	var opts Options
	f := &nntp.Fetcher{Server: "127.0.0.1:1119"}
	opts.SetFetcher(f, nntp.Schemes()...)
	opts.SetFetcher(&ftp.Fetcher{Email: "a@b.invalid"}, "FTP")
	c := NewClient(opts)
	defer c.Close()
	for _, s := range []string{"news", "nntp", "nntps"} {
		if c.Fetcher(s) != schemes.Fetcher(f) {
			t.Errorf("%s: %#v, want the configured fetcher", s, c.Fetcher(s))
		}
	}
	if g, ok := c.Fetcher("ftp").(*ftp.Fetcher); !ok || g.Email != "a@b.invalid" {
		t.Errorf("ftp: %#v, want the configured fetcher under the scheme's lower-case name", c.Fetcher("ftp"))
	}
	if g, ok := c.Fetcher("ftps").(*ftp.Fetcher); !ok || g.Email != "" {
		t.Errorf("ftps: %#v, want the shipped fetcher", c.Fetcher("ftps"))
	}
}
