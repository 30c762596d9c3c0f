package gopher

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Field kinds of a +ASK block (Gopher+ §2.8, and "Note" from the UMN
// client, which shows text without asking anything).
const (
	KindAsk     = "Ask"     // one line of text, with an optional default
	KindAskP    = "AskP"    // a secret line: prompted without echo
	KindAskL    = "AskL"    // several lines: sent as a line count, then the lines
	KindAskF    = "AskF"    // the name of a new local file (sent as a line)
	KindChoose  = "Choose"  // one of a few choices
	KindChooseF = "ChooseF" // an existing local file's name (sent as a line)
	KindSelect  = "Select"  // a check box: "1" or "0"
	KindNote    = "Note"    // text for the person; no answer
)

// Form is a +ASK form.
type Form struct {
	Fields []FormField `json:"fields"`
}

// FormField is one line of a +ASK block: "Kind: question TAB default" (Ask,
// AskP, AskL, AskF, ChooseF), "Choose: question TAB choice TAB choice...",
// "Select: label[:1|:0]", "Note: text".
type FormField struct {
	Kind     string `json:"kind"`
	Question string `json:"question"`
	// Default is the answer when none is given: the text after the
	// question, Choose's first choice, Select's "1" or "0".
	Default    string   `json:"default,omitempty"`
	HasDefault bool     `json:"-"`
	Choices    []string `json:"choices,omitempty"`
	// Position is the field's 1-based number among the fields that take an
	// answer (the N of a Request.Form answer "N=VALUE"); 0 for a Note.
	Position int `json:"position,omitempty"`
}

// ParseForm parses the lines of a +ASK block (without their leading space).
// Kinds are matched without regard to case; a line with an unknown kind is
// an Ask and a line without a colon a Note, as the UMN client did.
func ParseForm(lines []string) *Form {
	f := &Form{Fields: []FormField{}}
	pos := 0
	for _, l := range lines {
		l = strings.TrimRight(strings.TrimLeft(l, " "), "\r")
		if l == "" {
			continue
		}
		var fl FormField
		kind, rest, ok := strings.Cut(l, ":")
		if !ok {
			fl = FormField{Kind: KindNote, Question: l}
		} else {
			fl = parseField(canonicalKind(kind), strings.TrimPrefix(rest, " "))
		}
		if fl.Kind != KindNote {
			pos++
			fl.Position = pos
		}
		f.Fields = append(f.Fields, fl)
	}
	return f
}

func canonicalKind(k string) string {
	for _, c := range []string{KindAsk, KindAskP, KindAskL, KindAskF, KindChoose, KindChooseF, KindSelect, KindNote} {
		if strings.EqualFold(strings.TrimSpace(k), c) {
			return c
		}
	}
	return KindAsk
}

func parseField(kind, rest string) FormField {
	parts := strings.Split(rest, "\t")
	fl := FormField{Kind: kind, Question: parts[0]}
	switch kind {
	case KindNote:
		fl.Question = rest
	case KindChoose:
		for _, c := range parts[1:] {
			if c != "" {
				fl.Choices = append(fl.Choices, c)
			}
		}
		if len(fl.Choices) > 0 {
			fl.Default, fl.HasDefault = fl.Choices[0], true
		}
	case KindSelect:
		// Gopher+ defines Select as check boxes, one line each, answered
		// "1" or "0"; the default comes as "label:1" (the UMN client) or
		// "label TAB 1". A line listing options is taken as one choice
		// among them.
		fl.Default, fl.HasDefault = "0", true
		switch {
		case len(parts) == 2 && (parts[1] == "0" || parts[1] == "1"):
			fl.Default = parts[1]
		case len(parts) > 1:
			fl.Choices = parts[1:]
			fl.Default = parts[1]
		default:
			if q, v, ok := cutLast(parts[0], ":"); ok && (v == "0" || v == "1") {
				fl.Question, fl.Default = q, v
			}
		}
	default:
		if len(parts) > 1 {
			fl.Default, fl.HasDefault = strings.Join(parts[1:], "\t"), true
		}
	}
	return fl
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// Questions returns the fields that take an answer.
func (f *Form) Questions() []FormField {
	var q []FormField
	for _, fl := range f.Fields {
		if fl.Kind != KindNote {
			q = append(q, fl)
		}
	}
	return q
}

// Prompter asks the person at the terminal (schemes.Request.Prompt).
type Prompter func(question string, secret bool) (string, error)

// Fill answers the form and returns the lines of the data block, in order:
// one per question, an AskL answer as its line count and then its lines.
// answers are "NAME=VALUE", NAME being a question's text exactly or its
// 1-based position; a question without one is asked through prompt, or takes
// its default when prompt is nil. A form that cannot be completed is an
// ErrUsage error listing the questions still open.
func (f *Form) Fill(answers []string, prompt Prompter) ([]string, error) {
	lines, _, err := f.fill(answers, prompt)
	return lines, err
}

// fill is Fill that also says which lines are secret (AskP), for the transcript.
func (f *Form) fill(answers []string, prompt Prompter) (lines []string, secret []bool, err error) {
	given, err := f.match(answers)
	if err != nil {
		return nil, nil, err
	}
	var missing []FormField
	var notes []string
	for _, fl := range f.Fields {
		if fl.Kind == KindNote {
			notes = append(notes, fl.Question)
			continue
		}
		v, ok := given[fl.Position]
		if !ok && prompt != nil {
			v, err = ask(fl, notes, prompt)
			if err != nil {
				return nil, nil, err
			}
			if v == "" && fl.HasDefault {
				v = fl.Default
			}
			ok = true
		}
		notes = nil
		if !ok {
			if !fl.HasDefault {
				missing = append(missing, fl)
				continue
			}
			v = fl.Default
		}
		out, err := answerLines(fl, v)
		if err != nil {
			return nil, nil, err
		}
		for _, l := range out {
			lines = append(lines, l)
			secret = append(secret, fl.Kind == KindAskP)
		}
	}
	if len(missing) > 0 {
		return nil, nil, schemes.Errorf(schemes.ErrUsage, "form needs answers: %s", describe(missing))
	}
	return lines, secret, nil
}

// match sorts the NAME=VALUE answers by question position.
func (f *Form) match(answers []string) (map[int]string, error) {
	qs := f.Questions()
	given := map[int]string{}
	for _, a := range answers {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return nil, schemes.Errorf(schemes.ErrUsage, "form answer %q is not NAME=VALUE", a)
		}
		pos := 0
		for _, q := range qs {
			if q.Question == name {
				pos = q.Position
				break
			}
		}
		if n, err := strconv.Atoi(name); pos == 0 && err == nil && n >= 1 && n <= len(qs) {
			pos = n
		}
		if pos == 0 {
			return nil, schemes.Errorf(schemes.ErrUsage, "the form has no question %q; it asks: %s", name, describe(qs))
		}
		if _, dup := given[pos]; dup {
			return nil, schemes.Errorf(schemes.ErrUsage, "form question %d is answered twice", pos)
		}
		given[pos] = value
	}
	return given, nil
}

// ask prompts for one field, with the notes that came before it.
func ask(fl FormField, notes []string, prompt Prompter) (string, error) {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	b.WriteString(fl.Question)
	switch {
	case len(fl.Choices) > 0:
		for i, c := range fl.Choices {
			fmt.Fprintf(&b, "\n  %d) %s", i+1, c)
		}
		fmt.Fprintf(&b, "\nchoice [%s]", fl.Default)
	case fl.Kind == KindSelect:
		fmt.Fprintf(&b, " (y/n) [%s]", map[string]string{"1": "y", "0": "n"}[fl.Default])
	case fl.Kind == KindAskL:
		b.WriteString(" (end with an empty line)")
	case fl.HasDefault && fl.Kind != KindAskP:
		fmt.Fprintf(&b, " [%s]", fl.Default)
	}
	q := b.String()
	if fl.Kind != KindAskL {
		return prompt(q, fl.Kind == KindAskP)
	}
	var lines []string
	for {
		l, err := prompt(q, false)
		if err != nil {
			return "", err
		}
		if l == "" {
			return strings.Join(lines, "\n"), nil
		}
		lines = append(lines, l)
		q = "..."
	}
}

// answerLines turns one answer into data block lines, checking it.
func answerLines(fl FormField, v string) ([]string, error) {
	var out []string
	switch fl.Kind {
	case KindChoose, KindSelect:
		if len(fl.Choices) > 0 {
			c, ok := pick(fl.Choices, v)
			if !ok {
				return nil, schemes.Errorf(schemes.ErrUsage, "answer %q to %d %q is not one of its choices: %s",
					v, fl.Position, fl.Question, strings.Join(fl.Choices, ", "))
			}
			out = []string{c}
			break
		}
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "1", "y", "yes", "on", "true":
			out = []string{"1"}
		case "0", "n", "no", "off", "false":
			out = []string{"0"}
		default:
			return nil, schemes.Errorf(schemes.ErrUsage, "answer %q to %d %q must be yes or no", v, fl.Position, fl.Question)
		}
	case KindAskL:
		v = strings.ReplaceAll(v, "\r\n", "\n")
		var ls []string
		if v != "" {
			ls = strings.Split(v, "\n")
		}
		out = append([]string{strconv.Itoa(len(ls))}, ls...)
	default:
		out = []string{v}
	}
	for i, l := range out {
		if err := security.CheckGopherField(fmt.Sprintf("gopher+ form answer %d", fl.Position), l); err != nil {
			return nil, schemes.Errorf(schemes.ErrUsage, "%v", err)
		}
		// The data block is dot-terminated ("+-1"): a line starting with
		// "." is sent with the dot doubled, so "." cannot end it early.
		if strings.HasPrefix(l, ".") {
			out[i] = "." + l
		}
	}
	return out, nil
}

