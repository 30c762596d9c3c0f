package gopher

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// The Gopher+ specification's own example (§2.5) and a "$" reply (§2.7).
const specAttributes = "+INFO: 0Some file or other\tmoo selector\thost2\t7072\t+\r\n" +
	"+ADMIN:\r\n" +
	" Admin: Frodo Gophermeister <fng@bogus.edu>\r\n" +
	" Mod-Date: Wed Jul 28 17:02:01 1993 <19930728170201>\r\n" +
	"+VIEWS:\r\n" +
	" Text/plain: <10k>\r\n" +
	" application/postscript: <100k>\r\n" +
	" Text/plain De_DE: <15k>\r\n" +
	" application/MacWriteII: <45K>\r\n" +
	" image/gif:\r\n" +
	"+ABSTRACT:\r\n" +
	" This is a short (but multi-line) abstract about the\r\n" +
	" item. Two or three lines ought to be enough\r\n" +
	"+ASK:\r\n" +
	" Ask: How many volts?\r\n" +
	" Choose: Deliver electric shock to administrator now?\tYes\tNot!\r\n" +
	"+SMELL: \r\n" +
	" roses\r\n"

func TestParseAttributes(t *testing.T) {
	a := ParseAttributes(specAttributes, "h", 70)
	if len(a.Items) != 1 {
		t.Fatalf("%d items", len(a.Items))
	}
	it := a.Items[0]
	if it.Info == nil || it.Info.Name != "Some file or other" || it.Info.Gopher.Selector != "moo selector" || it.Info.Gopher.Port != 7072 || it.Info.Gopher.Plus != "+" {
		t.Errorf("Info %+v", it.Info)
	}
	want := time.Date(1993, 7, 28, 17, 2, 1, 0, time.UTC)
	if it.Admin == nil || it.Admin.Email != "fng@bogus.edu" || it.Admin.ModDate == nil || !it.Admin.ModDate.Equal(want) {
		t.Errorf("Admin %+v", it.Admin)
	}
	if len(it.Views) != 5 {
		t.Fatalf("views %+v", it.Views)
	}
	v := it.Views[2]
	if v.Type != "Text/plain" || v.Language != "De_DE" || v.Size == nil || *v.Size != 15*1024 || v.PlusString() != "+Text/plain De_DE" {
		t.Errorf("view %+v", v)
	}
	if *it.Views[3].Size != 45*1024 || it.Views[4].Size != nil {
		t.Errorf("views %+v %+v", it.Views[3], it.Views[4])
	}
	if it.Abstract != "This is a short (but multi-line) abstract about the\nitem. Two or three lines ought to be enough" {
		t.Errorf("abstract %q", it.Abstract)
	}
	if it.Ask == nil || len(it.Ask.Fields) != 2 || it.Ask.Fields[1].Kind != KindChoose ||
		strings.Join(it.Ask.Fields[1].Choices, "|") != "Yes|Not!" {
		t.Errorf("ask %+v", it.Ask)
	}
	if len(it.Blocks) != 1 || it.Blocks[0].Name != "SMELL" || it.Blocks[0].Lines[0] != "roses" {
		t.Errorf("blocks %+v", it.Blocks)
	}

	// JSON is structured, with the time in RFC 3339 and the descriptor as an entry.
	j, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"mod_date":"1993-07-28T17:02:01Z"`, `"email":"fng@bogus.edu"`, `"language":"De_DE"`,
		`"size":15360`, `"gopher_type":"0"`, `"kind":"Choose"`, `"url":"gopher://host2:7072/0moo%20selector"`} {
		if !bytes.Contains(j, []byte(s)) {
			t.Errorf("JSON lacks %s: %s", s, j)
		}
	}
	var text bytes.Buffer
	if err := a.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Some file or other", "Admin: Frodo Gophermeister <fng@bogus.edu>", "Text/plain (De_DE)  15360 bytes",
		"item. Two or three lines", "1. Ask: How many volts?", "2. Choose: Deliver electric shock to administrator now? (choices: Yes, Not!)"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
}

// Views gives the +VIEWS through the contract (schemes.Viewer), each with
// the Gopher+ string that asks for it.
func TestAttributesViews(t *testing.T) {
	vs := ParseAttributes(specAttributes, "h", 70).Views()
	if len(vs) != 5 || vs[2] != (schemes.ItemView{MediaType: "Text/plain", Language: "De_DE", Size: 15 * 1024, Plus: "+Text/plain De_DE"}) ||
		vs[4] != (schemes.ItemView{MediaType: "image/gif", Size: -1, Plus: "+image/gif"}) {
		t.Errorf("views %+v", vs)
	}
	if vs := ParseAttributes("+INFO: 0x\tx\th\t70\t+\r\n", "h", 70).Views(); vs != nil {
		t.Errorf("views of an item without +VIEWS: %+v", vs)
	}
}

func TestParseDirectoryAttributes(t *testing.T) {
	dollar := "+INFO: 0Salmon dogs\tsome selector\thost2\t70\t+\n" +
		"+ADMIN:\n Admin: Frodo Gophermeister <fng@bogus.edu>\n Mod-Date: August 15, 1992 <19920815185503>\n" +
		"+VIEWS:\n Text/plain: <10k>\n application/Postscript De_DE: <100k>\n" +
		"+ABSTRACT:\n A great recipe for making salmon\n" +
		"+INFO: 0Hot pups\tother selector\thost3\t70\t+\n" +
		"+ADMIN:\n Admin: Bilbo Gophernovice <bng@bogus.edu>\n Date: <19910101080003>\n"
	a := ParseAttributes(dollar, "h", 70)
	if len(a.Items) != 2 || a.Items[0].Info.Name != "Salmon dogs" || a.Items[1].Info.Name != "Hot pups" {
		t.Fatalf("items %+v", a.Items)
	}
	if a.Items[1].Admin.Email != "bng@bogus.edu" || a.Items[1].Admin.ModDate != nil || a.Items[0].Abstract != "A great recipe for making salmon" {
		t.Errorf("second %+v / first %+v", a.Items[1].Admin, a.Items[0])
	}
}

// A "$" reply reaches a tree walker through the contract: each item's
// descriptor with its Mod-Date as Modified, an item without one left zero.
func TestAttributesEntries(t *testing.T) {
	dollar := "+INFO: 0Salmon dogs\tsome selector\thost2\t70\t+\n" +
		"+ADMIN:\n Admin: Frodo <fng@bogus.edu>\n Mod-Date: August 15, 1992 <19920815185503>\n" +
		"+INFO: 0Hot pups\tother selector\thost3\t70\t+\n" +
		"+ADMIN:\n Admin: Bilbo <bng@bogus.edu>\n"
	var info any = ParseAttributes(dollar, "h", 70)
	items, ok := info.(schemes.EntriesInfo)
	if !ok {
		t.Fatal("*Attributes does not implement schemes.EntriesInfo")
	}
	got := items.Entries()
	if len(got) != 2 || got[0].Gopher.Selector != "some selector" || got[1].Gopher.Selector != "other selector" {
		t.Fatalf("entries %+v", got)
	}
	if want := time.Date(1992, 8, 15, 18, 55, 3, 0, time.UTC); !got[0].Modified.Equal(want) {
		t.Errorf("first Modified = %v, want %v", got[0].Modified, want)
	}
	if !got[1].Modified.IsZero() {
		t.Errorf("second Modified = %v, want zero", got[1].Modified)
	}
	if (*Attributes)(nil).Entries() != nil {
		t.Error("nil Attributes gave entries")
	}
}

// "!" and "$" become KindInfo; the reply may come framed or not.
func TestFetchAttributes(t *testing.T) {
	for _, reply := range []string{"+-2\r\n" + specAttributes, "+-1\r\n" + specAttributes + ".\r\n", specAttributes} {
		s := newScripted(t, func(int, string) string { return reply })
		resp, err := New().Fetch(context.Background(), newRequest(s.url(plus('0', "!"))))
		if err != nil {
			t.Fatal(err)
		}
		a, ok := resp.Info.(*Attributes)
		if resp.Kind != schemes.KindInfo || !ok || len(a.Items) != 1 || a.Items[0].Admin.Email != "fng@bogus.edu" {
			t.Fatalf("reply %.10q: %+v", reply, resp)
		}
	}
	// A server that does not do Gopher+ answers with the item itself.
	s := newScripted(t, func(int, string) string { return "just the text\r\n.\r\n" })
	_, err := New().Fetch(context.Background(), newRequest(s.url(plus('0', "!"))))
	if !errors.Is(err, schemes.ErrRefused) {
		t.Fatalf("plain server: err = %v", err)
	}
	// Attributes are bounded.
	s = newScripted(t, func(int, string) string { return "+-2\r\n" + specAttributes })
	req := newRequest(s.url(plus('0', "!")))
	req.MaxBytes = 100
	if _, err := New().Fetch(context.Background(), req); !errors.Is(err, schemes.ErrTooLarge) {
		t.Fatalf("large attributes: err = %v", err)
	}
}
