package ftp

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// retrieval is one fetch on a control connection, from the CWDs to the
// response: what its steps share.
type retrieval struct {
	f    *Fetcher
	ctx  context.Context
	req  *schemes.Request
	c    *conn
	v    *schemes.FTP
	x    *exchange
	stop func() bool

	dirs    []string
	steps   []step // the batch that goes out first: CWDs, then what follows them
	cwds    int    // how many of steps are CWDs (the return home included)
	homeErr bool   // the return to the login directory failed
	name    string
	base    *schemes.URL

	// A file's transfer.
	t          byte // the TYPE
	size       int64
	modified   time.Time
	wantSize   bool
	wantTime   bool
	offset     int64
	eager      bool     // the RETR goes out with the first batch
	data       net.Conn // the data connection, once there is one
	reusedData bool     // data came from a passive reply read ahead
	dialErr    error    // a failed dial of the data connection of an eager RETR
	retr       step
	started    bool // the RETR's preliminary reply came
	retrCode   int
	retrMsg    string
	afterK     string             // the key of the MDTM sent behind the RETR, if any
	hash       schemes.ServerHash // the server's checksum (hash.go)
}

// fetchOn performs the fetch on c. On failure c is back in the pool when
// the server merely refused, ended otherwise.
func (f *Fetcher) fetchOn(ctx context.Context, req *schemes.Request, c *conn, v *schemes.FTP) (*schemes.Response, error) {
	r := &retrieval{f: f, ctx: ctx, req: req, c: c, v: v, stop: c.begin(ctx, req),
		name: v.Name(), base: req.URL, size: -1}
	if req.Capture != nil && c.ctrl != nil {
		req.Capture.Dialed(c.ctrl.Raw()) // a kept connection was dialled before this fetch
	}
	r.x = c.exchange()
	if err := r.planCWDs(); err != nil {
		return nil, err
	}
	if v.TypeCode == 'd' || r.name == "" {
		return r.listing()
	}
	return r.file()
}

// fail ends the retrieval with err, what naming the command: c goes back
// to the pool when the server merely refused, and is ended otherwise.
func (r *retrieval) fail(err error, what string) (*schemes.Response, error) {
	r.stop()
	kerr := r.c.fail(r.ctx, err, what)
	if isReply(err) || isKept(err) {
		r.f.put(r.c)
	} else {
		r.c.close()
	}
	return nil, kerr
}

// planCWDs starts the first batch with the CWDs to where the URL's
// directories lead. RFC 1738 §3.2.2: one CWD per segment, decoded,
// whatever it holds (an empty segment is "CWD " with an empty argument).
// The CWDs go out together with the commands that follow them up to the
// transfer.
func (r *retrieval) planCWDs() error {
	c := r.c
	r.dirs = r.v.Dirs()
	from := c.done(r.dirs) // dirs[:from] are CWDs c has already made (a new one: at its login)
	if from < 0 {
		// After CWDs the reliable way to another path is a return to the
		// recorded login directory. (A kept connection whose CWDs so far
		// are the first of this URL's skips the return and those CWDs: it
		// is where they lead.)
		if c.home == "" {
			r.stop()
			c.close()
			return schemes.Errorf(schemes.ErrInterrupted, "ftp: the server gave no login directory to return to")
		}
		r.steps = append(r.steps, step{line: "CWD " + c.home, then: func(code int, msg string) error {
			if code/100 != 2 {
				r.homeErr = true
				return replyErr(code, msg)
			}
			return nil
		}})
		from = 0
	}
	r.cwds = len(r.steps) + len(r.dirs) - from
	for _, d := range r.dirs[from:] {
		r.steps = append(r.steps, step{line: "CWD " + d, then: want2xx})
	}
	if r.cwds > 0 {
		c.moved, c.at = true, nil
	}
	return nil
}

