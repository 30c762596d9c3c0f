package ftp

import (
	"context"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// Connection limits. Servers cap the connections one address may hold
// (ProFTPD's MaxClientsPerHost, Pure-FTPd's -C, vsftpd's max_per_ip) or the
// users logged in at once. Past the cap they answer the greeting with 421,
// or USER or PASS with 421 or 530, in words that say so. The Fetcher counts
// the control connections it holds to each server, opening, in use or kept
// for reuse. A refusal of that kind makes the number the server named, or
// else the number held when it came, the server's limit: from then on a
// fetch waits for one of those connections (kept ones are handed on)
// instead of opening another. A refusal that comes while none of ours is
// held (other clients hold the slots) is waited out with pauses that grow.

// busyPauses are the waits before trying again a server that refused a
// connection while this Fetcher held none to it.
var busyPauses = [...]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}

// slots is what the Fetcher knows of one server's connections.
type slots struct {
	open   int           // control connections held: opening, in use or kept
	limit  int           // the server's limit as learned, 0 when none is known
	spares int           // of open, spare connections still logging in (spare.go)
	freed  chan struct{} // closed (and replaced) when a connection is released or kept
}

// serverSlots returns the slots of server, made on first use. f.mu is held.
func (f *Fetcher) serverSlots(server string) *slots {
	if f.slots == nil {
		f.slots = map[string]*slots{}
	}
	s := f.slots[server]
	if s == nil {
		s = &slots{freed: make(chan struct{})}
		f.slots[server] = s
	}
	return s
}

// signal wakes the fetches waiting for a connection to s's server. f.mu is
// held.
func (s *slots) signal() {
	close(s.freed)
	s.freed = make(chan struct{})
}

// ConnLimit is the number of connections at once the server at host and
// port was found to allow, 0 when it has refused none. Spare connections
// still logging in to it (Request.Spare) are waited for, up to
// spareSettle: a refusal of one of them is what teaches the limit.
func (f *Fetcher) ConnLimit(host string, port int) int {
	server := net.JoinHostPort(host, strconv.Itoa(port))
	settle := time.NewTimer(spareSettle)
	defer settle.Stop()
	for {
		f.mu.Lock()
		s := f.slots[server]
		if s == nil {
			f.mu.Unlock()
			return 0
		}
		limit, spares, freed := s.limit, s.spares, s.freed
		f.mu.Unlock()
		if spares == 0 {
			return limit
		}
		select {
		case <-freed:
		case <-settle.C:
			return limit
		}
	}
}

// spareSettle bounds how long ConnLimit waits for spares to log in.
const spareSettle = 5 * time.Second

// SetConnLimit keeps the Fetcher to n connections at once to the server at
// host and port (a limit an earlier run learned); n <= 0 lifts it.
func (f *Fetcher) SetConnLimit(host string, port, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.serverSlots(net.JoinHostPort(host, strconv.Itoa(port)))
	s.limit = max(n, 0)
	s.signal()
}

var _ schemes.ConnLimiter = (*Fetcher)(nil)

// acquire returns a logged-in connection for key: a kept one (reused),
// else a new one once the server's limit leaves room for it, waiting for a
// connection of ours to be kept or closed while it does not.
func (f *Fetcher) acquire(ctx context.Context, req *schemes.Request, key poolKey, who login, dirs []string, greeted func()) (c *conn, reused bool, err error) {
	server := key.server()
	pauses := 0
	lingered := false
	for {
		if c := f.take(key, dirs); c != nil {
			return c, true, nil
		}
		wait, spare := f.reserve(key)
		if spare != nil {
			// A kept connection of another login holds the slot: end it.
			spare.close()
			continue
		}
		if wait != nil {
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, false, dial.Classify(ctx.Err(), "wait for a connection to "+server)
			}
		}
		// The fetch's CWDs, and the passive command of a transfer, go out
		// with the login.
		to := f.landing(key, who, dirs, req.IfModifiedSince.IsZero(), false)
		to.greeted = greeted
		c, err = f.openLogin(ctx, req, key, who, to)
		if err == nil {
			c.release = f.releaser(server)
			return c, false, nil
		}
		held := f.unreserve(server)
		if !schemes.Busy(err) || ctx.Err() != nil {
			return nil, false, err
		}
		// Refused so again after the pause a lingering one of ours is
		// given, the count we hold is the limit.
		linger := f.refused(req, server, held, err, !lingered)
		lingered = lingered || linger
		if held > 0 && !linger {
			continue // wait for one of ours
		}
		if pauses == len(busyPauses) {
			return nil, false, err
		}
		t := time.NewTimer(busyPauses[pauses])
		pauses++
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, false, dial.Classify(ctx.Err(), "wait for a connection to "+server)
		}
	}
}

