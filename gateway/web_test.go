package gateway

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nlnwa/gowarc"

	"github.com/goferurl/gofer/replay"
	"github.com/goferurl/gofer/warc"
)

var (
	first  = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	second = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
)

// archive writes a WARC file in which a Gopher menu and one of its items
// changed between two captures, and opens it.
func archive(t *testing.T) *replay.Archive {
	t.Helper()
	return archiveOf(t, "gofer mirror --warc a gopher://127.0.0.1/1/")
}

// archiveOf is archive, written by command.
func archiveOf(t *testing.T, command string) *replay.Archive {
	t.Helper()
	return writeArchive(t, command, []record{
		{"gopher://127.0.0.1/1/", "text/x-gopher-menu", first, "0Old text\t/t.txt\t127.0.0.1\t70\r\niAn info line <b>\t\t\t0\r\n.\r\n"},
		{"gopher://127.0.0.1/0/t.txt", "text/plain", first, "the first text\r\n.\r\n"},
		{"gopher://127.0.0.1/1/", "text/x-gopher-menu", second, "0New text\t/t.txt\t127.0.0.1\t70\r\n1Never captured\t/gone\t127.0.0.1\t70\r\n.\r\n"},
		{"gopher://127.0.0.1/0/t.txt", "text/plain", second, "the second text\r\n.\r\n"},
	})
}

// record is one capture an archive of the tests holds.
type record struct {
	uri, ct string
	date    time.Time
	block   string
}

