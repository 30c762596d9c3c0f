package ftp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// A listing is streamed, one entry per Next, so that memory does not grow
// with its length.

// exchange is the command/reply conversation on the control connection.
type exchange struct {
	c  *conn
	br *bufio.Reader
	tp *textproto.Reader
}

// exchange returns c's reader of replies, made at the login, once the
// greeting has been read, and kept for the connection's life: pipelined
// replies may be read ahead into its buffer.
func (c *conn) exchange() *exchange {
	if c.x == nil {
		br := bufio.NewReaderSize(c.top, 4096)
		c.x = &exchange{c: c, br: br, tp: textproto.NewReader(br)}
	}
	return c.x
}

// passive opens a data connection: the one a passive reply read ahead
// named when there is one (reused reports that), else EPSV (RFC 2428 §3)
// where the server has it, PASV (RFC 959 §4.1.1) otherwise.
func (x *exchange) passive(ctx context.Context, req *schemes.Request) (data net.Conn, reused bool, err error) {
	c := x.c
	if d := c.openNext(ctx, req); d != nil {
		return d, true, nil
	}
	for {
		epsv := c.passiveLine() == "EPSV"
		_, err := x.batch([]step{c.passiveStep(ctx, req, &data)})
		if err == nil {
			return data, false, nil
		}
		if epsv && c.noEPSV && isReply(err) {
			continue // refused: PASV
		}
		return nil, false, err
	}
}

func pasvAddr(msg string) (string, bool) {
	start := strings.IndexAny(msg, "0123456789")
	if start < 0 {
		return "", false
	}
	end := start
	for end < len(msg) && (msg[end] == ',' || ('0' <= msg[end] && msg[end] <= '9')) {
		end++
	}
	parts := strings.Split(msg[start:end], ",")
	if len(parts) != 6 {
		return "", false
	}
	var n [6]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v > 255 {
			return "", false
		}
		n[i] = v
	}
	host := fmt.Sprintf("%d.%d.%d.%d", n[0], n[1], n[2], n[3])
	return net.JoinHostPort(host, strconv.Itoa(n[4]<<8|n[5])), true
}

// listing streams a directory's entries from the data connection. base is
// the URL listed and dir the segments of the directory the entries live
// in.
type listing struct {
	f     *Fetcher
	c     *conn
	x     *exchange
	data  net.Conn
	lines *lineproto.Reader
	stop  func() bool
	// end reads the reply that ends the transfer while the data flows.
	end *endWatch

	nlst    bool   // NLST: names only
	nlstArg string // the NLST argument
	mlsd    bool   // MLSD: facts (RFC 3659 §7)
	// check, when set, compares this MLSD listing with a LIST of the same
	// directory once it ends (Fetcher.VerifyListing); nested marks that
	// LIST, read on the connection of the listing it checks, which keeps
	// the connection.
	check  *listCheck
	nested bool
	// ctx and req are the listing's, for the LIST that reads the targets
	// of links MLSD names without them (links: held until then; final:
	// the end returned once they are out).
	ctx   context.Context
	req   *schemes.Request
	links []schemes.Entry
	final error
	// dirTimes: the LIST listing's directories are to get MDTM's time,
	// to the second, once it ends; held are its entries from the first
	// such directory on, kept in order until then (at most maxHeldDirs).
	dirTimes bool
	held     []schemes.Entry
	// hashing: the listing's files are to get the server's hash
	// (Request.ListHashes), asked once it ends; every entry is
	// held until then (at most maxHeldHashes).
	hashing bool
	// list is LIST's parser of every dialect, made at the first line;
	// queue[next:] are entries read and not yet returned (one LIST line
	// can give three).
	list    *listParser
	queue   []schemes.Entry
	next    int
	base    *schemes.URL
	dir     []string
	now     time.Time
	maxLine int
	max     int
	n       int
	err     error
	done    bool
}

// startList sends cmd (MLSD, LIST or NLST ...) and returns the listing of
// its data connection. The passive command of the next transfer goes with
// it when c pipelines (aheadLines).
func (f *Fetcher) startList(ctx context.Context, req *schemes.Request, c *conn, stop func() bool, cmd string) (*listing, error) {
	l, _, err := f.startListAfter(ctx, req, c, stop, cmd, nil)
	return l, err
}

