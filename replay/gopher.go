package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// Limits of the Gopher server.
const (
	// MaxRequestLine bounds a request line.
	MaxRequestLine = 8 << 10
	// requestTimeout bounds the wait for a request line, idleTimeout a
	// reply's write that makes no progress.
	requestTimeout = 30 * time.Second
	idleTimeout    = 60 * time.Second
)

// GopherHosts returns the Gopher servers the archive holds captures of,
// "host:port", in the order first captured.
func (a *Archive) GopherHosts() []string {
	var hosts []string
	for _, uri := range a.uris {
		if g := parseGopher(uri); g != nil && !slices.Contains(hosts, g.host) {
			hosts = append(hosts, g.host)
		}
	}
	return hosts
}

// gopherURI is a captured gopher URI taken apart.
type gopherURI struct {
	uri       string
	host      string // hostKey
	name      string // the host as the URI spells it
	port      int
	typ       byte
	selector  string
	search    string
	hasSearch bool
	plus      string
	hasPlus   bool
}

func parseGopher(uri string) *gopherURI {
	if !strings.HasPrefix(strings.ToLower(uri), "gopher:") {
		return nil
	}
	u, err := schemes.Parse(uri)
	if err != nil || u.Gopher == nil {
		return nil
	}
	g := u.Gopher
	return &gopherURI{uri: uri, host: hostKey(u.Host, u.EffectivePort()), name: u.Host, port: u.EffectivePort(),
		typ: g.Type, selector: g.Selector, search: g.Search, hasSearch: g.HasSearch, plus: g.PlusString, hasPlus: g.HasPlus}
}

// GopherServer answers Gopher and Gopher+ requests from the captures of
// one Gopher server in an Archive.
type GopherServer struct {
	a     *Archive
	host  string // hostKey of the server replayed
	name  string
	port  int
	warn  func(string)
	items map[string][]*gopherURI // by selector
	run   running
}

// pickHost is the captured server a listener replays: host ("host" or
// "host:port", the scheme's default port when it names none), or the
// first captured when host is "".
func pickHost(scheme string, hosts []string, host string, defPort int) (string, error) {
	if len(hosts) == 0 {
		return "", fmt.Errorf("replay: the archive holds no %s capture", scheme)
	}
	if host == "" {
		return hosts[0], nil
	}
	host = wantedHost(host, defPort)
	if !slices.Contains(hosts, host) {
		return "", fmt.Errorf("replay: no %s capture of %s (captured: %s)", scheme, host, strings.Join(hosts, ", "))
	}
	return host, nil
}

// NewGopherServer returns the server of the captures of host ("host:port"
// as GopherHosts names it; "" for the first captured). warn receives one
// line per record that cannot be read while serving; nil discards them.
func NewGopherServer(a *Archive, host string, warn func(string)) (*GopherServer, error) {
	host, err := pickHost("gopher", a.GopherHosts(), host, 70)
	if err != nil {
		return nil, err
	}
	if warn == nil {
		warn = func(string) {}
	}
	s := &GopherServer{a: a, host: host, warn: warn, items: map[string][]*gopherURI{}}
	for _, uri := range a.uris {
		if g := parseGopher(uri); g != nil && g.host == host {
			s.name, s.port = g.name, g.port
			s.items[g.selector] = append(s.items[g.selector], g)
		}
	}
	return s, nil
}

// Host returns the "host:port" the server replays.
func (s *GopherServer) Host() string { return s.host }

// Items returns how many items (selectors) the server replays.
func (s *GopherServer) Items() int { return len(s.items) }

// Serve answers the connections ln accepts until ctx ends, Close is
// called or ln fails; see Server.
func (s *GopherServer) Serve(ctx context.Context, ln net.Listener) error {
	return s.run.serve(ctx, ln, "gopher", s.serveConn)
}

// ListenAndServe listens on the TCP address addr (DefaultAddr("gopher")
// when "") and calls Serve.
func (s *GopherServer) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := listen("gopher", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Close stops every Serve of s and returns once each has returned.
func (s *GopherServer) Close() error { return s.run.close() }

// String says what s replays, as "127.0.0.71:70 12 selectors".
func (s *GopherServer) String() string { return fmt.Sprintf("%s %d selectors", s.host, s.Items()) }

// serveConns runs handle on each connection ln accepts, each in its own
// goroutine, until ctx ends (closing ln and every connection) or ln fails;
// it returns once every handler has.
func serveConns(ctx context.Context, ln net.Listener, scheme string, handle func(net.Conn)) error {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("replay: %s: %w", scheme, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			stop := context.AfterFunc(ctx, func() { c.Close() })
			defer stop()
			handle(c)
		}()
	}
}

// request is one Gopher request line taken apart.
type request struct {
	selector  string
	search    string
	hasSearch bool
	plus      string
	hasPlus   bool
}

