package nntp

import (
	"context"
	"errors"
	"net"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// Fetcher retrieves news:, nntp: and nntps: URLs. Each fetch has its own
// connection, ended when the response is closed. Its zero value is ready
// to use, for nntp: and nntps: URLs, which name their server.
type Fetcher struct {
	// Server is "host[:port]" of the news server that news: URLs, which
	// name none (RFC 1738 §3.6), are fetched from. "" leaves them without
	// one: a fetch fails with a *schemes.SettingError for "nntp.Fetcher.Server".
	Server string
	// RequireTLS asks for STARTTLS (RFC 4642) on a plain connection; a
	// server that refuses it is an error, never a plain-text fall back.
	RequireTLS bool
}

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

// Schemes returns the schemes a Fetcher serves: news, nntp and nntps.
func Schemes() []string { return []string{"news", "nntp", "nntps"} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
)

// target is what a URL asks of which server, checked before any connection.
type target struct {
	scheme string // "nntp" or "nntps": the scheme of the article URLs a listing gives
	host   string
	port   int
	tls    bool // TLS from the first byte (nntps)

	messageID string // news:message-id
	group     string // news:group, nntp://host/group[/N]
	article   int64  // nntp://host/group/N
	all       bool   // news:*
	part      string // "", "head" or "body" of an article (Request.News)
}

func (t *target) addr() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// resolve finds the server and the object a URL names. It refuses, before
// any connection, what cannot be sent: no server for a news: URL, a
// message-id or group name that is not one in NNTP's syntax.
// Without needServer (a plan), a news: URL may lack one.
func (f *Fetcher) resolve(req *schemes.Request, needServer bool) (*target, error) {
	u := req.URL
	if u == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "no URL to fetch")
	}
	t := &target{}
	switch {
	case u.Scheme == "news" && u.News != nil:
		// RFC 1738 §3.6: news URLs name no host; the reader's own server is used.
		t.scheme = "nntp"
		switch {
		case f.Server != "":
			host, port, err := splitServer(f.Server)
			if err != nil {
				return nil, err
			}
			t.host, t.port = host, port
		case needServer:
			return nil, schemes.NeedSetting(schemes.ErrUsage, "nntp.Fetcher.Server", "%s names no news server and none is set", redactedNews(u))
		}
		t.messageID, t.group, t.all = u.News.MessageID, u.News.Group, u.News.All
	case (u.Scheme == "nntp" || u.Scheme == "nntps") && u.NNTP != nil:
		t.scheme, t.host, t.port = u.Scheme, u.Host, u.EffectivePort()
		t.tls = u.Scheme == "nntps"
		t.group, t.article = u.NNTP.Group, u.NNTP.Article
		if t.host == "" {
			return nil, schemes.Errorf(schemes.ErrUsage, "%s URL names no host", u.Scheme)
		}
		if t.group == "" {
			return nil, schemes.Errorf(schemes.ErrUsage, "%s URL names no newsgroup (%s://HOST/GROUP[/NUMBER])", u.Scheme, u.Scheme)
		}
		if t.article < 0 {
			return nil, schemes.Errorf(schemes.ErrUsage, "article number %d is not a positive number", t.article)
		}
	default:
		return nil, schemes.Errorf(schemes.ErrUnsupportedScheme, "unsupported scheme %q", u.Scheme)
	}
	if req.News != nil {
		t.part = req.News.Part
	}
	switch t.part {
	case "", "head", "body":
	default:
		return nil, schemes.Errorf(schemes.ErrUsage, "unknown article part %q (want head or body)", t.part)
	}
	if t.part != "" && t.messageID == "" && t.article == 0 {
		return nil, schemes.Errorf(schemes.ErrUsage, "part %q of an article (NewsRequest.Part) was asked for, and this URL names a group or group list", t.part)
	}
	if t.messageID != "" {
		if err := checkMessageID(t.messageID); err != nil {
			return nil, err
		}
	}
	if t.group != "" {
		if err := checkGroup(t.group); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// redactedNews names a news URL in an error without relying on anything
// but its typed view.
func redactedNews(u *schemes.URL) string {
	switch {
	case u.News.All:
		return "news:*"
	case u.News.MessageID != "":
		return "news:" + u.News.MessageID
	}
	return "news:" + u.News.Group
}

// splitServer reads "host[:port]" (Fetcher.Server).
func splitServer(s string) (string, int, error) {
	host, portText, err := net.SplitHostPort(s)
	if err != nil {
		// No port: the whole value is the host (brackets of an IPv6
		// literal removed).
		host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		return host, schemes.DefaultPort("nntp"), nil
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 || host == "" {
		return "", 0, schemes.Errorf(schemes.ErrUsage, "news server %q is not HOST[:PORT]", s)
	}
	return host, port, nil
}

// checkMessageID applies RFC 3977 §3.6: a message-id is printable US-ASCII
// without '>' inside, at most 250 octets with its brackets. The URL's form
// has no brackets (RFC 1738 §3.6); gofer adds them on the wire. CR, LF and
// NUL are left to the line check, which reports them as injection.
func checkMessageID(id string) error {
	if len(id)+2 > 250 {
		return schemes.Errorf(schemes.ErrUsage, "message-id is longer than NNTP allows (250 octets with brackets)")
	}
	for i := 0; i < len(id); i++ {
		b := id[i]
		if b == '\r' || b == '\n' || b == 0 {
			continue
		}
		if b <= ' ' || b >= 0x7f || b == '<' || b == '>' {
			return schemes.Errorf(schemes.ErrUsage, "message-id %q holds %q, which NNTP does not allow (RFC 3977 §3.6)", id, string(rune(b)))
		}
	}
	return nil
}

// checkGroup refuses group names that would not be one argument on the
// wire (RFC 3977 §4.1: no white space or control characters) or that are
// wildmat patterns, which GROUP does not take.
func checkGroup(g string) error {
	for i := 0; i < len(g); i++ {
		b := g[i]
		if b == '\r' || b == '\n' || b == 0 {
			continue
		}
		if b <= ' ' || b == 0x7f || b == '*' || b == '?' || b == '[' || b == '!' || b == ',' || b == '\\' {
			return schemes.Errorf(schemes.ErrUsage, "newsgroup name %q holds %q, which a newsgroup name cannot (RFC 3977 §4.1)", g, string(rune(b)))
		}
	}
	return nil
}

// The commands each URL form sends, built in one place for Fetch and Plan.

func groupCommand(group string) command {
	return command{verb: "GROUP", arg: group, part: "nntp group"}
}

// articleVerb is ARTICLE, HEAD or BODY for the requested part.
func articleVerb(part string) string {
	switch part {
	case "head":
		return "HEAD"
	case "body":
		return "BODY"
	}
	return "ARTICLE"
}

func messageIDCommand(part, id string) command {
	// RFC 1738 §3.6: the URL's message-id has no brackets; NNTP's has.
	return command{verb: articleVerb(part), arg: "<" + id + ">", part: "news message-id"}
}

func numberCommand(part string, n int64) command {
	return command{verb: articleVerb(part), arg: strconv.FormatInt(n, 10), part: "nntp article number"}
}

func overCommand(verb, rng string) command {
	return command{verb: verb, arg: rng, part: "nntp article range"}
}

// retrieval lists the commands that fetch t after the session is set up;
// OVER's range is known only from GROUP's answer, so low and high are given.
func (t *target) retrieval(part, low, high string) []command {
	switch {
	case t.messageID != "":
		return []command{messageIDCommand(part, t.messageID)}
	case t.all:
		return []command{{verb: "LIST NEWSGROUPS"}, {verb: "LIST ACTIVE"}}
	case t.article > 0:
		return []command{groupCommand(t.group), numberCommand(part, t.article)}
	}
	return []command{groupCommand(t.group), overCommand("OVER", low+"-"+high)}
}

// Plan lists the lines a fetch of req would send, with no network: the
// login and STARTTLS when they are certain to be sent, then the retrieval
// ({low}-{high} stands for the range the server's GROUP answer gives).
// CAPABILITIES and MODE READER depend on the server and are left out.
// A news: URL plans without a server; the "server" note says so.
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	t, err := f.resolve(req, false)
	if err != nil {
		return nil, err
	}
	var cmds []command
	if f.RequireTLS && !t.tls {
		cmds = append(cmds, command{verb: "STARTTLS"})
	}
	if u := req.URL; u.HasUser {
		cmds = append(cmds,
			command{verb: "AUTHINFO USER", arg: u.User, part: "news user"},
			command{verb: "AUTHINFO PASS", arg: "****", part: "news password", secret: true})
	}
	cmds = append(cmds, t.retrieval(t.part, "{low}", "{high}")...)
	p := &schemes.Plan{Notes: map[string]string{}}
	for _, c := range cmds {
		if _, err := c.line(); err != nil {
			return nil, err
		}
		p.Requests = append(p.Requests, c.display())
	}
	if t.host != "" {
		p.Notes["server"] = t.addr()
	} else {
		p.Notes["server"] = "none is set"
	}
	return p, nil
}

// Fetch retrieves what req.URL names: an article (KindFile, Type "article",
// streamed and dot-unstuffed), a group's articles or the server's groups
// (KindListing, streamed from the connection). The connection stays open
// until the response is closed.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	t, err := f.resolve(req, true)
	if err != nil {
		return nil, err
	}
	// Check every URL-derived argument before a connection is opened.
	cmds := t.retrieval(t.part, "0", "0")
	if u := req.URL; u.HasUser {
		cmds = append(cmds, command{verb: "AUTHINFO USER", arg: u.User, part: "news user"},
			command{verb: "AUTHINFO PASS", arg: u.Password, part: "news password", secret: true})
	}
	for _, c := range cmds {
		if _, err := c.line(); err != nil {
			return nil, err
		}
	}
	lg := newLogin(req, t.host)

	c, err := dialServer(ctx, req, t.addr(), t.host, t.tls)
	if err != nil {
		return nil, err
	}
	s := &session{c: c}
	resp, err := f.fetch(ctx, req, t, s, lg)
	if err != nil {
		// After a refusal the session is between commands: say goodbye.
		var answered *textproto.Error
		s.close(errors.As(err, &answered) && ctx.Err() == nil)
		// An error caused by the context's end says so, not "connection closed".
		if ctx.Err() != nil {
			return nil, c.classify(err, "fetch from news server "+c.server)
		}
		return nil, err
	}
	return resp, nil
}