// cwdFailed ends the retrieval after the reply to step i of a batch that
// started with the CWDs (i < 0: no reply came) failed with err.
func (r *retrieval) cwdFailed(i int, err error) (*schemes.Response, error) {
	if r.homeErr {
		r.stop()
		r.c.close()
		return nil, schemes.Errorf(schemes.ErrInterrupted, "ftp: cannot return to the login directory %q: %v", r.c.home, r.c.fail(r.ctx, err, "CWD"))
	}
	return r.fail(err, r.steps[max(i, 0)].line)
}

// listing lists the directory: NLST for ";type=d" (RFC 1738 §3.2.2),
// else MLSD or LIST. The listing's passive command goes with the CWDs.
func (r *retrieval) listing() (*schemes.Response, error) {
	c := r.c
	if r.v.TypeCode != 'd' && r.cwds > 0 && c.pipe && c.next != "" {
		// A data connection was asked for ahead: the listing goes out
		// behind its CWDs, and is read only once they have worked.
		resp, i, err := r.f.listAfter(r.ctx, r.req, c, r.stop, r.fail, r.dirs, r.steps)
		if i >= 0 {
			return r.cwdFailed(i, err)
		}
		return resp, err
	}
	if c.next == "" && len(r.steps) > 0 {
		r.steps = append(r.steps, c.passiveNextStep())
	}
	if i, err := r.x.batch(r.steps); err != nil {
		if i >= 0 && i == len(r.steps)-1 && r.cwds < len(r.steps) {
			// The CWDs worked; the passive reply was malformed.
			c.at = slices.Clone(r.dirs)
			return r.fail(err, r.steps[i].line)
		}
		return r.cwdFailed(i, err)
	}
	c.at = slices.Clone(r.dirs)
	if r.v.TypeCode != 'd' {
		return r.f.list(r.ctx, r.req, c, r.stop, r.fail, r.dirs)
	}
	l, err := r.f.startList(r.ctx, r.req, c, r.stop, strings.TrimSuffix("NLST "+r.name, " "))
	if err != nil {
		return r.fail(err, "NLST")
	}
	l.nlst, l.nlstArg, l.base, l.dir = true, r.name, r.base, r.dirs
	return listingResponse(r.base, l), nil
}

// file retrieves a file: the first batch (CWDs, TYPE, SIZE, MDTM, the
// passive command, and the RETR when it can go with them), the checks
// its replies allow, the RETR, and the response that streams the data.
func (r *retrieval) file() (*schemes.Response, error) {
	r.metadataSteps()
	r.hashSteps()
	r.passiveSteps()
	r.retr = step{line: "RETR " + r.name, then: func(code int, msg string) error {
		r.retrCode, r.retrMsg = code, msg
		if code/100 != 1 {
			return replyErr(code, msg)
		}
		r.started = true
		return nil
	}}
	if resp, err, done := r.firstBatch(); done {
		return resp, err
	}
	if !r.eager {
		if resp, err, done := r.checkBeforeRetr(); done {
			return resp, err
		}
	}
	if resp, err, done := r.startRetr(); done {
		return resp, err
	}
	return r.response()
}

// metadataSteps adds TYPE, unless c has it already, then SIZE and MDTM.
// A caller with size and time from a listing (a mirror) skips SIZE and
// MDTM: two commands a file saved; one with the size only (SkipSize)
// still asks MDTM, for a time to the second. A SIZE or MDTM refused, or
// answered in another form, leaves them unknown.
func (r *retrieval) metadataSteps() {
	c, req := r.c, r.req
	r.t = transferType(r.v)
	if c.curType != r.t {
		c.curType = 0
		t := r.t
		r.steps = append(r.steps, step{line: "TYPE " + string(t), then: func(code int, msg string) error {
			if code/100 != 2 {
				return replyErr(code, msg)
			}
			c.curType = t
			return nil
		}})
	}
	r.wantSize = !req.SkipMetadata && !req.SkipSize
	if r.wantSize {
		r.steps = append(r.steps, step{line: "SIZE " + r.name, then: func(code int, msg string) error {
			if n, err := strconv.ParseInt(strings.TrimSpace(msg), 10, 64); code == 213 && err == nil && n >= 0 {
				r.size = n
			}
			return nil
		}})
	}
	r.wantTime = !req.SkipMetadata && c.mdtm
	if r.wantTime {
		r.steps = append(r.steps, step{line: "MDTM " + r.name, then: func(code int, msg string) error {
			if m, ok := c.mdtmReply(code, msg); ok {
				r.modified = m
			}
			return nil
		}})
	}
	r.offset = max(req.Offset, 0)
}

