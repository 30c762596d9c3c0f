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
	// AllowPorts lifts the port refusal for these ports;
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
		g.warn(fmt.Sprintf("a password in a URL is unwise: it shows in process lists, shell history and logs (a netrc file keeps it out of the URL); gofer masks it as %s", mask))
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
	if proto != "" && (family(proto) != family(u.Scheme) || clearOnTLSPort(u.Scheme, proto)) && !g.allowed(u.Port) {
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
	case u.Mailto != nil:
		return checkMailto(u.Mailto)
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

// checkMailto refuses CR, LF and NUL in the address and in every header
// name and value of a mailto URL: a line end there would add header lines
// or recipients of the URL's choosing (RFC 6068 §6). The body is text, not
// a header: RFC 6068 §2 writes its line breaks as %0D%0A, so it may hold CR
// LF pairs, never a lone CR or LF (which SMTP servers read differently, the
// way SMTP smuggling hides a second message) nor NUL.
func checkMailto(m *schemes.Mailto) error {
	if err := CheckLine("mailto address", m.Addr); err != nil {
		return err
	}
	for _, h := range m.Headers {
		if err := CheckLine("mailto header name", h.Name); err != nil {
			return err
		}
		part := "mailto header " + h.Name
		if equalFoldASCII(h.Name, "body") {
			if err := CheckText("mailto body", h.Value); err != nil {
				return err
			}
			continue
		}
		if err := CheckLine(CleanPart(part), h.Value); err != nil {
			return err
		}
	}
	return nil
}

// CheckText refuses NUL and any CR or LF that is not part of a CR LF pair
// in value, text whose lines are sent as they are (a mail body).
func CheckText(part, value string) error {
	for i := 0; i < len(value); i++ {
		switch value[i] {
		case 0:
			return &InjectionError{Part: part, Byte: 0}
		case '\r':
			if i+1 >= len(value) || value[i+1] != '\n' {
				return &InjectionError{Part: part, Byte: '\r'}
			}
			i++
		case '\n':
			return &InjectionError{Part: part, Byte: '\n'}
		}
	}
	return nil
}

// CleanPart makes a part name taken from input safe to print in an error:
// control bytes become '?'.
func CleanPart(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			b[i] = '?'
		}
	}
	return string(b)
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

// serverPorts are the ports a protocol's servers listen on, for a server
// named outside the URL (CheckServerPort): any of them passes silently.
func serverPorts(protocol string) []int {
	switch protocol {
	case "smtp":
		return []int{25, 587, 465} // relay, submission (RFC 6409), submissions (RFC 8314)
	}
	return nil
}

// CheckServerPort applies the port policy to a server of protocol named
// outside the URL, such as the SMTP server a mailto URL is sent through:
// the protocol's own ports pass silently, another protocol's well-known
// port is refused (*PortError, matching ErrPort) unless AllowPorts lifts
// it, and any other port draws a warning.
func (g *Guard) CheckServerPort(protocol string, port int) error {
	own := serverPorts(protocol)
	for _, p := range own {
		if p == port {
			return nil
		}
	}
	def := 0
	if len(own) > 0 {
		def = own[0]
	}
	proto := PortProtocol(port)
	if proto != "" && family(proto) != family(protocol) {
		if !g.allowed(port) {
			return &PortError{Scheme: protocol, Port: port, Default: def, Protocol: proto, Server: true}
		}
		g.warn(fmt.Sprintf("%s server port %d (the %s port, allowed), not its default %d", protocol, port, proto, def))
		return nil
	}
	g.warn(fmt.Sprintf("%s server port %d, not its default %d", protocol, port, def))
	return nil
}
