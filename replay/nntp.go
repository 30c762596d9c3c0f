package replay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/warc"
)

// NNTPServer answers NNTP readers (RFC 3977, with OVER and LIST
// OVERVIEW.FMT of its §8) from the captured news articles of an Archive,
// read-only: posting is refused. An article is found by its message-id;
// its group and number are those of the nntp: URL that fetched it
// (nntp://host/group/number, in the record's Gofer-Fetched-Uri), else
// those of its Xref header. The groups are those numbers' groups.
type NNTPServer struct {
	a        *Archive
	warn     func(string)
	articles map[string]*newsArticle // by message-id, without brackets
	groups   map[string]*newsGroup
	names    []string // the groups, sorted
	run      running
}

// newsArticle is one captured article as the overview names it.
type newsArticle struct {
	uri   string
	id    string // without brackets
	over  [5]string
	bytes int64
	lines int64
}

// newsGroup is one group: its captured article numbers.
type newsGroup struct {
	name string
	nums []int64 // sorted
	art  map[int64]*newsArticle
}

// overviewFields are the header fields of an overview line, in order,
// before its :bytes and :lines (RFC 3977 §8.4).
var overviewFields = [5]string{"Subject", "From", "Date", "Message-ID", "References"}

// NewNNTPServer returns the server of the archive's news articles. warn
// receives one line per record that cannot be read; nil discards them.
func NewNNTPServer(a *Archive, warn func(string)) (*NNTPServer, error) {
	if warn == nil {
		warn = func(string) {}
	}
	s := &NNTPServer{a: a, warn: warn, articles: map[string]*newsArticle{}, groups: map[string]*newsGroup{}}
	for _, uri := range a.uris {
		if !a.isArticle(uri) {
			continue
		}
		art, xref, err := readOverview(a, uri)
		if err != nil {
			warn(err.Error())
			continue
		}
		if _, dup := s.articles[art.id]; dup {
			continue
		}
		s.articles[art.id] = art
		placed := false
		for _, fetched := range a.fetchedURIs(uri) {
			if g, n, ok := groupNumber(fetched); ok {
				placed = s.place(g, n, art) || placed
			}
		}
		if !placed {
			// "Xref: server group:number ..." (RFC 5536 §3.2.14).
			f := strings.Fields(xref)
			for _, gn := range f[min(1, len(f)):] {
				g, ns, _ := strings.Cut(gn, ":")
				if n, err := strconv.ParseInt(ns, 10, 64); err == nil && n > 0 && g != "" {
					s.place(g, n, art)
				}
			}
		}
	}
	if len(s.articles) == 0 {
		return nil, errors.New("replay: the archive holds no news article")
	}
	for name, g := range s.groups {
		slices.Sort(g.nums)
		s.names = append(s.names, name)
	}
	slices.Sort(s.names)
	return s, nil
}

// place gives art number n in group g unless the number is taken.
func (s *NNTPServer) place(g string, n int64, art *newsArticle) bool {
	grp := s.groups[g]
	if grp == nil {
		grp = &newsGroup{name: g, art: map[int64]*newsArticle{}}
		s.groups[g] = grp
	}
	if _, taken := grp.art[n]; taken {
		return false
	}
	grp.art[n] = art
	grp.nums = append(grp.nums, n)
	return true
}

// HasArticles reports whether the archive holds a news article.
func (a *Archive) HasArticles() bool {
	return slices.ContainsFunc(a.uris, a.isArticle)
}

// isArticle reports whether uri's captures are news articles.
func (a *Archive) isArticle(uri string) bool {
	for _, c := range a.byURI[uri] {
		if c.entry.Type == "resource" && strings.HasPrefix(c.entry.Mime, "message/rfc822") {
			return true
		}
	}
	return false
}

// fetchedURIs returns the URLs that fetched uri's captures: the
// Gofer-Fetched-Uri fields of their records, and uri itself.
func (a *Archive) fetchedURIs(uri string) []string {
	out := []string{uri}
	for _, c := range a.byURI[uri] {
		h, err := a.header(c)
		if err != nil {
			continue
		}
		out = append(out, h.GetAll(warc.FieldFetchedURI)...)
	}
	return out
}

// groupNumber reads an nntp://host[:port]/group/number URL.
func groupNumber(uri string) (string, int64, bool) {
	u, err := url.Parse(uri)
	if err != nil || !strings.EqualFold(u.Scheme, "nntp") {
		return "", 0, false
	}
	g, ns, ok := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
	n, err := strconv.ParseInt(ns, 10, 64)
	if !ok || err != nil || n <= 0 || g == "" {
		return "", 0, false
	}
	return g, n, true
}

