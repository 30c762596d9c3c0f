package gemini

import (
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestListing reads a page with every kind of line, both line ends and no
// final newline.
func TestListing(t *testing.T) {
	doc := "# Title\r\n" +
		"##Sub\n" +
		"###  Deep  \r\n" +
		"####x\n" +
		"Plain text, with => inside\n" +
		"\n" +
		"=> gemini://127.0.0.1/abs.gmi Absolute link\r\n" +
		"=>rel.txt\tTabbed label\n" +
		"=> /root.png\n" +
		"=>   ../up/   Up  one \n" +
		"=> https://127.0.0.1/x Web\n" +
		"=> //127.0.0.2/other\n" +
		"=>\n" +
		"=>   \n" +
		"* item one\n" +
		"*not a list\n" +
		"> quoted\n" +
		">\n" +
		"```alt text here \n" +
		"=> not/a/link\n" +
		"# not a heading\r\n" +
		"\tindented * \n" +
		"``` trailing\n" +
		"=> after.gmi again a link\n" +
		"last line without newline"
	type want struct {
		kind, name, url, typ, host string
		level                      int
	}
	info := schemes.TypeInfo
	wants := []want{
		{LineHeading, "Title", "", info, "", 1},
		{LineHeading, "Sub", "", info, "", 2},
		{LineHeading, "Deep", "", info, "", 3},
		{LineHeading, "#x", "", info, "", 3},
		{LineText, "Plain text, with => inside", "", info, "", 0},
		{LineText, "", "", info, "", 0},
		{LineLink, "Absolute link", "gemini://127.0.0.1/abs.gmi", schemes.TypeDir, "127.0.0.1", 0},
		{LineLink, "Tabbed label", "gemini://127.0.0.1/dir/rel.txt", schemes.TypeText, "127.0.0.1", 0},
		{LineLink, "/root.png", "gemini://127.0.0.1/root.png", schemes.TypeImage, "127.0.0.1", 0},
		{LineLink, "Up  one", "gemini://127.0.0.1/up/", schemes.TypeDir, "127.0.0.1", 0},
		{LineLink, "Web", "https://127.0.0.1/x", schemes.TypeHTML, "127.0.0.1", 0},
		{LineLink, "//127.0.0.2/other", "gemini://127.0.0.2/other", schemes.TypeDir, "127.0.0.2", 0},
		{LineText, "=>", "", info, "", 0},
		{LineText, "=>   ", "", info, "", 0},
		{LineList, "item one", "", info, "", 0},
		{LineText, "*not a list", "", info, "", 0},
		{LineQuote, "quoted", "", info, "", 0},
		{LineQuote, "", "", info, "", 0},
		{LinePreOpen, "alt text here", "", info, "", 0},
		{LinePre, "=> not/a/link", "", info, "", 0},
		{LinePre, "# not a heading", "", info, "", 0},
		{LinePre, "\tindented * ", "", info, "", 0},
		{LinePreEnd, "", "", info, "", 0},
		{LineLink, "again a link", "gemini://127.0.0.1/dir/after.gmi", schemes.TypeDir, "127.0.0.1", 0},
		{LineText, "last line without newline", "", info, "", 0},
	}
	rc := &closeRecorder{Reader: strings.NewReader(doc)}
	l := NewListing(rc, "gemini://127.0.0.1/dir/page.gmi", 0, 0)
	for i, w := range wants {
		e, err := l.Next()
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if e.Gemini == nil {
			t.Fatalf("line %d: %+v has no Gemini view", i+1, e)
		}
		got := want{e.Gemini.Kind, e.Name, e.URL, e.Type, e.Gemini.Host, e.Gemini.Level}
		if got != w {
			t.Errorf("line %d: %+v\n\twant %+v", i+1, got, w)
		}
	}
	if e, err := l.Next(); err != io.EOF {
		t.Fatalf("after the last line: %+v, %v; want io.EOF", e, err)
	}
	if err := l.Close(); err != nil || !rc.closed {
		t.Errorf("Close = %v, body closed %v", err, rc.closed)
	}
}

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error {
	c.closed = true
	return nil
}

// TestScannerRaw: Raw is each line as the document has it, without its
// line end (CR LF or LF, one of them); a lone CR inside a line is kept.
func TestScannerRaw(t *testing.T) {
	doc := "a\r\nb\n\r\n\nc\r\r\nd\re\n```\r\n  pre\r\n```\nend\r"
	want := []string{"a", "b", "", "", "c\r", "d\re", "```", "  pre", "```", "end"}
	sc := NewScanner(strings.NewReader(doc), 0)
	var got []string
	for sc.Scan() {
		got = append(got, sc.Line().Raw)
	}
	if sc.Err() != nil {
		t.Fatal(sc.Err())
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("raw lines %q\n\twant %q", got, want)
	}
}

// TestLineLimit: a line longer than the limit is cut there and the rest of
// it skipped; a line of exactly the limit is whole.
func TestLineLimit(t *testing.T) {
	const max = 40
	exact := strings.Repeat("e", max)
	doc := strings.Repeat("x", 5000) + "\n" + // longer than bufio's buffer
		strings.Repeat("y", max+1) + "\n" +
		strings.Repeat("z", max+1) + "\r\n" +
		exact + "\r\n" +
		exact + "\n" +
		"=> " + strings.Repeat("l", 100) + " label\n" +
		exact + "w"
	want := []string{strings.Repeat("x", max), strings.Repeat("y", max), strings.Repeat("z", max), exact, exact, "=> " + strings.Repeat("l", max-3), exact}
	sc := NewScanner(strings.NewReader(doc), max)
	var got []string
	for sc.Scan() {
		got = append(got, sc.Line().Raw)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q\n\twant %q", got, want)
	}
}

// TestEntryLimit: a page of more lines than the limit ends with the limit
// kind.
func TestEntryLimit(t *testing.T) {
	l := NewListing(strings.NewReader("a\nb\nc\nd\n"), "gemini://127.0.0.1/", 0, 3)
	for i := 0; i < 3; i++ {
		if _, err := l.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Next(); !errors.Is(err, schemes.ErrTooLarge) {
		t.Fatalf("line 4 of 3: %v; want the limit kind", err)
	}
}

// TestListingBadBase: a page URL that does not parse leaves relative links
// without a URL and absolute ones as they are.
func TestListingBadBase(t *testing.T) {
	l := NewListing(strings.NewReader("=> rel.gmi\n=> gemini://127.0.0.1/a.gmi\n"), "%zz", 0, 0)
	e, _ := l.Next()
	if e.Gemini == nil || e.Gemini.Kind != LineLink || e.URL != "" {
		t.Errorf("relative link: %+v", e)
	}
	e, _ = l.Next()
	if e.URL != "gemini://127.0.0.1/a.gmi" {
		t.Errorf("absolute link: %+v", e)
	}
}

func TestResolve(t *testing.T) {
	base, _ := url.Parse("gemini://127.0.0.1/a/b.gmi?q")
	for target, want := range map[string]string{
		"c.gmi":              "gemini://127.0.0.1/a/c.gmi",
		"../d/":              "gemini://127.0.0.1/d/",
		"?x":                 "gemini://127.0.0.1/a/b.gmi?x",
		"/e#f":               "gemini://127.0.0.1/e#f",
		"gopher://127.0.0.1": "gopher://127.0.0.1",
		"%zz":                "",
	} {
		if got := Resolve(base, target); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", target, got, want)
		}
	}
	if got := Resolve(nil, "rel"); got != "" {
		t.Errorf("Resolve(nil, rel) = %q", got)
	}
}

func TestLinkType(t *testing.T) {
	for raw, want := range map[string]string{
		"gemini://h":              schemes.TypeDir,
		"gemini://h/":             schemes.TypeDir,
		"gemini://h/dir/":         schemes.TypeDir,
		"gemini://h/page":         schemes.TypeDir,
		"gemini://h/page.gmi":     schemes.TypeDir,
		"gemini://h/page.gemini":  schemes.TypeDir,
		"GEMINI://h/Page.GMI":     schemes.TypeDir,
		"gemini://h/notes.txt":    schemes.TypeText,
		"gemini://h/readme.md":    schemes.TypeText,
		"gemini://h/a.html":       schemes.TypeHTML,
		"gemini://h/a.PNG":        schemes.TypeImage,
		"gemini://h/a.jpeg?x=1":   schemes.TypeImage,
		"gemini://h/a.ogg":        schemes.TypeAudio,
		"gemini://h/a.tar.gz":     schemes.TypeBinary,
		"gemini://h/a.zip":        schemes.TypeBinary,
		"http://h/x.png":          schemes.TypeHTML,
		"HTTPS://h/":              schemes.TypeHTML,
		"gopher://h/1/":           schemes.TypeLink,
		"mailto:a@h":              schemes.TypeLink,
		"relative/path.gmi":       schemes.TypeLink,
		"":                        schemes.TypeLink,
		"gemini://h/%zz":          schemes.TypeLink,
		"gemini://h/dir.d/a.webp": schemes.TypeImage,
	} {
		if got := LinkType(raw); got != want {
			t.Errorf("LinkType(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestParseLine covers the markers ParseLine reads outside a block.
func TestParseLine(t *testing.T) {
	for raw, want := range map[string]Line{
		"=> a b":  {Kind: LineLink, Target: "a", Text: "b", Raw: "=> a b"},
		"=>\ta":   {Kind: LineLink, Target: "a", Raw: "=>\ta"},
		"=> ":     {Kind: LineText, Text: "=> ", Raw: "=> "},
		"# h":     {Kind: LineHeading, Level: 1, Text: "h", Raw: "# h"},
		"* ":      {Kind: LineList, Raw: "* "},
		"*":       {Kind: LineText, Text: "*", Raw: "*"},
		">  q ":   {Kind: LineQuote, Text: "q", Raw: ">  q "},
		"``` not": {Kind: LineText, Text: "``` not", Raw: "``` not"},
		" # sp":   {Kind: LineText, Text: " # sp", Raw: " # sp"},
	} {
		if got := ParseLine(raw); got != want {
			t.Errorf("ParseLine(%q) = %+v, want %+v", raw, got, want)
		}
	}
}
