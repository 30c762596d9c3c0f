package security

import (
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// FuzzGuard: whatever URL the guard lets through carries no CR, LF or NUL
// in any decoded part bound for a line protocol (the Gopher+ +ASK block
// aside, which CheckPlusString's own fuzz target covers), no TAB in a Gopher
// selector or search, and no IAC in a telnet login.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{
		"ftp://u:p@127.0.0.1/a/b;type=i", "gopher://127.0.0.1/7s%09q%09+", "http://127.0.0.1/a?b",
		"news:a@b", "nntp://127.0.0.1/g/1", "telnet://u@127.0.0.1/", "ftp://127.0.0.1/a%0Db",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := schemes.Parse(raw)
		if err != nil {
			return
		}
		var g Guard
		if g.Check(u) != nil {
			return
		}
		line := []string{u.Host}
		switch {
		case u.FTP != nil:
			line = append(line, u.User, u.Password)
			line = append(line, u.FTP.Segments...)
			if u.FTP.TypeCode != 0 {
				line = append(line, string(rune(u.FTP.TypeCode)))
			}
		case u.HTTP != nil:
			line = append(line, schemes.Decode(u.HTTP.Path), schemes.Decode(u.HTTP.Search))
		case u.Gopher != nil:
			line = append(line, u.Gopher.Selector, u.Gopher.Search)
			if strings.ContainsAny(u.Gopher.Selector+u.Gopher.Search, "\t") {
				t.Fatalf("%q passed with a TAB in selector or search", raw)
			}
		case u.News != nil:
			line = append(line, u.News.Group, u.News.MessageID)
		case u.NNTP != nil:
			line = append(line, u.NNTP.Group)
		case u.Telnet != nil:
			line = append(line, u.User, u.Password)
			if strings.Contains(u.User+u.Password, "\xff") {
				t.Fatalf("%q passed with IAC in the login", raw)
			}
		}
		for _, part := range line {
			if strings.ContainsAny(part, "\r\n\x00") {
				t.Fatalf("%q passed with a delimiter in %q", raw, part)
			}
		}
	})
}
