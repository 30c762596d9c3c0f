package schemes

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseError reports a malformed URL: what is wrong and where. It matches
// ErrUsage with errors.Is (exit code 2). Its message never repeats the
// input, which may hold a password.
type ParseError struct {
	// Input is the URL as given, with the password of its login, if it
	// has one, replaced by "****" (as URL.Redacted does).
	Input string
	// Pos is the 1-based position in Input of the byte at fault (the
	// first byte of the mask for a fault inside the password).
	Pos int
	Msg string
}

// redactInput masks the password of raw's login ("//user:password@"),
// found as a URL with the common Internet scheme syntax would hold it,
// and moves pos, an offset in raw, to the same byte of the result.
func redactInput(raw string, pos int) (string, int) {
	i := strings.Index(raw, "//")
	if i < 0 {
		return raw, pos
	}
	start := i + 2
	end := len(raw)
	if j := strings.IndexAny(raw[start:], "/?#"); j >= 0 {
		end = start + j
	}
	at := strings.LastIndexByte(raw[start:end], '@')
	if at < 0 {
		return raw, pos
	}
	colon := strings.IndexByte(raw[start:start+at], ':')
	if colon < 0 {
		return raw, pos
	}
	from, to := start+colon+1, start+at
	if from == to {
		return raw, pos
	}
	const mask = "****"
	switch {
	case pos >= to:
		pos += len(mask) - (to - from)
	case pos >= from:
		pos = from
	}
	return raw[:from] + mask + raw[to:], pos
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("malformed URL: %s at position %d", e.Msg, e.Pos)
}

// Is makes a ParseError match ErrUsage.
func (e *ParseError) Is(target error) bool { return target == ErrUsage }

// ipSchemes use the common Internet scheme syntax of RFC 1738 §3.1
// ("//" login [ "/" url-path ]).
func ipScheme(s string) bool {
	switch s {
	case "ftp", "ftps", "http", "https", "gopher", "gophers", "nntp", "nntps",
		"telnet", "rlogin", "tn3270", "wais", "prospero", "file", "gemini":
		return true
	}
	return false
}

// parser holds the cleaned input and maps its offsets back to the raw text
// for error positions.
type parser struct {
	raw  string
	s    string
	orig []int // orig[i] is the raw offset of s[i]; nil: offset off
	off  int
}

func (p *parser) errAt(i int, format string, args ...any) error {
	pos := p.off + i
	if p.orig != nil {
		if i < len(p.orig) {
			pos = p.orig[i]
		} else {
			pos = len(p.raw)
		}
	}
	input, pos := redactInput(p.raw, pos)
	return &ParseError{Input: input, Pos: pos + 1, Msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// newParser strips the wrappers of RFC 1738's appendix: surrounding white
// space, "<...>" (white space inside it is line breaking and is ignored) and
// the "URL:" prefix.
func newParser(raw string) parser {
	start, end := 0, len(raw)
	for start < end && isSpace(raw[start]) {
		start++
	}
	for end > start && isSpace(raw[end-1]) {
		end--
	}
	p := parser{raw: raw, s: raw[start:end], off: start}
	if end-start >= 2 && raw[start] == '<' && raw[end-1] == '>' {
		b := make([]byte, 0, end-start-2)
		orig := make([]int, 0, end-start-2)
		for i := start + 1; i < end-1; i++ {
			if !isSpace(raw[i]) {
				b = append(b, raw[i])
				orig = append(orig, i)
			}
		}
		p.s, p.orig = string(b), orig
	}
	if len(p.s) >= 4 && strings.EqualFold(p.s[:4], "url:") {
		p.s = p.s[4:]
		if p.orig != nil {
			p.orig = p.orig[4:]
		} else {
			p.off += 4
		}
	}
	return p
}

// Parse parses an absolute URL (RFC 1738), after stripping a "URL:" prefix
// and a "<URL:...>" or "<...>" wrapper. It splits the URL on its raw
// delimiters first and then decodes each part once, so an encoded delimiter
// stays data. It never resolves a host name.
func Parse(raw string) (*URL, error) {
	p := newParser(raw)
	s := p.s
	if s == "" {
		return nil, p.errAt(0, "empty URL")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return nil, p.errAt(i, "control character 0x%02X", c)
		}
	}
	if i := badEscape(s); i >= 0 {
		return nil, p.errAt(i, "bad escape %s", quoteEscape(s[i:]))
	}
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return nil, p.errAt(0, "missing scheme")
	}
	for i := 0; i < colon; i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if i == 0 && !letter {
			return nil, p.errAt(i, "missing scheme")
		}
		if !letter && !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.' {
			return nil, p.errAt(i, "missing scheme")
		}
	}
	// RFC 1738 §5: "interpreters should use case-ignore".
	u := newURL(strings.ToLower(s[:colon]))
	if u.Scheme == "url" {
		return nil, p.errAt(0, "URL: prefix given twice")
	}
	rest, off := s[colon+1:], colon+1
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		u.Fragment, u.HasFragment = Decode(rest[h+1:]), true
		rest = rest[:h]
	}
	var err error
	switch {
	case u.Scheme == "mailto":
		err = p.mailto(u, rest, off)
	case u.Scheme == "news":
		err = p.news(u, rest, off)
	case ipScheme(u.Scheme):
		err = p.ipURL(u, rest, off)
	default:
		u.Opaque = canonical(rest)
	}
	if err != nil {
		return nil, err
	}
	return u, nil
}

