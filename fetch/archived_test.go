package fetch

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// archivedNames reads l to its end: each entry's name, type and URL.
func archivedNames(t *testing.T, l schemes.Listing) []string {
	t.Helper()
	var got []string
	for _, e := range listed(t, l) {
		got = append(got, e.Name+" "+e.Type+" "+e.URL)
	}
	return got
}

// TestArchivedReader: the readers of captured replies that replay serves
// through read them as the schemes' fetchers do: an FTP LIST, MLSD and
// NLST reply by media type, a Gopher menu with its server filled in and
// a text item undone of its dot-stuffing, Gopher+ attributes; HTTP and
// unknown schemes have none.
func TestArchivedReader(t *testing.T) {
	date := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	base, _ := schemes.Parse("ftp://ftp.example.org/pub/")
	ftp := ArchivedReader("FTP")
	for _, c := range []struct{ mt, reply, want string }{
		{"text/x-ftp-list", "-rw-r--r-- 1 ftp ftp 5 Jan 02 03:04 a.txt\r\ndrwxr-xr-x 2 ftp ftp 4096 Jan 02 03:04 sub\r\n",
			"a.txt file ftp://ftp.example.org/pub/a.txt|sub dir ftp://ftp.example.org/pub/sub/"},
		{"text/x-ftp-mlsd", "type=file;size=5;modify=20260102030405; a.txt\r\ntype=dir; sub\r\n",
			"a.txt file ftp://ftp.example.org/pub/a.txt|sub dir ftp://ftp.example.org/pub/sub/"},
		{"text/x-ftp-nlst", "a.txt\r\n.\r\nsub\r\n", "a.txt other ftp://ftp.example.org/pub/a.txt|sub other ftp://ftp.example.org/pub/sub"},
	} {
		got := strings.Join(archivedNames(t, ftp.Listing(strings.NewReader(c.reply), c.mt, base, date, &schemes.Request{})), "|")
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.mt, got, c.want)
		}
	}
	menu, _ := schemes.Parse("gophers://gopher.example.org/1/")
	g := ArchivedReader("gophers")
	got := archivedNames(t, g.Listing(strings.NewReader("0About\t/about\t\t\r\n.\r\n"), "application/gopher-menu", menu, date, &schemes.Request{}))
	if len(got) != 1 || got[0] != "About text gophers://gopher.example.org/0/about" {
		t.Errorf("menu: %q", got)
	}
	text, _ := schemes.Parse("gopher://gopher.example.org/0/about")
	b, _ := io.ReadAll(g.Document(strings.NewReader("..dotted\r\nline\r\n.\r\n"), text))
	if string(b) != ".dotted\r\nline\r\n" {
		t.Errorf("text: %q", b)
	}
	if g.Info("+INFO: 0About\t/about\tgopher.example.org\t70\t+\r\n", text) == nil {
		t.Error("no Gopher+ attributes")
	}
	if ArchivedReader("http") != nil || ArchivedReader("x-none") != nil {
		t.Error("a reader for a scheme whose captures are kept as read")
	}
}
