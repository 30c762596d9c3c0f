package gateway

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// Gopher+ items: their attributes (/info/URL) and their +ASK forms
// (/ask/URL), read through the contract (an Info that writes itself for a
// person, schemes.Former for a form).

type (
	infoPage struct {
		URL   string
		Text  string
		Views []viewLink
	}
	// viewLink is one +VIEWS view of an item: the item fetched in it.
	viewLink struct {
		Type     string
		Language string
		Size     string
		Live     string
		Raw      string
	}
	askPage struct {
		URL    string
		Action string
		Fields []askField
	}
	askField struct {
		Kind     string // "line", "secret", "lines", "choice", "check", "note"
		Name     string // the form parameter: "a" and the field's position
		Question string
		Default  string
		Choices  []string
		Checked  bool
	}
)

// fieldKinds name each kind of form field for the page, which draws it.
var fieldKinds = map[schemes.FieldKind]string{
	schemes.FieldLine: "line", schemes.FieldSecret: "secret", schemes.FieldLines: "lines",
	schemes.FieldChoice: "choice", schemes.FieldCheck: "check", schemes.FieldNote: "note",
}

// attributes fetches a Gopher+ item's attributes.
func (g *Gateway) attributes(w http.ResponseWriter, r *http.Request, raw string) (*fetch.Response, *schemes.URL, bool) {
	u, code, err := g.check(raw)
	if err != nil {
		g.fail(w, code, err.Error())
		return nil, nil, false
	}
	a := u.GopherAttributes()
	if a == nil {
		g.fail(w, http.StatusBadRequest, raw+" is not a gopher URL: it has no Gopher+ attributes")
		return nil, nil, false
	}
	resp, _, code, err := g.fetch(r, a.String(), fetch.Request{})
	if err != nil {
		g.fail(w, code, err.Error())
		return nil, nil, false
	}
	if resp.Kind != schemes.KindInfo || resp.Info == nil {
		resp.Close()
		g.fail(w, http.StatusBadGateway, "the server gave no Gopher+ attributes for "+raw)
		return nil, nil, false
	}
	return resp, u, true
}

// info shows a Gopher+ item's attributes (+INFO, +ADMIN, +VIEWS,
// +ABSTRACT, +ASK) as the server gave them, read for a person, and each
// view of +VIEWS as links to the item fetched in it (schemes.Viewer).
func (g *Gateway) info(w http.ResponseWriter, r *http.Request) {
	raw := target(r, "/info/")
	resp, u, ok := g.attributes(w, r, raw)
	if !ok {
		return
	}
	defer resp.Close()
	var b bytes.Buffer
	if err := schemes.WriteInfo(&b, resp.Info); err != nil {
		g.fail(w, http.StatusBadGateway, err.Error())
		return
	}
	p := infoPage{URL: u.String(), Text: b.String()}
	if v, ok := resp.Info.(schemes.Viewer); ok {
		for _, view := range v.Views() {
			to := viewURL(u, view.Plus)
			l := viewLink{Type: view.MediaType, Language: view.Language, Live: "/live/" + to, Raw: "/raw/" + to}
			if view.Size >= 0 {
				l.Size = strconv.FormatInt(view.Size, 10)
			}
			p.Views = append(p.Views, l)
		}
	}
	g.page(w, http.StatusOK, u.String(), u.String(), p)
}

// viewURL is the URL of a Gopher item u in the view plus asks for.
func viewURL(u *schemes.URL, plus string) string {
	gu := *u.Gopher
	gu.PlusString, gu.HasPlus = plus, true
	v := *u
	v.Gopher = &gu
	return v.String()
}

// ask shows a Gopher+ item's +ASK form; with its answers (the form's
// own submission, "sent"), it fetches the item with them and shows the
// answer.
func (g *Gateway) ask(w http.ResponseWriter, r *http.Request) {
	raw, _, _ := strings.Cut(target(r, "/ask/"), "?")
	q := r.URL.Query()
	if q.Get("sent") == "1" {
		var answers []string
		for k, vs := range q {
			n, err := strconv.Atoi(strings.TrimPrefix(k, "a"))
			if !strings.HasPrefix(k, "a") || err != nil || n < 1 || len(vs) == 0 {
				continue
			}
			answers = append(answers, fmt.Sprintf("%d=%s", n, vs[len(vs)-1]))
		}
		resp, u, code, err := g.fetch(r, raw, fetch.Request{Call: schemes.Call{Form: answers}})
		if err != nil {
			g.fail(w, code, err.Error())
			return
		}
		defer resp.Close()
		g.show(w, u, resp, live, nil)
		return
	}
	resp, u, ok := g.attributes(w, r, raw)
	if !ok {
		return
	}
	defer resp.Close()
	f, isForm := resp.Info.(schemes.Former)
	var form *schemes.Form
	if isForm {
		form = f.Form()
	}
	if form == nil {
		g.fail(w, http.StatusBadGateway, "the server gave no +ASK form for "+raw)
		return
	}
	p := askPage{URL: u.String(), Action: "/ask/" + raw}
	for _, fl := range form.Fields {
		af := askField{Name: "a" + strconv.Itoa(fl.Position), Question: fl.Question, Default: fl.Default, Choices: fl.Choices,
			Kind: fieldKinds[fl.Kind], Checked: fl.Kind == schemes.FieldCheck && fl.Default == "1"}
		if af.Kind == "" {
			af.Kind = "line"
		}
		p.Fields = append(p.Fields, af)
	}
	g.page(w, http.StatusOK, u.String(), u.String(), p)
}