// pick matches an answer to a choice by its text or its 1-based number.
func pick(choices []string, v string) (string, bool) {
	for _, c := range choices {
		if c == v {
			return c, true
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 1 && n <= len(choices) {
		return choices[n-1], true
	}
	return "", false
}

// describe lists questions as `1 "Name?", 2 "Pick one" (choices: a, b)`.
func describe(qs []FormField) string {
	var parts []string
	for _, q := range qs {
		s := fmt.Sprintf("%d %q", q.Position, q.Question)
		if len(q.Choices) > 0 {
			s += " (choices: " + strings.Join(q.Choices, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func (f *Form) writeText(b *strings.Builder) {
	for _, fl := range f.Fields {
		if fl.Kind == KindNote {
			fmt.Fprintf(b, "  %s\n", fl.Question)
			continue
		}
		fmt.Fprintf(b, "  %d. %s: %s", fl.Position, fl.Kind, fl.Question)
		if len(fl.Choices) > 0 {
			fmt.Fprintf(b, " (choices: %s)", strings.Join(fl.Choices, ", "))
		}
		if fl.HasDefault && fl.Kind != KindAskP {
			fmt.Fprintf(b, " [default: %s]", fl.Default)
		}
		b.WriteByte('\n')
	}
}

var _ schemes.Former = (*Attributes)(nil)

// Form returns the first +ASK form among the items, described for a user
// interface, or nil when no item has one.
func (a *Attributes) Form() *schemes.Form {
	if a == nil {
		return nil
	}
	for _, it := range a.Items {
		if it.Ask != nil {
			return it.Ask.schemesForm()
		}
	}
	return nil
}

// schemesForm is the form as schemes.Former gives it.
func (f *Form) schemesForm() *schemes.Form {
	out := &schemes.Form{Fields: make([]schemes.FormField, 0, len(f.Fields))}
	for _, fl := range f.Fields {
		out.Fields = append(out.Fields, schemes.FormField{
			Kind:     fieldKind(fl),
			Question: fl.Question,
			Default:  fl.Default,
			Choices:  fl.Choices,
			Position: fl.Position,
		})
	}
	return out
}

// fieldKind is how a field is answered: a Select that lists options is a
// choice among them, as Fill takes it.
func fieldKind(fl FormField) schemes.FieldKind {
	switch {
	case fl.Kind == KindNote:
		return schemes.FieldNote
	case fl.Kind == KindAskP:
		return schemes.FieldSecret
	case fl.Kind == KindAskL:
		return schemes.FieldLines
	case len(fl.Choices) > 0:
		return schemes.FieldChoice
	case fl.Kind == KindSelect:
		return schemes.FieldCheck
	}
	return schemes.FieldLine
}
