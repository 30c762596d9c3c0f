package schemes

// SchemePort is one row of the default port table.
type SchemePort struct {
	Scheme string
	Port   int
}

// defaultPorts holds the default ports of RFC 1738 (§3.2 to §3.11) and of
// RFC 1630's interactive schemes (rlogin 513, tn3270 23), plus the TLS
// variants gofer speaks, and Gemini's 1965. news, mailto and file name no port.
func defaultPorts() []SchemePort {
	return []SchemePort{
		{"ftp", 21}, {"ftps", 990}, {"http", 80}, {"https", 443},
		{"gopher", 70}, {"gophers", 70}, {"nntp", 119}, {"nntps", 563}, {"telnet", 23},
		{"wais", 210}, {"prospero", 1525}, {"rlogin", 513}, {"tn3270", 23},
		{"gemini", 1965},
	}
}

// DefaultPort returns the default port of scheme, or 0 when it has none.
func DefaultPort(scheme string) int {
	for _, sp := range defaultPorts() {
		if sp.Scheme == scheme {
			return sp.Port
		}
	}
	return 0
}

// DefaultPorts returns the default port table.
func DefaultPorts() []SchemePort { return defaultPorts() }

// EffectivePort returns the URL's port, or its scheme's default when it gives none.
func (u *URL) EffectivePort() int {
	if u.Port != 0 {
		return u.Port
	}
	return DefaultPort(u.Scheme)
}
