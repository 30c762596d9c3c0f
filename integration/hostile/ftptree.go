package hostile

import (
	"fmt"
	"net"
	"path"
	"strings"
	"time"
)

// FTPFiles is what ServeFTPTree serves: a tree of directories and files,
// and the faults a test wants at RETR.
type FTPFiles interface {
	IsDir(p string) bool
	// List sends dir's LIST lines on the data connection w.
	List(dir string, w *Conn)
	// Stat returns a file's size and modification time.
	Stat(p string) (size int64, mod time.Time, ok bool)
	// Retr decides a RETR of p: a reply to fail with instead (drop:
	// close the control connection without one), or the bytes to send.
	Retr(p string) (fail string, drop bool, body []byte, ok bool)
	// Sent is told that p's bytes went out and the data connection closed.
	Sent(p string)
}

// ServeFTPTree speaks the FTP a mirror needs (RFC 959, with EPSV of RFC
// 2428 and SIZE and MDTM of RFC 3659) over fs: login, CWD and CDUP with a
// working directory per connection, PWD, EPSV and PASV, LIST of the
// working directory or a named one, SIZE, MDTM, REST and RETR. MLSD and
// NLST are refused with 550. log, if set, receives every command line.
func ServeFTPTree(c *Conn, fs FTPFiles, log func(line string)) {
	c.Send("220 scripted FTP\r\n")
	cwd := "/"
	var data net.Listener
	defer func() {
		if data != nil {
			data.Close()
		}
	}()
	open := func() bool {
		if data != nil {
			data.Close()
		}
		var err error
		data, err = net.Listen("tcp", "127.0.0.1:0")
		return err == nil
	}
	accept := func() net.Conn {
		if data == nil {
			return nil
		}
		dc := acceptData(data, c)
		data.Close()
		data = nil
		return dc
	}
	for {
		line, ok := c.ReadLine()
		if !ok {
			return
		}
		if log != nil {
			log(line)
		}
		verb, arg, _ := strings.Cut(line, " ")
		target := arg
		if !strings.HasPrefix(target, "/") {
			target = path.Join(cwd, target)
		}
		target = path.Clean(target)
		switch v := strings.ToUpper(verb); v {
		case "USER":
			c.Send("331 password please\r\n")
		case "PASS":
			c.Send("230 logged in\r\n")
		case "FEAT":
			c.Send("211-Features:\r\n EPSV\r\n PASV\r\n SIZE\r\n MDTM\r\n REST STREAM\r\n211 End\r\n")
		case "SYST":
			c.Send("215 UNIX Type: L8\r\n")
		case "PWD":
			c.Send(fmt.Sprintf("257 %q is the current directory\r\n", cwd))
		case "CWD":
			if fs.IsDir(target) {
				cwd = target
				c.Send("250 directory changed\r\n")
			} else {
				c.Send("550 no such directory\r\n")
			}
		case "CDUP":
			cwd = path.Dir(cwd)
			c.Send("250 ok\r\n")
		case "TYPE", "OPTS", "MODE", "STRU", "NOOP":
			c.Send("200 ok\r\n")
		case "SIZE", "MDTM":
			size, mod, ok := fs.Stat(target)
			switch {
			case !ok:
				c.Send("550 no such file\r\n")
			case v == "SIZE":
				c.Send(fmt.Sprintf("213 %d\r\n", size))
			default:
				c.Send("213 " + mod.UTC().Format("20060102150405") + "\r\n")
			}
		case "REST":
			c.Send("350 restarting\r\n")
		case "EPSV":
			if open() {
				c.Send(fmt.Sprintf("229 Entering Extended Passive Mode (|||%d|)\r\n", data.Addr().(*net.TCPAddr).Port))
			} else {
				c.Send("425 no data\r\n")
			}
		case "PASV":
			if open() {
				p := data.Addr().(*net.TCPAddr).Port
				c.Send(fmt.Sprintf("227 Entering Passive Mode (127,0,0,1,%d,%d)\r\n", p/256, p%256))
			} else {
				c.Send("425 no data\r\n")
			}
		case "MLSD", "NLST":
			accept()
			c.Send("550 not here\r\n")
		case "LIST":
			dir := cwd
			if arg != "" && !strings.HasPrefix(arg, "-") {
				dir = target
			}
			dc := accept()
			if dc == nil {
				c.Send("425 no data connection\r\n")
				continue
			}
			c.Send("150 here it comes\r\n")
			fs.List(dir, &Conn{Conn: dc})
			dc.Close()
			c.Send("226 done\r\n")
		case "RETR":
			fail, drop, body, ok := fs.Retr(target)
			switch {
			case drop:
				return
			case fail != "":
				c.Send(fail + "\r\n")
				continue
			case !ok:
				accept()
				c.Send("550 no such file\r\n")
				continue
			}
			dc := accept()
			if dc == nil {
				c.Send("425 no data connection\r\n")
				continue
			}
			c.Send("150 here it comes\r\n")
			dc.Write(body)
			dc.Close()
			fs.Sent(target)
			c.Send("226 done\r\n")
		case "QUIT":
			c.Send("221 bye\r\n")
			return
		default:
			c.Send("502 not implemented\r\n")
		}
	}
}
