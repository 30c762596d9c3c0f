package gateway

import (
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// askInfo is a Gopher+ attribute block with a form, as a fetcher's Info.
type askInfo struct{ form *schemes.Form }

func (a askInfo) Form() *schemes.Form { return a.form }

func (a askInfo) Views() []schemes.ItemView {
	return []schemes.ItemView{
		{MediaType: "text/plain", Size: 1024, Plus: "+text/plain"},
		{MediaType: "application/pdf", Language: "Es_ES", Size: -1, Plus: "+application/pdf Es_ES"},
	}
}

func (a askInfo) WriteText(w io.Writer) error {
	_, err := io.WriteString(w, "Admin: <someone@example.org>\nViews: text/plain\n")
	return err
}

func TestGopherPlusFormsAndAttributes(t *testing.T) {
	var got []string
	info := func(req *schemes.Request) (*schemes.Response, error) {
		return &schemes.Response{URL: req.URL, Kind: schemes.KindInfo, Size: -1, Body: io.NopCloser(strings.NewReader("")),
			Info: askInfo{&schemes.Form{Fields: []schemes.FormField{
				{Kind: schemes.FieldLine, Question: "Name <b>?</b>", Default: "gofer", Position: 1},
				{Kind: schemes.FieldSecret, Question: "Password", Position: 2},
				{Kind: schemes.FieldChoice, Question: "Colour", Choices: []string{"red", "<green>"}, Position: 3},
				{Kind: schemes.FieldCheck, Question: "Cheese", Default: "1", Position: 4},
				{Kind: schemes.FieldNote, Question: "answers are kept"},
			}}}}, nil
	}
	f := &fake{routes: map[string]func(*schemes.Request) (*schemes.Response, error){
		"gopher://h/1/": listing(
			schemes.Entry{Name: "form", Type: schemes.TypeAsk, URL: "gopher://h/0/form%09%09?", Size: -1, Gopher: &schemes.GopherItem{Type: "0", Plus: "?"}},
			schemes.Entry{Name: "plus item", Type: schemes.TypeText, URL: "gopher://h/0/about", Size: -1, Gopher: &schemes.GopherItem{Type: "0", Plus: "+"}},
		),
		"gopher://h/0/form%09%09!":                         info,
		"gopher://h/0/about%09%09!":                        info,
		"gopher://h/0/about%09%09+application/pdf%20Es_ES": file("application/pdf", "", "about", "%PDF in Spanish"),
		"gopher://h/0/form%09%09?": func(req *schemes.Request) (*schemes.Response, error) {
			got = append([]string(nil), req.Form...)
			return file("text/plain", "", "", "the document behind the form")(req)
		},
	}}
	srv := newGateway(t, f, Config{})
	_, page := get(t, srv, "/live/gopher://h/1/")
	for _, want := range []string{`<a href="/ask/gopher://h/0/form%09%09%3F">form</a>`, `<a class="type" href="/info/gopher://h/0/about">[info]</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("menu lacks %s:\n%s", want, page)
		}
	}
	_, page = get(t, srv, "/ask/gopher://h/0/form%09%09%3F")
	checkOwnTags(t, page)
	for _, want := range []string{
		`<form action="/ask/gopher://h/0/form%09%09%3F" method="get">`, `Name &lt;b&gt;?&lt;/b&gt;<br><input type="text" name="a1" value="gofer"`,
		`<input type="password" name="a2"`, `<option>&lt;green&gt;</option>`, `name="a4" value="1" checked`, `<p>answers are kept</p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("form lacks %s:\n%s", want, page)
		}
	}
	resp, body := get(t, srv, "/ask/gopher://h/0/form%09%09%3F?sent=1&a1=Ada&a2=pw&a3=%3Cgreen%3E&a4=0&a4=1")
	sort.Strings(got)
	if resp.StatusCode != 200 || body != "the document behind the form" || strings.Join(got, "|") != "1=Ada|2=pw|3=<green>|4=1" {
		t.Errorf("answers: %d %q, the fetch got %q", resp.StatusCode, body, got)
	}
	_, page = get(t, srv, "/info/gopher://h/0/about")
	if !strings.Contains(page, "<pre>Admin: &lt;someone@example.org&gt;\nViews: text/plain\n</pre>") {
		t.Errorf("attributes page:\n%s", page)
	}
	// Each view links to the item fetched in it, live and raw.
	for _, want := range []string{
		`<li><a href="/live/gopher://h/0/about%09%09&#43;text/plain">text/plain</a> <span class="type">1024 bytes</span> <a class="type" href="/raw/gopher://h/0/about%09%09&#43;text/plain">[raw]</a></li>`,
		`<li><a href="/live/gopher://h/0/about%09%09&#43;application/pdf%20Es_ES">application/pdf (Es_ES)</a> <a class="type" href="/raw/gopher://h/0/about%09%09&#43;application/pdf%20Es_ES">[raw]</a></li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("attributes page lacks %s:\n%s", want, page)
		}
	}
	if resp, body := get(t, srv, "/live/gopher://h/0/about%09%09+application/pdf%20Es_ES"); resp.StatusCode != 200 || body != "%PDF in Spanish" {
		t.Errorf("a view followed: %d %q", resp.StatusCode, body)
	}
	if resp, _ := get(t, srv, "/info/ftp://h/x"); resp.StatusCode != 400 {
		t.Errorf("attributes of an ftp URL: %d", resp.StatusCode)
	}
}