// passiveSteps decides whether the RETR goes with the first batch (eager)
// and asks for the transfer's data connection. The RETR goes with these
// commands when nothing in their replies decides whether or how it is
// sent, no CWD precedes it, and its data connection is open already or
// comes from an EPSV that worked on c (an EPSV reply names a port only; a
// PASV reply's address may be refused, and a RETR sent behind it would
// leave the server waiting).
func (r *retrieval) passiveSteps() {
	c, req := r.c, r.req
	// Behind CWDs it goes only on a data connection asked for ahead: their
	// replies come before its own, and when one was refused the transfer
	// (of whatever the name meant where the connection was) is closed
	// unread.
	r.eager = c.pipe && (r.cwds == 0 || c.next != "") && req.IfModifiedSince.IsZero() && r.offset == 0 &&
		(req.MaxBytes <= 0 || !r.wantSize)
	switch {
	case !r.eager && r.cwds > 0 && req.IfModifiedSince.IsZero() && c.next == "":
		// A transfer is to come: its data connection is asked for with the
		// CWDs, and dialled once they have worked.
		r.steps = append(r.steps, c.passiveNextStep())
	case r.eager || req.IfModifiedSince.IsZero():
		// A transfer is to come: its data connection is asked for now.
		if r.data = c.openNext(r.ctx, req); r.data != nil {
			r.reusedData = true
			return
		}
		r.eager = r.eager && r.cwds == 0 && c.pasvOK && !c.noEPSV
		ps := c.passiveStep(r.ctx, req, &r.data)
		if r.eager {
			// A server whose RETR fails at once goes on to what was sent
			// behind it, and an EPSV there closes the port this one named
			// before it could be dialled: the RETR's reply then says what
			// happened, not the refused dial.
			then := ps.then
			ps.then = func(code int, msg string) error {
				if err := then(code, msg); err != nil {
					if isReply(err) {
						return err
					}
					r.dialErr = err
				}
				return nil
			}
		}
		r.steps = append(r.steps, ps)
	}
}

// behind is what goes out behind the RETR, its replies read after the
// transfer's: on a kept connection, the file's MDTM again when this fetch
// asked it (an If-Modified-Since fetch of the file right after is
// answered from it: it is the time once the transfer was over), and the
// next transfer's passive command.
func (r *retrieval) behind() []string {
	c := r.c
	var lines []string
	if r.wantTime && c.pipe && c.sendAhead && c.served > 0 {
		lines = append(lines, "MDTM "+r.name)
		r.afterK = afterKey(c.key, r.dirs, r.name)
	}
	return append(lines, c.aheadLines()...)
}

// sentBehind records on c what behind's lines left to read.
func (r *retrieval) sentBehind(lines []string) {
	r.c.afterMDTM = len(lines) > 0 && strings.HasPrefix(lines[0], "MDTM ")
	r.c.ahead = len(lines) > 0 && !strings.HasPrefix(lines[len(lines)-1], "MDTM ")
}

