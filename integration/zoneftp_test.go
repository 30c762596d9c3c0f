package integration_test

// zoneFTP is a scripted FTP server (RFC 959, SIZE and MDTM of RFC 3659)
// for what vsftpd will not do on demand: LIST times in a time zone other
// than UTC, replies that fail a set number of times, a file that changes
// while it is sent. It serves an in-memory tree and logs every command.

import (
	"fmt"
	"net"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/hostile"
)

type zoneFile struct {
	data []byte
	mod  time.Time
}

type zoneFTP struct {
	zone *time.Location // LIST times are shown in this zone; MDTM in UTC
	now  time.Time

	mu    sync.Mutex
	files map[string]*zoneFile // "/a/b.txt"
	dirs  map[string]time.Time // "/a" (the root "/" is always there)
	fails map[string][]string  // RETR path -> replies to send instead, in turn ("" drops the connection)
	churn map[string]int       // RETR path -> transfers during which the file changes
	cmds  []string             // every command line received
	at    []zoneCmd            // the same, with connection and time
	retrs map[string]int       // RETR path -> transfers started

	conns, peak, nconn int // control connections open, the most at once, ever
	// hold, when set, keeps each RETR until three run at once or it passes.
	hold    time.Duration
	inRetr  int
	crowded chan struct{}
}

type zoneCmd struct {
	conn int
	at   time.Time
	line string
}

// held is what a RETR under hold waits for: three at once, or hold.
func (z *zoneFTP) held() {
	z.mu.Lock()
	if z.hold <= 0 {
		z.mu.Unlock()
		return
	}
	z.inRetr++
	if z.inRetr == 3 {
		close(z.crowded)
	}
	crowded, hold := z.crowded, z.hold
	z.mu.Unlock()
	t := time.NewTimer(hold)
	defer t.Stop()
	select {
	case <-crowded:
	case <-t.C:
	}
	z.mu.Lock()
	z.inRetr--
	z.mu.Unlock()
}

func newZoneFTP(zone *time.Location) *zoneFTP {
	return &zoneFTP{zone: zone, now: time.Now(), files: map[string]*zoneFile{}, dirs: map[string]time.Time{},
		fails: map[string][]string{}, churn: map[string]int{}, retrs: map[string]int{}, crowded: make(chan struct{})}
}

// put adds a file (and its directories, dated dirMod).
func (z *zoneFTP) put(p, data string, mod, dirMod time.Time) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.files[p] = &zoneFile{data: []byte(data), mod: mod}
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if _, ok := z.dirs[d]; !ok {
			z.dirs[d] = dirMod
		}
	}
}

func (z *zoneFTP) commands(verb string) []string {
	z.mu.Lock()
	defer z.mu.Unlock()
	var out []string
	for _, c := range z.cmds {
		if v, _, _ := strings.Cut(c, " "); strings.EqualFold(v, verb) {
			out = append(out, c)
		}
	}
	return out
}

func (z *zoneFTP) retrCount(p string) int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.retrs[p]
}

func (z *zoneFTP) start(t *testing.T) string {
	t.Helper()
	s, err := hostile.Start("127.0.0.1:0", z.serve)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.Addr()
}

// lsTime is ls -l's date in the server's zone: the time of day for a
// file of the last six months, the year otherwise.
func (z *zoneFTP) lsTime(t time.Time) string {
	lt := t.In(z.zone)
	if z.now.Sub(t) < 180*24*time.Hour && t.Sub(z.now) < time.Hour {
		return lt.Format("Jan _2 15:04")
	}
	return lt.Format("Jan _2  2006")
}

// list returns dir's LIST lines.
func (z *zoneFTP) list(dir string) []string {
	z.mu.Lock()
	defer z.mu.Unlock()
	var lines []string
	for p, f := range z.files {
		if path.Dir(p) == dir {
			lines = append(lines, fmt.Sprintf("-rw-r--r--   1 ftp      ftp      %8d %s %s\r\n", len(f.data), z.lsTime(f.mod), path.Base(p)))
		}
	}
	for d, mod := range z.dirs {
		if path.Dir(d) == dir {
			lines = append(lines, fmt.Sprintf("drwxr-xr-x   2 ftp      ftp          4096 %s %s\r\n", z.lsTime(mod), path.Base(d)))
		}
	}
	sort.Strings(lines)
	return lines
}

func (z *zoneFTP) isDir(p string) bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	_, ok := z.dirs[p]
	return ok || p == "/"
}

func (z *zoneFTP) file(p string) (zoneFile, bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	f, ok := z.files[p]
	if !ok {
		return zoneFile{}, false
	}
	return *f, true
}