// newURL allocates a URL together with the view of its scheme: one
// allocation instead of two for every URL parsed.
func newURL(scheme string) *URL {
	switch scheme {
	case "ftp", "ftps":
		return withView(scheme, func(u *URL, v *FTP) { u.FTP = v })
	case "http", "https", "gemini":
		return withView(scheme, func(u *URL, v *HTTP) { u.HTTP = v })
	case "gopher", "gophers":
		return withView(scheme, func(u *URL, v *Gopher) {
			v.Type = '1' // RFC 1738 §3.4: the default when the gopher-path is empty
			u.Gopher = v
		})
	case "news":
		return withView(scheme, func(u *URL, v *News) { u.News = v })
	case "nntp", "nntps":
		return withView(scheme, func(u *URL, v *NNTP) { u.NNTP = v })
	case "mailto":
		return withView(scheme, func(u *URL, v *Mailto) { u.Mailto = v })
	case "wais":
		return withView(scheme, func(u *URL, v *WAIS) { u.WAIS = v })
	case "file":
		return withView(scheme, func(u *URL, v *File) { u.File = v })
	case "prospero":
		return withView(scheme, func(u *URL, v *Prospero) { u.Prospero = v })
	case "telnet", "rlogin", "tn3270":
		return &URL{Scheme: scheme, Telnet: &Telnet{}} // Telnet is empty: no allocation
	}
	return &URL{Scheme: scheme}
}

// withView allocates a URL and its view V in one block and lets attach
// point the URL at the view.
func withView[V any](scheme string, attach func(*URL, *V)) *URL {
	x := &struct {
		u URL
		v V
	}{}
	x.u.Scheme = scheme
	attach(&x.u, &x.v)
	return &x.u
}

func (p *parser) mailto(u *URL, rest string, off int) error {
	if rest == "" {
		return p.errAt(off, "empty mail address")
	}
	// RFC 6068 §2: '?' starts the header fields, '&' separates them; an
	// address or value holding either has it percent-encoded.
	addr, hfields, hasQuery := strings.Cut(rest, "?")
	u.Mailto.Addr = Decode(addr)
	if !hasQuery {
		return nil
	}
	for _, f := range strings.Split(hfields, "&") {
		if f == "" {
			continue
		}
		name, value, _ := strings.Cut(f, "=")
		u.Mailto.Headers = append(u.Mailto.Headers, Header{Name: Decode(name), Value: Decode(value)})
	}
	if u.Mailto.Addr == "" && len(u.Mailto.Headers) == 0 {
		return p.errAt(off, "empty mail address")
	}
	return nil
}

// RFC 1738 §3.6: news:group, news:message-id (has '@'), news:*.
func (p *parser) news(u *URL, rest string, off int) error {
	switch {
	case rest == "":
		return p.errAt(off, "empty news URL")
	case strings.HasPrefix(rest, "//"):
		return p.errAt(off, "news URL takes no host (RFC 1738 §3.6)")
	case rest == "*":
		u.News.All = true
		return nil
	}
	d := Decode(rest)
	if !strings.Contains(d, "@") {
		u.News.Group = d
		return nil
	}
	// Tolerate the angle brackets of an article's Message-ID header when
	// written literally; an encoded "<" is data.
	if len(rest) > 2 && rest[0] == '<' && rest[len(rest)-1] == '>' {
		d = Decode(rest[1 : len(rest)-1])
	}
	u.News.MessageID = d
	return nil
}

