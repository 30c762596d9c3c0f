package nntp

import (
	"io"
	"strconv"

	"github.com/goferurl/gofer/schemes"
)

// lineListing streams a multi-line response as entries, one line at a
// time, so a listing of any length holds one line in memory.
type lineListing struct {
	s     *session
	what  string // "the overview of gofer.test", for messages
	parse func(line string) (schemes.Entry, error)
	limit int
	n     int
	eof   bool
	err   error // sticky
}

func (l *lineListing) Next() (schemes.Entry, error) {
	if l.err != nil {
		return schemes.Entry{}, l.err
	}
	if l.eof {
		return schemes.Entry{}, io.EOF
	}
	for {
		line, done, err := l.s.c.readBodyLine(l.what)
		if err != nil {
			l.err = err
			return schemes.Entry{}, err
		}
		if done {
			l.eof = true
			return schemes.Entry{}, io.EOF
		}
		e, err := l.parse(line)
		if err == errSkip {
			continue
		}
		if err != nil {
			l.err = schemes.Errorf(schemes.ErrRefused, "news server %s sent %s with a malformed line: %v", l.s.c.server, l.what, err)
			return schemes.Entry{}, l.err
		}
		l.n++
		if l.n > l.limit {
			l.err = schemes.Errorf(schemes.ErrTooLarge, "%s has more than %d entries", l.what, l.limit)
			return schemes.Entry{}, l.err
		}
		return e, nil
	}
}

// Close ends the session: with QUIT when the listing was read to its end.
func (l *lineListing) Close() error {
	return l.s.close(l.eof)
}

// overview lists a group's articles from OVER (RFC 3977 §8.3), or XOVER on
// servers older than RFC 3977.
func (s *session) overview(req *schemes.Request, t *target, g *groupInfo, lg *login) (*schemes.Response, error) {
	what := "the overview of " + t.group
	l := &lineListing{s: s, what: what, limit: req.EntryLimit()}
	base := articleBase{scheme: t.scheme, host: t.host, port: t.port, group: t.group}
	l.parse = func(line string) (schemes.Entry, error) {
		ov, err := parseOverview(line)
		if err != nil {
			return schemes.Entry{}, err
		}
		return base.entry(ov), nil
	}
	resp := &schemes.Response{URL: req.URL, Kind: schemes.KindListing, Listing: l, Size: -1, Name: t.group, Type: schemes.TypeGroup}
	// An empty group says so with count 0 or high below low (RFC 3977
	// §6.1.1.2); there is no range to ask for.
	if g.count == 0 || g.high < g.low {
		l.eof = true
		return resp, nil
	}
	rng := strconv.FormatInt(g.low, 10) + "-" + strconv.FormatInt(g.high, 10)
	verb := "OVER"
	if s.c.capsKnown && !s.c.has("OVER") {
		verb = "XOVER"
	}
	cmd := overCommand(verb, rng)
	code, text, err := s.c.do(cmd, lg)
	if err != nil {
		return nil, err
	}
	if verb == "OVER" && !s.c.capsKnown && (code == codeUnknownCommand || code == codeSyntaxError) {
		// A server without CAPABILITIES may know only the older XOVER.
		cmd = overCommand("XOVER", rng)
		if code, text, err = s.c.do(cmd, lg); err != nil {
			return nil, err
		}
	}
	switch code {
	case codeOverview:
	case codeNoArticles, codeNoArticleNumber:
		// Every article in the range has gone since GROUP answered.
		l.eof = true
	default:
		return nil, s.c.refusal(cmd, code, text)
	}
	return resp, nil
}

