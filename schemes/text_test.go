package schemes

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestFindInText reads the wrapper examples of RFC 1738's appendix and the
// draft's references (wrapped over lines, broken mid-word) plus bare URLs.
func TestFindInText(t *testing.T) {
	in, err := os.ReadFile("../testdata/extract/wrappers.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../testdata/extract/wrappers.want")
	if err != nil {
		t.Fatal(err)
	}
	got := FindInText(string(in))
	if w := strings.Fields(string(want)); !reflect.DeepEqual(got, w) {
		t.Errorf("FindInText:\n got %q\nwant %q", got, w)
	}
	for _, s := range got {
		if _, err := Parse(s); err != nil {
			t.Errorf("found %q does not parse: %v", s, err)
		}
	}
}

func TestFindInTextEdges(t *testing.T) {
	cases := map[string][]string{
		"":                              nil,
		"no urls here: none":            nil,
		"<<ftp://h/x>>":                 {"ftp://h/x"},
		"(see http://h/a_(b))":          {"http://h/a_(b)"},
		"http://h/a, http://h/b.":       {"http://h/a", "http://h/b"},
		"xftp://h/y":                    nil,
		"<x-gofer://h/p> and <x-y:z>":   {"x-gofer://h/p"},
		"<URL:x-y:z>":                   {"x-y:z"},
		"unclosed <ftp://h/a then bare": {"ftp://h/a"},
		"HTTP://H/ mixed case":          {"HTTP://H/"},
		"\"ftp://h/q\"":                 {"ftp://h/q"},
	}
	for in, want := range cases {
		if got := FindInText(in); !reflect.DeepEqual(got, want) {
			t.Errorf("FindInText(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzFindInText(f *testing.F) {
	f.Add("<URL:ftp://h/\n x> http://a/b")
	f.Fuzz(func(t *testing.T, s string) {
		for _, u := range FindInText(s) {
			if u == "" || strings.ContainsAny(u, " \t\r\n<>") {
				t.Fatalf("FindInText(%q) gave %q", s, u)
			}
		}
	})
}
