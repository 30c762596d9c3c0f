package browse

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/gopher"
)

// scripted is a Client that answers from a table of URLs, and records
// every request it was given.
type scripted struct {
	mu    sync.Mutex
	reqs  []fetch.Request
	items map[string]func(r *fetch.Request) (*fetch.Response, error)
}

func (s *scripted) Do(ctx context.Context, r *fetch.Request) (*fetch.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, *r)
	f := s.items[r.URL]
	s.mu.Unlock()
	if f == nil {
		return nil, &fetch.Error{Op: "get", URL: r.URL, Err: schemes.Errorf(schemes.ErrRefused, "not found")}
	}
	return f(r)
}

func (s *scripted) requests() []fetch.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]fetch.Request(nil), s.reqs...)
}

// listing is a Listing over entries.
type listing struct{ es []schemes.Entry }

func (l *listing) Next() (schemes.Entry, error) {
	if len(l.es) == 0 {
		return schemes.Entry{}, io.EOF
	}
	e := l.es[0]
	l.es = l.es[1:]
	return e, nil
}
func (l *listing) Close() error { return nil }

func menu(lines ...string) func(*fetch.Request) (*fetch.Response, error) {
	return func(*fetch.Request) (*fetch.Response, error) {
		var es []schemes.Entry
		for _, l := range lines {
			es = append(es, gopher.ParseItem(l, "g.test", 70))
		}
		return &fetch.Response{Kind: schemes.KindListing, Listing: &listing{es}, Size: -1}, nil
	}
}

func text(s string) func(*fetch.Request) (*fetch.Response, error) {
	return func(*fetch.Request) (*fetch.Response, error) {
		return &fetch.Response{Kind: schemes.KindFile, Body: io.NopCloser(strings.NewReader(s)), Size: int64(len(s)), Type: "text"}, nil
	}
}

const (
	rootURL   = "gopher://g.test/1"
	aboutURL  = "gopher://g.test/0/about.txt"
	subURL    = "gopher://g.test/1/sub"
	searchURL = "gopher://g.test/7/search"
	formURL   = "gopher://g.test/0/form.txt%09%09?"
	binURL    = "gopher://g.test/9/data.bin"
)

const aboutText = "first line\nthe needle is here\nmiddle\nanother needle\nlast line\n"

const formAttrs = "+-1\r\n+INFO: 0form\t/form.txt\tg.test\t70\t?\r\n+ASK:\r\n" +
	" Ask: What is your name?\tgofer\r\n AskP: Password:\r\n AskL: Comments:\r\n" +
	" Choose: Favourite colour?\tred\tgreen\tblue\r\n Select: Extra cheese?:1\r\n Note: answers are not acted upon\r\n"

// hole is the scripted Gopher hole of the tests.
func hole() *scripted {
	s := &scripted{}
	s.items = map[string]func(*fetch.Request) (*fetch.Response, error){
		rootURL: menu(
			"iWelcome to the test hole.\t\terror.host\t1",
			"0About this hole\t/about.txt\tg.test\t70",
			"1A submenu\t/sub\tg.test\t70",
			"7Search the hole\t/search\tg.test\t70",
			"0A form\t/form.txt\tg.test\t70\t?",
			"9Some data\t/data.bin\tg.test\t70",
			"hA web page\tURL:http://127.0.0.80/\tg.test\t70",
			"9A hostile name\t/x/..\tg.test\t70",
		),
		aboutURL:                      text(aboutText),
		subURL:                        menu("0Inner text\t/inner.txt\tg.test\t70"),
		"gopher://g.test/0/inner.txt": text("the inner text\n"),
		searchURL: func(r *fetch.Request) (*fetch.Response, error) {
			return menu("0Result for " + r.Query + "\t/r.txt\tg.test\t70")(r)
		},
		"gopher://g.test/0/form.txt%09%09!": func(*fetch.Request) (*fetch.Response, error) {
			a := gopher.ParseAttributes(strings.TrimPrefix(formAttrs, "+-1\r\n"), "g.test", 70)
			return &fetch.Response{Kind: schemes.KindInfo, Info: a, Size: -1}, nil
		},
		formURL: text("The document behind the form.\n"),
		"gopher://g.test/9/x/..": func(*fetch.Request) (*fetch.Response, error) {
			return &fetch.Response{Kind: schemes.KindFile, Body: io.NopCloser(strings.NewReader("x")), Size: 1, Type: "binary"}, nil
		},
		binURL: func(*fetch.Request) (*fetch.Response, error) {
			return &fetch.Response{Kind: schemes.KindFile, Body: io.NopCloser(strings.NewReader("\x00\x01binary\xff")), Size: 10, Type: "binary"}, nil
		},
	}
	return s
}

