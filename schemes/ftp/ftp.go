package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Defaults of the connection pool.
const (
	// DefaultMaxIdle bounds the control connections kept for reuse.
	DefaultMaxIdle = 32
	// idleLifetime is how long a kept connection is trusted to be alive;
	// servers end idle sessions after a few minutes (vsftpd: 300 s).
	idleLifetime = 60 * time.Second
)

// Fetcher retrieves ftp and ftps URLs. It keeps logged-in control
// connections for reuse and is safe for concurrent use. Its zero value is
// ready to use; set its fields before the first Fetch.
type Fetcher struct {
	// MaxIdle bounds the connections kept for reuse (0: DefaultMaxIdle).
	MaxIdle int
	// Email is the anonymous login's password, the user's mail address
	// (RFC 1738 §3.2.1); "" means user@hostname, the process's account
	// and the machine's own name, never looked up in the DNS.
	Email string
	// RequireTLS asks for explicit TLS (AUTH TLS, RFC 4217) on ftp URLs;
	// a server that refuses it is an error, never a plain-text fall back.
	// ftps URLs use TLS from the first byte whatever it says.
	RequireTLS bool
	// VerifyListing has a directory that the server lists with MLSD
	// listed with LIST too, on the same connection once the MLSD listing
	// has been read, and every difference sent to Request.Warn; the
	// entries are MLSD's.
	VerifyListing bool
	// DirTimes has the directories of a LIST listing dated to the second
	// by MDTM where the server answers MDTM for a directory (Twisted
	// does; RFC 3659 §3 names files only): the first directory's MDTM
	// probes the server, once per Fetcher, and where it refuses no
	// directory's is asked again. Off, a directory keeps the minute or
	// the day its LIST line shows.
	DirTimes bool
	// ActivePort, when set, makes every data connection active (PORT
	// and EPRT, active.go) instead of passive, with curl's -P spelling:
	// ADDR[:LOW-HIGH], where ADDR is an IP address ([...] for IPv6 with
	// a range), a network interface's name, or "-" for the control
	// connection's own address, and LOW-HIGH the ports to listen on.
	// An ActivePort it cannot read fails every fetch as a usage error.
	ActivePort string
	// ProxyTunnel has an HTTP proxy carry FTP as a tunnel (CONNECT, RFC
	// 9110 §9.3.6) for every connection, data connections included;
	// without it an HTTP proxy is asked for the ftp:// URL itself (GET),
	// as curl does (httpproxy.go).
	ProxyTunnel bool

	mu     sync.Mutex
	idle   map[poolKey][]*conn
	nidle  int
	closed bool
	// after holds the times MDTMs sent behind RETRs found (pipe.go).
	after map[string]afterMDTM
	// lockStep holds the servers (host and port) seen to mishandle
	// pipelined commands: they are spoken to one command at a time.
	lockStep map[string]bool
	// noAhead holds the servers seen to mishandle a command sent while a
	// transfer runs: nothing goes out behind a transfer's command there.
	noAhead map[string]bool
	// eprtOK and portOnly hold the servers seen to take EPRT and to
	// refuse it (active mode, active.go).
	eprtOK, portOnly map[string]bool
	// piped holds the servers seen to read a pipelined login: a new
	// connection there sends USER and PASS in one write.
	piped map[string]bool
	// slots counts the connections held to each server and keeps to the
	// limit it was found to have (limit.go).
	slots map[string]*slots
	// dirMDTM holds the servers probed with MDTM of a directory: true
	// where they answered with its time, false where they refused
	// (listing.go, dirTimes).
	dirMDTM map[string]bool
}

// The servers seen to mishandle pipelined commands (lockStep) and commands
// sent while a transfer runs (noAhead), by host and port.

// marked reports whether key's server is in *set.
func (f *Fetcher) marked(set *map[string]bool, key poolKey) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return (*set)[key.server()]
}

// mark puts key's server in *set.
func (f *Fetcher) mark(set *map[string]bool, key poolKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if *set == nil {
		*set = map[string]bool{}
	}
	(*set)[key.server()] = true
}