// reserve counts a connection about to be opened to key's server. When the
// server's limit is reached it reserves nothing and returns a channel
// closed when that may change, or a kept connection of another login to
// the same server, taken from the pool, whose end makes room.
func (f *Fetcher) reserve(key poolKey) (wait <-chan struct{}, spare *conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.serverSlots(key.server())
	if s.spares > 0 {
		// A spare on its way is the connection to wait for: another
		// opened now would be one more than the caller asked for.
		return s.freed, nil
	}
	if s.limit == 0 || s.open < s.limit {
		s.open++
		return nil, nil
	}
	for k, cs := range f.idle {
		if k.server() == key.server() && k != key && len(cs) > 0 {
			spare = cs[len(cs)-1]
			f.idle[k] = cs[:len(cs)-1]
			f.nidle--
			return nil, spare
		}
	}
	return s.freed, nil
}

// unreserve gives back a reservation: a connection that failed to open,
// or one that ended. It returns how many connections to server are still
// held.
func (f *Fetcher) unreserve(server string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.serverSlots(server)
	s.open--
	s.signal()
	return s.open
}

// releaser returns the function a connection calls once when it ends.
func (f *Fetcher) releaser(server string) func() {
	return func() { f.unreserve(server) }
}

// refused learns server's limit from err, a refusal for its limit that
// came while held of our connections were open, and says so. A refusal
// that names more connections than we hold is, when trusted, the server
// still counting one of ours that has just ended (a server process
// outlives its client's QUIT for a moment): its number is the limit, and
// refused reports true, the refusal lingering. Otherwise the limit
// learned is what we hold, or the number named when no larger.
func (f *Fetcher) refused(req *schemes.Request, server string, held int, err error, trust bool) (lingering bool) {
	named := busyNumber(err.Error())
	lingering = trust && held > 0 && named > held
	if lingering {
		f.learnLimit(server, named, named)
	} else {
		f.learnLimit(server, held, named)
	}
	req.Warnf("ftp: " + server + " refused another connection (" + err.Error() + "); going on with " + f.limitWords(server))
	return lingering
}

// learnLimit lowers server's limit after a refusal that came while held of
// our connections were open: to the number the server named, when it named
// one no larger, else to held (at least one).
func (f *Fetcher) learnLimit(server string, held, named int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.serverSlots(server)
	n := max(held, 1)
	if named > 0 && named <= n {
		n = named
	}
	if s.limit == 0 || n < s.limit {
		s.limit = n
	}
}

// limitWords says how many connections server gets now.
func (f *Fetcher) limitWords(server string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.serverSlots(server).limit
	if n == 1 {
		return "1 connection"
	}
	return strconv.Itoa(n) + " connections"
}

// busyText matches the words servers use to refuse a connection for a
// limit or for load: "421 Too many connections (2) from this IP" (Pure-FTPd),
// "530 Sorry, max 2 clients per host" (ProFTPD), "421 There are too many
// connected users" (vsftpd), "421 Server is busy, try again later".
var busyText = regexp.MustCompile(`(?i)too many|max(imum)? (of )?\d+|clients per|connections (per|from)|users? limit|connection limit|limit reached|busy|overload|try (again )?later|no more (connections|users)|maximum number|server (is )?full`)

// isBusyReply reports whether a reply to the greeting or the login refuses
// a connection for a limit or for load.
func isBusyReply(code int, msg string) bool {
	return (code == 421 || code == 530) && busyText.MatchString(msg)
}

var busyCount = regexp.MustCompile(`(?i)(?:max(?:imum)?(?: of)? |\()(\d{1,3})\b`)

// busyNumber is the limit a busy reply names ("max 2 clients", "Too many
// connections (2)"), 0 when it names none.
func busyNumber(msg string) int {
	m := busyCount.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// busyError is a server's refusal of another connection: transient, and
// marked so that the Fetcher lowers its limit.
func busyError(code int, msg string) error {
	return schemes.ReplyErrorf(schemes.ErrRefused, &schemes.ReplyError{Code: code, Transient: true, Busy: true},
		"%d %s", code, lineproto.ServerText(strings.TrimSpace(msg)))
}