// parseRequest splits "selector[TAB search][TAB plus]". A lone second
// field that starts with "+", "!" or "$" is a Gopher+ string, as Gopher+
// servers read it.
func parseRequest(line string) request {
	f := strings.Split(line, "\t")
	r := request{selector: f[0]}
	switch {
	case len(f) >= 3:
		r.search, r.hasSearch = f[1], true
		r.plus, r.hasPlus = strings.Join(f[2:], "\t"), true
	case len(f) == 2 && f[1] != "" && strings.ContainsRune("+!$", rune(f[1][0])):
		r.plus, r.hasPlus = f[1], true
	case len(f) == 2:
		r.search, r.hasSearch = f[1], true
	}
	if r.hasSearch && r.search == "" && r.hasPlus {
		r.hasSearch = false
	}
	return r
}

func (s *GopherServer) serveConn(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(requestTimeout))
	br := bufio.NewReaderSize(c, 4096)
	line, err := readLine(br)
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	w := &deadlineWriter{c: c}
	bw := bufio.NewWriterSize(w, 32<<10)
	s.answer(bw, parseRequest(line), c.LocalAddr())
	bw.Flush()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
}

// readLine reads the request line, CR LF or LF ended (a client that
// closes its side after the selector is answered too).
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > MaxRequestLine {
			return "", errors.New("request line too long")
		}
		if err == nil || (errors.Is(err, io.EOF) && len(b) > 0) {
			break
		}
		if err != bufio.ErrBufferFull {
			return "", err
		}
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// deadlineWriter moves the write deadline on with every write, so a
// reader that stops reading is dropped while a slow one is not.
type deadlineWriter struct{ c net.Conn }

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.c.SetWriteDeadline(time.Now().Add(idleTimeout))
	return d.c.Write(p)
}

// menuTypes are the item types whose bytes are a menu, rewritten when
// served.
const menuTypes = "17"

// typeRank orders the captures of one selector: a menu first, then a
// search, text, and the rest by type character.
func typeRank(t byte) int {
	if i := strings.IndexByte("170", t); i >= 0 {
		return i
	}
	return 3 + int(t)
}

// answer writes the reply to r.
func (s *GopherServer) answer(w *bufio.Writer, r request, local net.Addr) {
	plus := r.hasPlus
	if !safeSelector(r.selector) {
		s.notFound(w, plus, fmt.Sprintf("'%s' was not captured", r.selector))
		return
	}
	if plus && (strings.HasPrefix(r.plus, "!") || strings.HasPrefix(r.plus, "$")) {
		s.attributes(w, r, local)
		return
	}
	var cands []*gopherURI
	rs := r.hasSearch && r.search != ""
	for _, g := range s.items[r.selector] {
		if g.hasPlus && !strings.HasPrefix(g.plus, "+") {
			continue // an attribute block
		}
		if gs := g.hasSearch && g.search != ""; gs != rs || rs && g.search != r.search {
			continue
		}
		cands = append(cands, g)
	}
	if len(cands) == 0 {
		msg := fmt.Sprintf("'%s' was not captured", r.selector)
		if rs {
			msg = fmt.Sprintf("the search '%s' of '%s' was not captured", r.search, r.selector)
		}
		s.notFound(w, plus, msg)
		return
	}
	slices.SortStableFunc(cands, func(x, y *gopherURI) int { return typeRank(x.typ) - typeRank(y.typ) })
	var p *Payload
	var g *gopherURI
	var err error
	for _, g = range cands {
		if p, err = s.a.Lookup(g.uri, "resource"); err == nil {
			break
		}
		if !errors.Is(err, ErrNotCaptured) {
			s.warn(err.Error())
		}
	}
	if p == nil {
		s.notFound(w, plus, fmt.Sprintf("'%s' was not captured whole", r.selector))
		return
	}
	defer p.Close()
	rewrite := strings.IndexByte(menuTypes, g.typ) >= 0
	if plus {
		// The Gopher+ header frames the bytes as captured: those of a
		// plain (RFC 1436) reply of text or a menu end in the "." line,
		// those of a Gopher+ reply are the data alone.
		switch {
		case !g.hasPlus && strings.IndexByte("017", g.typ) >= 0:
			w.WriteString("+-1\r\n")
		case rewrite:
			w.WriteString("+-2\r\n")
		default:
			fmt.Fprintf(w, "+%d\r\n", p.Size)
		}
	}
	if err := s.copy(w, p, rewrite, local); err != nil {
		s.warn(fmt.Sprintf("%s: %v", p.URI, err))
	}
}