// startListAfter is startList with the steps before (CWDs) sent in the
// same write as cmd: a listing whose data connection was asked for ahead
// then costs no round trip of its own for them. The replies come in
// order, so the CWDs' are read before anything of the listing: when one
// was refused, cmd listed another directory, whose data is closed unread
// and whose reply is read to stay in step; the refusal is returned with
// the index of its step (the index is -1 for any other error).
func (f *Fetcher) startListAfter(ctx context.Context, req *schemes.Request, c *conn, stop func() bool, cmd string, before []step) (*listing, int, error) {
	x := c.exchange()
	for try := 0; ; try++ {
		data, reused, err := x.passive(ctx, req)
		if err != nil {
			return nil, -1, err
		}
		ahead := c.aheadLines()
		var code int
		var msg string
		steps := append(before[:len(before):len(before)], step{line: cmd, then: func(cd int, m string) error { code, msg = cd, m; return nil }})
		i, err := x.batch(steps, ahead...)
		if i < 0 && err != nil {
			data.Close()
			return nil, -1, err
		}
		c.ahead = len(ahead) > 0
		if err != nil {
			// A step before cmd was refused: cmd's listing is not this
			// fetch's.
			data.Close()
			if code/100 == 1 {
				if _, _, rerr := readReply(x.tp); rerr != nil {
					c.abort()
					return nil, -1, rerr
				}
			}
			if _, rerr := c.readAhead(); rerr != nil {
				c.abort()
				return nil, -1, rerr
			}
			return nil, i, err
		}
		before = nil // done: a try again sends cmd alone
		if code/100 != 1 {
			// RFC 959 §5.4: LIST and NLST answer 125 or 150 before the data.
			data.Close()
			if _, err := c.readAhead(); err != nil {
				c.abort()
				return nil, -1, err
			}
			if code == 425 && reused && try == 0 {
				continue // the address read ahead went stale: ask again
			}
			if code/100 == 2 {
				return nil, -1, schemes.Errorf(schemes.ErrRefused, "ftp: %s answered %d %s without a transfer", cmd, code, lineproto.ServerText(msg))
			}
			return nil, -1, replyErr(code, msg)
		}
		return &listing{
			f: f, c: c, x: x, data: data, stop: stop, end: watchEnd(x, data), mlsd: cmd == "MLSD", ctx: ctx, req: req,
			lines:   lineproto.NewReader(bufio.NewReaderSize(captureListing(req, c, cmd, data), 32<<10), req.LineLimit()),
			now:     time.Now(),
			maxLine: req.LineLimit(),
			max:     req.EntryLimit(),
		}, -1, nil
	}
}

// Next returns the next entry, or io.EOF after the last one. A LIST or
// MLSD line in no form the parsers read is an entry of type
// schemes.TypeUnparsed holding the raw line, so nothing is dropped
// without a word.
func (l *listing) Next() (schemes.Entry, error) {
	for {
		if l.err != nil {
			return schemes.Entry{}, l.err
		}
		if l.next < len(l.queue) {
			e := l.queue[l.next]
			l.next++
			return l.emit(e)
		}
		if l.final != nil {
			l.err = l.final
			return schemes.Entry{}, l.err
		}
		l.queue, l.next = l.queue[:0], 0
		line, err := l.readLine()
		if err == io.EOF && line == "" {
			if l.list != nil {
				if len(l.held) > 0 {
					l.held = l.list.end(l.held) // behind what is held
				} else if l.queue = l.list.end(l.queue); len(l.queue) > 0 {
					continue
				}
			}
			end := l.finish()
			if len(l.links) > 0 || len(l.held) > 0 {
				l.queue, l.next, l.final = append(l.held, l.links...), 0, end
				l.links, l.held = nil, nil
				continue
			}
			l.err = end
			return schemes.Entry{}, l.err
		}
		if err != nil && err != io.EOF {
			l.err = l.fail(err)
			return schemes.Entry{}, l.err
		}
		var e schemes.Entry
		var ok bool
		switch {
		case l.nlst:
			e, ok = l.fromName(line), line != "" && line != "." && line != ".."
		case l.mlsd:
			e, ok = mlsdEntry(line, strings.Join(l.dir, "/"))
			if ok && e.Type == schemes.TypeLink && e.Target == "" && !l.nested && len(l.links) < maxHeldLinks {
				// ProFTPD's "type=OS.unix=symlink": the target is read
				// from LIST once the listing ends.
				l.links = append(l.links, e)
				continue
			}
			if ok && l.hashing {
				l.queue = append(l.queue, e)
				l.holdForHashes(0)
				continue
			}
		default:
			if l.list == nil {
				l.list = newListParser(l.now)
				l.list.dir = strings.Join(l.dir, "/")
			}
			n := len(l.queue)
			l.queue = l.list.feed(l.queue, line)
			switch {
			case l.hashing:
				l.holdForHashes(n)
			case l.dirTimes:
				l.holdForDirTimes(n)
			}
			continue
		}
		if !ok {
			continue
		}
		return l.emit(e)
	}
}

