package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// FTPServer answers FTP (RFC 959, with the EPSV of RFC 2428 and the SIZE,
// MDTM, REST STREAM and MLSD of RFC 3659) from the captures of one FTP
// server in an Archive, read-only and passive only: any login is
// accepted, every command that would change the tree is refused (550),
// and PORT and EPRT are refused (the replay opens no connection).
type FTPServer struct {
	host string
	tree *ftpTree
	warn func(string)
	run  running
}

// NewFTPServer returns the server of the captures of host ("host:port" as
// FTPHosts names it; "" for the first captured). warn receives one line
// per record that cannot be read while serving; nil discards them.
func NewFTPServer(a *Archive, host string, warn func(string)) (*FTPServer, error) {
	host, err := pickHost("ftp", a.FTPHosts(), host, 21)
	if err != nil {
		return nil, err
	}
	if warn == nil {
		warn = func(string) {}
	}
	return &FTPServer{host: host, tree: newFTPTree(a, host), warn: warn}, nil
}

// Host returns the "host:port" the server replays.
func (s *FTPServer) Host() string { return s.host }

// Files returns how many files the server replays.
func (s *FTPServer) Files() int { return len(s.tree.files) }

// Serve answers the connections ln accepts until ctx ends, Close is
// called or ln fails; see Server.
func (s *FTPServer) Serve(ctx context.Context, ln net.Listener) error {
	return s.run.serve(ctx, ln, "ftp", func(c net.Conn) {
		sess := &ftpSession{s: s, c: c, br: bufio.NewReaderSize(c, 4096), cwd: "/"}
		defer sess.closePassive()
		sess.run()
	})
}

