package gopher

import (
	"crypto/tls"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// What a Gopher+ string asks for.
const (
	modePlain = iota // no Gopher+ string: RFC 1436
	modeData         // "+", "+view lang", a filled +ASK block: Gopher+ data
	modeAttrs        // "!..." or "$...": attribute blocks
	modeAsk          // "?": fetch the +ASK form, answer it, submit
)

// target is a gopher URL taken apart for the wire.
type target struct {
	typ       byte
	selector  string
	search    string
	hasSearch bool // whether the search field is written
	plus      string
	mode      int
	host      string
	port      int
	tls       bool // gophers: TLS from the first byte
	sessions  tls.ClientSessionCache
}

// newTarget reads the gopher view of u (RFC 1738 §3.4: an empty gopher-path
// is type 1 with an empty selector) and checks every field that reaches the
// wire. The search is not resolved yet for a type-7 item without one.
func newTarget(u *schemes.URL) (*target, error) {
	g := u.Gopher
	if g == nil {
		g = &schemes.Gopher{Type: '1'}
	}
	t := &target{typ: g.Type, selector: g.Selector, host: u.Host, port: u.EffectivePort(), tls: u.Scheme == "gophers"}
	if t.typ == 0 {
		t.typ = '1'
	}
	if err := security.CheckGopherField("gopher selector", t.selector); err != nil {
		return nil, err
	}
	if g.HasSearch && g.Search != "" {
		if err := security.CheckGopherField("gopher search", g.Search); err != nil {
			return nil, err
		}
		t.search, t.hasSearch = g.Search, true
	}
	if g.HasPlus && g.PlusString != "" {
		if err := security.CheckPlusString("gopher+ string", g.PlusString); err != nil {
			return nil, err
		}
		t.plus = g.PlusString
		switch t.plus[0] {
		case '?':
			t.mode = modeAsk
		case '!', '$':
			t.mode = modeAttrs
		default:
			t.mode = modeData
		}
	}
	switch {
	case t.typ == '7' && t.mode == modeAttrs:
		// Gopher+ Appendix II: the attributes of a search engine are asked
		// for with an empty search, "selector TAB TAB !".
		t.hasSearch = true
	case t.typ == '7' && !t.hasSearch && g.HasSearch && !g.HasPlus:
		// "7sel%09": the URL gives an empty search on purpose.
		t.hasSearch = true
	}
	return t, nil
}

// needsQuery reports whether the search must come from elsewhere.
func (t *target) needsQuery() bool {
	return t.typ == '7' && !t.hasSearch
}

// setQuery sets the search of a type-7 item.
func (t *target) setQuery(q string) error {
	if err := security.CheckGopherField("gopher search", q); err != nil {
		return err
	}
	t.search, t.hasSearch = q, true
	return nil
}

// line is the request: selector, then TAB and search when there is one, then
// TAB and plus when given (RFC 1738 §3.4.3; Gopher+ §2.4). Without a search,
// a Gopher+ string follows the selector directly, as in the draft's examples.
func (t *target) line(plus string) string {
	var b strings.Builder
	b.WriteString(t.selector)
	if t.hasSearch {
		b.WriteByte('\t')
		b.WriteString(t.search)
	}
	if plus != "" {
		b.WriteByte('\t')
		b.WriteString(plus)
	}
	return b.String()
}

// request is the whole text of the request for the URL's own Gopher+
// string, CR LF included: a filled +ASK block carries its own line ends.
func (t *target) request() string {
	if strings.HasSuffix(t.plus, "\r\n") {
		return t.line(t.plus)
	}
	return t.line(t.plus) + "\r\n"
}

// askRequest asks for an item's +ASK block.
func (t *target) askRequest() string { return t.line("!+ASK") + "\r\n" }

// submission is the data request that carries the form's answers (Gopher+
// §2.4 with DataFlag 1 and a "+-1" block; the draft's "+ TAB 1" example).
func (t *target) submission(answers []string) string {
	return t.line(dataBlock(answers))
}

// dataBlock is the Gopher+ string of a submission: "+ TAB 1", the "+-1"
// block of answers and its ".", every line ending in CR LF.
func dataBlock(answers []string) string {
	var b strings.Builder
	b.WriteString("+\t1\r\n+-1\r\n")
	for _, a := range answers {
		b.WriteString(a)
		b.WriteString("\r\n")
	}
	b.WriteString(".\r\n")
	return b.String()
}

// Plan returns the lines a fetch of req.URL would write, with no network:
// for a "?" item the form request and then the submission, with one
// placeholder "<answer N>" per Request.Form answer (one when none is given); for
// a search without a query, the placeholder "<query>".
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	t, err := newTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if t.needsQuery() {
		if req.HasQuery {
			if err := t.setQuery(req.Query); err != nil {
				return nil, err
			}
		} else {
			t.search, t.hasSearch = "<query>", true
		}
	}
	var text string
	if t.mode == modeAsk {
		n := max(len(req.Form), 1)
		answers := make([]string, n)
		for i := range answers {
			answers[i] = "<answer " + strconv.Itoa(i+1) + ">"
		}
		text = t.askRequest() + t.submission(answers)
	} else {
		text = t.request()
	}
	lines := strings.Split(strings.TrimSuffix(text, "\r\n"), "\r\n")
	plan := &schemes.Plan{Requests: lines}
	if t.tls {
		plan.Notes = map[string]string{"tls": "TLS from the first byte, before the request; the certificate is verified"}
	}
	return plan, nil
}
