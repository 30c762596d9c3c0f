package ftp

import (
	"os"
	"os/user"
	"strings"
	"sync"

	"github.com/goferurl/gofer/schemes"
)

// textSuffixes are the name suffixes a response calls text (Type "text")
// when a URL has no ";type=". The transfer itself is an image (TYPE I) all
// the same: a URL without a type code gives the file's bytes as stored, as
// curl and wget do. RFC 1738 §3.2.4 lets a client guess, but a guessed
// TYPE A makes every server that honours it (ProFTPD, Pure-FTPd, the BSD
// ftpd family, pyftpdlib) send CR LF line ends, and refuse REST.
var textSuffixes = [...]string{
	".txt", ".text", ".asc", ".md", ".rst", ".me", ".1st",
	".htm", ".html", ".css", ".csv", ".tsv", ".xml", ".json",
	".c", ".h", ".go", ".py", ".pl", ".sh", ".tex", ".diff", ".patch", ".log",
}

// guessText reports whether name looks like a text file.
func guessText(name string) bool {
	lower := strings.ToLower(name)
	for _, s := range textSuffixes {
		if strings.HasSuffix(lower, s) && len(lower) > len(s) {
			return true
		}
	}
	return false
}

// view returns u's FTP view, an empty one when the URL has none.
func view(u *schemes.URL) *schemes.FTP {
	if u.FTP != nil {
		return u.FTP
	}
	return &schemes.FTP{}
}

// transferType is the TYPE a fetch of v sends: 'A' for ";type=a" alone,
// else 'I'; 0 for a listing.
func transferType(v *schemes.FTP) byte {
	switch {
	case v.TypeCode == 'd', v.Name() == "":
		return 0
	case v.TypeCode == 'a':
		return 'A'
	}
	return 'I'
}

// typeWord is the entry type a response of v names: text for ";type=a" and
// for a name that looks like text, binary otherwise.
func typeWord(v *schemes.FTP) string {
	if v.TypeCode == 'a' || (v.TypeCode == 0 && guessText(v.Name())) {
		return schemes.TypeText
	}
	return schemes.TypeBinary
}

// Plan lists the lines a fetch of req sends, without any network (gofer
// parse): the login, one CWD per directory segment, TYPE, and RETR, NLST or
// LIST. The anonymous password is a mail address and is shown; any other
// password is "****". Lines the server's answers decide (FEAT, PWD, EPSV,
// SIZE, MDTM, REST), and the NOOP that goes with PWD to see whether the
// server reads pipelined commands, are left out.
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	u := req.URL
	v := view(u)
	if err := checkLines(u, v); err != nil {
		return nil, err
	}
	p := &schemes.Plan{Notes: map[string]string{}}
	if f.RequireTLS && u.Scheme != "ftps" {
		p.Requests = append(p.Requests, "AUTH TLS")
	}
	who, _ := f.planLogin(req)
	p.Requests = append(p.Requests, "USER "+who.user)
	if who.anonymous {
		p.Requests = append(p.Requests, "PASS "+who.password)
	} else {
		p.Requests = append(p.Requests, "PASS ****")
	}
	for _, d := range v.Dirs() {
		p.Requests = append(p.Requests, "CWD "+d)
	}
	name := v.Name()
	switch t := transferType(v); {
	case v.TypeCode == 'd':
		p.Requests = append(p.Requests, strings.TrimSuffix("NLST "+name, " "))
	case t == 0:
		p.Requests = append(p.Requests, "LIST")
		p.Notes["listing"] = "MLSD instead of LIST when the server has it (RFC 3659)"
	default:
		p.Requests = append(p.Requests, "TYPE "+string(t), "RETR "+name)
		if v.TypeCode == 0 {
			p.Notes["type"] = "TYPE I: the file's bytes as stored (;type=a asks for text with local line ends); a RETR refused with 550 on a name CWD accepts is listed as a directory"
		}
	}
	return p, nil
}

// planLogin is who a fetch of req logs in as, without prompting: a user
// without a password shows "****" for the password to be asked.
func (f *Fetcher) planLogin(req *schemes.Request) (login, bool) {
	u := req.URL
	if u.HasUser && u.User != "" {
		if !u.HasPassword && (strings.EqualFold(u.User, "anonymous") || strings.EqualFold(u.User, "ftp")) {
			// An anonymous login named in the URL still wants the mail
			// address, not a prompt (RFC 1738 §3.2.1).
			return login{user: u.User, password: f.anonymousPassword(), anonymous: true}, true
		}
		return login{user: u.User, password: u.Password}, u.HasPassword
	}
	if req.Credentials != nil {
		if user, pass, ok := req.Credentials(u.Host); ok {
			return login{user: user, password: pass}, true
		}
	}
	return login{user: "anonymous", password: f.anonymousPassword(), anonymous: true}, true
}

// anonymousPassword is Email, else user@hostname.
func (f *Fetcher) anonymousPassword() string {
	if f.Email != "" {
		return f.Email
	}
	return defaultEmail()
}

// defaultEmail is user@hostname (RFC 1738 §3.2.1 asks for the user's mail
// address): the process's own account and the machine's own name, never
// looked up in the DNS.
var defaultEmail = sync.OnceValue(func() string {
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if name == "" {
		name = "gofer"
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return name + "@" + host
})