// ipURL parses "//" login [ "/" url-path ] (RFC 1738 §3.1) and hands the
// url-path to the scheme's own syntax.
func (p *parser) ipURL(u *URL, rest string, off int) error {
	if !strings.HasPrefix(rest, "//") {
		// "file:/path" is common enough to accept: an empty host.
		if u.Scheme == "file" && strings.HasPrefix(rest, "/") {
			u.File.Path = Decode(rest)
			return nil
		}
		return p.errAt(off, "missing // after %s:", u.Scheme)
	}
	a, aoff := rest[2:], off+2
	end := strings.IndexByte(a, '/')
	if u.HTTP != nil {
		if q := strings.IndexByte(a, '?'); q >= 0 && (end < 0 || q < end) {
			end = q
		}
	}
	if end < 0 {
		end = len(a)
	}
	if err := p.login(u, a[:end], aoff); err != nil {
		return err
	}
	path, poff := a[end:], aoff+end
	if u.Host == "" && u.Scheme != "file" {
		return p.errAt(aoff, "missing host")
	}
	switch u.Scheme {
	case "ftp", "ftps":
		return p.ftp(u, path, poff)
	case "http", "https", "gemini":
		if q := strings.IndexByte(path, '?'); q >= 0 {
			u.HTTP.Search, u.HTTP.HasSearch = canonical(path[q+1:]), true
			path = path[:q]
		}
		u.HTTP.Path = canonical(path)
	case "gopher", "gophers":
		return p.gopher(u, path, poff)
	case "nntp", "nntps":
		return p.nntp(u, path, poff)
	case "telnet", "rlogin", "tn3270":
		if path != "" && path != "/" {
			return p.errAt(poff, "%s URL takes no path", u.Scheme)
		}
	case "wais":
		p.wais(u, path)
	case "prospero":
		return p.prospero(u, path, poff)
	case "file":
		if u.HasUser || u.Port != 0 {
			return p.errAt(aoff, "file URL takes no user or port")
		}
		// RFC 1738 §5: "file://" [ host | "localhost" ] "/" fpath.
		if path == "" {
			return p.errAt(poff, "file URL needs a path after the host")
		}
		u.File.Path = Decode(path)
	}
	return nil
}

// login parses [ user [ ":" password ] "@" ] host [ ":" port ].
func (p *parser) login(u *URL, auth string, off int) error {
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		ui := auth[:at]
		u.HasUser = true
		if c := strings.IndexByte(ui, ':'); c >= 0 {
			u.User = Decode(ui[:c])
			u.Password, u.HasPassword = Decode(ui[c+1:]), true
		} else {
			u.User = Decode(ui)
		}
		auth, off = auth[at+1:], off+at+1
	}
	host, port, poff := auth, "", -1
	if strings.HasPrefix(auth, "[") {
		c := strings.IndexByte(auth, ']')
		if c < 0 {
			return p.errAt(off, "unclosed [ in host")
		}
		host = auth[1:c] // brackets are syntax, not part of the address
		after := auth[c+1:]
		if after != "" {
			if after[0] != ':' {
				return p.errAt(off+c+1, "invalid character %q after host", after[0])
			}
			port, poff = after[1:], off+c+2
		}
		if host == "" {
			return p.errAt(off, "empty [] host")
		}
		if z := strings.Index(host, "%25"); z >= 0 {
			// RFC 6874's zone of a link-local address ([fe80::1%25eth0]):
			// an interface of this machine, which no URL handed on can
			// mean, and no address the guard can judge.
			return p.errAt(off+1+z, "IPv6 zone %q in host [%s]: a link-local zone names an interface of one machine; give the address without it", Decode(host[z+3:]), host)
		}
		for i := 0; i < len(host); i++ {
			if c := host[i]; !isHex(c) && c != ':' && c != '.' {
				return p.errAt(off+1+i, "invalid character %q in host", c)
			}
		}
	} else {
		if c := strings.LastIndexByte(auth, ':'); c >= 0 {
			host, port, poff = auth[:c], auth[c+1:], off+c+1
		}
		for i := 0; i < len(host); i++ {
			if c := host[i]; !isHostChar(c) {
				return p.errAt(off+i, "invalid character %q in host", c)
			}
		}
	}
	u.Host = host
	if port != "" {
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return p.errAt(poff+i, "invalid port")
			}
		}
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return p.errAt(poff, "port out of range")
		}
		u.Port = n
	}
	return nil
}

func isHex(c byte) bool { _, ok := unhex(c); return ok }

// RFC 1738 §3.1: a domain name (letters, digits, '-', '.') or a dotted
// quad; '_' is tolerated because real host names use it.
func isHostChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_'
}

