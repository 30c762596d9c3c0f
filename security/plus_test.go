package security

import (
	"errors"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestPlusStringShapes: the single-line shapes pass; the draft's two filled
// +ASK examples pass; near-misses are refused naming the line at fault.
func TestPlusStringShapes(t *testing.T) {
	pass := []string{
		"", "+", "+application/postscript Es_ES", "!", "!+ABSTRACT +SMELL", "$", "$+VIEWS", "?",
		// draft-ietf-uri-url-03, GOPHER: its two filled +ASK forms, decoded.
		"+\t1\r\n+-1\r\nask_item1_value\r\nask_item2_value\r\n.\r\n",
		"+view_name language_name\t1\r\n+-1\r\nask_item1_value\r\nask_item2_value\r\n.\r\n",
		"+application/postscript Es_ES\t1\r\n+-1\r\nanswer1\r\nanswer2\r\n.\r\n",
		"+\t1\r\n+-1\r\n.\r\n",
		"+\t1\r\n+-1\r\n.5 litres\r\n\r\n.\r\n", // an empty answer and one starting with '.'
	}
	for _, s := range pass {
		if err := CheckPlusString("gopher+ string", s); err != nil {
			t.Errorf("CheckPlusString(%q) = %v, want nil", s, err)
		}
	}
	refuse := []struct {
		s    string
		part string
		b    byte
	}{
		{"+\t1\r\n+-1\r\nanswer1\r\nanswer2\r\n.", "gopher+ string +ASK block end", '\r'},
		{"+\t1\r\n+-1\r\nanswer1\r\n", "gopher+ string +ASK block end", '\r'},
		{"+\t1\r\n+-1\r\nans\nwer\r\n.\r\n", "gopher+ string answer 1", '\n'},
		{"+\t1\r\n+-1\r\nok\r\nan\tswer\r\n.\r\n", "gopher+ string answer 2", '\t'},
		{"+\t1\r\n+-1\r\nan\x00swer\r\n.\r\n", "gopher+ string answer 1", 0},
		{"+\t1\r\n+-1\r\n.\r\nDELE x\r\n.\r\n", "gopher+ string answer 1", '\r'},
		{"+\t2\r\n+-1\r\nanswer\r\n.\r\n", "gopher+ string +ASK header", '\t'},
		{"+view\tlang\t1\r\n+-1\r\n.\r\n", "gopher+ string +ASK header", '\t'},
		{"\t1\r\n+-1\r\n.\r\n", "gopher+ string", '\t'},
		{"+\t1\r\n+-2\r\nanswer\r\n.\r\n", "gopher+ string +ASK data line", '\r'},
		{"+\t1\r\n+-1\nanswer\r\n.\r\n", "gopher+ string +ASK data line", '\n'},
		{"+\t1\n+-1\nanswer\n.\n", "gopher+ string", '\t'},
		{"+\t1\r\n+-1\r\n.\r\n.\n", "gopher+ string +ASK block end", '\n'},
		{"!+ABSTRACT\r\nQUIT", "gopher+ string", '\r'},
		{"?\r\n", "gopher+ string", '\r'},
		{"$\t", "gopher+ string", '\t'},
	}
	for _, tt := range refuse {
		err := CheckPlusString("gopher+ string", tt.s)
		var ie *InjectionError
		if !errors.As(err, &ie) || !errors.Is(err, ErrInjection) {
			t.Errorf("CheckPlusString(%q) = %v, want an *InjectionError", tt.s, err)
			continue
		}
		if ie.Part != tt.part || ie.Byte != tt.b {
			t.Errorf("CheckPlusString(%q) names %q byte %#x, want %q byte %#x", tt.s, ie.Part, ie.Byte, tt.part, tt.b)
		}
	}
}

// TestGuardAcceptsFilledAsk: the guard lets the exact +ASK block through in
// a gopher URL and refuses it one byte off.
func TestGuardAcceptsFilledAsk(t *testing.T) {
	var g Guard
	for _, raw := range []string{
		"gopher://127.0.0.70/0sel%09%09+%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
		"gopher://127.0.0.70/0sel%09%09+view_name%20language_name%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
	} {
		u, err := schemes.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Check(u); err != nil {
			t.Errorf("the draft's filled form %s: %v", raw, err)
		}
	}
	if err := g.Check(gopherURL("0/form", "", "+\t1\r\n+-1\r\nyes\r\n.\r\n")); err != nil {
		t.Errorf("filled +ASK block refused: %v", err)
	}
	if err := g.Check(gopherURL("0/form", "", "+\t1\r\n+-1\r\nyes\r\n.\r\nX")); !errors.Is(err, ErrInjection) {
		t.Errorf("trailing data after the block: Check = %v, want ErrInjection", err)
	}
}

func FuzzCheckPlusString(f *testing.F) {
	f.Add("+\t1\r\n+-1\r\nanswer1\r\nanswer2\r\n.\r\n")
	f.Add("!+ABSTRACT +SMELL")
	f.Fuzz(func(t *testing.T, s string) {
		if CheckPlusString("p", s) != nil {
			return
		}
		// Whatever passes is either free of delimiters or a block whose
		// every CR or LF is part of a CRLF line end.
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case 0:
				t.Fatalf("%q passed with NUL", s)
			case '\r':
				if i+1 >= len(s) || s[i+1] != '\n' {
					t.Fatalf("%q passed with a bare CR", s)
				}
			case '\n':
				if i == 0 || s[i-1] != '\r' {
					t.Fatalf("%q passed with a bare LF", s)
				}
			}
		}
	})
}