// ListenAndServe listens on the TCP address addr (DefaultAddr("ftp")
// when "") and calls Serve.
func (s *FTPServer) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := listen("ftp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Close stops every Serve of s and returns once each has returned.
func (s *FTPServer) Close() error { return s.run.close() }

// String says what s replays, as "127.0.0.21:21 7 files".
func (s *FTPServer) String() string { return fmt.Sprintf("%s %d files", s.host, s.Files()) }

// ftpSession is one control connection.
type ftpSession struct {
	s        *FTPServer
	c        net.Conn
	br       *bufio.Reader
	cwd      string
	user     bool
	loggedIn bool
	rest     int64
	pasv     net.Listener
}

func (f *ftpSession) reply(code int, text string) {
	f.c.SetWriteDeadline(time.Now().Add(idleTimeout))
	fmt.Fprintf(f.c, "%d %s\r\n", code, text)
}

// readOnly are the commands that would change the server's tree.
var readOnly = []string{"STOR", "STOU", "APPE", "DELE", "MKD", "XMKD", "RMD", "XRMD", "RNFR", "RNTO", "SITE", "ALLO"}

func (f *ftpSession) run() {
	f.reply(220, "gofer replay of "+f.s.host+", read-only")
	for {
		f.c.SetReadDeadline(time.Now().Add(5 * time.Minute))
		line, err := readLine(f.br)
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		if !f.loggedIn && !slices.Contains([]string{"USER", "PASS", "QUIT", "SYST", "FEAT", "AUTH", "HELP", "NOOP", "OPTS"}, verb) {
			f.reply(530, "Please log in with USER and PASS.")
			continue
		}
		switch verb {
		case "USER":
			f.user, f.loggedIn = true, false
			f.reply(331, "Any password will do.")
		case "PASS":
			if !f.user {
				f.reply(503, "USER first.")
				continue
			}
			f.loggedIn = true
			f.reply(230, "Logged in to a read-only replay.")
		case "QUIT":
			f.reply(221, "Goodbye.")
			return
		case "SYST":
			f.reply(215, "UNIX Type: L8")
		case "FEAT":
			f.c.Write([]byte("211-Features:\r\n EPSV\r\n PASV\r\n SIZE\r\n MDTM\r\n REST STREAM\r\n MLST type*;size*;modify*;\r\n UTF8\r\n TVFS\r\n211 End\r\n"))
		case "OPTS":
			f.reply(200, "OK.")
		case "NOOP", "CLNT":
			f.reply(200, "OK.")
		case "HELP":
			f.reply(214, "A read-only replay: USER PASS SYST FEAT TYPE MODE STRU PWD CWD CDUP EPSV PASV LIST NLST MLSD MLST SIZE MDTM REST RETR QUIT.")
		case "TYPE":
			switch t := strings.ToUpper(strings.TrimSpace(arg)); t {
			case "A", "A N", "I", "L 8":
				f.reply(200, "Type set to "+t+" (files are sent as captured).")
			default:
				f.reply(504, "Type not supported.")
			}
		case "MODE":
			f.onlyOne(arg, "S", "Mode")
		case "STRU":
			f.onlyOne(arg, "F", "Structure")
		case "PWD", "XPWD":
			f.reply(257, `"`+strings.ReplaceAll(f.cwd, `"`, `""`)+`" is the current directory`)
		case "CWD", "XCWD":
			f.cd(arg)
		case "CDUP", "XCUP":
			f.cwd = path.Dir(f.cwd)
			f.reply(250, "Directory changed to "+f.cwd)
		case "EPSV":
			if strings.EqualFold(strings.TrimSpace(arg), "ALL") {
				f.reply(200, "EPSV ALL ok.")
				continue
			}
			if port, ok := f.listen(); ok {
				f.reply(229, fmt.Sprintf("Entering Extended Passive Mode (|||%d|)", port))
			}
		case "PASV":
			ip := localIP(f.c).To4()
			if ip == nil {
				f.reply(425, "PASV needs IPv4: use EPSV.")
				continue
			}
			if port, ok := f.listen(); ok {
				f.reply(227, fmt.Sprintf("Entering Passive Mode (%d,%d,%d,%d,%d,%d).", ip[0], ip[1], ip[2], ip[3], port>>8, port&0xff))
			}
		case "PORT", "EPRT":
			f.reply(502, "Active mode is not offered: use PASV or EPSV.")
		case "AUTH", "PBSZ", "PROT", "CCC":
			f.reply(502, "No TLS in a replay.")
		case "REST":
			n, err := strconv.ParseInt(strings.TrimSpace(arg), 10, 64)
			if err != nil || n < 0 {
				f.reply(501, "REST needs a byte offset.")
				continue
			}
			f.rest = n
			f.reply(350, fmt.Sprintf("Restarting at %d.", n))
		case "SIZE":
			f.size(arg)
		case "MDTM":
			f.mdtm(arg)
		case "RETR":
			f.retr(arg)
			f.rest = 0 // REST holds for the next transfer only
		case "LIST", "NLST", "MLSD":
			f.list(verb, arg)
		case "MLST":
			f.mlst(arg)
		case "ABOR":
			f.reply(226, "Nothing to abort.")
		case "STAT":
			f.reply(211, "gofer replay of "+f.s.host)
		default:
			if slices.Contains(readOnly, verb) {
				f.reply(550, "Read-only replay: nothing can be changed.")
			} else {
				f.reply(502, "Command not implemented.")
			}
		}
	}
}

func (f *ftpSession) onlyOne(arg, want, what string) {
	if strings.EqualFold(strings.TrimSpace(arg), want) {
		f.reply(200, what+" set to "+want+".")
	} else {
		f.reply(504, what+" not supported.")
	}
}

func (f *ftpSession) cd(arg string) {
	p, ok := resolve(f.cwd, arg)
	if !ok || f.s.tree.dirs[p] == nil {
		f.reply(550, "No such directory was captured.")
		return
	}
	f.cwd = p
	f.reply(250, "Directory changed to "+p)
}

func localIP(c net.Conn) net.IP {
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok {
		return a.IP
	}
	return nil
}

// listen opens the passive data listener on the control connection's
// local address.
func (f *ftpSession) listen() (int, bool) {
	f.closePassive()
	ln, err := net.ListenTCP("tcp", &net.TCPAddr{IP: localIP(f.c)})
	if err != nil {
		f.reply(425, "Cannot open a data connection.")
		return 0, false
	}
	f.pasv = ln
	return ln.Addr().(*net.TCPAddr).Port, true
}

func (f *ftpSession) closePassive() {
	if f.pasv != nil {
		f.pasv.Close()
		f.pasv = nil
	}
}

// data accepts the data connection on the passive listener: only from the
// control connection's client.
func (f *ftpSession) data() (net.Conn, error) {
	if f.pasv == nil {
		return nil, errors.New("no PASV or EPSV first")
	}
	ln := f.pasv.(*net.TCPListener)
	defer f.closePassive()
	want := f.c.RemoteAddr().(*net.TCPAddr).IP
	ln.SetDeadline(time.Now().Add(30 * time.Second))
	for {
		c, err := ln.Accept()
		if err != nil {
			return nil, err
		}
		if c.RemoteAddr().(*net.TCPAddr).IP.Equal(want) {
			return c, nil
		}
		c.Close()
	}
}

// transfer sends what write writes over the data connection, between the
// 150 and 226 replies.
func (f *ftpSession) transfer(what string, write func(io.Writer) error) {
	f.reply(150, "Opening BINARY mode data connection for "+what+".")
	dc, err := f.data()
	if err != nil {
		f.reply(425, "No data connection: "+err.Error())
		return
	}
	bw := bufio.NewWriterSize(&deadlineWriter{c: dc}, 32<<10)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	dc.Close()
	if err != nil {
		f.reply(426, "Transfer aborted.")
		return
	}
	f.reply(226, "Transfer complete.")
}

func (f *ftpSession) file(arg string) (string, string, bool) {
	p, ok := resolve(f.cwd, arg)
	if !ok {
		return "", "", false
	}
	uri, ok := f.s.tree.files[p]
	return p, uri, ok
}

func (f *ftpSession) size(arg string) {
	_, uri, ok := f.file(arg)
	if !ok {
		f.reply(550, "No such file was captured.")
		return
	}
	pl, err := f.s.tree.a.Lookup(uri, "resource")
	if err != nil {
		f.s.warn(err.Error())
		f.reply(550, "The capture cannot be read.")
		return
	}
	pl.Close()
	f.reply(213, strconv.FormatInt(pl.Size, 10))
}

func (f *ftpSession) mdtm(arg string) {
	p, _, ok := f.file(arg)
	if !ok {
		f.reply(550, "No such file was captured.")
		return
	}
	m, ok := f.s.tree.modTime(p)
	if !ok {
		f.reply(550, "Its modification time was not captured.")
		return
	}
	f.reply(213, m.UTC().Format("20060102150405"))
}

func (f *ftpSession) retr(arg string) {
	p, uri, ok := f.file(arg)
	if !ok {
		f.closePassive()
		f.reply(550, "No such file was captured.")
		return
	}
	pl, err := f.s.tree.a.Lookup(uri, "resource")
	if err != nil {
		f.closePassive()
		f.s.warn(err.Error())
		f.reply(550, "The capture cannot be read.")
		return
	}
	defer pl.Close()
	rest := f.rest
	if rest > pl.Size {
		f.closePassive()
		f.reply(554, "REST is past the end of the file.")
		return
	}
	f.transfer(fmt.Sprintf("%s (%d bytes)", path.Base(p), pl.Size-rest), func(w io.Writer) error {
		if _, err := io.CopyN(io.Discard, pl, rest); err != nil {
			return err
		}
		_, err := io.Copy(w, pl)
		if err != nil {
			f.s.warn(fmt.Sprintf("%s: %v", uri, err))
		}
		return err
	})
}
