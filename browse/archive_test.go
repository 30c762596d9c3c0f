package browse

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/replay"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/warc"
)

// dials records every connection asked for, and opens none.
type dials struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dials) DialContext(_ context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, network+" "+addr)
	d.mu.Unlock()
	return nil, errors.New("offline: no connection")
}

func (d *dials) seen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// capturedAt is when the test archive's records were made.
var capturedAt = time.Date(2026, 11, 27, 4, 1, 30, 0, time.UTC)

// archived writes one record of the test archive.
func archived(t *testing.T, w *warc.Writer, typ gowarc.RecordType, uri, contentType, block string) {
	t.Helper()
	b := gowarc.NewRecordBuilder(typ, gowarc.WithVersion(gowarc.V1_1))
	b.AddWarcHeader(gowarc.WarcRecordID, warc.NewID())
	b.AddWarcHeader(gowarc.WarcTargetURI, uri)
	b.AddWarcHeaderTime(gowarc.WarcDate, capturedAt)
	b.AddWarcHeader(gowarc.ContentType, contentType)
	b.WriteString(block)
	rec, _, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
}

const (
	archRoot  = "gopher://127.0.0.1/1/"
	archText  = "gopher://127.0.0.1/0/about.txt"
	archFTP   = "ftp://127.0.0.1/pub/"
	archGem   = "gemini://127.0.0.1/"
	archWeb   = "http://127.0.0.1/page.html"
	webPage   = "<html><body><p>A web page from the archive</p></body></html>"
	gemPage   = "# The archived capsule\n=> /missing.gmi A page not captured\n"
	menuBytes = "iAn archived hole\t\terror.host\t1\r\n" +
		"0About this hole\t/about.txt\t127.0.0.1\t70\r\n" +
		"0Never fetched\t/missing.txt\t127.0.0.1\t70\r\n" +
		"hA web page\tURL:" + archWeb + "\t127.0.0.1\t70\r\n.\r\n"
)

// testArchive writes a WARC of a small Gopher hole, an FTP directory, a
// Gemini page and a web page, and returns a client that answers from it
// through a dialer that records every dial.
func testArchive(t *testing.T) (*fetch.Client, *replay.Fetcher, *dials) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "hole.warc.gz")
	w, err := warc.Create(name, warc.Info{Software: "gofer test"})
	if err != nil {
		t.Fatal(err)
	}
	archived(t, w, gowarc.Resource, archRoot, "text/x-gopher-menu", menuBytes)
	archived(t, w, gowarc.Resource, archText, "text/plain", "Text from the archive.\r\n..dotted line\r\n.\r\n")
	archived(t, w, gowarc.Resource, archFTP, "text/x-ftp-list",
		"-rw-r--r--   1 ftp ftp  22 Nov 20 10:00 readme.txt\r\n")
	archived(t, w, gowarc.Resource, archFTP+"readme.txt", "text/plain", "The FTP readme, captured.\n")
	archived(t, w, gowarc.Response, archGem, "application/gemini;msgtype=response", "20 text/gemini\r\n"+gemPage)
	archived(t, w, gowarc.Response, archWeb, "application/http;msgtype=response",
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "+strconv.Itoa(len(webPage))+"\r\n\r\n"+webPage)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := replay.Open([]string{name}, replay.Options{Warn: func(m string) { t.Log("warning: " + m) }})
	if err != nil {
		t.Fatal(err)
	}
	rf := replay.NewFetcher(a)
	fetchers := map[string]schemes.Fetcher{}
	for _, s := range rf.Schemes() {
		fetchers[s] = rf
	}
	d := &dials{}
	return fetch.NewClient(fetch.Options{Fetchers: fetchers, Dialer: d}), rf, d
}

func startArchive(t *testing.T, url string) (*harness, *replay.Fetcher, *dials) {
	t.Helper()
	c, rf, d := testArchive(t)
	h := startWith(t, Config{Client: c, Captured: rf.CaptureTime}, url)
	return h, rf, d
}

func TestArchiveGopherMenuTextAndCaptureTime(t *testing.T) {
	h, rf, d := startArchive(t, archRoot)
	if root := rf.Root(); root != archRoot {
		t.Errorf("Root() = %q, want %q", root, archRoot)
	}
	h.waitFor("An archived hole", "About this hole", "Never fetched", "captured 2026-11-27 04:01 UTC")

	h.selectRow("About this hole")
	h.key(tcell.KeyEnter)
	h.waitFor("Text from the archive.", ".dotted line")
	if strings.Contains(h.text(), "..dotted") {
		t.Errorf("the text item kept its dot-stuffing:\n%s", h.text())
	}
	h.waitFor("captured 2026-11-27 04:01 UTC")

	h.key(tcell.KeyLeft)
	h.selectRow("Never fetched")
	h.key(tcell.KeyEnter)
	h.waitFor("not captured")
	if !strings.Contains(h.status(), "not captured") {
		t.Errorf("status line %q does not say the item was not captured", h.status())
	}
	if !strings.Contains(h.text(), "An archived hole") {
		t.Errorf("an item not captured left the menu:\n%s", h.text())
	}
	t.Logf("status: %s", h.status())
	if s := d.seen(); len(s) > 0 {
		t.Errorf("browsing the archive dialled %v", s)
	}
}

func TestArchiveWebFTPGemini(t *testing.T) {
	h, _, d := startArchive(t, archRoot)
	h.selectRow("A web page")
	h.key(tcell.KeyEnter)
	h.waitFor("A web page from the archive", "captured 2026-11-27 04:01 UTC")

	h.typeText("g")
	h.waitFor("Open URL:")
	h.typeText(archFTP)
	h.key(tcell.KeyEnter)
	h.waitFor("readme.txt", "22 B")
	h.selectRow("readme.txt")
	h.key(tcell.KeyEnter)
	h.waitFor("The FTP readme, captured.")

	h.typeText("g")
	h.waitFor("Open URL:")
	h.typeText(archGem)
	h.key(tcell.KeyEnter)
	h.waitFor("# The archived capsule", "A page not captured", "captured 2026-11-27 04:01 UTC")
	h.selectRow("A page not captured")
	h.key(tcell.KeyEnter)
	h.waitFor("not captured")
	if s := d.seen(); len(s) > 0 {
		t.Errorf("browsing the archive dialled %v", s)
	}
}