// pipelines reports whether connections to key's server may pipeline.
func (f *Fetcher) pipelines(key poolKey) bool { return !f.marked(&f.lockStep, key) }

// noPipelining records that key's server mishandles pipelined commands.
func (f *Fetcher) noPipelining(key poolKey) { f.mark(&f.lockStep, key) }

// landing is where a connection to key's server opened for a fetch in dirs
// goes as part of its login (passive: with the passive command of a
// transfer), and how: USER and PASS in one write, a round trip sooner,
// for an anonymous login (its password is an address, which the server
// checks at once), where the server has read a pipelined login before,
// and on a spare, which is opened while the first connection's login
// tells whether the server reads them (openLogin opens again a
// connection whose server did not answer them).
func (f *Fetcher) landing(key poolKey, who login, dirs []string, passive, spare bool) landing {
	active, _ := f.activeSpec() // Fetch has refused one it cannot read
	return landing{dirs: dirs, passive: passive && active == nil, active: active,
		userPass: f.pipelines(key) && (who.anonymous || spare || f.marked(&f.piped, key))}
}

// openLogin opens a connection to key's server as open does, pipelining
// as far as the server is known to allow, and records what its login
// showed. When the login's pipelined commands go unanswered
// (errNoPipeline) it opens another: with USER alone when PASS went with
// it, unless the login is anonymous to a server not yet seen to pipeline
// (a slow check of a password looks the same as a PASS the server
// dropped; an anonymous one is checked at once), and one command at a
// time, from then on, when the server dropped what followed the first
// line of a login.
func (f *Fetcher) openLogin(ctx context.Context, req *schemes.Request, key poolKey, who login, to landing) (*conn, error) {
	c, err := open(ctx, req, key, who, f.pipelines(key), to)
	if err == errNoPipeline && to.userPass && f.pipelines(key) && (!who.anonymous || f.marked(&f.piped, key)) {
		to.userPass = false
		c, err = open(ctx, req, key, who, true, to)
	}
	if err == errNoPipeline {
		f.noPipelining(key)
		c, err = open(ctx, req, key, who, false, to)
	}
	if err == nil && c.pipe {
		f.mark(&f.piped, key)
	}
	return c, err
}

// sendsAhead reports whether commands may go out behind a transfer's
// command on connections to key's server.
func (f *Fetcher) sendsAhead(key poolKey) bool { return !f.marked(&f.noAhead, key) }

// noSendAhead records that key's server mishandles commands sent while a
// transfer runs.
func (f *Fetcher) noSendAhead(key poolKey) { f.mark(&f.noAhead, key) }

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

// Schemes returns the schemes a Fetcher serves: ftp and ftps.
func Schemes() []string { return []string{"ftp", "ftps"} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
	_ schemes.Closer  = (*Fetcher)(nil)
)

// Close ends every kept connection. Connections in use end when their
// response is closed.
func (f *Fetcher) Close() error {
	f.mu.Lock()
	f.closed = true
	idle := f.idle
	f.idle, f.nidle = nil, 0
	f.mu.Unlock()
	for _, cs := range idle {
		for _, c := range cs {
			c.close()
		}
	}
	return nil
}

// take returns a kept connection for key, or nil: the one that needs the
// fewest CWDs to reach where dirs lead, the most recently used among equals.
func (f *Fetcher) take(key poolKey, dirs []string) *conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		cs := f.idle[key]
		if len(cs) == 0 {
			return nil
		}
		i := len(cs) - 1
		for j, best := i, cs[i].cwds(dirs); j >= 0 && best > 0; j-- {
			if n := cs[j].cwds(dirs); n < best {
				i, best = j, n
			}
		}
		c := cs[i]
		f.idle[key] = append(cs[:i], cs[i+1:]...)
		f.nidle--
		if time.Since(c.used) < idleLifetime {
			return c
		}
		go c.close()
	}
}