// RFC 1738 §3.2.2: cwd1/.../cwdN/name[;type=X]; each segment decoded on its own.
func (p *parser) ftp(u *URL, path string, off int) error {
	if path == "" {
		return nil // the login directory
	}
	path, off = path[1:], off+1
	last := strings.LastIndexByte(path, '/')
	if semi := strings.LastIndexByte(path, ';'); semi > last {
		if suffix := path[semi+1:]; len(suffix) >= 5 && strings.EqualFold(suffix[:5], "type=") {
			code := strings.ToLower(suffix[5:])
			if code != "a" && code != "i" && code != "d" {
				return p.errAt(off+semi+6, "FTP type code must be a, i or d")
			}
			u.FTP.TypeCode = code[0]
			path = path[:semi]
		}
	}
	parts := strings.Split(path, "/")
	for i, s := range parts {
		parts[i] = Decode(s)
	}
	u.FTP.Segments = parts
	return nil
}

// RFC 1738 §3.4: /<gophertype><selector>%09<search>%09<gopher+_string>.
// %09 is split on before decoding: a selector can never hold a TAB.
func (p *parser) gopher(u *URL, path string, off int) error {
	g := u.Gopher
	if len(path) <= 1 {
		return nil // the server's top menu
	}
	path, off = path[1:], off+1
	n := 1
	if path[0] == '%' {
		n = 3
	}
	t := Decode(path[:n])[0]
	if t < 0x20 || t == 0x7f {
		return p.errAt(off, "invalid gopher type 0x%02X", t)
	}
	g.Type = t
	parts := splitEscaped(path[n:], "%09", 3)
	g.Selector = Decode(parts[0])
	if len(parts) > 1 {
		g.Search, g.HasSearch = Decode(parts[1]), true
	}
	if len(parts) > 2 {
		g.PlusString, g.HasPlus = Decode(parts[2]), true
	}
	return nil
}

// RFC 1738 §3.7: /group[/article-number].
func (p *parser) nntp(u *URL, path string, off int) error {
	if path == "" {
		return nil
	}
	parts := strings.Split(path[1:], "/")
	if len(parts) > 2 {
		return p.errAt(off+1+len(parts[0])+1+len(parts[1]), "nntp URL has more than group/article")
	}
	u.NNTP.Group = Decode(parts[0])
	if len(parts) == 2 && parts[1] != "" {
		aoff := off + 1 + len(parts[0]) + 1
		for i := 0; i < len(parts[1]); i++ {
			if c := parts[1][i]; c < '0' || c > '9' {
				return p.errAt(aoff+i, "article number must be digits")
			}
		}
		n, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil || n < 1 {
			return p.errAt(aoff, "article number out of range")
		}
		u.NNTP.Article = n
	}
	return nil
}

// RFC 1738 §3.9: /database, /database?search, /database/wtype/wpath.
func (p *parser) wais(u *URL, path string) {
	w := u.WAIS
	if path == "" {
		return
	}
	path = path[1:]
	if q := strings.IndexByte(path, '?'); q >= 0 {
		w.Database = Decode(path[:q])
		w.Search, w.RawSearch, w.HasSearch = Decode(path[q+1:]), canonical(path[q+1:]), true
		return
	}
	parts := strings.SplitN(path, "/", 3)
	w.Database = Decode(parts[0])
	if len(parts) > 1 {
		w.WType = Decode(parts[1])
	}
	if len(parts) > 2 {
		w.WPath, w.RawWPath = Decode(parts[2]), canonical(parts[2])
	}
}

// RFC 1738 §3.11: /hsoname;field=value...; draft-ietf-uri-url-03 puts a
// version after %00.
func (p *parser) prospero(u *URL, path string, off int) error {
	pr := u.Prospero
	if path == "" {
		return nil
	}
	path, off = path[1:], off+1
	specs := strings.Split(path, ";")
	hv := splitEscaped(specs[0], "%00", 2)
	pr.HSOName = Decode(hv[0])
	if len(hv) > 1 {
		pr.Version, pr.HasVersion = Decode(hv[1]), true
	}
	foff := off + len(specs[0])
	for _, f := range specs[1:] {
		eq := strings.IndexByte(f, '=')
		if eq < 0 {
			return p.errAt(foff, "prospero field without '='")
		}
		pr.Fields = append(pr.Fields, Field{Name: Decode(f[:eq]), Value: Decode(f[eq+1:])})
		foff += 1 + len(f)
	}
	return nil
}