// readOverview reads the captured article of uri for its overview
// fields, size and line count, and returns its Xref field.
func readOverview(a *Archive, uri string) (*newsArticle, string, error) {
	p, err := a.Lookup(uri, "resource")
	if err != nil {
		return nil, "", err
	}
	defer p.Close()
	cr := &countReader{r: p}
	br := bufio.NewReaderSize(cr, 16<<10)
	h, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil && len(h) == 0 {
		return nil, "", fmt.Errorf("%s: the captured article has no header: %v", uri, err)
	}
	art := &newsArticle{uri: uri}
	for i, f := range overviewFields {
		art.over[i] = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\r' || r == '\n' || r == 0 {
				return ' '
			}
			return r
		}, h.Get(f))
	}
	art.id = strings.Trim(strings.TrimSpace(art.over[3]), "<>")
	if art.id == "" {
		id, _ := url.PathUnescape(strings.TrimPrefix(uri, "news:"))
		art.id = strings.Trim(id, "<>")
		art.over[3] = "<" + art.id + ">"
	}
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			art.lines++
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if len(line) > 0 && line[len(line)-1] != '\n' {
				art.lines++
			}
			break
		}
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", uri, err)
		}
	}
	art.bytes = cr.n
	return art, h.Get("Xref"), nil
}

// Groups returns how many groups the server offers.
func (s *NNTPServer) Groups() int { return len(s.groups) }

// Articles returns how many articles the server offers.
func (s *NNTPServer) Articles() int { return len(s.articles) }

// Serve answers the connections ln accepts until ctx ends, Close is
// called or ln fails; see Server.
func (s *NNTPServer) Serve(ctx context.Context, ln net.Listener) error {
	return s.run.serve(ctx, ln, "nntp", func(c net.Conn) {
		sess := &nntpSession{s: s, c: c, br: bufio.NewReaderSize(c, 4096),
			w: bufio.NewWriterSize(&deadlineWriter{c: c}, 32<<10)}
		sess.run()
	})
}

// ListenAndServe listens on the TCP address addr (DefaultAddr("nntp")
// when "") and calls Serve.
func (s *NNTPServer) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := listen("nntp", addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Close stops every Serve of s and returns once each has returned.
func (s *NNTPServer) Close() error { return s.run.close() }

// String says what s replays, as "1 groups 30 articles".
func (s *NNTPServer) String() string {
	return fmt.Sprintf("%d groups %d articles", s.Groups(), s.Articles())
}

// nntpSession is one reader's connection.
type nntpSession struct {
	s     *NNTPServer
	c     net.Conn
	br    *bufio.Reader
	w     *bufio.Writer
	group *newsGroup
	cur   int64 // the current article number, 0 when none
}

// nntpIdle bounds the wait for a command (RFC 3977 §3.1: at least three
// minutes).
const nntpIdle = 5 * time.Minute

func (n *nntpSession) reply(code int, text string) {
	fmt.Fprintf(n.w, "%d %s\r\n", code, text)
}

// block writes a multi-line block's lines, dot-stuffed, and its end.
func (n *nntpSession) block(lines []string) {
	for _, l := range lines {
		if strings.HasPrefix(l, ".") {
			n.w.WriteByte('.')
		}
		n.w.WriteString(l + "\r\n")
	}
	n.w.WriteString(".\r\n")
}

func (n *nntpSession) run() {
	n.reply(201, "gofer replay, read-only: posting not allowed")
	for {
		if n.w.Flush() != nil {
			return
		}
		n.c.SetReadDeadline(time.Now().Add(nntpIdle))
		line, err := readLine(n.br)
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			n.reply(500, "No command.")
			continue
		}
		verb, args := strings.ToUpper(f[0]), f[1:]
		switch verb {
		case "QUIT":
			n.reply(205, "Bye.")
			n.w.Flush()
			return
		case "CAPABILITIES":
			n.reply(101, "Capability list:")
			n.block([]string{"VERSION 2", "READER", "LIST ACTIVE NEWSGROUPS OVERVIEW.FMT", "OVER MSGID",
				"IMPLEMENTATION gofer replay"})
		case "MODE":
			if len(args) == 1 && strings.EqualFold(args[0], "READER") {
				n.reply(201, "Reader mode, posting not allowed")
			} else {
				n.reply(501, "Only MODE READER.")
			}
		case "HELP":
			n.reply(100, "Help text follows")
			n.block([]string{"A read-only replay of captured articles: CAPABILITIES MODE LIST GROUP LISTGROUP",
				"ARTICLE HEAD BODY STAT NEXT LAST OVER XOVER NEWGROUPS NEWNEWS DATE QUIT"})
		case "DATE":
			n.reply(111, time.Now().UTC().Format("20060102150405"))
		case "POST":
			n.reply(440, "Posting not permitted: a read-only replay.")
		case "IHAVE":
			n.reply(435, "Article not wanted: a read-only replay.")
		case "AUTHINFO":
			switch {
			case len(args) >= 1 && strings.EqualFold(args[0], "USER"):
				n.reply(381, "Any password will do.")
			case len(args) >= 1 && strings.EqualFold(args[0], "PASS"):
				n.reply(281, "Authentication accepted.")
			default:
				n.reply(501, "AUTHINFO USER or PASS.")
			}
		case "LIST":
			n.list(args)
		case "GROUP":
			if len(args) != 1 {
				n.reply(501, "GROUP needs a group.")
				continue
			}
			if g := n.selectGroup(args[0]); g != nil {
				n.reply(211, g.summary())
			}
		case "LISTGROUP":
			n.listGroup(args)
		case "ARTICLE", "HEAD", "BODY", "STAT":
			n.article(verb, args)
		case "NEXT", "LAST":
			n.step(verb == "NEXT")
		case "OVER", "XOVER":
			n.over(args)
		case "NEWGROUPS":
			n.reply(231, "No new groups in a replay.")
			n.block(nil)
		case "NEWNEWS":
			n.reply(230, "No new articles in a replay.")
			n.block(nil)
		default:
			n.reply(500, "Unknown command.")
		}
	}
}