// attributes answers a Gopher+ "!" (one item's attributes) or "$" (those
// of a menu's items) request from the captured attribute blocks.
func (s *GopherServer) attributes(w *bufio.Writer, r request, local net.Addr) {
	for _, g := range s.items[r.selector] {
		if !g.hasPlus || g.plus != r.plus || g.hasSearch && g.search != "" && g.search != r.search {
			continue
		}
		p, err := s.a.Lookup(g.uri, "metadata")
		if err != nil {
			if !errors.Is(err, ErrNotCaptured) {
				s.warn(err.Error())
			}
			continue
		}
		if p.ContentType != warc.TypeGopherPlusAttrs {
			p.Close()
			continue
		}
		w.WriteString("+-2\r\n")
		if err := s.copy(w, p, true, local); err != nil {
			s.warn(fmt.Sprintf("%s: %v", p.URI, err))
		}
		p.Close()
		return
	}
	if r.plus == "!" {
		if block := s.attributesFromMenus(r.selector); block != "" {
			w.WriteString("+-2\r\n")
			s.copy(w, strings.NewReader(block), true, local)
			return
		}
	}
	s.notFound(w, true, fmt.Sprintf("the attributes '%s' of '%s' were not captured", r.plus, r.selector))
}

// attributesFromMenus returns the attribute block of the item selector
// as a captured "$" block of a menu gives it, "" when none does.
func (s *GopherServer) attributesFromMenus(selector string) string {
	for _, gs := range s.items {
		for _, g := range gs {
			if !g.hasPlus || g.plus != "$" {
				continue
			}
			p, err := s.a.Lookup(g.uri, "metadata")
			if err != nil {
				continue
			}
			block := itemAttributes(p, selector, s.name, s.port)
			p.Close()
			if block != "" {
				return block
			}
		}
	}
	return ""
}

// itemAttributes returns the block of a "$" reply that begins with the
// +INFO line of selector on host:port.
func itemAttributes(r io.Reader, selector, host string, port int) string {
	br := bufio.NewReader(io.LimitReader(r, 16<<20))
	var b strings.Builder
	in := false
	for {
		line, err := br.ReadString('\n')
		if strings.HasPrefix(line, "+INFO:") {
			if in {
				return b.String()
			}
			f := strings.Split(strings.TrimRight(line, "\r\n"), "\t")
			in = len(f) >= 4 && f[1] == selector && strings.EqualFold(f[2], host) && f[3] == strconv.Itoa(port)
		}
		if in {
			b.WriteString(line)
		}
		if err != nil {
			return b.String()
		}
	}
}

// copy writes the payload, its menu lines rewritten when rewrite is set.
func (s *GopherServer) copy(w *bufio.Writer, r io.Reader, rewrite bool, local net.Addr) error {
	if !rewrite {
		_, err := io.Copy(w, r)
		return err
	}
	host, port := localHostPort(local)
	br := bufio.NewReaderSize(r, 32<<10)
	long := false // within a line too long to be a menu line: kept as it is
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = true
			if _, err := w.Write(line); err != nil {
				return err
			}
			continue
		}
		if len(line) > 0 {
			out := line
			if !long {
				out = s.rewriteLine(line, host, port)
			}
			if _, werr := w.Write(out); werr != nil {
				return werr
			}
		}
		long = false
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// rewriteLine returns a menu (or +INFO) line with its host and port
// fields set to host and port when they name the captured server; any
// other line as it is.
func (s *GopherServer) rewriteLine(line []byte, host, port string) []byte {
	body := line
	end := len(body)
	for end > 0 && (body[end-1] == '\n' || body[end-1] == '\r') {
		end--
	}
	f := strings.Split(string(body[:end]), "\t")
	if len(f) < 4 || !strings.EqualFold(f[2], s.name) || strings.TrimSpace(f[3]) != strconv.Itoa(s.port) {
		return line
	}
	f[2], f[3] = host, port
	out := []byte(strings.Join(f, "\t"))
	return append(out, body[end:]...)
}

func localHostPort(a net.Addr) (string, string) {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String(), "70"
	}
	return host, port
}

// notFound writes a Gopher error: a one-line menu with a type-3 line, or a
// Gopher+ error reply (code 1, item not available) to a Gopher+ request.
func (s *GopherServer) notFound(w *bufio.Writer, plus bool, msg string) {
	msg = strings.NewReplacer("\t", " ", "\r", " ", "\n", " ").Replace(msg)
	if plus {
		fmt.Fprintf(w, "--2\r\n1 gofer replay\r\n%s\r\n", msg)
		return
	}
	fmt.Fprintf(w, "3%s\tfake\t(NULL)\t0\r\n.\r\n", msg)
}

// safeSelector refuses selectors that climb (a ".." path segment) or
// carry control characters.
func safeSelector(sel string) bool {
	if strings.ContainsAny(sel, "\x00\r\n") {
		return false
	}
	for _, seg := range strings.FieldsFunc(sel, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return false
		}
	}
	return true
}