// retr decides a RETR: the reply to fail with (drop: close the control
// connection), or the bytes to send.
func (z *zoneFTP) retr(p string) (fail string, drop bool, data []byte, ok bool) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if fs := z.fails[p]; len(fs) > 0 {
		z.fails[p] = fs[1:]
		return fs[0], fs[0] == "", nil, true
	}
	f, ok := z.files[p]
	if !ok {
		return "", false, nil, false
	}
	z.retrs[p]++
	return "", false, f.data, true
}

// sent is called after a file's bytes went out: a churning file changes
// now, as if written while it was read.
func (z *zoneFTP) sent(p string) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.churn[p] > 0 {
		z.churn[p]--
		f := z.files[p]
		f.data = append(f.data, " changed"...)
		f.mod = f.mod.Add(time.Minute + 7*time.Second)
	}
}

func (z *zoneFTP) serve(c *hostile.Conn) {
	z.mu.Lock()
	z.nconn++
	id := z.nconn
	z.conns++
	z.peak = max(z.peak, z.conns)
	z.mu.Unlock()
	defer func() {
		z.mu.Lock()
		z.conns--
		z.mu.Unlock()
	}()
	c.Send("220 scripted FTP in another zone\r\n")
	cwd := "/"
	var data net.Listener
	defer func() {
		if data != nil {
			data.Close()
		}
	}()
	accept := func() net.Conn {
		if data == nil {
			return nil
		}
		data.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
		dc, err := data.Accept()
		data.Close()
		data = nil
		if err != nil {
			return nil
		}
		return dc
	}
	for {
		line, ok := c.ReadLine()
		if !ok {
			return
		}
		z.mu.Lock()
		z.cmds = append(z.cmds, line)
		z.at = append(z.at, zoneCmd{id, time.Now(), line})
		z.mu.Unlock()
		verb, arg, _ := strings.Cut(line, " ")
		target := arg
		if !strings.HasPrefix(target, "/") {
			target = path.Join(cwd, target)
		}
		target = path.Clean(target)
		switch strings.ToUpper(verb) {
		case "USER":
			c.Send("331 password please\r\n")
		case "PASS":
			c.Send("230 logged in\r\n")
		case "FEAT":
			c.Send("211-Features:\r\n EPSV\r\n SIZE\r\n MDTM\r\n REST STREAM\r\n211 End\r\n")
		case "SYST":
			c.Send("215 UNIX Type: L8\r\n")
		case "PWD":
			c.Send(fmt.Sprintf("257 %q is the current directory\r\n", cwd))
		case "CWD":
			if z.isDir(target) {
				cwd = target
				c.Send("250 directory changed\r\n")
			} else {
				c.Send("550 no such directory\r\n")
			}
		case "TYPE", "OPTS", "MODE", "STRU", "NOOP":
			c.Send("200 ok\r\n")
		case "SIZE":
			if f, ok := z.file(target); ok {
				c.Send(fmt.Sprintf("213 %d\r\n", len(f.data)))
			} else {
				c.Send("550 no such file\r\n")
			}
		case "MDTM":
			if f, ok := z.file(target); ok {
				c.Send("213 " + f.mod.UTC().Format("20060102150405") + "\r\n")
			} else {
				c.Send("550 no such file\r\n")
			}
		case "REST":
			c.Send("350 restarting\r\n")
		case "EPSV":
			if data != nil {
				data.Close()
			}
			var err error
			if data, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				c.Send("425 no data\r\n")
				continue
			}
			c.Send(fmt.Sprintf("229 Entering Extended Passive Mode (|||%d|)\r\n", data.Addr().(*net.TCPAddr).Port))
		case "LIST", "RETR":
			var body []byte
			if strings.EqualFold(verb, "RETR") {
				fail, drop, b, ok := z.retr(target)
				switch {
				case drop:
					return
				case fail != "":
					c.Send(fail + "\r\n")
					continue
				case !ok:
					c.Send("550 no such file\r\n")
					continue
				}
				body = b
				z.held()
			} else {
				body = []byte(strings.Join(z.list(cwd), ""))
			}
			dc := accept()
			if dc == nil {
				c.Send("425 no data connection\r\n")
				continue
			}
			c.Send("150 here it comes\r\n")
			dc.Write(body)
			dc.Close()
			if strings.EqualFold(verb, "RETR") {
				z.sent(target)
			}
			c.Send("226 done\r\n")
		case "QUIT":
			c.Send("221 bye\r\n")
			return
		default:
			c.Send("502 not implemented\r\n")
		}
	}
}
