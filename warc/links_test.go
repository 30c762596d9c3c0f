package warc

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/schemes"
)

// TestGopherPlusAttributesLinked records a menu's "$" block before its
// items and an item's "!" block after the item: each attribute block ends
// up linked to what it describes, in whichever direction the order allows,
// and the strict reader accepts the links.
func TestGopherPlusAttributesLinked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "links.warc.gz")
	w, err := Create(path, Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(uri string, rec schemes.CaptureRecord, body string) {
		c := w.Capture(uri)
		record(t, c, rec, strings.NewReader(body))
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	attrs := schemes.CaptureRecord{Type: "metadata", ContentType: TypeGopherPlusAttrs}
	item := schemes.CaptureRecord{Type: "resource", ContentType: "text/plain"}
	// The menu's items' attributes first, then the menu and one item.
	dollar := attrs
	dollar.Describes = []string{"gopher://127.0.0.70/0/a.txt", "gopher://127.0.0.70/0/b.txt"}
	fetch("gopher://127.0.0.70/1/%09%09$", dollar, "+INFO: 0a\t/a.txt\t127.0.0.70\t70\t+\r\n")
	fetch("gopher://127.0.0.70/9/", schemes.CaptureRecord{Type: "resource", ContentType: "application/gopher-menu"}, "0a\t/a.txt\t127.0.0.70\t70\r\n.\r\n")
	fetch("gopher://127.0.0.70:70/0/a.txt%09%09+", item, "a\n")
	// An item, then its own attributes.
	fetch("gopher://127.0.0.70/0/c.txt", item, "c\n")
	fetch("gopher://127.0.0.70/0/c.txt%09%09!", attrs, "+INFO: 0c\t/c.txt\t127.0.0.70\t70\t+\r\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	ids := map[string]string{}
	concurrent := map[string]string{}
	refers := map[string]string{}
	err = Walk(path, true, func(e Entry, rec gowarc.WarcRecord) error {
		ids[e.URI] = e.ID
		concurrent[e.URI] = rec.WarcHeader().Get(gowarc.WarcConcurrentTo)
		refers[e.URI] = rec.WarcHeader().Get(gowarc.WarcRefersTo)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dollarID := ids["gopher://127.0.0.70/1/%09%09$"]
	for _, uri := range []string{"gopher://127.0.0.70/9/", "gopher://127.0.0.70:70/0/a.txt%09%09+"} {
		if concurrent[uri] != dollarID || dollarID == "" {
			t.Errorf("%s: WARC-Concurrent-To %q, want the $ block %q", uri, concurrent[uri], dollarID)
		}
	}
	if got, want := refers["gopher://127.0.0.70/0/c.txt%09%09!"], ids["gopher://127.0.0.70/0/c.txt"]; got != want || want == "" {
		t.Errorf("! block: WARC-Refers-To %q, want the item %q", got, want)
	}
	if got := concurrent["gopher://127.0.0.70/0/c.txt"]; got != "" {
		t.Errorf("item recorded before any attributes links to %q", got)
	}
}
