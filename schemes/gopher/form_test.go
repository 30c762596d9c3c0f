package gopher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// Every field kind with its default, in the shapes servers write them.
var allKinds = []string{
	"Note: Please fill in the form",
	"Ask: What is your name?\tgofer",
	"AskP: Password:",
	"AskL: Comments:",
	"AskF: Save as:\tout.txt",
	"Choose: Favourite colour?\tred\tgreen\tblue",
	"ChooseF: File to send:",
	"Select: Extra cheese?\t1",
	"Select: Olives?:1",
	"Select: Anchovies?",
	"select: lower-case kind\tno default",
	"A line without a colon is a note",
}

func TestParseForm(t *testing.T) {
	f := ParseForm(allKinds)
	got := make([]string, len(f.Fields))
	for i, fl := range f.Fields {
		got[i] = fmt.Sprintf("%d %s %q def=%q(%v) %q", fl.Position, fl.Kind, fl.Question, fl.Default, fl.HasDefault, fl.Choices)
	}
	want := []string{
		`0 Note "Please fill in the form" def=""(false) []`,
		`1 Ask "What is your name?" def="gofer"(true) []`,
		`2 AskP "Password:" def=""(false) []`,
		`3 AskL "Comments:" def=""(false) []`,
		`4 AskF "Save as:" def="out.txt"(true) []`,
		`5 Choose "Favourite colour?" def="red"(true) ["red" "green" "blue"]`,
		`6 ChooseF "File to send:" def=""(false) []`,
		`7 Select "Extra cheese?" def="1"(true) []`,
		`8 Select "Olives?" def="1"(true) []`,
		`9 Select "Anchovies?" def="0"(true) []`,
		`10 Select "lower-case kind" def="no default"(true) ["no default"]`,
		`0 Note "A line without a colon is a note" def=""(false) []`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("fields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFillByNameAndPosition(t *testing.T) {
	f := ParseForm(allKinds[:9])
	lines, err := f.Fill([]string{
		"What is your name?=Ada", // by question text
		"2=s3cret",               // by position
		"Comments:=line one\nline two",
		"5=3",                     // a choice by its number
		"File to send:=notes.txt", // ChooseF: the name, never the file
		"7=no",                    // a check box
		"Olives?=off",             // the "label:1" default is not part of the question
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Ada", "s3cret", "2", "line one", "line two", "out.txt", "blue", "notes.txt", "0", "0"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("lines %q, want %q", lines, want)
	}
}

func TestFillErrors(t *testing.T) {
	f := ParseForm([]string{"Ask: Name?", "Choose: Pick one\ta\tb", "Ask: Age?\t42", "AskP: Secret?"})
	_, err := f.Fill(nil, nil)
	if !errors.Is(err, schemes.ErrUsage) || err.Error() != `form needs answers: 1 "Name?", 4 "Secret?"` {
		t.Fatalf("missing: %v", err)
	}
	for _, tt := range []struct {
		answers []string
		want    string
	}{
		{[]string{"Nmae?=x"}, `the form has no question "Nmae?"; it asks: 1 "Name?", 2 "Pick one" (choices: a, b), 3 "Age?", 4 "Secret?"`},
		{[]string{"5=x"}, `the form has no question "5"`},
		{[]string{"1=x", "Name?=y"}, `form question 1 is answered twice`},
		{[]string{"noequals"}, `form answer "noequals" is not NAME=VALUE`},
		{[]string{"1=a", "4=b", "2=c"}, `answer "c" to 2 "Pick one" is not one of its choices: a, b`},
		{[]string{"1=a\tb", "4=x"}, `refused: gopher+ form answer 1 holds TAB (%09)`},
		{[]string{"1=a\r\nb", "4=x"}, `refused: gopher+ form answer 1 holds CR (%0D)`},
	} {
		_, err := f.Fill(tt.answers, nil)
		if !errors.Is(err, schemes.ErrUsage) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %s", tt.answers, err, tt.want)
		}
	}
}

// Answers that start with "." are dot-stuffed: "." alone cannot end the
// data block early.
func TestFillDotStuffing(t *testing.T) {
	f := ParseForm([]string{"Ask: A", "AskL: B"})
	lines, err := f.Fill([]string{"1=.", "2=.hidden\n..\nok"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(lines, "|") != "..|3|..hidden|...|ok" {
		t.Fatalf("lines %q", lines)
	}
}

// On a terminal every open question is asked: AskP without echo, choices
// numbered, notes shown with the next question, an empty reply the default.
func TestFillPrompt(t *testing.T) {
	f := ParseForm(allKinds[:8])
	var asked []string
	replies := map[string][]string{}
	prompt := func(q string, secret bool) (string, error) {
		asked = append(asked, fmt.Sprintf("%v:%s", secret, q))
		switch {
		case strings.Contains(q, "Password"):
			return "pw", nil
		case strings.Contains(q, "Comments") || q == "...":
			r := replies["askl"]
			if len(r) == 2 {
				return "", nil
			}
			replies["askl"] = append(r, "x")
			return "x", nil
		case strings.Contains(q, "colour"):
			return "2", nil
		}
		return "", nil
	}
	lines, secret, err := f.fill([]string{"6=a.txt"}, prompt)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(lines, "|") != "gofer|pw|2|x|x|out.txt|green|a.txt|1" {
		t.Fatalf("lines %q", lines)
	}
	if !secret[1] || secret[0] || secret[2] {
		t.Errorf("secret %v", secret)
	}
	if !strings.HasPrefix(asked[0], "false:Please fill in the form\nWhat is your name? [gofer]") {
		t.Errorf("first question %q", asked[0])
	}
	if asked[1] != "true:Password:" {
		t.Errorf("AskP asked as %q", asked[1])
	}
	var colour string
	for _, a := range asked {
		if strings.Contains(a, "colour") {
			colour = a
		}
	}
	if colour != "false:Favourite colour?\n  1) red\n  2) green\n  3) blue\nchoice [red]" {
		t.Errorf("Choose asked as %q", colour)
	}
	for _, a := range asked {
		if strings.Contains(a, "File to send") {
			t.Errorf("answered question asked again: %q", a)
		}
	}
}

// The whole +ASK exchange against a scripted Gopher+ server that echoes
// what it got: the form request, then the submission, byte for byte.
func TestAskExchange(t *testing.T) {
	form := "+-1\r\n+INFO: 0Form\t/form\t127.0.0.1\t70\t?\r\n+ASK:\r\n Note: read this\r\n Ask: Name?\r\n Choose: Pick one\ta\tb\r\n AskP: Secret?\r\n.\r\n"
	echo := func(n int, req string) string {
		if n == 0 {
			return form
		}
		return "+-2\r\n" + req
	}
	want := "/form\t+\t1\r\n+-1\r\nAda\r\nb\r\npw\r\n.\r\n"
	for _, answers := range [][]string{
		{"Name?=Ada", "Pick one=b", "Secret?=pw"}, // by question text
		{"1=Ada", "2=2", "3=pw"},                  // by position, a choice by number
	} {
		s := newScripted(t, echo)
		req := newRequest(s.url(schemes.Gopher{Type: '0', Selector: "/form", HasSearch: true, PlusString: "?", HasPlus: true}))
		req.Form = answers
		var tr strings.Builder
		req.Transcript = &tr
		_, body, err := fetchBody(t, req)
		if err != nil {
			t.Fatal(err)
		}
		reqs := s.Requests()
		if len(reqs) != 2 || reqs[0] != "/form\t!+ASK\r\n" || reqs[1] != want {
			t.Fatalf("%q: sent %q", answers, reqs)
		}
		if body != want {
			t.Fatalf("echo %q", body)
		}
		if strings.Contains(tr.String(), "pw") || !strings.Contains(tr.String(), "> ****") || !strings.Contains(tr.String(), "> Ada") {
			t.Errorf("transcript must show answers but mask AskP:\n%s", tr.String())
		}
		// gofer parse: the same two steps, one placeholder per answer.
		plan, err := New().Plan(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(plan.Requests, "|"); got != "/form\t!+ASK|/form\t+\t1|+-1|<answer 1>|<answer 2>|<answer 3>|." {
			t.Errorf("plan %q", got)
		}
	}
}

// Without answers and without a terminal the fetch is a usage error that
// lists the questions, and nothing is submitted.
func TestAskWithoutAnswers(t *testing.T) {
	s := newScripted(t, func(int, string) string {
		return "+-1\r\n+ASK:\r\n Ask: Name?\r\n Choose: Pick one\ta\tb\r\n.\r\n"
	})
	req := newRequest(s.url(schemes.Gopher{Type: '0', Selector: "/form", HasSearch: true, PlusString: "?", HasPlus: true}))
	_, err := New().Fetch(context.Background(), req)
	if !errors.Is(err, schemes.ErrUsage) || err.Error() != `form needs answers: 1 "Name?"` {
		t.Fatalf("err = %v", err)
	}
	if n := len(s.Requests()); n != 1 {
		t.Fatalf("%d requests, want only the form request", n)
	}
	plan, err := New().Plan(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(plan.Requests, "|"); got != "/form\t!+ASK|/form\t+\t1|+-1|<answer 1>|." {
		t.Errorf("plan %q", got)
	}
}

// A server that answers only a bare "!" (pygopherd) is asked for all
// attributes; one with no form at all is a refusal.
func TestAskFallbacks(t *testing.T) {
	s := newScripted(t, func(n int, req string) string {
		switch n {
		case 0:
			return "The document itself, because \"!+ASK\" was not understood.\r\n"
		case 1:
			return "+-2\r\n+INFO: 0Form\t/f\th\t70\t+\r\n+ASK:\r\n Ask: Name?\tdef\r\n"
		}
		return "+-2\r\nthe document"
	})
	req := newRequest(s.url(schemes.Gopher{Type: '0', Selector: "/f", HasSearch: true, PlusString: "?", HasPlus: true}))
	_, body, err := fetchBody(t, req)
	if err != nil || body != "the document" {
		t.Fatalf("body %q err %v", body, err)
	}
	want := []string{"/f\t!+ASK\r\n", "/f\t!\r\n", "/f\t+\t1\r\n+-1\r\ndef\r\n.\r\n"}
	if got := s.Requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("sent %q, want %q", got, want)
	}

	s = newScripted(t, func(int, string) string { return "+-2\r\n+INFO: 0Form\t/f\th\t70\t+\r\n+ADMIN:\r\n Admin: x <a@b>\r\n" })
	req = newRequest(s.url(schemes.Gopher{Type: '0', Selector: "/f", HasSearch: true, PlusString: "?", HasPlus: true}))
	if _, err := New().Fetch(context.Background(), req); !errors.Is(err, schemes.ErrRefused) {
		t.Fatalf("no form: err = %v", err)
	}
}

// A form on a search item: the search comes before the Gopher+ string in
// both requests, whatever it holds.
func TestAskOnSearchItem(t *testing.T) {
	s := newScripted(t, func(n int, req string) string {
		if n == 0 {
			return "+-2\r\n+ASK:\r\n Ask: Q\r\n"
		}
		return "+-1\r\n0hit\t/hit\t127.0.0.1\t70\r\n.\r\n"
	})
	req := newRequest(s.url(schemes.Gopher{Type: '7', Selector: "/s", Search: "+", HasSearch: true, PlusString: "?", HasPlus: true}))
	req.Form = []string{"Q=a"}
	resp, err := New().Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if e, err := resp.Listing.Next(); err != nil || e.Gopher.Selector != "/hit" {
		t.Fatalf("result %+v %v", e, err)
	}
	want := []string{"/s\t+\t!+ASK\r\n", "/s\t+\t+\t1\r\n+-1\r\na\r\n.\r\n"}
	if got := s.Requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("sent %q, want %q", got, want)
	}
}
