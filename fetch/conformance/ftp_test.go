package conformance

import (
	"bufio"
	"fmt"
	"net"
	"strings"
)

// ftpAdapter serves the objects from a scripted FTP server (RFC 959) that
// answers like vsftpd; with implicit TLS it is the ftps: server, its data
// connections behind TLS too.
func ftpAdapter(implicitTLS bool) Adapter {
	scheme := "ftp"
	if implicitTLS {
		scheme = "ftps"
	}
	return Adapter{
		TLS:            implicitTLS,
		Serve:          serveFTP,
		ListingEntries: 2,
		URL: func(addr string, o Object) string {
			switch o {
			case Listing:
				return scheme + "://" + addr + "/dir/"
			case Missing:
				return scheme + "://" + addr + "/dir/missing.bin"
			}
			return scheme + "://" + addr + "/dir/" + string(o) + ".bin"
		},
	}
}

type ftpSession struct {
	c      net.Conn
	w      *bufio.Writer
	env    *Env
	cwd    string
	dataLn net.Listener
}

func serveFTP(c net.Conn, env *Env) {
	s := &ftpSession{c: c, w: bufio.NewWriter(c), env: env, cwd: "/"}
	defer s.closeData()
	r := bufio.NewReader(c)
	s.reply("220 (conformance FTP)")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		if !s.handle(strings.ToUpper(verb), arg) {
			return
		}
	}
}

func (s *ftpSession) reply(format string, args ...any) {
	fmt.Fprintf(s.w, format+"\r\n", args...)
	s.w.Flush()
}

// name is the object a RETR, SIZE or MDTM argument names in /dir, "" if none.
func (s *ftpSession) name(arg string) string {
	p := arg
	if !strings.HasPrefix(p, "/") {
		p = strings.TrimSuffix(s.cwd, "/") + "/" + p
	}
	name, ok := strings.CutPrefix(p, "/dir/")
	if !ok {
		return ""
	}
	switch o := Object(strings.TrimSuffix(name, ".bin")); o {
	case Small, Large, Stall, Cut, Gated:
		return string(o)
	}
	return ""
}

func (s *ftpSession) handle(verb, arg string) bool {
	switch verb {
	case "USER":
		s.reply("331 Please specify the password.")
	case "PASS":
		s.reply("230 Login successful.")
	case "PBSZ":
		s.reply("200 PBSZ set to 0.")
	case "PROT":
		s.reply("200 PROT now Private.")
	case "FEAT":
		s.reply("211-Features:\r\n EPSV\r\n MDTM\r\n PASV\r\n REST STREAM\r\n SIZE\r\n UTF8\r\n211 End")
	case "OPTS":
		s.reply("200 Always in UTF8 mode.")
	case "TYPE":
		s.reply("200 Switching to Binary mode.")
	case "PWD":
		s.reply("257 \"%s\" is the current directory", s.cwd)
	case "CWD":
		switch arg {
		case "dir", "/dir", "dir/", "/dir/":
			s.cwd = "/dir"
			s.reply("250 Directory successfully changed.")
		case "/", "..":
			s.cwd = "/"
			s.reply("250 Directory successfully changed.")
		default:
			s.reply("550 Failed to change directory.")
		}
	case "CDUP":
		s.cwd = "/"
		s.reply("250 Directory successfully changed.")
	case "SIZE":
		// Only the small object tells its size: the others test limits
		// that hold when no size is known beforehand.
		if s.name(arg) == string(Small) {
			s.reply("213 %d", len(SmallBody))
		} else {
			s.reply("550 Could not get file size.")
		}
	case "MDTM":
		if s.name(arg) != "" {
			s.reply("213 20240102030405")
		} else {
			s.reply("550 Could not get file modification time.")
		}
	case "EPSV":
		if !s.listenData() {
			s.reply("425 Cannot open a data connection.")
			return true
		}
		s.reply("229 Entering Extended Passive Mode (|||%d|)", s.dataLn.Addr().(*net.TCPAddr).Port)
	case "PASV":
		if !s.listenData() {
			s.reply("425 Cannot open a data connection.")
			return true
		}
		port := s.dataLn.Addr().(*net.TCPAddr).Port
		s.reply("227 Entering Passive Mode (127,0,0,1,%d,%d).", port>>8, port&0xff)
	case "REST":
		s.reply("350 Restart position accepted (%s).", arg)
	case "RETR":
		return s.retr(arg)
	case "LIST", "MLSD", "NLST":
		if s.cwd != "/dir" {
			s.closeData()
			s.reply("550 Failed to open directory.")
			return true
		}
		s.reply("150 Here comes the directory listing.")
		d := s.acceptData()
		if d == nil {
			return true
		}
		if verb == "NLST" {
			fmt.Fprintf(d, "small.bin\r\nother.bin\r\n")
		} else {
			fmt.Fprintf(d, "-rw-r--r--    1 0        0              %d Jan 02  2024 small.bin\r\n", len(SmallBody))
			fmt.Fprintf(d, "drwxr-xr-x    2 0        0            4096 Jan 02  2024 other\r\n")
		}
		d.Close()
		s.reply("226 Directory send OK.")
	case "NOOP":
		s.reply("200 NOOP ok.")
	case "ABOR":
		s.reply("225 No transfer to ABOR.")
	case "QUIT":
		s.reply("221 Goodbye.")
		return false
	default:
		s.reply("500 Unknown command.")
	}
	return true
}

func (s *ftpSession) retr(arg string) bool {
	o := Object(s.name(arg))
	if o == "" {
		s.closeData()
		s.reply("550 Failed to open file.")
		return true
	}
	s.reply("150 Opening BINARY mode data connection for %s.", arg)
	d := s.acceptData()
	if d == nil {
		return true
	}
	defer d.Close()
	switch o {
	case Small:
		d.Write(SmallBody)
	case Large:
		if !writeFiller(d, LargeSize) {
			d.Close()
			s.reply("426 Failure writing network stream.")
			return true
		}
	case Stall:
		s.env.Stall(d)
		return false
	case Cut:
		d.Write(CutHead)
		d.Close()
		s.reply("426 Failure writing network stream.")
		return true
	case Gated:
		d.Write(GatedHead)
		if !s.env.WaitRelease(d) {
			return false
		}
		d.Write(GatedTail)
	}
	d.Close()
	s.reply("226 Transfer complete.")
	return true
}

func (s *ftpSession) listenData() bool {
	s.closeData()
	ln, err := s.env.Listen()
	if err != nil {
		return false
	}
	s.dataLn = ln
	return true
}

func (s *ftpSession) closeData() {
	if s.dataLn != nil {
		s.dataLn.Close()
		s.dataLn = nil
	}
}

func (s *ftpSession) acceptData() net.Conn {
	if s.dataLn == nil {
		s.reply("425 Use PORT or PASV first.")
		return nil
	}
	d, err := s.dataLn.Accept()
	s.closeData()
	if err != nil {
		s.reply("425 Failed to establish connection.")
		return nil
	}
	return d
}

// writeFiller writes n bytes to w; it reports whether all were written.
func writeFiller(w net.Conn, n int) bool {
	chunk := []byte(strings.Repeat("0123456789abcdef", 4096))
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return false
		}
		n -= k
	}
	return true
}