// put keeps c for reuse, or ends it when the pool is full or closed.
func (f *Fetcher) put(c *conn) {
	c.end()
	if c.isBroken() || !c.key.keepable() {
		c.close()
		return
	}
	max := f.MaxIdle
	if max <= 0 {
		max = DefaultMaxIdle
	}
	f.mu.Lock()
	if f.closed || f.nidle >= max {
		f.mu.Unlock()
		c.close()
		return
	}
	if f.idle == nil {
		f.idle = map[poolKey][]*conn{}
	}
	f.idle[c.key] = append(f.idle[c.key], c)
	f.nidle++
	f.serverSlots(c.key.server()).signal()
	f.mu.Unlock()
}

// Fetch retrieves req.URL: a file as a streamed Body, a directory as a
// Listing.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	u := req.URL
	if u == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "ftp: no URL")
	}
	v := view(u)
	if err := checkLines(u, v); err != nil {
		return nil, err
	}
	active, err := f.activeSpec()
	if err != nil {
		return nil, err
	}
	who, err := f.loginFor(req)
	if err != nil {
		return nil, err
	}
	key := f.keyFor(req, who, u.EffectivePort())
	if active != nil {
		if err := checkActiveRoute(req, key.server()); err != nil {
			return nil, err
		}
	} else if !f.ProxyTunnel {
		if proxy, err := httpProxyFor(req, key.server()); err != nil {
			return nil, err
		} else if proxy != "" {
			return f.viaHTTPProxy(ctx, req, proxy, v)
		}
	}

	if name := v.Name(); name != "" && v.TypeCode != 'd' && !req.IfModifiedSince.IsZero() && !req.SkipMetadata {
		// The MDTM sent behind this file's RETR a moment ago, answered
		// once the transfer was over, answers If-Modified-Since.
		if mod, ok := f.takeAfter(afterKey(key, v.Dirs(), name)); ok && !mod.After(req.IfModifiedSince) {
			return &schemes.Response{URL: u, Kind: schemes.KindFile, Body: emptyBody{}, Size: -1,
				Name: name, Type: typeWord(v), Modified: mod, NotModified: true}, nil
		}
	}

	// Spares (Request.Spare) are opened once this fetch's connection is
	// in: when the server has greeted it, if it is a new one, else at
	// once.
	spares := sync.OnceFunc(func() {
		if req.Spare > 0 {
			f.openSpares(ctx, req, key, who, v.Dirs(), req.Spare)
		}
	})
	// A kept connection may have been ended by the server meanwhile; that
	// shows as a broken connection before anything was transferred, and
	// the fetch is tried again on another.
	for {
		c, reused, err := f.acquire(ctx, req, key, who, v.Dirs(), spares)
		if err != nil {
			return nil, err
		}
		spares()
		c.sendAhead = c.sendAhead && f.sendsAhead(key)
		if c.active != nil {
			c.noEPRT = c.noEPRT || f.marked(&f.portOnly, key)
			c.eprtKnown = c.eprtKnown || c.noEPRT || f.marked(&f.eprtOK, key)
			c.eprtOK = func() { f.mark(&f.eprtOK, key) }
			c.portOnly = func() { f.mark(&f.portOnly, key) }
		}
		resp, err := f.fetchOn(ctx, req, c, v)
		if err == nil {
			return resp, nil
		}
		if reused && ctx.Err() == nil && c.isBroken() && errorKind(err, schemes.ErrInterrupted) {
			// Every kept connection may have been ended (a server's idle
			// timeout ends them together): each one found so is out of
			// the pool, and a fresh one ends the tries.
			continue
		}
		return nil, err
	}
}

// checkLines refuses CR, LF and NUL in every URL part that becomes part of
// a command line: decoded, they would end the line and inject another
// command (RFC 1738 §6).
func checkLines(u *schemes.URL, v *schemes.FTP) error {
	if err := security.CheckLine("ftp user", u.User); err != nil {
		return err
	}
	if err := security.CheckLine("ftp password", u.Password); err != nil {
		return err
	}
	for i, s := range v.Segments {
		if err := security.CheckLine("ftp segment "+strconv.Itoa(i+1), s); err != nil {
			return err
		}
	}
	return nil
}