// summary is "count low high group", as GROUP answers (RFC 3977 §6.1.1).
func (g *newsGroup) summary() string {
	return fmt.Sprintf("%d %d %d %s", len(g.nums), g.nums[0], g.nums[len(g.nums)-1], g.name)
}

// selectGroup makes name the current group, or answers 411.
func (n *nntpSession) selectGroup(name string) *newsGroup {
	g := n.s.groups[name]
	if g == nil {
		n.reply(411, "No such newsgroup (none captured).")
		return nil
	}
	n.group, n.cur = g, g.nums[0]
	return g
}

// list answers LIST [ACTIVE|NEWSGROUPS [wildmat]] and LIST OVERVIEW.FMT.
func (n *nntpSession) list(args []string) {
	kw := "ACTIVE"
	if len(args) > 0 {
		kw = strings.ToUpper(args[0])
	}
	pattern := ""
	if len(args) > 1 {
		pattern = args[1]
	}
	var lines []string
	switch kw {
	case "ACTIVE", "NEWSGROUPS":
		for _, name := range n.s.names {
			if !wildmat(pattern, name) {
				continue
			}
			g := n.s.groups[name]
			if kw == "ACTIVE" {
				lines = append(lines, fmt.Sprintf("%s %d %d n", name, g.nums[len(g.nums)-1], g.nums[0]))
			} else {
				lines = append(lines, name+"\tcaptured articles")
			}
		}
	case "OVERVIEW.FMT":
		lines = []string{"Subject:", "From:", "Date:", "Message-ID:", "References:", ":bytes", ":lines"}
	default:
		n.reply(501, "LIST ACTIVE, NEWSGROUPS or OVERVIEW.FMT.")
		return
	}
	n.reply(215, "Information follows")
	n.block(lines)
}

// wildmat reports whether name matches an RFC 3977 §4 wildmat: patterns
// separated by commas, the last that matches deciding, "!" negating.
func wildmat(pattern, name string) bool {
	if pattern == "" {
		return true
	}
	match := false
	for _, p := range strings.Split(pattern, ",") {
		neg := strings.HasPrefix(p, "!")
		if ok, _ := path.Match(strings.TrimPrefix(p, "!"), name); ok {
			match = !neg
		}
	}
	return match
}

// listGroup answers LISTGROUP [group [range]].
func (n *nntpSession) listGroup(args []string) {
	if len(args) > 0 {
		if n.selectGroup(args[0]) == nil {
			return
		}
	} else if n.group == nil {
		n.reply(412, "No newsgroup selected.")
		return
	}
	lo, hi := int64(1), int64(1<<62)
	if len(args) > 1 {
		var ok bool
		if lo, hi, ok = parseRange(args[1]); !ok {
			n.reply(501, "Bad range.")
			return
		}
	}
	n.reply(211, n.group.summary()+" list follows")
	var lines []string
	for _, num := range n.group.nums {
		if num >= lo && num <= hi {
			lines = append(lines, strconv.FormatInt(num, 10))
		}
	}
	n.block(lines)
}

// parseRange reads "n", "n-" or "n-m" (RFC 3977 §6.1.2.2).
func parseRange(s string) (lo, hi int64, ok bool) {
	a, b, dash := strings.Cut(s, "-")
	lo, err := strconv.ParseInt(a, 10, 64)
	if err != nil || lo < 0 {
		return 0, 0, false
	}
	switch {
	case !dash:
		return lo, lo, true
	case b == "":
		return lo, 1 << 62, true
	}
	hi, err = strconv.ParseInt(b, 10, 64)
	return lo, hi, err == nil
}

