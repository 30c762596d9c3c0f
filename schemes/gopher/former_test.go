package gopher

import (
	"reflect"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestAttributesForm: the first +ASK block among the items reaches a user
// interface through schemes.Former, each field with the kind that says how
// it is answered, its question, default, choices and position.
func TestAttributesForm(t *testing.T) {
	a := &Attributes{Items: []*Item{{}, {Ask: ParseForm(allKinds)}, {Ask: ParseForm([]string{"Ask: second form"})}}}
	var info any = a
	former, ok := info.(schemes.Former)
	if !ok {
		t.Fatal("*Attributes is not a schemes.Former")
	}
	f := former.Form()
	if f == nil {
		t.Fatal("no form")
	}
	want := []schemes.FormField{
		{Kind: schemes.FieldNote, Question: "Please fill in the form"},
		{Kind: schemes.FieldLine, Question: "What is your name?", Default: "gofer", Position: 1},
		{Kind: schemes.FieldSecret, Question: "Password:", Position: 2},
		{Kind: schemes.FieldLines, Question: "Comments:", Position: 3},
		{Kind: schemes.FieldLine, Question: "Save as:", Default: "out.txt", Position: 4},
		{Kind: schemes.FieldChoice, Question: "Favourite colour?", Default: "red", Choices: []string{"red", "green", "blue"}, Position: 5},
		{Kind: schemes.FieldLine, Question: "File to send:", Position: 6},
		{Kind: schemes.FieldCheck, Question: "Extra cheese?", Default: "1", Position: 7},
		{Kind: schemes.FieldCheck, Question: "Olives?", Default: "1", Position: 8},
		{Kind: schemes.FieldCheck, Question: "Anchovies?", Default: "0", Position: 9},
		{Kind: schemes.FieldChoice, Question: "lower-case kind", Default: "no default", Choices: []string{"no default"}, Position: 10},
		{Kind: schemes.FieldNote, Question: "A line without a colon is a note"},
	}
	if !reflect.DeepEqual(f.Fields, want) {
		t.Errorf("fields:\n%+v\nwant:\n%+v", f.Fields, want)
	}

	none := &Attributes{Items: []*Item{{}}}
	if f := none.Form(); f != nil {
		t.Errorf("attributes without +ASK gave a form: %+v", f)
	}
	if f := (*Attributes)(nil).Form(); f != nil {
		t.Errorf("nil attributes gave a form: %+v", f)
	}
}