// firstBatch sends the first batch, with the RETR when eager, and reads
// its replies. done says the retrieval ended there, with resp or err.
func (r *retrieval) firstBatch() (resp *schemes.Response, err error, done bool) {
	c := r.c
	var ahead []string
	if r.eager {
		r.steps = append(r.steps, r.retr)
		ahead = r.behind()
	}
	i, err := r.x.batch(r.steps, ahead...)
	if i >= 0 {
		r.sentBehind(ahead)
	}
	if i < r.cwds && err != nil {
		r.settle()
		resp, err = r.cwdFailed(i, err)
		return resp, err, true
	}
	if r.cwds > 0 {
		c.at = slices.Clone(r.dirs)
	}
	if err != nil && !(r.eager && r.steps[i].line == r.retr.line) {
		if i >= 0 && r.steps[i].line == "EPSV" && c.noEPSV && isReply(err) {
			// EPSV refused: PASV, alone.
			r.data = nil
			return nil, nil, false
		}
		resp, err = r.closeFail(err, r.steps[max(i, 0)].line)
		return resp, err, true
	}
	return nil, nil, false
}

// closeFail ends the retrieval after the first batch failed, the data
// connection unused.
func (r *retrieval) closeFail(err error, what string) (*schemes.Response, error) {
	r.settle()
	return r.fail(err, what)
}

// settle closes the data connection of a transfer that is not to be read
// and reads what the control connection still owes, so that it stays in
// step: the reply of a RETR that started anyway (behind a refused CWD, or
// sent with a command that failed), which closing its data connection
// ends (RFC 959 §4.1.3), and the replies to what was sent behind it.
func (r *retrieval) settle() {
	closeData(r.data)
	if r.started {
		if _, _, err := r.x.readEnd(r.c.behindPending()); err != nil {
			r.c.abort()
		}
	}
	if _, err := r.c.readAhead(); err != nil {
		r.c.abort()
	}
}

// checkBeforeRetr answers If-Modified-Since from MDTM's reply, restarts
// a resume past the end, and refuses a file larger than MaxBytes, before
// the RETR is sent. done says the retrieval ended there.
func (r *retrieval) checkBeforeRetr() (resp *schemes.Response, err error, done bool) {
	req := r.req
	if !req.IfModifiedSince.IsZero() && !r.modified.IsZero() && !r.modified.After(req.IfModifiedSince) {
		r.stop()
		closeData(r.data)
		r.f.put(r.c)
		return &schemes.Response{URL: r.base, Kind: schemes.KindFile, Body: emptyBody{}, Size: r.size,
			Name: r.name, Type: typeWord(r.v), Modified: r.modified, NotModified: true}, nil, true
	}
	if r.size >= 0 && r.offset > r.size {
		r.offset = 0
	}
	if err := schemes.CheckSize("ftp: "+r.name, req.MaxBytes, r.size, r.offset); err != nil {
		r.stop()
		closeData(r.data)
		r.f.put(r.c)
		return nil, err, true
	}
	return nil, nil, false
}

// startRetr sends the RETR (after REST for a resume) unless it went with
// the first batch, until the transfer starts: once more when a data
// address read ahead went stale, and as a listing when the name is a
// directory. done says the retrieval ended there.
func (r *retrieval) startRetr() (resp *schemes.Response, err error, done bool) {
	c := r.c
	for try := 0; !r.started; try++ {
		if r.data == nil && (!r.eager || try > 0) {
			d, reused, err := r.x.passive(r.ctx, r.req)
			if err != nil {
				resp, err = r.fail(err, c.passiveLine())
				return resp, err, true
			}
			r.data, r.reusedData = d, reused
		}
		if !r.eager || try > 0 {
			if err := r.sendRetr(); err != nil {
				closeData(r.data)
				resp, err = r.fail(err, "RETR "+r.name)
				return resp, err, true
			}
		}
		if r.started {
			break
		}
		closeData(r.data)
		r.data = nil
		if _, aerr := c.readAhead(); aerr != nil {
			c.abort()
			resp, err = r.fail(aerr, "RETR "+r.name)
			return resp, err, true
		}
		if r.retrCode == 425 && (r.reusedData || r.dialErr != nil) && try == 0 {
			// The data address read ahead went stale, or its dial failed:
			// ask again.
			r.reusedData, r.dialErr = false, nil
			continue
		}
		resp, err = r.refused()
		return resp, err, true
	}
	if r.data == nil {
		// A RETR started after its data connection's dial failed: the
		// server waits for a connection that will not come.
		if r.dialErr == nil {
			r.dialErr = schemes.Errorf(schemes.ErrInterrupted, "ftp: no data connection")
		}
		c.abort()
		resp, err = r.fail(r.dialErr, "RETR "+r.name)
		return resp, err, true
	}
	return nil, nil, false
}