// find returns the article an ARTICLE, HEAD, BODY, STAT or OVER argument
// names and the number to answer with, or answers the error and returns
// nil. A number makes that article the current one.
func (n *nntpSession) find(args []string) (*newsArticle, int64) {
	if len(args) > 0 && strings.HasPrefix(args[0], "<") {
		art := n.s.articles[strings.Trim(args[0], "<>")]
		if art == nil {
			n.reply(430, "No article with that message-id was captured.")
			return nil, 0
		}
		return art, 0
	}
	if n.group == nil {
		n.reply(412, "No newsgroup selected.")
		return nil, 0
	}
	num := n.cur
	if len(args) > 0 {
		v, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil {
			n.reply(501, "Bad article number.")
			return nil, 0
		}
		num = v
	} else if num == 0 {
		n.reply(420, "Current article number is invalid.")
		return nil, 0
	}
	art := n.group.art[num]
	if art == nil {
		n.reply(423, "No article with that number was captured.")
		return nil, 0
	}
	n.cur = num
	return art, num
}

// article answers ARTICLE, HEAD, BODY and STAT.
func (n *nntpSession) article(verb string, args []string) {
	art, num := n.find(args)
	if art == nil {
		return
	}
	code := map[string]int{"ARTICLE": 220, "HEAD": 221, "BODY": 222, "STAT": 223}[verb]
	if verb == "STAT" {
		n.reply(code, fmt.Sprintf("%d <%s>", num, art.id))
		return
	}
	p, err := n.s.a.Lookup(art.uri, "resource")
	if err != nil {
		n.s.warn(err.Error())
		n.reply(430, "The captured article cannot be read.")
		return
	}
	defer p.Close()
	n.reply(code, fmt.Sprintf("%d <%s>", num, art.id))
	if err := writeArticle(n.w, p, verb); err != nil {
		// Nothing can be sent to end the block as it should: the
		// connection ends.
		n.s.warn(fmt.Sprintf("%s: %v", art.uri, err))
		n.c.Close()
	}
}

// writeArticle writes the part of an article that verb asks for (its
// header, its body or both), dot-stuffed, and the terminating line
// (RFC 3977 §3.1.1).
func writeArticle(w *bufio.Writer, r io.Reader, verb string) error {
	br := bufio.NewReaderSize(r, 32<<10)
	inHead, atStart := true, true
	var last byte = '\n'
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			send := true
			if inHead && atStart && (string(chunk) == "\r\n" || string(chunk) == "\n") {
				inHead = false
				if verb == "HEAD" {
					break
				}
				send = verb == "ARTICLE"
			} else if inHead && verb == "BODY" || !inHead && verb == "HEAD" {
				send = false
			}
			if send {
				if atStart && chunk[0] == '.' {
					w.WriteByte('.')
				}
				w.Write(chunk)
				last = chunk[len(chunk)-1]
			}
			atStart = chunk[len(chunk)-1] == '\n'
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
	}
	if last != '\n' {
		w.WriteString("\r\n")
	}
	_, err := w.WriteString(".\r\n")
	return err
}

// step answers NEXT and LAST.
func (n *nntpSession) step(next bool) {
	if n.group == nil {
		n.reply(412, "No newsgroup selected.")
		return
	}
	if n.cur == 0 {
		n.reply(420, "Current article number is invalid.")
		return
	}
	i, _ := slices.BinarySearch(n.group.nums, n.cur)
	if next {
		i++
	} else {
		i--
	}
	if i < 0 || i >= len(n.group.nums) {
		if next {
			n.reply(421, "No next article in this group.")
		} else {
			n.reply(422, "No previous article in this group.")
		}
		return
	}
	n.cur = n.group.nums[i]
	n.reply(223, fmt.Sprintf("%d <%s>", n.cur, n.group.art[n.cur].id))
}

// over answers OVER and XOVER: a range, a message-id, or the current
// article.
func (n *nntpSession) over(args []string) {
	line := func(num int64, a *newsArticle) string {
		return fmt.Sprintf("%d\t%s\t%d\t%d", num, strings.Join(a.over[:], "\t"), a.bytes, a.lines)
	}
	if len(args) > 0 && !strings.HasPrefix(args[0], "<") {
		if n.group == nil {
			n.reply(412, "No newsgroup selected.")
			return
		}
		lo, hi, ok := parseRange(args[0])
		if !ok {
			n.reply(501, "Bad range.")
			return
		}
		var lines []string
		for _, num := range n.group.nums {
			if num >= lo && num <= hi {
				lines = append(lines, line(num, n.group.art[num]))
			}
		}
		if len(lines) == 0 {
			n.reply(423, "No articles in that range.")
			return
		}
		n.reply(224, "Overview information follows")
		n.block(lines)
		return
	}
	art, num := n.find(args)
	if art == nil {
		return
	}
	n.reply(224, "Overview information follows")
	n.block([]string{line(num, art)})
}
