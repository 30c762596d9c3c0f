// Package telnet is gofer's fetcher for telnet URLs (RFC 1738 §3.8) and the
// interactive schemes RFC 1630 adds, rlogin and tn3270.
//
// A telnet URL names an interactive service, not a data object: Fetch
// connects and returns a schemes.Session that relays a person's terminal, or
// a pipe, to the server. The session speaks the telnet protocol (RFC 854)
// with option negotiation (RFC 855): it lets the server echo (RFC 857) and
// suppress go-ahead (RFC 858), reports the window size (NAWS, RFC 1073) and
// terminal type (RFC 1091) when on a terminal, and refuses everything else.
// Negotiation never reaches the output.
//
// The package negotiates options itself rather than using
// github.com/ziutek/telnet: that library refuses every option the server
// offers and rejects subnegotiation, so it can send neither NAWS nor TTYPE,
// and a full-screen program on the server would then not know the
// terminal's size or kind.
//
// The URL's user and password are advisory (RFC 1738 §3.8): the user is
// suggested as a warning; only with the Fetcher's AutoLogin are the server's login
// and password prompts answered with them. The password is never shown.
//
// rlogin and tn3270 URLs are handed to an installed program (rlogin, c3270 or
// x3270), each URL part a separate argument, never through a shell.
package telnet

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Fetcher connects telnet URLs and hands rlogin and tn3270 URLs to a local
// program. It holds no state; the zero value is usable.
type Fetcher struct {
	// LookPath finds the program a URL is handed to (rlogin, c3270,
	// x3270); nil means exec.LookPath, the PATH of the environment.
	LookPath func(name string) (string, error)
	// AutoLogin answers a telnet server's login and password prompts with
	// the URL's user and password.
	AutoLogin bool
	// Linger is how long a session whose input is not a terminal goes on
	// after its input ends, for the server's last output (0: DefaultLinger).
	Linger time.Duration
}

// DefaultLinger is Fetcher.Linger's zero value's meaning.
const DefaultLinger = 5 * time.Second

func (f *Fetcher) lookPath(name string) (string, error) {
	if f != nil && f.LookPath != nil {
		return f.LookPath(name)
	}
	return exec.LookPath(name)
}

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

// Schemes returns the schemes a Fetcher serves: telnet, rlogin and tn3270.
func Schemes() []string { return []string{"telnet", "rlogin", "tn3270"} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
)

// checkLogin refuses login parts that would break out of the line they are
// typed on: CR, LF and NUL end or corrupt a line, and IAC (0xFF) in the user
// would start a telnet command (the guard's rule). A password byte 0xFF is
// sent escaped as IAC IAC, so only line ends are refused there.
func checkLogin(u *schemes.URL, withPassword bool) error {
	if err := checkTelnetField("telnet user", u.User); err != nil {
		return err
	}
	if withPassword {
		return security.CheckLine("telnet password", u.Password)
	}
	return nil
}

func checkTelnetField(part, v string) error {
	if err := security.CheckLine(part, v); err != nil {
		return err
	}
	if i := strings.IndexByte(v, cmdIAC); i >= 0 {
		return &security.InjectionError{Part: part, Byte: cmdIAC}
	}
	return nil
}

// Plan reports that nothing is sent on its own: the notes carry the
// advisory login (never the password) and, for rlogin and tn3270, the
// program a fetch would run.
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	u := req.URL
	if u == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "no URL")
	}
	if err := checkLogin(u, false); err != nil {
		return nil, err
	}
	plan := &schemes.Plan{Notes: map[string]string{}}
	if u.HasUser && u.User != "" {
		plan.Notes["login"] = u.User + " (advisory)"
	}
	switch u.Scheme {
	case "rlogin", "tn3270":
		if cmd, err := handoffCommand(u, f.lookPath); err == nil {
			plan.Notes["command"] = strings.Join(cmd, " ")
		} else {
			plan.Notes["command"] = err.Error()
		}
	}
	return plan, nil
}

