package gopher

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// FuzzMenu: any bytes make a bounded stream of entries, and every gopher
// URL of an entry parses back to the entry's type, selector, host and port.
func FuzzMenu(f *testing.F) {
	for _, seed := range []string{
		"iWelcome\t\terror.host\t1\r\n0About\t/about.txt\t127.0.0.1\t70\r\n.\r\n",
		"1Dir\t/d\th\t70\t+\n0Form\t/f\th\t70\t?\n",
		"hLink\tURL:http://127.0.0.80/\th\t70\r\n8Telnet\tuser\th\t23\r\nTtn\t\th\t23\r\n",
		"9\t\t\t\t\t\t\r\n\r\n.\r\nafter",
		"0sel with %09 and spaces\t/a b%09c\th\t99999\r\n",
		"no tabs here\r\n" + strings.Repeat("x", 300),
		"..\r\n.",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req := &schemes.Request{Settings: &schemes.Settings{MaxLineLength: 256, MaxEntries: 64}}
		m := newMenuListing(bytes.NewReader(data), nil, "menuhost", 70, req)
		for n := 0; ; n++ {
			e, err := m.Next()
			if err != nil {
				if err != io.EOF && !errors.Is(err, schemes.ErrTooLarge) {
					t.Fatalf("error %v", err)
				}
				return
			}
			if n >= 64 {
				t.Fatalf("more entries than the limit")
			}
			if e.Gopher == nil || e.Type == "" || e.Gopher.Type == "" {
				t.Fatalf("entry %+v", e)
			}
			if !strings.HasPrefix(e.URL, "gopher:") {
				continue
			}
			u, err := schemes.Parse(e.URL)
			if err != nil {
				t.Fatalf("entry URL %q does not parse: %v", e.URL, err)
			}
			if g := u.Gopher; string(g.Type) != e.Gopher.Type || g.Selector != e.Gopher.Selector || u.Host != e.Gopher.Host || u.EffectivePort() != e.Gopher.Port {
				t.Fatalf("entry %+v: URL %q parses to %+v %q %d", e, e.URL, g, u.Host, u.EffectivePort())
			}
		}
	})
}

// FuzzAttributes: any attribute text parses, marshals and prints.
func FuzzAttributes(f *testing.F) {
	f.Add(specAttributes)
	f.Add("+INFO: 1x\t/\th\t70\t+\n+ADMIN\n Mod-Date: <99999999999999>\n Admin: <<>>\n+VIEWS:\n :\n a b c: <1.5M>\n <k>\n+ASK:\n Choose:\n Select: x:1\n")
	f.Add("+\n+:\n \n+ABSTRACT: 0ref\tsel\th\tport\n text\n")
	f.Fuzz(func(t *testing.T, text string) {
		a := ParseAttributes(text, "h", 70)
		if _, err := json.Marshal(a); err != nil {
			t.Fatal(err)
		}
		if err := a.WriteText(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzAskForm: any +ASK block with any answers either fills in to a
// submission the guard accepts in its exact shape, or is a usage error.
func FuzzAskForm(f *testing.F) {
	f.Add(" Ask: Name?\tdef\n Choose: Pick\ta\tb\n AskL: More\n Select: x:1\n Note: hi\n", "1=Ada\x002=2\x003=.\n..")
	f.Add("AskP: Secret\nChooseF: File\nAskF: Save\tout\n", "Secret=x\x002=/etc/passwd")
	f.Add("Choose: Empty\nSelect: s\ta\tb\n", "1=1\x002=b")
	f.Fuzz(func(t *testing.T, block, answers string) {
		form := ParseForm(strings.Split(block, "\n"))
		var given []string
		if answers != "" {
			given = strings.Split(answers, "\x00")
		}
		lines, err := form.Fill(given, nil)
		if err != nil {
			if !errors.Is(err, schemes.ErrUsage) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			return
		}
		if block := dataBlock(lines); security.CheckAskBlock("fuzz", block) != nil {
			t.Fatalf("submission %q refused: %v", block, security.CheckAskBlock("fuzz", block))
		}
	})
}
