package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
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
// connections for reuse and is safe for concurrent use.
type Fetcher struct {
	// MaxIdle bounds the connections kept for reuse (0: DefaultMaxIdle).
	MaxIdle int

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
	// slots counts the connections held to each server and keeps to the
	// limit it was found to have (limit.go).
	slots map[string]*slots
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

// sendsAhead reports whether commands may go out behind a transfer's
// command on connections to key's server.
func (f *Fetcher) sendsAhead(key poolKey) bool { return !f.marked(&f.noAhead, key) }

// noSendAhead records that key's server mishandles commands sent while a
// transfer runs.
func (f *Fetcher) noSendAhead(key poolKey) { f.mark(&f.noAhead, key) }

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

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
	if c.isBroken() {
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
	u := req.URL
	if u == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "ftp: no URL")
	}
	v := view(u)
	if err := checkLines(u, v); err != nil {
		return nil, err
	}
	who, err := loginFor(req)
	if err != nil {
		return nil, err
	}
	key := poolKey{host: u.Host, port: u.EffectivePort(), user: who.user, password: who.password,
		noUTF8: req.RemoteCharset != ""}
	switch {
	case u.Scheme == "ftps":
		key.tls = tlsImplicit
	case req.RequireTLS:
		key.tls = tlsExplicit
	}
	if key.port == 0 {
		key.port = 21
	}

	if name := v.Name(); name != "" && v.TypeCode != 'd' && !req.IfModifiedSince.IsZero() && !req.SkipMetadata {
		// The MDTM sent behind this file's RETR a moment ago, answered
		// once the transfer was over, answers If-Modified-Since.
		if mod, ok := f.takeAfter(afterKey(key, v.Dirs(), name)); ok && !mod.After(req.IfModifiedSince) {
			return &schemes.Response{URL: u, Kind: schemes.KindFile, Body: emptyBody{}, Size: -1,
				Name: name, Type: typeWord(v), Modified: mod, NotModified: true}, nil
		}
	}

	// A kept connection may have been ended by the server meanwhile; that
	// shows as a broken connection before anything was transferred, and
	// the fetch is tried once more on a fresh one.
	for attempt := 0; ; attempt++ {
		spares := 0
		if attempt == 0 {
			spares = req.Spare
		}
		c, reused, err := f.acquire(ctx, req, key, who, v.Dirs(), spares)
		if err != nil {
			return nil, err
		}
		c.sendAhead = c.sendAhead && f.sendsAhead(key)
		resp, err := f.fetchOn(ctx, req, c, v, reused)
		if err == nil {
			return resp, nil
		}
		if reused && attempt == 0 && ctx.Err() == nil && c.isBroken() && errorKind(err, schemes.ErrInterrupted) {
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
func loginFor(req *schemes.Request) (login, error) {
	u := req.URL
	who, complete := planLogin(req)
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

// fetchOn performs the fetch on c. On failure c is back in the pool when
// the server merely refused, ended otherwise.
func (f *Fetcher) fetchOn(ctx context.Context, req *schemes.Request, c *conn, v *schemes.FTP, reused bool) (*schemes.Response, error) {
	stop := c.begin(ctx, req)
	fail := func(err error, what string) (*schemes.Response, error) {
		stop()
		kerr := c.fail(ctx, err, what)
		if isReply(err) || isKept(err) {
			f.put(c)
		} else {
			c.close()
		}
		return nil, kerr
	}
	if req.Capture != nil && c.ctrl != nil {
		req.Capture.Dialed(c.ctrl.Raw()) // a kept connection was dialled before this fetch
	}
	x := c.exchange()

	// RFC 1738 §3.2.2: one CWD per segment, decoded, whatever it holds
	// (an empty segment is "CWD " with an empty argument). The CWDs go out
	// together with the commands that follow them up to the transfer.
	dirs := v.Dirs()
	from := c.done(dirs) // dirs[:from] are CWDs c has already made (a new one: at its login)
	var steps []step
	homeErr := false
	if from < 0 {
		// After CWDs the reliable way to another path is a return to the
		// recorded login directory. (A kept connection whose CWDs so far
		// are the first of this URL's skips the return and those CWDs: it
		// is where they lead.)
		if c.home == "" {
			stop()
			c.close()
			return nil, schemes.Errorf(schemes.ErrInterrupted, "ftp: the server gave no login directory to return to")
		}
		steps = append(steps, step{line: "CWD " + c.home, then: func(code int, msg string) error {
			if code/100 != 2 {
				homeErr = true
				return replyErr(code, msg)
			}
			return nil
		}})
		from = 0
	}
	cwds := len(steps) + len(dirs) - from
	for _, d := range dirs[from:] {
		steps = append(steps, step{line: "CWD " + d, then: want2xx})
	}
	if cwds > 0 {
		c.moved, c.at = true, nil
	}
	// cwdDone checks the replies to the CWDs of a batch that started with
	// them: on success c is where dirs lead.
	cwdDone := func(i int, err error) (*schemes.Response, error) {
		if homeErr {
			stop()
			c.close()
			return nil, schemes.Errorf(schemes.ErrInterrupted, "ftp: cannot return to the login directory %q: %v", c.home, c.fail(ctx, err, "CWD"))
		}
		if i < 0 {
			return fail(err, steps[0].line)
		}
		return fail(err, steps[i].line)
	}
	name := v.Name()
	base := req.URL

	if v.TypeCode == 'd' || name == "" {
		if v.TypeCode != 'd' && cwds > 0 && c.pipe && c.next != "" {
			// A data connection was asked for ahead: the listing goes out
			// behind its CWDs, and is read only once they have worked.
			resp, i, err := f.listAfter(ctx, req, c, stop, fail, dirs, steps)
			if i >= 0 {
				return cwdDone(i, err)
			}
			return resp, err
		}
		// The listing's passive command goes with the CWDs.
		if c.next == "" && len(steps) > 0 {
			steps = append(steps, c.passiveNextStep())
		}
		if i, err := x.batch(steps); err != nil {
			if i >= 0 && i == len(steps)-1 && cwds < len(steps) {
				// The CWDs worked; the passive reply was malformed.
				c.at = slices.Clone(dirs)
				return fail(err, steps[i].line)
			}
			return cwdDone(i, err)
		}
		c.at = slices.Clone(dirs)
		if v.TypeCode == 'd' {
			// RFC 1738 §3.2.2: type d lists with NLST.
			l, err := f.startList(ctx, req, c, stop, strings.TrimSuffix("NLST "+name, " "))
			if err != nil {
				return fail(err, "NLST")
			}
			l.nlst, l.nlstArg, l.base, l.dir = true, name, base, dirs
			return listingResponse(base, l), nil
		}
		return f.list(ctx, req, c, stop, fail, dirs)
	}

	t := transferType(v)
	if c.curType != t {
		c.curType = 0
		steps = append(steps, step{line: "TYPE " + string(t), then: func(code int, msg string) error {
			if code/100 != 2 {
				return replyErr(code, msg)
			}
			c.curType = t
			return nil
		}})
	}
	size := int64(-1)
	var modified time.Time
	// A caller with size and time from a listing (a mirror) skips SIZE
	// and MDTM: two commands a file saved; one with the size only
	// (SkipSize) still asks MDTM, for a time to the second. A SIZE or MDTM
	// refused, or answered in another form, leaves them unknown.
	wantSize := !req.SkipMetadata && !req.SkipSize
	if wantSize {
		steps = append(steps, step{line: "SIZE " + name, then: func(code int, msg string) error {
			if n, err := strconv.ParseInt(strings.TrimSpace(msg), 10, 64); code == 213 && err == nil && n >= 0 {
				size = n
			}
			return nil
		}})
	}
	wantTime := !req.SkipMetadata && c.mdtm
	if wantTime {
		steps = append(steps, step{line: "MDTM " + name, then: func(code int, msg string) error {
			if m, ok := c.mdtmReply(code, msg); ok {
				modified = m
			}
			return nil
		}})
	}
	offset := req.Offset
	if offset < 0 {
		offset = 0
	}
	// The RETR goes with these commands when nothing in their replies
	// decides whether or how it is sent, no CWD precedes it, and its data
	// connection is open already or comes from an EPSV that worked on c
	// (an EPSV reply names a port only; a PASV reply's address may be
	// refused, and a RETR sent behind it would leave the server waiting).
	var data net.Conn
	var dialErr error // a failed dial of the data connection of an eager RETR
	reusedData := false
	// Behind CWDs it goes only on a data connection asked for ahead: their
	// replies come before its own, and when one was refused the transfer
	// (of whatever the name meant where the connection was) is closed
	// unread.
	eager := c.pipe && (cwds == 0 || c.next != "") && req.IfModifiedSince.IsZero() && offset == 0 &&
		(req.MaxBytes <= 0 || !wantSize)
	if !eager && cwds > 0 && req.IfModifiedSince.IsZero() && c.next == "" {
		// A transfer is to come: its data connection is asked for with the
		// CWDs, and dialled once they have worked.
		steps = append(steps, c.passiveNextStep())
	} else if eager || req.IfModifiedSince.IsZero() {
		// A transfer is to come: its data connection is asked for now.
		if data = c.openNext(ctx, req); data != nil {
			reusedData = true
		} else {
			eager = eager && cwds == 0 && c.pasvOK && !c.noEPSV
			ps := c.passiveStep(ctx, req, &data)
			if eager {
				// A server whose RETR fails at once goes on to what was
				// sent behind it, and an EPSV there closes the port this
				// one named before it could be dialled: the RETR's reply
				// then says what happened, not the refused dial.
				then := ps.then
				ps.then = func(code int, msg string) error {
					if err := then(code, msg); err != nil {
						if isReply(err) {
							return err
						}
						dialErr = err
					}
					return nil
				}
			}
			steps = append(steps, ps)
		}
	}
	var started bool
	var retrCode int
	var retrMsg string
	retr := step{line: "RETR " + name, then: func(code int, msg string) error {
		retrCode, retrMsg = code, msg
		if code/100 != 1 {
			return replyErr(code, msg)
		}
		started = true
		return nil
	}}
	// behind is what goes out behind the RETR, its replies read after the
	// transfer's: on a kept connection, the file's MDTM again when this
	// fetch asked it (an If-Modified-Since fetch of the file right after
	// is answered from it: it is the time once the transfer was over), and
	// the next transfer's passive command.
	afterK := ""
	behind := func() []string {
		var lines []string
		if wantTime && c.pipe && c.sendAhead && c.served > 0 {
			lines = append(lines, "MDTM "+name)
			afterK = afterKey(c.key, dirs, name)
		}
		return append(lines, c.aheadLines()...)
	}
	sentBehind := func(lines []string) {
		c.afterMDTM = len(lines) > 0 && strings.HasPrefix(lines[0], "MDTM ")
		c.ahead = len(lines) > 0 && !strings.HasPrefix(lines[len(lines)-1], "MDTM ")
	}
	var ahead []string
	if eager {
		steps = append(steps, retr)
		ahead = behind()
	}
	i, err := x.batch(steps, ahead...)
	if i >= 0 {
		sentBehind(ahead)
	}
	if i < cwds && err != nil {
		closeData(data)
		if started {
			// The RETR behind a refused CWD started: closing its data
			// connection ends it, and its reply is read to stay in step.
			if _, _, rerr := readReply(x.tp); rerr != nil {
				c.abort()
			}
		}
		if _, aerr := c.readAhead(); aerr != nil {
			c.abort()
		}
		return cwdDone(i, err)
	}
	if cwds > 0 {
		c.at = slices.Clone(dirs)
	}
	closeFail := func(err error, what string) (*schemes.Response, error) {
		closeData(data)
		if started {
			// A RETR sent with a command that failed before it started
			// anyway: closing the data connection ends it (RFC 959
			// §4.1.3), and its reply is read to stay in step.
			if _, _, rerr := readReply(x.tp); rerr != nil {
				c.abort()
			}
		}
		if _, aerr := c.readAhead(); aerr != nil {
			c.abort()
		}
		return fail(err, what)
	}
	if err != nil && !(eager && steps[i].line == retr.line) {
		if i >= 0 && steps[i].line == "EPSV" && c.noEPSV && isReply(err) {
			// EPSV refused: PASV, alone.
			data, err = nil, nil
		} else {
			return closeFail(err, steps[max(i, 0)].line)
		}
	}
	typeWord := typeWord(v)
	if !eager {
		if !req.IfModifiedSince.IsZero() && !modified.IsZero() && !modified.After(req.IfModifiedSince) {
			stop()
			closeData(data)
			f.put(c)
			return &schemes.Response{URL: base, Kind: schemes.KindFile, Body: emptyBody{}, Size: size,
				Name: name, Type: typeWord, Modified: modified, NotModified: true}, nil
		}
		if size >= 0 && offset > size {
			offset = 0
		}
		if err := schemes.CheckSize("ftp: "+name, req.MaxBytes, size, offset); err != nil {
			stop()
			closeData(data)
			f.put(c)
			return nil, err
		}
	}
	for try := 0; !started; try++ {
		if data == nil && (!eager || try > 0) {
			d, reused, err := x.passive(ctx, req)
			if err != nil {
				return fail(err, c.passiveLine())
			}
			data, reusedData = d, reused
		}
		if !eager || try > 0 {
			steps = steps[:0]
			if offset > 0 {
				// RFC 3659 §5.3: a server without REST in stream mode
				// refuses it, and the RETR after it starts over.
				steps = append(steps, step{line: "REST " + strconv.FormatInt(offset, 10), then: func(code int, msg string) error {
					if code != 350 {
						// Never silently: the whole file comes again.
						req.Warnf(fmt.Sprintf("ftp: the server refused to resume at byte %d (%d %s); fetching %s from its start",
							offset, code, lineproto.ServerText(msg), name))
						offset = 0
					}
					return nil
				}})
			}
			steps = append(steps, retr)
			ahead = behind()
			_, err = x.batch(steps, ahead...)
			sentBehind(ahead)
			if err != nil && !isReply(err) {
				closeData(data)
				return fail(err, "RETR "+name)
			}
		}
		if started {
			break
		}
		closeData(data)
		data = nil
		if _, aerr := c.readAhead(); aerr != nil {
			c.abort()
			return fail(aerr, "RETR "+name)
		}
		if retrCode == 425 && (reusedData || dialErr != nil) && try == 0 {
			// The data address read ahead went stale, or its dial failed:
			// ask again.
			reusedData, dialErr = false, nil
			continue
		}
		if v.TypeCode == 0 && retrCode == 550 {
			// A RETR refused with 550 on a name that CWD accepts is a
			// directory: RFC 1738 §3.2.2 lets a client without ;type=
			// guess, and this is how it finds out.
			c.moved, c.at = true, nil
			if _, cerr := x.batch([]step{{line: "CWD " + name, then: want2xx}}); cerr == nil {
				c.at = append(slices.Clone(dirs), name)
				return f.list(ctx, req, c, stop, fail, append(dirs[:len(dirs):len(dirs)], name))
			} else if !isReply(cerr) {
				return fail(cerr, "CWD "+name)
			}
		}
		return fail(replyErr(retrCode, retrMsg), "RETR "+name)
	}
	if data == nil {
		// A RETR started after its data connection's dial failed: the
		// server waits for a connection that will not come.
		if dialErr == nil {
			dialErr = schemes.Errorf(schemes.ErrInterrupted, "ftp: no data connection")
		}
		c.abort()
		return fail(dialErr, "RETR "+name)
	}
	// A capture records a whole file only: a resumed transfer is a part.
	var blk schemes.CaptureBlock
	if offset == 0 {
		blk = schemes.StartCapture(req.Capture, schemes.CaptureRecord{Type: "resource", URI: base.Redacted(), ContentType: mediaType(name),
			Protocol: c.protocols()})
	}
	var raw io.Writer
	if blk != nil {
		raw = blk
	}
	b := newBody(f, c, data, stop, offset, size, t == 'A', v.TypeCode == 'a', raw)
	b.afterKey = afterK
	if c.tlsData == nil && v.TypeCode != 'a' {
		c.mu.Lock()
		if d := c.data; d != nil {
			if _, ok := d.Raw().(syscall.Conn); ok {
				b.raw, b.idle = d.Raw(), req.Idle()
			}
		}
		c.mu.Unlock()
	}
	var rb io.ReadCloser = b
	if blk != nil {
		// The block is whole once the body has read the server's closing
		// reply, which it does before it returns io.EOF.
		rb = struct {
			io.Reader
			io.Closer
		}{schemes.CommitAtEOF(b, blk), b}
	}
	return &schemes.Response{
		URL:      base,
		Kind:     schemes.KindFile,
		Body:     rb,
		Offset:   offset,
		Size:     size,
		Name:     name,
		Type:     typeWord,
		Modified: modified,
	}, nil
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
	if req.VerifyListing && l.mlsd {
		l.check = newListCheck(ctx, req)
	} else if req.VerifyListing {
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
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}