// Fetch connects a telnet URL (KindSession) or names the program for an
// rlogin or tn3270 URL (KindHandoff).
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	u := req.URL
	if u == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "no URL")
	}
	switch u.Scheme {
	case "rlogin", "tn3270":
		return f.handoff(req)
	case "telnet":
	default:
		return nil, schemes.Errorf(schemes.ErrUnsupportedScheme, "unsupported scheme %q", u.Scheme)
	}
	if err := checkLogin(u, f.AutoLogin && u.HasPassword); err != nil {
		return nil, err
	}
	f.suggestLogin(req)

	addr := net.JoinHostPort(u.Host, strconv.Itoa(u.EffectivePort()))
	conn, err := dial.Default(req.Dialer).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, dial.Classify(err, "connect to "+addr)
	}
	if req.Transcript != nil {
		fmt.Fprintf(req.Transcript, "* connected to %s\n", addr)
	}
	return &schemes.Response{
		URL:     u,
		Kind:    schemes.KindSession,
		Size:    -1,
		Type:    schemes.TypeTelnet,
		Session: f.newSession(conn, req),
	}, nil
}

// suggestLogin tells the person which login the URL suggests (RFC 1738
// §3.8: advisory). The password is never part of the message.
func (f *Fetcher) suggestLogin(req *schemes.Request) {
	u := req.URL
	if !u.HasUser || u.User == "" {
		return
	}
	msg := fmt.Sprintf("%s: the URL suggests logging in as %q", u.Scheme, u.User)
	switch {
	case f.AutoLogin && u.Scheme == "telnet":
		msg += "; answering the login prompt with it"
		if u.HasPassword {
			msg += " and the password prompt with the URL's password"
		}
	case u.HasPassword:
		msg += "; the URL also holds a password, which is not shown"
	}
	req.Warnf(msg)
}

// handoff returns the program to run for an rlogin or tn3270 URL.
func (f *Fetcher) handoff(req *schemes.Request) (*schemes.Response, error) {
	u := req.URL
	if err := checkLogin(u, false); err != nil {
		return nil, err
	}
	cmd, err := handoffCommand(u, f.lookPath)
	if err != nil {
		return nil, err
	}
	f.suggestLogin(req)
	kind := schemes.TypeTelnet
	if u.Scheme == "tn3270" {
		kind = schemes.TypeTN3270
	}
	return &schemes.Response{URL: u, Kind: schemes.KindHandoff, Size: -1, Type: kind, Command: cmd}, nil
}

// handoffCommand finds the program and builds its arguments, one URL part
// per argument.
func handoffCommand(u *schemes.URL, lookPath func(string) (string, error)) ([]string, error) {
	// An argument starting with '-' would be read as an option.
	if u.Host == "" || strings.HasPrefix(u.Host, "-") {
		return nil, schemes.Errorf(schemes.ErrUsage, "%s: %q is not a host name", u.Scheme, u.Host)
	}
	switch u.Scheme {
	case "rlogin":
		path, err := lookPath("rlogin")
		if err != nil {
			return nil, notInstalled("rlogin", "rlogin", "rsh-client")
		}
		cmd := []string{path}
		if u.HasUser && u.User != "" {
			cmd = append(cmd, "-l", u.User)
		}
		if u.Port != 0 && u.Port != schemes.DefaultPort("rlogin") {
			cmd = append(cmd, "-p", strconv.Itoa(u.Port))
		}
		return append(cmd, u.Host), nil
	case "tn3270":
		for _, prog := range []string{"c3270", "x3270"} {
			path, err := lookPath(prog)
			if err != nil {
				continue
			}
			host := u.Host
			if strings.IndexByte(host, ':') >= 0 {
				host = "[" + host + "]"
			}
			// c3270 and x3270 take [LU@]host[:port]; the URL's user is no
			// LU name, so it stays advisory.
			return []string{path, host + ":" + strconv.Itoa(u.EffectivePort())}, nil
		}
		return nil, notInstalled("tn3270", "c3270 or x3270", "c3270")
	}
	return nil, schemes.Errorf(schemes.ErrUnsupportedScheme, "unsupported scheme %q", u.Scheme)
}

// notInstalled is an ErrMissingProgram error (exit 1): nothing is wrong
// with the URL or the server, a program is missing here.
func notInstalled(scheme, programs, pkg string) error {
	return schemes.Errorf(schemes.ErrMissingProgram, "%s: no %s program is installed; install the Debian package %s", scheme, programs, pkg)
}
