package prospero

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// AccessMethod is one value of an object's ACCESS-METHOD attribute: the
// method's name, where it connects (host type and host, "" meaning the
// object's own server) and what it asks for there (name type and name, ""
// meaning the object's own hsoname), then the method's own elements.
type AccessMethod struct {
	Method   string
	HostType string
	Host     string
	NameType string
	Name     string
	Extra    []string
}

// accessMethod reads an ACCESS-METHOD value: a tuple of at least five
// elements.
func accessMethod(a Attribute) (AccessMethod, error) {
	v := a.Values
	if len(v) < 5 {
		return AccessMethod{}, fmt.Errorf("ACCESS-METHOD with %d elements, wants at least 5", len(v))
	}
	return AccessMethod{Method: strings.ToUpper(v[0]), HostType: v[1], Host: v[2], NameType: v[3], Name: v[4], Extra: v[5:]}, nil
}

// String is the access method as the transcript shows it.
func (m AccessMethod) String() string {
	return line(append([]string{m.Method, m.HostType, m.Host, m.NameType, m.Name}, m.Extra...)...)
}

// URL turns the access method into the URL gofer fetches the object with.
// server is the host the Prospero object lives on (the default for an
// empty host); hsoname its name (the default for an empty name). Methods
// that name no protocol gofer speaks (LOCAL, NFS, AFS, ...) are an error
// saying so.
func (m AccessMethod) URL(server, hsoname string) (string, error) {
	host, port, err := splitHost(m.Host)
	if err != nil {
		return "", err
	}
	if host == "" {
		host, port = server, 0
	}
	if m.HostType != "" && !strings.EqualFold(m.HostType, "INTERNET-D") {
		return "", fmt.Errorf("%s access method on a host of type %s", m.Method, m.HostType)
	}
	name := m.Name
	if name == "" {
		name = hsoname
	}
	u := &schemes.URL{Host: host, Port: port}
	switch m.Method {
	case "AFTP", "FTP":
		// Sixth element: BINARY or TEXT, the transfer type.
		u.Scheme = "ftp"
		u.FTP = &schemes.FTP{Segments: ftpSegments(name)}
		if len(m.Extra) > 0 {
			switch strings.ToUpper(m.Extra[0]) {
			case "BINARY":
				u.FTP.TypeCode = 'i'
			case "TEXT":
				u.FTP.TypeCode = 'a'
			}
		}
	case "GOPHER":
		// Sixth element: the Gopher item type; without it, the type is the
		// selector's first character, as Gopher selectors usually begin.
		u.Scheme = "gopher"
		typ := ""
		if len(m.Extra) > 0 {
			typ = m.Extra[0]
		}
		if typ == "" && name != "" {
			typ = name[:1]
		}
		if len(typ) != 1 {
			return "", fmt.Errorf("GOPHER access method with item type %q", typ)
		}
		u.Gopher = &schemes.Gopher{Type: typ[0], Selector: name}
	case "WAIS":
		// The name is the database; a sixth and seventh element, when
		// present, the document's type and id.
		u.Scheme = "wais"
		u.WAIS = &schemes.WAIS{Database: name}
		if len(m.Extra) >= 2 {
			u.WAIS.WType, u.WAIS.WPath = m.Extra[0], m.Extra[1]
		}
	case "HTTP":
		u.Scheme = "http"
		p := (&url.URL{Path: name}).EscapedPath()
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		u.HTTP = &schemes.HTTP{Path: p}
	case "NNTP", "NEWS":
		// The name is "group/number", "group", or a message-id.
		if strings.Contains(name, "@") {
			u = &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: strings.Trim(name, "<>")}}
			break
		}
		u.Scheme = "nntp"
		group, num, _ := strings.Cut(name, "/")
		u.NNTP = &schemes.NNTP{Group: group}
		if num != "" {
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n <= 0 {
				return "", fmt.Errorf("NNTP access method with article %q", num)
			}
			u.NNTP.Article = n
		}
	default:
		return "", fmt.Errorf("access method %s names no protocol gofer speaks", m.Method)
	}
	if u.Port == schemes.DefaultPort(u.Scheme) {
		u.Port = 0
	}
	s := u.String()
	if _, err := schemes.Parse(s); err != nil {
		return "", fmt.Errorf("%s access method gives no valid URL: %v", m.Method, err)
	}
	return s, nil
}

// ftpSegments turns an FTP path into URL segments (RFC 1738 §3.2.2): a path
// from the root keeps its leading '/' in the first segment, which the URL
// writes as %2F and the FTP fetcher sends as "CWD /...".
func ftpSegments(p string) []string {
	if p == "" {
		return nil
	}
	abs := strings.HasPrefix(p, "/")
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if abs {
		segs[0] = "/" + segs[0]
	}
	return segs
}

// splitHost reads a Prospero host name: "host", or "host(port)" as
// Prospero writes a port; "host:port" is taken too.
func splitHost(h string) (host string, port int, err error) {
	if h == "" {
		return "", 0, nil
	}
	ps := ""
	switch {
	case strings.HasSuffix(h, ")"):
		i := strings.IndexByte(h, '(')
		if i < 0 {
			return "", 0, fmt.Errorf("host %q: unbalanced parenthesis", h)
		}
		host, ps = h[:i], h[i+1:len(h)-1]
	case strings.Count(h, ":") == 1:
		host, ps, _ = strings.Cut(h, ":")
	default:
		host = h
	}
	if host == "" || strings.ContainsAny(host, " \t/@()") {
		return "", 0, fmt.Errorf("host %q is not a host name", h)
	}
	if ps != "" {
		port, err = strconv.Atoi(ps)
		if err != nil || port <= 0 || port > 65535 {
			return "", 0, fmt.Errorf("host %q: port %q is not a port number", h, ps)
		}
	}
	return host, port, nil
}
