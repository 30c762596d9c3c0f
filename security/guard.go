package security

import (
	"fmt"
	"strconv"

	"github.com/goferurl/gofer/schemes"
)

// Guard applies gofer's security policy to a URL before any connection is
// opened for it (RFC 1738 §6: a non-default port can make a retrieval
// drive another protocol; decoded line ends can inject commands). The
// zero value, and a nil *Guard, refuse every well-known port of another
// protocol and discard warnings.
type Guard struct {
	// AllowPorts lifts the port refusal for these ports (--allow-port);
	// they still draw the non-default port warning.
	AllowPorts []int
	// Warn receives one-line warnings for a person; nil discards them.
	Warn func(string)
}

// Check returns nil when u may be fetched. It refuses, in this order, a
// decoded part bound for a line protocol that would inject a delimiter
// (*InjectionError, matching ErrInjection) and a non-default port that is
// another protocol's well-known port (*PortError, matching ErrPort). It warns
// about any other non-default port and about a password in the URL.
func (g *Guard) Check(u *schemes.URL) error {
	if err := CheckParts(u); err != nil {
		return err
	}
	if err := g.checkPort(u); err != nil {
		return err
	}
	if u.HasPassword && u.Password != "" {
		g.warn(fmt.Sprintf("a password in a URL is unwise: it shows in process lists, shell history and logs (use --netrc); gofer masks it as %s", mask))
	}
	return nil
}

func (g *Guard) warn(msg string) {
	if g != nil && g.Warn != nil {
		g.Warn(msg)
	}
}

func (g *Guard) allowed(port int) bool {
	if g == nil {
		return false
	}
	for _, p := range g.AllowPorts {
		if p == port {
			return true
		}
	}
	return false
}

// checkPort is the port policy: the default port passes silently, another
// protocol's port is refused, anything else is warned about.
func (g *Guard) checkPort(u *schemes.URL) error {
	if u.Port == 0 || u.Scheme == "file" || u.Scheme == "mailto" {
		// No port given means the scheme's default; file and mailto open
		// no connection of their own.
		return nil
	}
	def := schemes.DefaultPort(u.Scheme)
	if u.Scheme == "news" {
		def = schemes.DefaultPort("nntp")
	}
	if u.Port == def {
		return nil
	}
	proto := PortProtocol(u.Port)
	if proto != "" && family(proto) != family(u.Scheme) && !g.allowed(u.Port) {
		return &PortError{Scheme: u.Scheme, Port: u.Port, Default: def, Protocol: proto}
	}
	switch {
	case def == 0:
		g.warn(fmt.Sprintf("%s URL names port %d", u.Scheme, u.Port))
	case proto != "" && family(proto) != family(u.Scheme):
		g.warn(fmt.Sprintf("%s URL names port %d (the %s port, allowed), not its default %d", u.Scheme, u.Port, proto, def))
	default:
		g.warn(fmt.Sprintf("%s URL names port %d, not its default %d", u.Scheme, u.Port, def))
	}
	return nil
}

// CheckParts applies the injection policy alone: after decoding, no part of
// u that goes into a line-based command may hold CR, LF or NUL; Gopher
// selector and search may not hold TAB; a telnet user may not hold IAC; the
// Gopher+ string must have one of its allowed shapes (CheckPlusString); a
// wais database, search or type may not hold NUL, RS or US (CheckWAISField).
// Refusals are *InjectionError naming the part and the byte.
func CheckParts(u *schemes.URL) error {
	if err := CheckLine(u.Scheme+" host", u.Host); err != nil {
		return err
	}
	switch {
	case u.FTP != nil:
		return checkFTP(u)
	case u.HTTP != nil:
		return checkHTTP(u)
	case u.Gopher != nil:
		return checkGopher(u.Gopher)
	case u.News != nil:
		if err := CheckLine("news group", u.News.Group); err != nil {
			return err
		}
		return CheckLine("news message-id", u.News.MessageID)
	case u.NNTP != nil:
		return CheckLine("nntp group", u.NNTP.Group)
	case u.Telnet != nil:
		if err := checkTelnetField(u.Scheme+" user", u.User); err != nil {
			return err
		}
		return checkTelnetField(u.Scheme+" password", u.Password)
	case u.WAIS != nil:
		return checkWAIS(u.WAIS)
	}
	return nil
}

// checkWAIS checks the text parts of a wais URL. The wpath is a binary
// document id that travels length-prefixed: any byte may be in it.
func checkWAIS(w *schemes.WAIS) error {
	if err := CheckWAISField("wais database", w.Database); err != nil {
		return err
	}
	if err := CheckWAISField("wais search", w.Search); err != nil {
		return err
	}
	return CheckWAISField("wais type", w.WType)
}

func checkFTP(u *schemes.URL) error {
	if err := CheckLine("ftp user", u.User); err != nil {
		return err
	}
	if err := CheckLine("ftp password", u.Password); err != nil {
		return err
	}
	for i, seg := range u.FTP.Segments {
		if err := CheckLine("ftp segment "+strconv.Itoa(i+1), seg); err != nil {
			return err
		}
	}
	if u.FTP.TypeCode != 0 {
		return CheckLine("ftp type code", string(u.FTP.TypeCode))
	}
	return nil
}

// checkHTTP decodes the path and search part, which the URL keeps escaped,
// since a decoded CR LF is what a careless server or proxy would act on.
func checkHTTP(u *schemes.URL) error {
	if err := CheckLine(u.Scheme+" user", u.User); err != nil {
		return err
	}
	if err := CheckLine(u.Scheme+" password", u.Password); err != nil {
		return err
	}
	if err := CheckLine(u.Scheme+" path", schemes.Decode(u.HTTP.Path)); err != nil {
		return err
	}
	return CheckLine(u.Scheme+" search", schemes.Decode(u.HTTP.Search))
}

func checkGopher(g *schemes.Gopher) error {
	if err := CheckGopherField("gopher selector", g.Selector); err != nil {
		return err
	}
	if err := CheckGopherField("gopher search", g.Search); err != nil {
		return err
	}
	return CheckPlusString("gopher+ string", g.PlusString)
}

// checkTelnetField refuses what CheckLine refuses plus IAC (0xFF), which
// would start a telnet command (RFC 854) inside an advisory login.
func checkTelnetField(part, value string) error {
	if err := CheckLine(part, value); err != nil {
		return err
	}
	for i := 0; i < len(value); i++ {
		if value[i] == 0xFF {
			return &InjectionError{Part: part, Byte: 0xFF}
		}
	}
	return nil
}
