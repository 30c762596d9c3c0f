package mirror

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

type mode int

const (
	modeListing mode = iota // FTP, file: walk directory listings
	modeGopher              // walk menus by selector
	modeHTTP                // follow links in HTML pages
)

// site is the mirror's scope: where it started and what it may reach.
type site struct {
	mode   mode
	scheme string
	host   string // lower case
	port   int    // effective port
	// rootURL and rootPath are the starting job's URL and local path.
	rootURL  string
	rootPath string
	// selector is the starting Gopher selector (Options.NoParent, the local path of the menu).
	selector string
	// base is the starting HTTP URL, prefix its directory (escaped, ending in '/').
	base   *url.URL
	prefix string
}

// init sets the scope from the starting URL (rawURL, parsed as start) and
// its response. The fetcher's parsed URL is preferred (it is the one after
// redirects and it carries the scheme's view even for an x- scheme a
// library user registered). decode reads a selector as the client's
// remote charset does (fetch.Client.DecodeName), for the local path.
func (s *site) init(rawURL string, start *schemes.URL, resp *fetch.Response, decode func(string) string) error {
	u := resp.URL
	if u == nil || (u.FTP == nil && u.Gopher == nil && u.HTTP == nil && u.File == nil) {
		if u == nil || start.FTP != nil || start.Gopher != nil || start.HTTP != nil || start.File != nil {
			u = start
		}
	}
	s.scheme = strings.ToLower(u.Scheme)
	s.host = strings.ToLower(u.Host)
	s.port = u.EffectivePort()
	s.rootURL = rawURL
	switch {
	case u.Gopher != nil:
		s.mode = modeGopher
		s.selector = u.Gopher.Selector
		if resp.Kind == schemes.KindListing {
			p, err := gopherPath(decode(s.selector))
			if err != nil {
				return fmt.Errorf("starting selector %q: %w", s.selector, err)
			}
			s.rootPath = p
		}
	case u.HTTP != nil:
		s.mode = modeHTTP
		ref := u.Scheme + "://" + hostPort(u) + u.HTTP.Path
		if u.HTTP.Path == "" {
			ref += "/"
		}
		if u.HTTP.HasSearch {
			ref += "?" + u.HTTP.Search
		}
		b, err := url.Parse(ref)
		if err != nil {
			return err
		}
		b.Fragment = ""
		s.base = b
		s.rootURL = b.String()
		p := b.EscapedPath()
		s.prefix = p[:strings.LastIndexByte(p, '/')+1]
	default:
		s.mode = modeListing
	}
	return nil
}

// dirIndex is the local name of a directory's own page.
func (s *site) dirIndex() string {
	if s.scheme == "gemini" {
		return gemIndex
	}
	return dirIndex
}

// rootOp is the starting job's kind.
func (s *site) rootOp(resp *fetch.Response) byte {
	switch s.mode {
	case modeGopher:
		if resp.Kind == schemes.KindListing {
			return opMenu
		}
	case modeHTTP:
		return opPage
	default:
		if resp.Kind == schemes.KindListing {
			return opList
		}
	}
	return opFile
}

func hostPort(u *schemes.URL) string {
	h := u.Host
	if strings.IndexByte(h, ':') >= 0 {
		h = "[" + h + "]"
	}
	if u.Port != 0 {
		h += ":" + strconv.Itoa(u.Port)
	}
	return h
}

// sameServer reports whether the URL ref (as a listing gives it) names the
// starting server: same scheme, host and port.
func (s *site) sameServer(ref string) bool {
	u, err := url.Parse(ref)
	if err != nil {
		// Not every FTP URL is an RFC 3986 URL; take the scheme's parser.
		p, perr := schemes.Parse(ref)
		if perr != nil {
			return false
		}
		return strings.EqualFold(p.Scheme, s.scheme) && sameHost(p.Host, s.host) && p.EffectivePort() == s.port
	}
	return s.sameHTTP(u)
}

func (s *site) sameHTTP(u *url.URL) bool {
	if !strings.EqualFold(u.Scheme, s.scheme) || !sameHost(u.Hostname(), s.host) {
		return false
	}
	port := schemes.DefaultPort(strings.ToLower(u.Scheme))
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		port = n
	}
	return port == s.port
}

// gopherPort is a menu item's port with the default filled in.
func gopherPort(scheme string, port int) int {
	if port == 0 {
		return schemes.DefaultPort(scheme)
	}
	return port
}

// gopherURL builds the URL of a Gopher item from its parts; plus, when
// not empty, is the Gopher+ string to send.
func gopherURL(scheme, host string, port int, typ byte, selector, plus string) string {
	if port == schemes.DefaultPort(scheme) {
		port = 0
	}
	g := &schemes.Gopher{Type: typ, Selector: selector, PlusString: plus, HasPlus: plus != ""}
	u := &schemes.URL{Scheme: scheme, Host: host, Port: port, Gopher: g}
	return u.String()
}

// binaryFTP asks for an image-type transfer of an ftp URL that names no
// type: a mirror must keep bytes exact, never let a ".txt" suffix pick
// ASCII mode (RFC 1738 §3.2.2).
func binaryFTP(ref string) string {
	if !strings.HasPrefix(ref, "ftp:") && !strings.HasPrefix(ref, "ftps:") {
		return ref
	}
	u, err := schemes.Parse(ref)
	if err != nil || u.FTP == nil || u.FTP.TypeCode != 0 || u.FTP.Name() == "" {
		return ref
	}
	u.FTP.TypeCode = 'i'
	return u.String()
}