// emit counts e against the entry limit and gives it its URL: a file
// with a version (VMS) is fetched as "NAME;N".
func (l *listing) emit(e schemes.Entry) (schemes.Entry, error) {
	l.n++
	if l.n > l.max {
		l.err = schemes.Errorf(schemes.ErrTooLarge, "ftp: listing has more than %d entries", l.max)
		l.Close()
		return schemes.Entry{}, l.err
	}
	if !l.nlst && e.Type != schemes.TypeUnparsed {
		name := e.Name
		if e.Version > 0 && e.Type != schemes.TypeDir {
			name += ";" + strconv.Itoa(e.Version)
		}
		e.URL = entryURL(l.base, l.dir, name, e.Type == schemes.TypeDir)
	}
	if l.check != nil {
		l.check.note(e)
	}
	return e, nil
}

func unparsed(line string) schemes.Entry {
	return schemes.Entry{Name: line, Type: schemes.TypeUnparsed, Size: -1}
}

// readLine reads one line without its CR LF, refusing one longer than the
// limit.
func (l *listing) readLine() (string, error) {
	line, err := l.lines.ReadLine()
	if errors.Is(err, schemes.ErrTooLarge) {
		return "", schemes.Errorf(schemes.ErrTooLarge, "ftp: listing line longer than %d bytes", l.maxLine)
	}
	return line, err
}

// capped matches a listing's closing reply that says the server left
// entries out.
var capped = regexp.MustCompile(`(?i)truncat|too many (files|entries|matches)|listing (cut|limited)`)

// finish reads the reply that ends the transfer and hands the connection
// back to the pool.
func (l *listing) finish() error {
	l.done = true
	l.data.Close()
	code, msg, err := l.end.wait()
	if err == nil {
		_, err = l.c.readAhead()
	}
	if l.nested {
		if err == nil && code/100 != 2 {
			err = replyErr(code, msg)
		}
		if err != nil {
			return err
		}
		return io.EOF
	}
	if err == nil && code/100 == 2 && l.check != nil {
		l.check.compare(l)
	}
	if err == nil && code/100 == 2 && len(l.links) > 0 {
		l.linkTargets()
	}
	if err == nil && code/100 == 2 && len(l.held) > 0 {
		if l.dirTimes {
			l.readDirTimes()
		}
		l.readHashes()
	}
	l.stop()
	if err != nil {
		l.c.close()
		return l.c.classify(err, "listing")
	}
	l.f.put(l.c)
	if code/100 != 2 {
		return schemes.Errorf(schemes.ErrInterrupted, "%d %s", code, lineproto.ServerText(msg))
	}
	if capped.MatchString(msg) {
		// A server that caps listings says so in its 226 ("Output
		// truncated to 2000 matches", Pure-FTPd): what came is not the
		// whole directory, and a tree built from it would be short.
		return schemes.Errorf(schemes.ErrTooLarge, "ftp: the server cut the listing short: %d %s", code, lineproto.ServerText(msg))
	}
	return io.EOF
}

// maxHeldLinks bounds the links of one MLSD listing held for their
// targets; those past it are given without one, as the listing named
// them.
const maxHeldLinks = 10000

// linkTargets reads the targets of the links the ended MLSD listing named
// without them (RFC 3659 gives no fact for a target; ProFTPD writes
// "type=OS.unix=symlink" alone) from "LIST -a" of the same directory on
// the same connection, where ls writes "name -> target". A link LIST
// does not show keeps no target, and a LIST that fails is a warning: the
// links are given as MLSD named them.
func (l *listing) linkTargets() {
	req := *l.req
	req.Capture = nil // no part of an archive's record
	in, err := l.f.startList(l.ctx, &req, l.c, func() bool { return true }, "LIST -a")
	if err != nil {
		l.req.Warnf("ftp: reading link targets: LIST of " + l.base.Redacted() + " failed: " + err.Error())
		return
	}
	in.nested, in.base, in.dir = true, l.base, l.dir
	want := make(map[string]int, len(l.links))
	for i, e := range l.links {
		want[e.Name] = i
	}
	for {
		e, err := in.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			l.req.Warnf("ftp: reading link targets: LIST of " + l.base.Redacted() + " failed: " + err.Error())
			return
		}
		if i, ok := want[e.Name]; ok && e.Type == schemes.TypeLink && e.Target != "" {
			l.links[i].Target = e.Target
		}
	}
}

