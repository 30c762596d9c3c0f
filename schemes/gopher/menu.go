package gopher

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// ParseItem parses one menu line (RFC 1436 §3.8 "directory entity", with the
// Gopher+ fifth field) into an entry: type character, display string,
// selector, host, port and the Gopher+ marker. It takes real-world mess: a
// line without TABs is an info line, missing fields are empty (host and
// port then default to host and port, where the menu came from), a port that
// is not a number is the default, anything after the fifth field is ignored.
// line has no line end.
func ParseItem(line, host string, port int) schemes.Entry {
	g := &schemes.GopherItem{}
	e := schemes.Entry{Gopher: g, Size: -1}
	if line == "" {
		g.Type, e.Type = "i", schemes.TypeInfo
		return e
	}
	if strings.IndexByte(line, '\t') < 0 && line[0] != 'i' || line[0] < 0x20 || line[0] == 0x7f {
		// Not a menu line at all (no fields, or no type character):
		// show it as text rather than lose it.
		g.Type, e.Type, e.Name = "i", schemes.TypeInfo, line
		return e
	}
	t := line[0]
	g.Type, e.Type = string(t), TypeWord(t)
	fields := strings.SplitN(line[1:], "\t", 6)
	e.Name = fields[0]
	if t == 'i' {
		return e
	}
	if len(fields) > 1 {
		g.Selector = fields[1]
	}
	g.Host, g.Port = host, port
	if len(fields) > 2 && strings.TrimSpace(fields[2]) != "" {
		g.Host = unbracket(strings.TrimSpace(fields[2]))
	}
	if len(fields) > 3 {
		if p, err := strconv.Atoi(strings.TrimSpace(fields[3])); err == nil && p > 0 && p < 65536 {
			g.Port = p
		}
	}
	if len(fields) > 4 {
		switch strings.TrimSpace(fields[4]) {
		case "+":
			g.Plus = "+"
		case "?":
			g.Plus = "?"
		}
	}
	if g.Port == 0 {
		g.Port = schemes.DefaultPort("gopher")
	}
	if g.Plus == "?" {
		e.Type = schemes.TypeAsk
	}
	e.URL = itemURL(t, g)
	return e
}

// itemURL is the URL that fetches a menu item: an "h" item whose selector
// is "URL:..." names that URL (the convention gopher servers use for links
// out of gopherspace), "8" and "T" items are telnet and tn3270 sessions
// (RFC 4266 §2: the selector, if any, is the user to log in as), errors have
// none, and every other item is the gopher URL of its type and selector;
// "?" items keep their marker so that fetching the URL fills in the form.
func itemURL(t byte, g *schemes.GopherItem) string {
	if !validHost(g.Host) {
		// A host no URL can name ("error.host" is fine, "!" is not).
		return ""
	}
	switch t {
	case '3':
		return ""
	case 'h':
		if rest, ok := cutURLSelector(g.Selector); ok {
			return rest
		}
	case '8', 'T':
		u := &schemes.URL{Scheme: "telnet", Host: g.Host, Telnet: &schemes.Telnet{}}
		if t == 'T' {
			u.Scheme = "tn3270"
		}
		if g.Port != schemes.DefaultPort(u.Scheme) {
			u.Port = g.Port
		}
		if g.Selector != "" {
			u.User, u.HasUser = g.Selector, true
		}
		return u.String()
	}
	v := &schemes.Gopher{Type: t, Selector: g.Selector}
	if g.Plus == "?" {
		v.PlusString, v.HasPlus = "?", true
	}
	u := &schemes.URL{Scheme: "gopher", Host: g.Host, Gopher: v}
	if g.Port != schemes.DefaultPort("gopher") {
		u.Port = g.Port
	}
	return u.String()
}

// overTLS gives an item of a menu that came over TLS (gophers) a gophers
// URL when it names the same server: the menu's host and port. An item on
// another server keeps the scheme the menu line gives it (plain gopher),
// since nothing says that server speaks TLS.
func overTLS(e schemes.Entry, host string, port int) schemes.Entry {
	if rest, ok := strings.CutPrefix(e.URL, "gopher://"); ok && e.Gopher != nil && strings.EqualFold(e.Gopher.Host, host) && e.Gopher.Port == port {
		e.URL = "gophers://" + rest
	}
	return e
}

// validHost reports whether h can be a URL's host: a domain name, an IPv4
// dotted quad or an IPv6 literal.
func validHost(h string) bool {
	if h == "" {
		return false
	}
	if strings.IndexByte(h, ':') >= 0 {
		ip := net.ParseIP(h)
		return ip != nil && ip.To4() == nil
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// unbracket returns an IPv6 literal a menu line wrote in brackets
// ("[::1]", as in a URL) as the address alone, the way the host field
// holds it ("::1"), so that its item has a URL and is known as the same
// server; any other host as it is.
func unbracket(h string) string {
	inner, ok := strings.CutPrefix(h, "[")
	if !ok {
		return h
	}
	inner, ok = strings.CutSuffix(inner, "]")
	if !ok || strings.IndexByte(inner, ':') < 0 || !validHost(inner) {
		return h
	}
	return inner
}

// cutURLSelector returns what follows "URL:" (or "/URL:") in a selector.
func cutURLSelector(sel string) (string, bool) {
	if rest, ok := strings.CutPrefix(sel, "URL:"); ok {
		return rest, true
	}
	return strings.CutPrefix(sel, "/URL:")
}

// menuListing streams a menu one line at a time.
type menuListing struct {
	lines      *lineproto.Reader
	closer     io.Closer
	host       string
	port       int
	lineLimit  int
	entryLimit int
	tls        bool // the menu came over TLS (gophers)
	n          int
	err        error
}

func newMenuListing(r io.Reader, closer io.Closer, host string, port int, req *schemes.Request) *menuListing {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &menuListing{lines: lineproto.NewReader(br, req.LineLimit()), closer: closer, host: host, port: port,
		lineLimit: req.LineLimit(), entryLimit: req.EntryLimit()}
}

// Next returns the next menu item, or io.EOF after the last one.
func (m *menuListing) Next() (schemes.Entry, error) {
	for m.err == nil {
		line, err := m.lines.ReadLine()
		if errors.Is(err, schemes.ErrTooLarge) {
			m.err = schemes.Errorf(schemes.ErrTooLarge, "menu line longer than %d bytes", m.lineLimit)
			break
		}
		if err != nil && (err != io.EOF || line == "") {
			m.err = menuError(err)
			break
		}
		if line == "." {
			// A plain menu's last line; a framed one has lost it already.
			m.err = io.EOF
			break
		}
		if line == "" {
			continue
		}
		m.n++
		if m.n > m.entryLimit {
			m.err = schemes.Errorf(schemes.ErrTooLarge, "menu has more than %d entries", m.entryLimit)
			break
		}
		e := ParseItem(line, m.host, m.port)
		if m.tls {
			e = overTLS(e, m.host, m.port)
		}
		return e, nil
	}
	return schemes.Entry{}, m.err
}

// Close closes the connection the menu came from.
func (m *menuListing) Close() error {
	if m.closer == nil {
		return nil
	}
	err := m.closer.Close()
	m.closer = nil
	return err
}

func menuError(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	return dial.Classify(replyError(err), "read menu")
}