// groups lists the server's newsgroups from LIST ACTIVE (RFC 3977 §7.6.3),
// with the descriptions from LIST NEWSGROUPS (§7.6.6) when the server has
// them. The descriptions come first because only one command can be in
// flight on a connection; they are kept for at most EntryLimit groups, the
// most the listing may hold anyway, while the active list itself streams.
func (s *session) groups(req *schemes.Request, lg *login) (*schemes.Response, error) {
	limit := req.EntryLimit()
	descriptions := make(map[string]string)
	if !s.c.capsKnown || s.c.hasArg("LIST", "NEWSGROUPS") {
		cmd := command{verb: "LIST NEWSGROUPS"}
		code, _, err := s.c.do(cmd, lg)
		if err != nil {
			return nil, err
		}
		// Descriptions are a nicety: a server without them is still listed.
		if code == codeListFollows {
			for {
				line, done, err := s.c.readBodyLine("the newsgroup descriptions")
				if err != nil {
					return nil, err
				}
				if done {
					break
				}
				name, desc, ok := parseNewsgroupsLine(line)
				if ok && len(descriptions) < limit {
					descriptions[name] = desc
				}
			}
		}
	}
	cmd := command{verb: "LIST ACTIVE"}
	code, text, err := s.c.do(cmd, lg)
	if err != nil {
		return nil, err
	}
	if !s.c.capsKnown && (code == codeUnknownCommand || code == codeSyntaxError) {
		// RFC 977 servers know LIST without a keyword, which means the same.
		cmd = command{verb: "LIST"}
		if code, text, err = s.c.do(cmd, lg); err != nil {
			return nil, err
		}
	}
	if code != codeListFollows {
		return nil, s.c.refusal(cmd, code, text)
	}
	l := &lineListing{s: s, what: "the list of newsgroups", limit: limit}
	l.parse = func(line string) (schemes.Entry, error) {
		a, err := parseActive(line)
		if err != nil {
			return schemes.Entry{}, err
		}
		return groupEntry(a, descriptions[a.name]), nil
	}
	return &schemes.Response{URL: req.URL, Kind: schemes.KindListing, Listing: l, Size: -1, Name: "*", Type: schemes.TypeGroup}, nil
}

// groupEntry is the entry of one newsgroup; its URL is news:group (RFC 1738 §3.6).
func groupEntry(a active, description string) schemes.Entry {
	u := &schemes.URL{Scheme: "news", News: &schemes.News{Group: a.name}}
	return schemes.Entry{
		Name: a.name,
		Type: schemes.TypeGroup,
		URL:  u.String(),
		Size: -1,
		News: &schemes.NewsItem{Description: description, Low: a.low, High: a.high, Status: a.status},
	}
}

// articleBase makes the URLs of a group's articles.
type articleBase struct {
	scheme string // nntp or nntps
	host   string
	port   int
	group  string
}

// entry is the entry of one article: its URL by message-id (news:, RFC 1738
// §3.6), which names it on any server, and by number (nntp:, §3.7), which
// names it on this one. The nntp: URL carries no login: credentials never
// appear in listings.
func (b articleBase) entry(ov overview) schemes.Entry {
	port := b.port
	if port == schemes.DefaultPort(b.scheme) {
		port = 0
	}
	byNumber := &schemes.URL{Scheme: b.scheme, Host: b.host, Port: port,
		NNTP: &schemes.NNTP{Group: b.group, Article: ov.number}}
	e := schemes.Entry{
		Name:     strconv.FormatInt(ov.number, 10),
		Type:     schemes.TypeArticle,
		Size:     -1,
		Modified: ov.modified,
		News: &schemes.NewsItem{
			Number:     ov.number,
			Subject:    ov.subject,
			From:       ov.from,
			Date:       ov.date,
			MessageID:  ov.messageID,
			References: ov.references,
			Lines:      ov.lines,
			Bytes:      ov.bytes,
			URL:        byNumber.String(),
		},
	}
	if ov.bytes > 0 {
		e.Size = ov.bytes
	}
	e.URL = e.News.URL
	if ov.messageID != "" {
		byID := &schemes.URL{Scheme: "news", News: &schemes.News{MessageID: ov.messageID}}
		e.URL = byID.String()
	}
	return e
}