// Directory times (Fetcher.DirTimes). A LIST line shows a directory's
// time to the minute or the day, in the server's zone; some servers
// (Twisted) answer MDTM (RFC 3659 §3) for a directory too, to the second
// in UTC. Where the server has MDTM, the entries of a LIST listing from its first such
// directory on are held (at most maxHeldDirs, in order) until the listing
// ends; then the first directory's MDTM probes the server, once per
// Fetcher: where it answers, every held directory's MDTM goes out in one
// batch, and where it refuses, MDTM is never asked of a directory there
// again.

// maxHeldDirs bounds the entries one listing holds for its directories'
// times; past it they are given as LIST showed them.
const maxHeldDirs = 4096

// wantDirTimes reports whether a LIST listing on c is to read its
// directories' times with MDTM.
func (f *Fetcher) wantDirTimes(c *conn) bool {
	if !c.mdtm {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	answers, probed := f.dirMDTM[c.key.server()]
	return answers || !probed
}

// noteDirMDTM records whether c's server answered MDTM of a directory.
func (f *Fetcher) noteDirMDTM(c *conn, answers bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dirMDTM == nil {
		f.dirMDTM = map[string]bool{}
	}
	f.dirMDTM[c.key.server()] = answers
}

// needsDirTime reports a LIST entry whose time MDTM may sharpen: a
// directory known to the minute or the day, whose name can go on a
// command line as it is.
func needsDirTime(e schemes.Entry) bool {
	if e.Type != schemes.TypeDir || (e.Precision != schemes.PrecisionDay && e.Precision != schemes.PrecisionMinute) {
		return false
	}
	return commandName(e.Name)
}

// holdForDirTimes moves the entries queued from index n on into held,
// from the first directory that needs its time on; past maxHeldDirs it
// gives up and gives everything held out as it is.
func (l *listing) holdForDirTimes(n int) {
	if len(l.held) == 0 {
		first := -1
		for i := n; i < len(l.queue); i++ {
			if needsDirTime(l.queue[i]) {
				first = i
				break
			}
		}
		if first < 0 {
			return
		}
		n = first
	}
	l.held = append(l.held, l.queue[n:]...)
	l.queue = l.queue[:n]
	if len(l.held) > maxHeldDirs {
		l.queue = append(l.queue, l.held...)
		l.held, l.dirTimes = nil, false
	}
}

// readDirTimes asks MDTM of each held directory on the ended listing's
// connection and gives it that time, to the second.
func (l *listing) readDirTimes() {
	var idx []int
	for i, e := range l.held {
		if needsDirTime(e) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 || !l.f.wantDirTimes(l.c) {
		return
	}
	l.f.mu.Lock()
	_, probed := l.f.dirMDTM[l.c.key.server()]
	l.f.mu.Unlock()
	stepFor := func(i int, answered *bool) step {
		return step{line: "MDTM " + l.held[i].Name, then: func(code int, msg string) error {
			if t, ok := l.c.mdtmReply(code, msg); ok {
				l.held[i].Modified, l.held[i].Precision = t, schemes.PrecisionSecond
				*answered = true
			}
			return nil
		}}
	}
	x := l.c.exchange()
	if !probed {
		var answered bool
		if i, err := x.batch([]step{stepFor(idx[0], &answered)}); i < 0 && err != nil {
			return
		}
		l.f.noteDirMDTM(l.c, answered)
		if !answered {
			return
		}
		idx = idx[1:]
	}
	steps := make([]step, 0, len(idx))
	var answered bool
	for _, i := range idx {
		steps = append(steps, stepFor(i, &answered))
	}
	x.batch(steps)
}

// Hashes of a listing's files (Request.ListHashes, for a check of
// a mirror against its server): the entries are held until the listing
// ends (at most maxHeldHashes; past it they are given without), then each
// file's hash is asked for on the listing's connection, in pipelined
// batches of hashBatch commands where the server reads them, the
// strongest the server offers, as for a file fetched (hashSteps). A file
// whose MLSD facts carried a hash is not asked again.

// maxHeldHashes bounds the entries one listing holds for its files'
// hashes; hashBatch is how many hash commands go out in one write, so
// that neither side's buffers fill while the other waits.
const (
	maxHeldHashes = 10000
	hashBatch     = 64
)

// holdForHashes moves the entries queued from index n on into held; past
// maxHeldHashes it gives everything held out as it is.
func (l *listing) holdForHashes(n int) {
	l.held = append(l.held, l.queue[n:]...)
	l.queue = l.queue[:n]
	if len(l.held) > maxHeldHashes {
		l.queue = append(l.queue, l.held...)
		l.held, l.hashing, l.dirTimes = nil, false, false
	}
}

// readHashes asks the server's hash of each held file on the ended
// listing's connection.
func (l *listing) readHashes() {
	if !l.hashing {
		return
	}
	x := l.c.exchange()
	var steps []step
	flush := func() bool {
		i, err := x.batch(steps)
		steps = steps[:0]
		return i >= 0 || err == nil
	}
	for i := range l.held {
		e := &l.held[i]
		if e.Type != schemes.TypeFile || e.Hash.Alg != "" || e.Version > 0 || !commandName(e.Name) {
			continue
		}
		steps = append(steps, l.c.hashSteps(e.Name, func(h schemes.ServerHash) { e.Hash = h })...)
		if len(steps) >= hashBatch && !flush() {
			return
		}
	}
	if len(steps) > 0 {
		flush()
	}
}

// commandName reports whether a listed name can go on a command line as
// it is: no control character, no space at either end.
func commandName(n string) bool {
	if n == "" || n[0] == ' ' || n[len(n)-1] == ' ' {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < 0x20 || n[i] == 0x7f {
			return false
		}
	}
	return true
}

// fail ends a listing whose data connection broke or exceeded a limit.
func (l *listing) fail(err error) error {
	var ke *schemes.KindError
	if errors.As(err, &ke) && !errors.Is(err, schemes.ErrInterrupted) {
		l.Close()
		return ke
	}
	l.done = true
	l.stop()
	if rerr := l.end.refused(); rerr != nil {
		// The server refused the listing mid-way (endWatch).
		l.c.close()
		return rerr
	}
	l.c.abort()
	l.c.close()
	return l.c.dataError(err, "listing")
}

// Close ends the listing. Before its end, closing the data connection
// makes the server answer 426 (RFC 959 §4.1.3); once that reply is read the
// control connection is in step again and goes back to the pool.
func (l *listing) Close() error {
	if l.done {
		return nil
	}
	l.done = true
	if l.err == nil {
		l.err = schemes.Errorf(schemes.ErrInterrupted, "ftp: listing closed")
	}
	l.data.Close()
	_, _, err := l.end.wait()
	if err == nil {
		_, err = l.c.readAhead()
	}
	l.stop()
	if err == nil && !l.c.isBroken() {
		l.f.put(l.c)
	} else {
		l.c.close()
	}
	return nil
}

// fromName makes an entry of one NLST line.
func (l *listing) fromName(line string) schemes.Entry {
	return nlstEntry(l.base, l.dir, l.nlstArg, line)
}

// nlstEntry makes an entry of one line of the reply to "NLST arg" in the
// directory dir of base ("NLST" alone when arg is ""). NLST gives names
// only, so the type is unknown. Servers answer "NLST dir" with "dir/name"
// or with "name".
func nlstEntry(base *schemes.URL, dir []string, arg, line string) schemes.Entry {
	name := line
	if arg != "" {
		if rest, ok := strings.CutPrefix(line, arg+"/"); ok && rest != "" {
			name = rest
			dir = append(dir[:len(dir):len(dir)], arg)
		} else if line != arg {
			dir = append(dir[:len(dir):len(dir)], arg)
		}
	}
	return schemes.Entry{Name: name, Type: schemes.TypeOther, Size: -1, URL: entryURL(base, dir, name, false)}
}

// entryURL is the URL that fetches name inside the directory dir of base: a
// copy of base with its segments replaced, no type code, no fragment, and no
// password (passwords never appear in listings: RFC 1738 §6). A directory's
// URL ends in '/' so that it is fetched as a directory (RFC 1738 §3.2.2).
func entryURL(base *schemes.URL, dir []string, name string, isDir bool) string {
	u := *base
	u.Password, u.HasPassword = "", false
	u.Fragment, u.HasFragment = "", false
	segs := make([]string, 0, len(dir)+2)
	segs = append(segs, dir...)
	segs = append(segs, name)
	if isDir {
		segs = append(segs, "")
	}
	u.FTP = &schemes.FTP{Segments: segs}
	return u.String()
}

// captureListing returns the data connection, teed into an archive's
// capture when the request has one: the raw LIST, MLSD or NLST bytes, kept
// once the server ends the transfer.
func captureListing(req *schemes.Request, c *conn, cmd string, data io.Reader) io.Reader {
	verb, _, _ := strings.Cut(cmd, " ")
	blk := schemes.StartCapture(req.Capture, schemes.CaptureRecord{Type: "resource",
		URI: req.URL.Redacted(), ContentType: "text/x-ftp-" + strings.ToLower(verb), Protocol: c.protocols()})
	return schemes.CaptureTee(data, blk)
}