// sendRetr sends the RETR, after REST when resuming, with behind's lines
// after it. Its error is a broken connection; a refusal is in retrCode.
func (r *retrieval) sendRetr() error {
	steps := r.steps[:0]
	if r.offset > 0 {
		// RFC 3659 §5.3: a server without REST in stream mode refuses it,
		// and the RETR after it starts over.
		steps = append(steps, step{line: "REST " + strconv.FormatInt(r.offset, 10), then: func(code int, msg string) error {
			if code != 350 {
				// Never silently: the whole file comes again.
				r.req.Warnf(fmt.Sprintf("ftp: the server refused to resume at byte %d (%d %s); fetching %s from its start",
					r.offset, code, lineproto.ServerText(msg), r.name))
				r.offset = 0
			}
			return nil
		}})
	}
	r.steps = append(steps, r.retr)
	ahead := r.behind()
	_, err := r.x.batch(r.steps, ahead...)
	r.sentBehind(ahead)
	if err != nil && !isReply(err) {
		return err
	}
	return nil
}

// refused ends a RETR the server refused. A RETR refused with 550 on a
// name that CWD accepts is a directory: RFC 1738 §3.2.2 lets a client
// without ;type= guess, and this is how it finds out.
func (r *retrieval) refused() (*schemes.Response, error) {
	c := r.c
	if r.v.TypeCode == 0 && r.retrCode == 550 {
		c.moved, c.at = true, nil
		if _, cerr := r.x.batch([]step{{line: "CWD " + r.name, then: want2xx}}); cerr == nil {
			c.at = append(slices.Clone(r.dirs), r.name)
			return r.f.list(r.ctx, r.req, c, r.stop, r.fail, append(r.dirs[:len(r.dirs):len(r.dirs)], r.name))
		} else if !isReply(cerr) {
			return r.fail(cerr, "CWD "+r.name)
		}
	}
	return r.fail(replyErr(r.retrCode, r.retrMsg), "RETR "+r.name)
}

// response is the started transfer's response, its Body reading the data
// connection (by splice where it can) and recorded for a capture when it
// is the whole file.
func (r *retrieval) response() (*schemes.Response, error) {
	c, req := r.c, r.req
	var blk schemes.CaptureBlock
	if r.offset == 0 {
		rec := schemes.CaptureRecord{Type: "resource", URI: r.base.Redacted(), ContentType: mediaType(r.name),
			Protocol: c.protocols()}
		if r.hash.Alg != "" {
			rec.ServerDigest = strings.ToLower(r.hash.Alg) + ":" + r.hash.Hex
		}
		blk = schemes.StartCapture(req.Capture, rec)
	}
	var raw io.Writer
	if blk != nil {
		raw = blk
	}
	b := newBody(r.f, c, r.data, r.stop, r.offset, r.size, r.t == 'A', r.v.TypeCode == 'a', raw)
	b.afterKey = r.afterK
	if c.tlsData == nil && r.v.TypeCode != 'a' {
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
		URL:      r.base,
		Kind:     schemes.KindFile,
		Body:     rb,
		Offset:   r.offset,
		Size:     r.size,
		Name:     r.name,
		Type:     typeWord(r.v),
		Modified: r.modified,
		Hash:     r.hash,
	}, nil
}
