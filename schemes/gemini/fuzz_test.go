package gemini

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goferurl/gofer/schemes"
)

// FuzzGemtext: any bytes scan without a panic into lines whose Raw is each
// line of the document without its line end, cut to the limit; lines
// inside a preformatted block are verbatim, and the listing has one entry
// per line.
func FuzzGemtext(f *testing.F) {
	for _, seed := range []string{
		"# Title\r\n=> gemini://127.0.0.1/ Home\r\n* item\n> quote\n",
		"```alt\n=> not a link\n# not a heading\n```\ntext",
		"=>\n=>   \n=>\tx\ty\n###\n####\n*\n* \n>",
		"a\r\r\nb\rc\n\n\r\n\r",
		strings.Repeat("x", 70) + "\n" + strings.Repeat("y", 65) + "\r\n" + strings.Repeat("z", 66),
		"=> %zz bad url\n=> //127.0.0.2/x\n=> ../../../a\n",
		"\xff\xfe\x00\n```\x00\n",
	} {
		f.Add([]byte(seed))
	}
	const max = 64
	f.Fuzz(func(t *testing.T, data []byte) {
		// The document's lines, each without one line end, cut to max.
		var want []string
		pieces := strings.Split(string(data), "\n")
		if pieces[len(pieces)-1] == "" {
			pieces = pieces[:len(pieces)-1]
		}
		for _, p := range pieces {
			p = strings.TrimSuffix(p, "\r")
			if len(p) > max {
				p = p[:max]
			}
			want = append(want, p)
		}

		sc := NewScanner(bytes.NewReader(data), max)
		pre := false
		var got []string
		for sc.Scan() {
			l := sc.Line()
			got = append(got, l.Raw)
			toggle := strings.HasPrefix(l.Raw, "```")
			switch {
			case toggle && !pre && l.Kind != LinePreOpen, toggle && pre && l.Kind != LinePreEnd:
				t.Fatalf("toggle %q read as %s", l.Raw, l.Kind)
			case !toggle && pre && (l.Kind != LinePre || l.Text != l.Raw):
				t.Fatalf("preformatted line %q read as %+v", l.Raw, l)
			case !toggle && !pre && l != ParseLine(l.Raw):
				t.Fatalf("line %q read as %+v, not as ParseLine reads it", l.Raw, l)
			}
			if toggle {
				pre = !pre
			}
			switch l.Kind {
			case LineHeading:
				if l.Level < 1 || l.Level > 3 {
					t.Fatalf("heading %q of level %d", l.Raw, l.Level)
				}
			case LineLink:
				if l.Target == "" || strings.ContainsAny(l.Target, " \t") || !strings.Contains(l.Raw, l.Target) {
					t.Fatalf("link %q with target %q", l.Raw, l.Target)
				}
			}
		}
		if sc.Err() != nil {
			t.Fatal(sc.Err())
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != len(want) {
			t.Fatalf("raw lines %q\n\twant %q", got, want)
		}

		l := NewListing(bytes.NewReader(data), "gemini://127.0.0.1/dir/page.gmi", max, 0)
		n := 0
		for {
			e, err := l.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
			if e.Gemini == nil || e.Gemini.Kind == "" || e.Type == "" {
				t.Fatalf("entry %+v", e)
			}
			if e.Gemini.Kind == LineLink && e.URL != "" && LinkType(e.URL) != e.Type {
				t.Fatalf("entry %+v: type is not LinkType's", e)
			}
		}
		if n != len(want) {
			t.Fatalf("%d entries for %d lines", n, len(want))
		}
	})
}

// FuzzStatus: any status line parses without a panic, and is accepted
// exactly when it is two digits of a known class (1 to 6), then nothing or
// a space and at most 1024 bytes of UTF-8; a status line read from the
// wire is accepted only within its length limit. A refusal is of the
// refused kind, on one line of printable text.
func FuzzStatus(f *testing.F) {
	for _, seed := range []string{
		"20 text/gemini", "20", "20 ", "10 Query?", "31 gemini://127.0.0.1/x", "51 Not found",
		"2", "", "200 OK", "20\ttext/plain", "70 x", "00 x", "1x y", "20 \xff", "hello",
		"20 " + strings.Repeat("m", MaxRequest), "20 " + strings.Repeat("m", MaxRequest+1),
		"44 \x1b[31mred\r", "20 text/plain\r",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		const addr = "127.0.0.1:1965"
		st, err := parseStatus(line, addr)
		ok := len(line) >= 2 && line[0] >= '1' && line[0] <= '6' && line[1] >= '0' && line[1] <= '9' &&
			(len(line) == 2 || line[2] == ' ') && len(line) <= 3+MaxRequest
		meta := ""
		if ok && len(line) > 2 {
			meta = line[3:]
			ok = utf8.ValidString(meta)
		}
		if ok != (err == nil) {
			t.Fatalf("parseStatus(%q) = %+v, %v; want accepted=%v", line, st, err, ok)
		}
		if ok && (st.code != int(line[0]-'0')*10+int(line[1]-'0') || st.meta != meta) {
			t.Fatalf("parseStatus(%q) = %+v", line, st)
		}
		if err != nil {
			checkRefusal(t, err)
		}

		// The same bytes as the wire has them, ended by CR LF.
		wire := line + "\r\n"
		c := &conn{br: bufio.NewReader(strings.NewReader(wire + "body"))}
		rst, rerr := c.readStatus(addr)
		rok := ok
		if i := strings.IndexByte(wire, '\n'); i < len(line) {
			// The line holds an LF: the status line ends there.
			_, perr := parseStatus(strings.TrimSuffix(wire[:i], "\r"), addr)
			rok = perr == nil && i <= maxStatus
		}
		if rok != (rerr == nil) {
			t.Fatalf("readStatus(%q) = %+v, %v; want accepted=%v", wire, rst, rerr, rok)
		}
		if rerr != nil {
			checkRefusal(t, rerr)
		}
	})
}

func checkRefusal(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, schemes.ErrRefused) {
		t.Fatalf("%v is not of the refused kind", err)
	}
	for _, r := range err.Error() {
		if r < ' ' || r == 0x7f {
			t.Fatalf("error %q holds control character %U", err, r)
		}
	}
}
