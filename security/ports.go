package security

import "fmt"

// wellKnownPort is one port another protocol owns.
type wellKnownPort struct {
	Port     int
	Protocol string
}

// wellKnownPorts is the WHATWG Fetch standard's "bad port" list (§2.9,
// "block bad port"), plus the default ports of every scheme in RFC 1738 and
// RFC 1630 and the TLS defaults gofer speaks. A URL of one scheme that names
// one of these ports would make a harmless retrieval talk to another
// protocol's server (the gopher-to-SMTP attack, RFC 1738 §6).
func wellKnownPorts() []wellKnownPort {
	return []wellKnownPort{
		{0, "reserved"}, {1, "tcpmux"}, {7, "echo"}, {9, "discard"},
		{11, "systat"}, {13, "daytime"}, {15, "netstat"}, {17, "qotd"},
		{19, "chargen"}, {20, "ftp-data"}, {21, "ftp"}, {22, "ssh"},
		{23, "telnet"}, {25, "smtp"}, {37, "time"}, {42, "name"},
		{43, "nicname"}, {53, "domain"}, {69, "tftp"}, {70, "gopher"},
		{77, "priv-rjs"}, {79, "finger"}, {80, "http"}, {87, "ttylink"},
		{95, "supdup"}, {101, "hostname"}, {102, "iso-tsap"},
		{103, "gppitnp"}, {104, "acr-nema"}, {109, "pop2"}, {110, "pop3"},
		{111, "sunrpc"}, {113, "auth"}, {115, "sftp"}, {117, "uucp-path"},
		{119, "nntp"}, {123, "ntp"}, {135, "epmap"}, {137, "netbios-ns"},
		{139, "netbios-ssn"}, {143, "imap"}, {161, "snmp"}, {179, "bgp"},
		{210, "wais"}, {389, "ldap"}, {427, "svrloc"}, {443, "https"},
		{465, "smtps"}, {512, "exec"}, {513, "rlogin"}, {514, "shell"},
		{515, "printer"}, {526, "tempo"}, {530, "courier"}, {531, "chat"},
		{532, "netnews"}, {540, "uucp"}, {548, "afp"}, {554, "rtsp"},
		{556, "remotefs"}, {563, "nntps"}, {587, "submission"},
		{601, "syslog-conn"}, {636, "ldaps"}, {989, "ftps-data"},
		{990, "ftps"}, {993, "imaps"}, {995, "pop3s"}, {1525, "prospero"}, {1965, "gemini"},
		{1719, "h323gatestat"}, {1720, "h323hostcall"}, {1723, "pptp"},
		{2049, "nfs"}, {3659, "apple-sasl"}, {4045, "npp"}, {4190, "sieve"},
		{5060, "sip"}, {5061, "sips"}, {6000, "x11"}, {6566, "sane-port"},
		{6665, "irc"}, {6666, "irc"}, {6667, "irc"}, {6668, "irc"},
		{6669, "irc"}, {6679, "osaut"}, {6697, "ircs"}, {10080, "amanda"},
	}
}

// PortProtocol returns the protocol that owns port in gofer's refusal
// table, or "" when the port is not in it.
func PortProtocol(port int) string {
	for _, p := range wellKnownPorts() {
		if p.Port == port {
			return p.Protocol
		}
	}
	return ""
}

// family groups a scheme with its TLS twin and the schemes that speak the
// same protocol, so that https on port 80 or tn3270 on telnet's port is a
// non-default port of the same protocol (warned) rather than another
// protocol's port (refused).
func family(name string) string {
	switch name {
	case "http", "https":
		return "http"
	case "ftp", "ftps":
		return "ftp"
	case "nntp", "nntps", "news":
		return "nntp"
	case "telnet", "tn3270":
		return "telnet"
	case "gopher", "gophers":
		return "gopher"
	case "rlogin":
		return "rlogin"
	case "smtp", "submission", "smtps":
		return "smtp"
	}
	return name
}

// clearOnTLSPort reports whether a URL of scheme, a protocol in the clear,
// names the port where the same protocol is spoken only inside TLS from
// the first byte: nntp on 563 (nntps). The server there reads a TLS
// handshake, not "GROUP", so the URL cannot mean what it says; it is
// refused like another protocol's port.
func clearOnTLSPort(scheme, proto string) bool {
	return scheme == "nntp" && proto == "nntps"
}

// PortError is a refused port: Port belongs to Protocol, not to Scheme
// (whose default is Default, 0 when it has none). It matches ErrPort.
type PortError struct {
	Scheme   string
	Port     int
	Default  int
	Protocol string
	// Server says the port is a server's named outside the URL (the SMTP
	// server), not the URL's own.
	Server bool
}

func (e *PortError) Error() string {
	def := ""
	if e.Default != 0 {
		def = fmt.Sprintf("; %s's default port is %d", e.Scheme, e.Default)
	}
	if e.Server {
		return fmt.Sprintf("refused: the %s server's port %d is the %s port%s", e.Scheme, e.Port, e.Protocol, def)
	}
	if clearOnTLSPort(e.Scheme, e.Protocol) {
		def += fmt.Sprintf("; for TLS use %s://", e.Protocol)
	}
	return fmt.Sprintf("refused: %s URL names port %d, the %s port%s", e.Scheme, e.Port, e.Protocol, def)
}

// Is reports whether target is ErrPort.
func (e *PortError) Is(target error) bool { return target == ErrPort }