// harness runs a Browser on a simulated screen.
type harness struct {
	t      *testing.T
	b      *Browser
	screen tcell.SimulationScreen
	done   chan error
	cfg    Config
}

func start(t *testing.T, c Client, url string) *harness {
	t.Helper()
	return startWith(t, Config{Client: c}, url)
}

// startWith is start with more of the Config set.
func startWith(t *testing.T, cfg Config, url string) *harness {
	t.Helper()
	screen := tcell.NewSimulationScreen("UTF-8")
	cfg.Screen, cfg.DownloadDir, cfg.ConfigDir = screen, t.TempDir(), t.TempDir()
	h := &harness{t: t, b: New(cfg), screen: screen, done: make(chan error, 1), cfg: cfg}
	screen.SetSize(100, 30)
	go func() { h.done <- h.b.Run(context.Background(), url) }()
	t.Cleanup(func() {
		h.b.quit()
		select {
		case <-h.done:
		case <-time.After(10 * time.Second):
			t.Error("the browser did not stop")
		}
	})
	return h
}

// text is the screen, one line a row, trailing blanks cut.
func (h *harness) text() string {
	// The screen is drawn on the interface's goroutine: read it there.
	var (
		cells  []tcell.SimCell
		w, hgt int
	)
	h.b.app.QueueUpdate(func() {
		var c []tcell.SimCell
		c, w, hgt = h.screen.GetContents()
		cells = make([]tcell.SimCell, len(c))
		for i := range c {
			cells[i] = tcell.SimCell{Runes: append([]rune(nil), c[i].Runes...)}
		}
	})
	var b strings.Builder
	for y := 0; y < hgt; y++ {
		var line strings.Builder
		for x := 0; x < w; x++ {
			c := cells[y*w+x]
			if len(c.Runes) == 0 {
				line.WriteByte(' ')
				continue
			}
			line.WriteString(string(c.Runes))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// waitFor polls the screen until every one of subs is on it, or fails
// after a deadline, showing the screen.
func (h *harness) waitFor(subs ...string) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s := h.text()
		missing := ""
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				missing = sub
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the screen never showed %q:\n%s", missing, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone polls until sub is off the screen.
func (h *harness) waitGone(sub string) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Contains(h.text(), sub) {
		if time.Now().After(deadline) {
			h.t.Fatalf("the screen still shows %q:\n%s", sub, h.text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// status is the bottom line.
func (h *harness) status() string {
	lines := strings.Split(strings.TrimRight(h.text(), "\n"), "\n")
	return lines[len(lines)-1]
}

func (h *harness) key(k tcell.Key) { h.screen.InjectKey(k, 0, tcell.ModNone) }

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
}

// selectRow moves the cursor, down and then up, to the row whose name
// is name.
func (h *harness) selectRow(name string) {
	h.t.Helper()
	h.waitFor(name)
	for _, k := range []tcell.Key{tcell.KeyDown, tcell.KeyUp} {
		for i := 0; i < 20; i++ {
			cur := h.selected()
			if cur == name {
				return
			}
			h.key(k)
			deadline := time.Now().Add(time.Second)
			for h.selected() == cur && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if h.selected() == cur {
				break // the end of the listing
			}
		}
	}
	h.t.Fatalf("row %q never selected:\n%s", name, h.text())
}

// selected reads the name of the selected row through the interface's
// goroutine.
func (h *harness) selected() string {
	ch := make(chan string, 1)
	h.b.app.QueueUpdate(func() {
		if e, ok := h.b.selectedEntry(); ok {
			ch <- e.Name
			return
		}
		ch <- ""
	})
	return <-ch
}

func TestMenuAndPager(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.waitFor("Welcome to the test hole.", "About this hole", "dir", "A submenu", "search", "form", "A form", "binary")
	if !strings.Contains(h.status(), "7 items") {
		t.Errorf("status %q, want the item count", h.status())
	}
	h.selectRow("About this hole")
	h.key(tcell.KeyEnter)
	h.waitFor("the needle is here", "last line", "62 bytes")
	h.key(tcell.KeyLeft)
	h.waitFor("Welcome to the test hole.")
	if got := h.selected(); got != "About this hole" {
		t.Errorf("back: selected %q, want the item opened before", got)
	}
}

func TestPagerSearchWrapRaw(t *testing.T) {
	h := start(t, hole(), aboutURL)
	h.waitFor("the needle is here")
	h.typeText("/")
	h.waitFor("Search for:")
	h.typeText("NEEDLE")
	h.key(tcell.KeyEnter)
	h.waitFor(`match 1 of "NEEDLE", line 2`)
	h.typeText("n")
	h.waitFor(`match 2 of "NEEDLE", line 4`)
	h.typeText("n")
	h.waitFor(`no more matches of "NEEDLE"`)
	h.typeText("w")
	h.waitFor("wrap off")
	h.typeText("w")
	h.waitFor("wrap on")
	h.typeText("r")
	h.waitFor("00000000  66 69 72 73 74 20 6c 69", "|first line.the n|")
	h.typeText("r")
	h.waitFor("first line\n")
	h.typeText("/")
	h.waitFor("Search for:")
	h.typeText("absent")
	h.key(tcell.KeyEnter)
	h.waitFor(`"absent" not found`)
}

func TestSearchPrompt(t *testing.T) {
	s := hole()
	h := start(t, s, rootURL)
	h.selectRow("Search the hole")
	h.key(tcell.KeyEnter)
	h.waitFor("Search for:")
	h.typeText("fox dog")
	h.key(tcell.KeyEnter)
	h.waitFor("Result for fox dog")
	reqs := s.requests()
	last := reqs[len(reqs)-1]
	if last.URL != searchURL || !last.HasQuery || last.Query != "fox dog" {
		t.Errorf("search request %+v", last)
	}
}

func TestForm(t *testing.T) {
	s := hole()
	h := start(t, s, rootURL)
	h.selectRow("A form")
	h.key(tcell.KeyEnter)
	h.waitFor("What is your name?", "Password:", "Comments:", "Favourite colour?", "Extra cheese?", "answers are not acted upon", "Submit")
	h.key(tcell.KeyTab) // to Password
	h.typeText("hunter2")
	h.waitFor("*******")
	if strings.Contains(h.text(), "hunter2") {
		t.Errorf("the AskP answer shows in clear")
	}
	h.key(tcell.KeyTab) // to Comments
	h.typeText("one")
	h.key(tcell.KeyEnter)
	h.typeText("two")
	h.key(tcell.KeyTab) // to the colour
	h.key(tcell.KeyEnter)
	h.waitFor("green")
	h.key(tcell.KeyDown)
	h.key(tcell.KeyEnter)
	h.key(tcell.KeyTab) // to the check box
	h.typeText(" ")     // cheese off
	h.key(tcell.KeyTab) // to Submit
	h.key(tcell.KeyEnter)
	h.waitFor("The document behind the form.")
	reqs := s.requests()
	last := reqs[len(reqs)-1]
	want := []string{"1=gofer", "2=hunter2", "3=one\ntwo", "4=green", "5=0"}
	if last.URL != formURL || strings.Join(last.Form, "|") != strings.Join(want, "|") {
		t.Errorf("submission %q %q, want %q", last.URL, last.Form, want)
	}
}

func TestFormEscape(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.selectRow("A form")
	h.key(tcell.KeyEnter)
	h.waitFor("Favourite colour?")
	h.key(tcell.KeyEscape)
	h.waitGone("Favourite colour?")
	h.waitFor("Welcome to the test hole.")
}

func TestHistory(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.selectRow("A submenu")
	h.key(tcell.KeyEnter)
	h.waitFor("Inner text")
	h.key(tcell.KeyEnter)
	h.waitFor("the inner text")
	h.key(tcell.KeyBackspace2)
	h.waitFor("Inner text")
	h.typeText("u")
	h.waitFor("Welcome to the test hole.")
	h.key(tcell.KeyLeft)
	h.waitFor("no previous page")
	h.typeText("f")
	h.waitFor("Inner text")
	h.typeText("f")
	h.waitFor("the inner text")
	h.typeText("f")
	h.waitFor("no next page")
}

func TestBookmarks(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.selectRow("A submenu")
	h.typeText("a")
	h.waitFor("bookmarked A submenu")
	h.typeText("v")
	h.waitFor("Bookmarks", "A submenu")
	b, err := os.ReadFile(filepath.Join(h.cfg.ConfigDir, "bookmarks"))
	if err != nil || string(b) != subURL+"\tA submenu\n" {
		t.Fatalf("bookmarks file %q, %v", b, err)
	}
	h.key(tcell.KeyEnter)
	h.waitFor("Inner text")
}

func TestHelpListsEveryKey(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.waitFor("Welcome")
	h.typeText("?")
	h.waitFor("gofer browse: keys")
	for _, k := range keys {
		h.waitFor(k[0], k[1])
	}
	h.key(tcell.KeyLeft)
	h.waitFor("Welcome")
}

func TestDownload(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.selectRow("Some data")
	h.key(tcell.KeyEnter)
	h.waitFor("saved Some data")
	dest := filepath.Join(h.cfg.DownloadDir, "data.bin")
	b, err := os.ReadFile(dest)
	if err != nil || string(b) != "\x00\x01binary\xff" {
		t.Fatalf("download %q, %v", b, err)
	}
	// Never over an existing file.
	if err := os.WriteFile(dest, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.typeText("d")
	h.waitFor("exists; not overwritten")
	if b, _ := os.ReadFile(dest); string(b) != "mine" {
		t.Errorf("the existing file became %q", b)
	}
	// The safe-name rule: a remote name ".." is refused, nothing written.
	h.selectRow("A hostile name")
	h.key(tcell.KeyEnter)
	h.waitFor(`refused: unsafe name "..": a directory reference`)
	ents, _ := os.ReadDir(h.cfg.DownloadDir)
	if len(ents) != 1 {
		t.Errorf("download directory holds %d entries, want 1", len(ents))
	}
}

func TestProgressLine(t *testing.T) {
	if got := progressLine("f.bin", 512, 1024); got != "[##########..........]  50% f.bin 512 B of 1.0 KiB" {
		t.Errorf("progress %q", got)
	}
	if got := progressLine("f.bin", 2048, -1); got != "downloading f.bin: 2.0 KiB" {
		t.Errorf("progress %q", got)
	}
}

// Through a real client: the guard's refusal shows on the status line and
// nothing is fetched; a scheme the browser does not open shows its URL.
func TestGuardOnStatusLine(t *testing.T) {
	c := fetch.NewClient(fetch.Options{})
	defer c.Close()
	h := start(t, c, "gopher://127.0.0.1:25/")
	h.waitFor("refused: gopher URL names port 25, the smtp port")
	h.typeText("g")
	h.waitFor("Open URL:")
	h.typeText("gopher://127.0.0.1/0/a%0D%0AQUIT")
	h.key(tcell.KeyEnter)
	h.waitFor("error:", "CR")
	h.typeText("g")
	h.typeText("http://127.0.0.80/")
	h.key(tcell.KeyEnter)
	h.waitFor("http://127.0.0.80/ (gofer browse does not open http URLs)")
}

func TestQuitEndsRun(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.waitFor("Welcome")
	h.typeText("q")
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
		h.done <- err // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("q did not end Run")
	}
}

func TestListingFind(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.waitFor("Welcome")
	h.typeText("/")
	h.waitFor("Find item:")
	h.typeText("SUBMENU")
	h.key(tcell.KeyEnter)
	h.waitFor(`found "SUBMENU"`)
	if got := h.selected(); got != "A submenu" {
		t.Errorf("selected %q after find", got)
	}
	h.typeText("/")
	h.typeText("a ")
	h.key(tcell.KeyEnter)
	h.waitFor(`found "a "`)
	if got := h.selected(); got != "A submenu" {
		t.Errorf("selected %q, want the match under the cursor", got)
	}
	for _, want := range []string{"A form", "A web page", "A hostile name", "A submenu"} {
		h.typeText("n")
		deadline := time.Now().Add(5 * time.Second)
		for h.selected() != want && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := h.selected(); got != want {
			t.Errorf("n selected %q, want %q", got, want)
		}
	}
	h.typeText("/")
	h.typeText("zebra")
	h.key(tcell.KeyEnter)
	h.waitFor(`no item holds "zebra"`)
}

func TestInfoShowsURLAndAttributes(t *testing.T) {
	h := start(t, hole(), rootURL)
	h.selectRow("A form")
	h.typeText("=")
	h.waitFor("About A form", "URL:  gopher://g.test/0/form.txt%09%09?", `Gopher type: 0  Gopher+: "?"`,
		"Gopher+ attributes:", "What is your name?")
	h.key(tcell.KeyLeft)
	h.waitFor("Welcome to the test hole.")
	h.selectRow("About this hole")
	h.typeText("=")
	h.waitFor("URL:  gopher://g.test/0/about.txt", "Type: text")
	if strings.Contains(h.text(), "Gopher+ attributes") {
		t.Errorf("a plain Gopher item has no Gopher+ attributes to show:\n%s", h.text())
	}
}

// A real client and a Gopher server on a port that is not 70: the guard's
// warning stays on the status line with the page it came with.
func TestGuardWarningOnStatusLine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(c).ReadString('\n')
			io.WriteString(c, "iA menu on a port of its own\t\terror.host\t1\r\n.\r\n")
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	// The browser is made after the client that warns it.
	var b atomic.Pointer[Browser]
	ready := make(chan struct{})
	c := fetch.NewClient(fetch.Options{Warn: func(s string) { <-ready; b.Load().Warn(s) }})
	defer c.Close()
	h := start(t, c, "gopher://"+ln.Addr().String()+"/")
	b.Store(h.b)
	close(ready)
	h.waitFor("A menu on a port of its own", fmt.Sprintf("warning: gopher URL names port %d, not its default 70 | 0 items", port))
}

// The README's table of keys is the help page's.
func TestReadmeListsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if row := "| " + k[0] + " | "; !strings.Contains(string(b), row) {
			t.Errorf("README lacks the row %q", row)
		}
	}
}

// session is an interactive session that greets and ends.
type session struct{ closed atomic.Bool }

func (s *session) Interact(ctx context.Context, in io.Reader, out io.Writer) error {
	_, err := io.WriteString(out, "hello from the session\n")
	return err
}
func (s *session) Close() error { s.closed.Store(true); return nil }

// telnet and tn3270 items suspend the interface, run the session or the
// program on the terminal, and come back to the page.
func TestSessionsSuspend(t *testing.T) {
	s := hole()
	sess := &session{}
	marker := filepath.Join(t.TempDir(), "tn3270-ran")
	s.items[rootURL] = menu(
		"iSessions\t\terror.host\t1",
		"8A telnet item\tguest\tg.test\t23",
		"TA tn3270 item\t\tg.test\t23",
	)
	s.items["telnet://guest@g.test/"] = func(*fetch.Request) (*fetch.Response, error) {
		return &fetch.Response{Kind: schemes.KindSession, Session: sess, Size: -1}, nil
	}
	s.items["tn3270://g.test/"] = func(*fetch.Request) (*fetch.Response, error) {
		return &fetch.Response{Kind: schemes.KindHandoff, Command: []string{"touch", marker}, Size: -1}, nil
	}
	var out bytes.Buffer
	h := startWith(t, Config{Client: s, Stdin: strings.NewReader(""), Stdout: &out}, rootURL)
	h.selectRow("A telnet item")
	h.key(tcell.KeyEnter)
	h.waitFor("session with telnet://guest@g.test/ ended", "Sessions")
	if !strings.Contains(out.String(), "hello from the session") || !sess.closed.Load() {
		t.Errorf("session output %q, closed %v", out.String(), sess.closed.Load())
	}
	h.selectRow("A tn3270 item")
	h.key(tcell.KeyEnter)
	h.waitFor("session with tn3270://g.test/ ended")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the tn3270 program did not run: %v", err)
	}
}

// A fetch that needs an answer (an FTP password) asks on the bottom line,
// masked, and gets what was typed.
func TestPromptForAFetch(t *testing.T) {
	s := hole()
	var b atomic.Pointer[Browser]
	ready := make(chan struct{})
	s.items["ftp://user@g.test/f.txt"] = func(*fetch.Request) (*fetch.Response, error) {
		<-ready
		pw, err := b.Load().Prompt("Password for user@g.test:", true)
		if err != nil {
			return nil, err
		}
		return text("logged in with a password of " + fmt.Sprint(len(pw)) + " bytes\n")(nil)
	}
	h := start(t, s, "ftp://user@g.test/f.txt")
	b.Store(h.b)
	close(ready)
	h.waitFor("Password for user@g.test:")
	h.typeText("pw-secret")
	h.waitFor("*********")
	if strings.Contains(h.text(), "pw-secret") {
		t.Error("the password shows")
	}
	h.key(tcell.KeyEnter)
	h.waitFor("logged in with a password of 9 bytes")
}

func TestListingCut(t *testing.T) {
	h := startWith(t, Config{Client: hole(), MaxItems: 3}, rootURL)
	h.waitFor("About this hole", "A submenu", "error: the listing was cut at 3 items")
	if strings.Contains(h.text(), "Search the hole") {
		t.Errorf("a fourth item shows:\n%s", h.text())
	}
}

// Esc cancels a fetch that hangs; its error does not replace "cancelled".
func TestEscCancelsAFetch(t *testing.T) {
	s := hole()
	started := make(chan struct{})
	s.items["gopher://g.test/1/slow"] = func(r *fetch.Request) (*fetch.Response, error) {
		close(started)
		return nil, schemes.Errorf(schemes.ErrInterrupted, "never answered")
	}
	s.items[rootURL] = menu("1Slow\t/slow\tg.test\t70")
	slow := &blocking{scripted: s, started: started, ended: make(chan struct{})}
	h := start(t, slow, rootURL)
	h.selectRow("Slow")
	h.key(tcell.KeyEnter)
	h.waitFor("fetching gopher://g.test/1/slow")
	h.key(tcell.KeyEscape)
	h.waitFor("cancelled")
	<-slow.ended
	// Every fetch goroutine has ended, and with it any update of the
	// status line it made (ui waits for the update to be drawn).
	h.b.wg.Wait()
	h.waitFor("cancelled")
	if strings.Contains(h.status(), "never answered") {
		t.Errorf("status %q", h.status())
	}
}

// blocking holds the fetch of /slow until its context ends.
type blocking struct {
	*scripted
	started chan struct{}
	ended   chan struct{}
}

func (b *blocking) Do(ctx context.Context, r *fetch.Request) (*fetch.Response, error) {
	if r.URL != "gopher://g.test/1/slow" {
		return b.scripted.Do(ctx, r)
	}
	defer close(b.ended)
	resp, err := b.scripted.Do(ctx, r)
	<-ctx.Done()
	return resp, err
}

func TestPagerSideways(t *testing.T) {
	s := hole()
	long := strings.Repeat("x", 150) + "END\n"
	s.items[aboutURL] = text(long)
	h := start(t, s, aboutURL)
	h.waitFor("xxxxxxxxxx")
	h.typeText("w")
	h.waitFor("wrap off")
	if strings.Contains(h.text(), "END") {
		t.Fatalf("the line's end shows before scrolling:\n%s", h.text())
	}
	for i := 0; i < 60 && !strings.Contains(h.text(), "END"); i++ {
		h.typeText(">")
	}
	h.waitFor("xEND")
	for i := 0; i < 60 && strings.Contains(h.text(), "END"); i++ {
		h.typeText("<")
	}
	h.waitGone("END")
}