// loginFor decides who to log in as (RFC 1738 §3.2.1): the URL's user and
// password; else a login from Credentials (netrc); else anonymous with the
// mail address as password. A user without a password is asked for one.
func (f *Fetcher) loginFor(req *schemes.Request) (login, error) {
	u := req.URL
	who, complete := f.planLogin(req)
	if complete {
		return who, nil
	}
	if req.Credentials != nil {
		if user, pass, ok := req.Credentials(u.Host); ok && user == who.user {
			who.password = pass
			return who, nil
		}
	}
	if req.Prompt == nil {
		return who, schemes.Errorf(schemes.ErrAuth,
			"ftp: a password is needed for %s at %s: give it in the URL or a netrc file, or run gofer on a terminal to be asked", who.user, u.Host)
	}
	pass, err := req.Prompt(fmt.Sprintf("Password for %s@%s: ", who.user, u.Host), true)
	if err != nil {
		return who, schemes.Errorf(schemes.ErrAuth, "ftp: reading the password for %s: %w", who.user, err)
	}
	if err := security.CheckLine("ftp password", pass); err != nil {
		return who, err
	}
	who.password = pass
	return who, nil
}

// list lists the current directory (whose segments are dir) with MLSD when
// the server has it (RFC 3659 §7), LIST otherwise.
func (f *Fetcher) list(ctx context.Context, req *schemes.Request, c *conn, stop func() bool,
	fail func(error, string) (*schemes.Response, error), dir []string) (*schemes.Response, error) {
	resp, _, err := f.listAfter(ctx, req, c, stop, fail, dir, nil)
	return resp, err
}

// listAfter is list with the steps before (the CWDs to dir) sent with the
// listing's command (startListAfter). A refusal among them comes back,
// not yet handled, with its index; any other error has index -1 and has
// gone through fail.
func (f *Fetcher) listAfter(ctx context.Context, req *schemes.Request, c *conn, stop func() bool,
	fail func(error, string) (*schemes.Response, error), dir []string, before []step) (*schemes.Response, int, error) {
	cmd := "LIST"
	if c.mlsd {
		cmd = "MLSD"
	}
	l, i, err := f.startListAfter(ctx, req, c, stop, cmd, before)
	if i >= 0 {
		return nil, i, err
	}
	if err != nil {
		resp, err := fail(err, cmd)
		return resp, -1, err
	}
	if len(before) > 0 {
		c.at = slices.Clone(dir)
	}
	l.base, l.dir = req.URL, dir
	l.dirTimes = (f.DirTimes || req.DirTimes) && !l.mlsd && !req.SkipMetadata && f.wantDirTimes(c)
	l.hashing = req.ListHashes && c.offersHash()
	if f.VerifyListing && l.mlsd {
		l.check = newListCheck(ctx, req)
	} else if f.VerifyListing {
		req.Warnf("ftp: verifying the listing: " + c.key.server() + " has no MLSD; LIST is its only listing")
	}
	return listingResponse(req.URL, l), -1, nil
}

func listingResponse(u *schemes.URL, l *listing) *schemes.Response {
	l.base = u
	name := view(u).Name()
	return &schemes.Response{URL: u, Kind: schemes.KindListing, Listing: l, Size: -1, Name: name, Type: schemes.TypeDir}
}

// isKept reports whether err left the control connection in step: a limit
// or a policy refusal raised on our side of a data connection.
func isKept(err error) bool {
	return errorKind(err, schemes.ErrTooLarge) || errorKind(err, schemes.ErrRefused)
}

func errorKind(err, kind error) bool { return errors.Is(err, kind) }

// closeData closes a data connection opened for a transfer that is not
// to come.
func closeData(d net.Conn) {
	if d != nil {
		d.Close()
	}
}

type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyBody) Close() error             { return nil }

// mediaType is the media type an archive records a file under, from its
// name's extension; application/octet-stream when unknown.
func mediaType(name string) string {
	if t := schemes.NameMediaType(name); t != "" {
		return t
	}
	return "application/octet-stream"
}
