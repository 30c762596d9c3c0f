package hostile

import (
	"fmt"
	"net"
	"strings"
	"time"
)

// FTP modes.
const (
	FTPEndlessGreeting = "endless-greeting" // the 220 line never ends
	FTPGarbage         = "garbage"          // the greeting is not an FTP reply
	FTPReplyStorm      = "reply-storm"      // endless 1xx preliminary replies after USER
	FTPOversize        = "oversize"         // RETR sends 20 MiB of unknown size
	FTPTrickle         = "trickle"          // RETR sends one byte every 200 ms, forever
	FTPSilent          = "silent"           // RETR sends 1000 bytes, then nothing, holding the connection
	FTPCut             = "cut"              // SIZE says 1 000 000; RETR sends 100 000 and closes everything
	FTPMillion         = "million"          // LIST of 1 000 000 entries
	FTPForeignPASV     = "foreign-pasv"     // EPSV refused; PASV names another address
	FTPRefuseTLS       = "refuse-tls"       // AUTH TLS answered 534
)

// FTP returns a hostile FTP server's handler. foreign is the "host:port"
// a FTPForeignPASV reply names (a listener the test watches).
func FTP(mode, foreign string) func(*Conn) {
	return func(c *Conn) { serveFTP(c, mode, foreign) }
}

func serveFTP(c *Conn, mode, foreign string) {
	switch mode {
	case FTPEndlessGreeting:
		c.Send("220 ")
		c.Endless("welcome ")
		return
	case FTPGarbage:
		c.Send("SSH-2.0-OpenSSH_9.2\r\n")
		c.Silent()
		return
	}
	c.Send("220 hostile FTP\r\n")
	var data net.Listener
	defer func() {
		if data != nil {
			data.Close()
		}
	}()
	for {
		line, ok := c.ReadLine()
		if !ok {
			return
		}
		verb, _, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "USER":
			if mode == FTPReplyStorm {
				c.Endless("150 still thinking\r\n")
				return
			}
			c.Send("331 password please\r\n")
		case "PASS":
			c.Send("230 logged in\r\n")
		case "AUTH":
			if mode == FTPRefuseTLS {
				c.Send("534 TLS not available\r\n")
			} else {
				c.Send("502 no\r\n")
			}
		case "FEAT":
			c.Send("211-Features:\r\n EPSV\r\n PASV\r\n SIZE\r\n REST STREAM\r\n211 End\r\n")
		case "SYST":
			c.Send("215 UNIX Type: L8\r\n")
		case "PWD":
			c.Send("257 \"/\" is the current directory\r\n")
		case "CWD":
			c.Send("250 directory changed\r\n")
		case "TYPE", "OPTS", "MODE", "STRU":
			c.Send("200 ok\r\n")
		case "SIZE":
			if mode == FTPCut {
				c.Send("213 1000000\r\n")
			} else {
				c.Send("550 size unknown\r\n")
			}
		case "MDTM":
			c.Send("550 no time\r\n")
		case "REST":
			c.Send("350 restarting\r\n")
		case "EPSV":
			if mode == FTPForeignPASV {
				c.Send("502 EPSV not here\r\n")
				continue
			}
			if data = reopen(c, data); data != nil {
				c.Send(fmt.Sprintf("229 Entering Extended Passive Mode (|||%d|)\r\n", data.Addr().(*net.TCPAddr).Port))
			}
		case "PASV":
			if mode == FTPForeignPASV {
				h, p, _ := net.SplitHostPort(foreign)
				c.Send(fmt.Sprintf("227 Entering Passive Mode (%s,%s)\r\n", strings.ReplaceAll(h, ".", ","), portPair(p)))
				continue
			}
			if data = reopen(c, data); data != nil {
				c.Send(fmt.Sprintf("227 Entering Passive Mode (127,0,0,1,%s)\r\n", portPair(fmt.Sprint(data.Addr().(*net.TCPAddr).Port))))
			}
		case "RETR", "LIST", "NLST", "MLSD":
			if data == nil {
				c.Send("425 use PASV first\r\n")
				continue
			}
			dc := acceptData(data, c)
			data.Close()
			data = nil
			if dc == nil {
				c.Send("425 no data connection\r\n")
				continue
			}
			c.Send("150 here it comes\r\n")
			if !sendFTPData(c, dc, mode, strings.ToUpper(verb)) {
				return
			}
		case "ABOR":
			c.Send("226 aborted\r\n")
		case "QUIT":
			c.Send("221 bye\r\n")
			return
		default:
			c.Send("502 not implemented\r\n")
		}
	}
}

// sendFTPData plays the mode on the data connection; false means the
// control connection is to be dropped too.
func sendFTPData(c *Conn, dc net.Conn, mode, verb string) bool {
	d := &Conn{Conn: dc, closed: c.closed}
	defer dc.Close()
	if verb != "RETR" {
		if mode == FTPMillion {
			for i := 0; i < 1_000_000; i++ {
				if !d.Send(fmt.Sprintf("-rw-r--r--   1 ftp      ftp          %7d Dec 20  1994 file-%07d.txt\r\n", i, i)) {
					return false
				}
			}
		}
		dc.Close()
		return c.Send("226 listing done\r\n")
	}
	switch mode {
	case FTPOversize:
		d.Bytes(20 << 20)
	case FTPTrickle:
		d.Trickle("trickle ", 200*time.Millisecond)
		return false
	case FTPSilent:
		d.Bytes(1000)
		d.Silent()
		return false
	case FTPCut:
		d.Bytes(100_000)
		return false
	default:
		d.Send("hello\r\n")
	}
	dc.Close()
	return c.Send("226 transfer complete\r\n")
}

// reopen replaces the passive data listener; nil (with a 425 sent) when
// none can be had.
func reopen(c *Conn, old net.Listener) net.Listener {
	if old != nil {
		old.Close()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		c.Send("425 no data\r\n")
		return nil
	}
	return ln
}

// acceptData waits (bounded) for the client's data connection.
func acceptData(ln net.Listener, c *Conn) net.Conn {
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	dc, err := ln.Accept()
	if err != nil {
		return nil
	}
	return dc
}

func portPair(port string) string {
	var p int
	fmt.Sscan(port, &p)
	return fmt.Sprintf("%d,%d", p/256, p%256)
}