func (f *Fetcher) fetch(ctx context.Context, req *schemes.Request, t *target, s *session, lg *login) (*schemes.Response, error) {
	c := s.c
	if err := c.setup(ctx, req, t.host, f.RequireTLS, lg); err != nil {
		return nil, err
	}
	switch {
	case t.messageID != "":
		return s.article(req, t.part, messageIDCommand(t.part, t.messageID), t.messageID, lg)
	case t.all:
		return s.groups(req, lg)
	}
	g, err := s.selectGroup(t.group, lg)
	if err != nil {
		return nil, err
	}
	if t.article > 0 {
		return s.article(req, t.part, numberCommand(t.part, t.article), strconv.FormatInt(t.article, 10), lg)
	}
	return s.overview(req, t, g, lg)
}

// session is a connection handed to a response, ended when it is closed.
type session struct {
	c    *conn
	done bool
}

// close ends the session: politely with QUIT when the last response was
// read to its end, else by closing the connection.
func (s *session) close(clean bool) error {
	if s.done {
		return nil
	}
	s.done = true
	if clean {
		return s.c.quit()
	}
	return s.c.lc.Close()
}

// groupInfo is GROUP's answer (RFC 3977 §6.1.1.2): "211 count low high group".
type groupInfo struct {
	count, low, high int64
	name             string
}

func (s *session) selectGroup(group string, lg *login) (*groupInfo, error) {
	cmd := groupCommand(group)
	code, text, err := s.c.do(cmd, lg)
	if err != nil {
		return nil, err
	}
	if code != codeGroupSelected {
		return nil, s.c.refusal(cmd, code, text)
	}
	g, ok := parseGroupResponse(text)
	if !ok {
		return nil, schemes.Errorf(schemes.ErrRefused, "news server %s answered GROUP with a malformed line: %d %s", s.c.server, code, lineproto.ServerText(truncate(text, 80)))
	}
	return g, nil
}

func parseGroupResponse(text string) (*groupInfo, bool) {
	f := strings.Fields(text)
	if len(f) < 3 {
		return nil, false
	}
	var g groupInfo
	var err error
	if g.count, err = strconv.ParseInt(f[0], 10, 64); err != nil || g.count < 0 {
		return nil, false
	}
	if g.low, err = strconv.ParseInt(f[1], 10, 64); err != nil || g.low < 0 {
		return nil, false
	}
	if g.high, err = strconv.ParseInt(f[2], 10, 64); err != nil || g.high < 0 {
		return nil, false
	}
	if len(f) > 3 {
		g.name = f[3]
	}
	return &g, true
}