// writeArchive writes a WARC file of records, its warcinfo naming
// command, and opens it. A record of Content-Type application/http or
// application/gemini is a response record.
func writeArchive(t *testing.T, command string, records []record) *replay.Archive {
	t.Helper()
	name := filepath.Join(t.TempDir(), "a.warc.gz")
	w, err := warc.Create(name, warc.Info{Software: "gofer test", Command: command})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		typ := gowarc.Resource
		if strings.HasPrefix(r.ct, "application/http") || strings.HasPrefix(r.ct, "application/gemini") {
			typ = gowarc.Response
		}
		b := gowarc.NewRecordBuilder(typ, gowarc.WithVersion(gowarc.V1_1))
		b.AddWarcHeader(gowarc.WarcRecordID, warc.NewID())
		b.AddWarcHeader(gowarc.WarcTargetURI, r.uri)
		b.AddWarcHeaderTime(gowarc.WarcDate, r.date)
		b.AddWarcHeader(gowarc.ContentType, r.ct)
		b.WriteString(r.block)
		rec, _, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := replay.Open([]string{name}, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func archiveGateway(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(Config{Archive: archive(t)}))
	t.Cleanup(srv.Close)
	return srv
}

func TestTimeTravel(t *testing.T) {
	srv := archiveGateway(t)
	// Each capture of the menu, its links leading to the same time.
	resp, page := get(t, srv, "/web/20250304050607/gopher://127.0.0.1/1/")
	if resp.StatusCode != 200 || !strings.Contains(page, `<a href="/web/20250304050607/gopher://127.0.0.1/0/t.txt">Old text</a>`) ||
		!strings.Contains(page, "An info line &lt;b&gt;") || !strings.Contains(page, "Captured 2025-03-04 05:06:07 UTC") ||
		!strings.Contains(page, `<a href="/web/20261127120000/gopher://127.0.0.1/1/">Next capture</a>`) || strings.Contains(page, "Previous capture") {
		t.Errorf("first capture: %d\n%s", resp.StatusCode, page)
	}
	if resp.Header.Get("Memento-Datetime") != "Tue, 04 Mar 2025 05:06:07 GMT" || !strings.Contains(resp.Header.Get("Link"), `<gopher://127.0.0.1/1/>; rel="original"`) {
		t.Errorf("memento headers %v", resp.Header)
	}
	_, page = get(t, srv, "/web/20261127120000/gopher://127.0.0.1/1/")
	if !strings.Contains(page, `<a href="/web/20261127120000/gopher://127.0.0.1/0/t.txt">New text</a>`) ||
		!strings.Contains(page, `<a href="/web/20250304050607/gopher://127.0.0.1/1/">Previous capture</a>`) || strings.Contains(page, "Next capture") {
		t.Errorf("second capture:\n%s", page)
	}
	checkOwnTags(t, page)
	// A link to what the archive never captured says so beside it; one
	// to a capture does not.
	if !strings.Contains(page, `<a href="/web/20261127120000/gopher://127.0.0.1/1/gone">Never captured</a> <span class="type">(not captured)</span>`) ||
		strings.Count(page, "not captured") != 1 {
		t.Errorf("the uncaptured link:\n%s", page)
	}
	// With live fetches, the live link beside it.
	withLive := newGateway(t, &fake{}, Config{Archive: archive(t)})
	if _, page := get(t, withLive, "/web/20261127120000/gopher://127.0.0.1/1/"); !strings.Contains(page,
		`Never captured</a> <span class="type">(not captured: <a href="/live/gopher://127.0.0.1/1/gone">live</a>)</span>`) {
		t.Errorf("the uncaptured link, live beside it:\n%s", page)
	}
	// A short or inexact timestamp is answered by a redirect to the
	// capture nearest it.
	for path, want := range map[string]string{
		"/web/2025/gopher://127.0.0.1/0/t.txt":        "/web/20250304050607/gopher://127.0.0.1/0/t.txt",
		"/web/202611/gopher://127.0.0.1/0/t.txt":      "/web/20261127120000/gopher://127.0.0.1/0/t.txt",
		"/web/2026/gopher://127.0.0.1/0/t.txt":        "/web/20250304050607/gopher://127.0.0.1/0/t.txt",
		"/web/20261231id_/gopher://127.0.0.1/0/t.txt": "/web/20261127120000id_/gopher://127.0.0.1/0/t.txt",
		"/web/1990/gopher:/127.0.0.1/0/t.txt":         "/web/20250304050607/gopher://127.0.0.1/0/t.txt",
	} {
		resp, _ := get(t, srv, path)
		if resp.StatusCode != 302 || resp.Header.Get("Location") != want {
			t.Errorf("%s: %d to %q, want 302 to %q", path, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
	// A browser's collapsed double slash.
	if resp, _ := get(t, srv, "/web/20250304050607/gopher:/127.0.0.1/0/t.txt"); resp.StatusCode != 200 {
		t.Errorf("collapsed gopher:/: %d", resp.StatusCode)
	}
	// The identity form: the bytes as captured.
	if resp, body := get(t, srv, "/web/20250304050607id_/gopher://127.0.0.1/0/t.txt"); resp.StatusCode != 200 || body != "the first text\r\n" {
		t.Errorf("identity: %d %q", resp.StatusCode, body)
	}
	// Never captured: 404, saying so.
	if resp, page := get(t, srv, "/web/20261127120000/gopher://127.0.0.1/1/gone"); resp.StatusCode != 404 || !strings.Contains(page, "no capture of gopher://127.0.0.1/1/gone") {
		t.Errorf("never captured: %d %s", resp.StatusCode, page)
	}
}

func TestMementoTimeGateAndTimeMap(t *testing.T) {
	srv := archiveGateway(t)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for at, want := range map[string]string{
		"":                              "/web/20261127120000/gopher://127.0.0.1/1/",
		"Sat, 01 Jun 2024 00:00:00 GMT": "/web/20250304050607/gopher://127.0.0.1/1/",
		"Mon, 01 Dec 2025 00:00:00 GMT": "/web/20250304050607/gopher://127.0.0.1/1/",
		"Mon, 01 Nov 2026 00:00:00 GMT": "/web/20261127120000/gopher://127.0.0.1/1/",
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/web/gopher://127.0.0.1/1/", nil)
		if at != "" {
			req.Header.Set("Accept-Datetime", at)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 302 || resp.Header.Get("Location") != want || resp.Header.Get("Vary") != "accept-datetime" {
			t.Errorf("TimeGate at %q: %d to %q (Vary %q), want %q", at, resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Vary"), want)
		}
	}
	resp, body := get(t, srv, "/timemap/link/gopher://127.0.0.1/1/")
	want := `<gopher://127.0.0.1/1/>; rel="original",
</timemap/link/gopher://127.0.0.1/1/>; rel="self"; type="application/link-format",
</web/gopher://127.0.0.1/1/>; rel="timegate",
</web/20250304050607/gopher://127.0.0.1/1/>; rel="first memento"; datetime="Tue, 04 Mar 2025 05:06:07 GMT",
</web/20261127120000/gopher://127.0.0.1/1/>; rel="last memento"; datetime="Fri, 27 Nov 2026 12:00:00 GMT"
`
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/link-format" || body != want {
		t.Errorf("TimeMap: %d %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	// Every capture of a URL, and every captured URL under a prefix.
	_, page := get(t, srv, "/web/*/gopher://127.0.0.1/0/t.txt")
	if strings.Count(page, `<a href="/web/20`) != 2 {
		t.Errorf("captures list:\n%s", page)
	}
	_, page = get(t, srv, "/web/*/gopher://127.0.0.1/*")
	if !strings.Contains(page, `<a href="/web/*/gopher://127.0.0.1/1/">`) || !strings.Contains(page, `<a href="/web/*/gopher://127.0.0.1/0/t.txt">`) {
		t.Errorf("prefix list:\n%s", page)
	}
}

// The start page names the URLs the archive's captures started from, with
// the number of captures of each; an archive whose warcinfo names none
// (another tool's) gets a link to its first page of links instead.
func TestStartPageOrigins(t *testing.T) {
	srv := archiveGateway(t)
	_, page := get(t, srv, "/")
	if !strings.Contains(page, "2 captured URLs") ||
		!strings.Contains(page, `<a class="url" href="/web/20261127120000/gopher://127.0.0.1/1/">gopher://127.0.0.1/1/</a>`) ||
		!strings.Contains(page, `<a class="type" href="/web/*/gopher://127.0.0.1/1/">2 captures</a>`) {
		t.Errorf("start page:\n%s", page)
	}
	checkOwnTags(t, page)
	other := httptest.NewServer(New(Config{Archive: archiveOf(t, "another tool")}))
	defer other.Close()
	if _, page := get(t, other, "/"); !strings.Contains(page, "2 captured URLs") || !strings.Contains(page, `href="/web/gopher://127.0.0.1/1/"`) || strings.Contains(page, "started from") {
		t.Errorf("start page of another tool's archive:\n%s", page)
	}
}
