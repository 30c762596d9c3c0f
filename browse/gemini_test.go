package browse

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/gemini"
)

// capsule is a scripted Gemini server on 127.0.0.1: a TLS listener whose
// certificate a test can swap, answering from a table of paths.
type capsule struct {
	t    *testing.T
	ln   net.Listener
	cert atomic.Pointer[tls.Certificate]

	mu    sync.Mutex
	pages map[string]string // responses by path (capsulePages at first)
	lines []string          // the request lines received
}

// capsulePages are a capsule's first responses by path; the query of an input
// page's answer is handled by answer.
var capsulePages = map[string]string{
	"/": "20 text/gemini\r\n" +
		"# A test capsule\n" +
		"Plain text of the capsule.\n" +
		"* a list item\n" +
		"> a quote\n" +
		"```an alt text\n" +
		"   # not a heading\n" +
		"=> not a link\n" +
		"```\n" +
		"=> next.gmi The next page\n" +
		"=> /ask An input page\n" +
		"=> /secret A sensitive input page\n" +
		"=> /plain.txt A text file\n" +
		"=> /data.bin Some data\n" +
		"=> /old A redirect\n" +
		"=> gopher://127.0.0.1:1/7/find A gopher search\n" +
		"=> http://127.0.0.1/ A web page\n",
	"/next.gmi":  "20 text/gemini\r\n## The next page\n=> / Home again\n",
	"/plain.txt": "20 text/plain; charset=utf-8\r\nplain text from the capsule\n",
	"/data.bin":  "20 application/octet-stream\r\n\x00\x01binary\xff",
	"/old":       "30 /next.gmi\r\n",
	"/ask":       "10 What is your name?\r\n",
	"/secret":    "11 Password?\r\n",
}

// answer is the response to an input page given its answer.
func answer(path, q string) string {
	switch path {
	case "/ask":
		return "20 text/gemini\r\n# Hello, " + q + "\n"
	case "/secret":
		return "20 text/plain\r\nsecret of " + strconv.Itoa(len(q)) + " characters\n"
	}
	return "51 Not found\r\n"
}

func newCapsule(t *testing.T) *capsule {
	t.Helper()
	c := &capsule{t: t, pages: map[string]string{}}
	for k, v := range capsulePages {
		c.pages[k] = v
	}
	c.cert.Store(selfSigned(t))
	cfg := &tls.Config{
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return c.cert.Load(), nil },
		// Every connection presents the certificate of the moment: no
		// resumed session carries an older one.
		SessionTicketsDisabled: true,
		ClientAuth:             tls.RequestClientCert,
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.ln = ln
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				c.serve(conn)
			}()
		}
	}()
	return c
}

func (c *capsule) serve(conn net.Conn) {
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return
	}
	line = strings.TrimSuffix(line, "\r\n")
	c.mu.Lock()
	c.lines = append(c.lines, line)
	c.mu.Unlock()
	u, err := url.Parse(line)
	if err != nil {
		conn.Write([]byte("59 bad request\r\n"))
		return
	}
	if u.Path == "/members" {
		// A certificate zone: 60 without a client certificate.
		if tc, ok := conn.(*tls.Conn); ok && len(tc.ConnectionState().PeerCertificates) > 0 {
			conn.Write([]byte("20 text/gemini\r\n# Members only\r\n"))
			return
		}
		conn.Write([]byte("60 Certificate please\r\n"))
		return
	}
	c.mu.Lock()
	resp, ok := c.pages[u.Path]
	c.mu.Unlock()
	if u.RawQuery != "" {
		q, _ := url.PathUnescape(u.RawQuery)
		resp, ok = answer(u.Path, q), true
	}
	if !ok {
		resp = "51 Not found\r\n"
	}
	conn.Write([]byte(resp))
}

func (c *capsule) requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.lines...)
}

// url is the capsule's URL for path.
func (c *capsule) url(path string) string { return "gemini://" + c.ln.Addr().String() + path }

// selfSigned makes a certificate for 127.0.0.1 that is its own issuer.
func selfSigned(t *testing.T) *tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}

// geminiBrowser runs a Browser on the capsule through a real client with
// a gemini fetcher that pins in knownHosts, its input requests asked by
// the browser, as gofer browse wires it.
func geminiBrowser(t *testing.T, c *capsule, knownHosts, start string) *harness {
	t.Helper()
	f := gemini.New()
	f.KnownHosts = &gemini.KnownHosts{Path: knownHosts}
	f.Identities = filepath.Join(filepath.Dir(knownHosts), "identities")
	var b atomic.Pointer[Browser]
	ready := make(chan struct{})
	client := fetch.NewClient(fetch.Options{
		Fetchers: map[string]schemes.Fetcher{"gemini": f},
		Prompt: func(q string, secret bool) (string, error) {
			<-ready
			return b.Load().Prompt(q, secret)
		},
	})
	t.Cleanup(func() { client.Close() })
	h := startWith(t, Config{Client: client}, start)
	b.Store(h.b)
	close(ready)
	return h
}

// A text/gemini page is a listing, one row a line: text, headings, list
// items, quotes and preformatted lines as written and not selectable,
// links selectable; a link opens its page, Left comes back.
func TestGeminiPage(t *testing.T) {
	c := newCapsule(t)
	h := geminiBrowser(t, c, filepath.Join(t.TempDir(), "known_hosts"), c.url("/"))
	h.waitFor("# A test capsule", "Plain text of the capsule.", "* a list item", "> a quote",
		"```an alt text", "   # not a heading", "=> not a link", "The next page", "An input page",
		c.url("/"), "8 items")
	// The rows before the first link are not selectable: the cursor
	// starts on it and goes no higher.
	if got := h.selected(); got != "The next page" {
		t.Fatalf("selected %q, want the first link", got)
	}
	h.key(tcell.KeyUp)
	h.key(tcell.KeyEnter)
	h.waitFor("## The next page", c.url("/next.gmi"))
	h.key(tcell.KeyLeft)
	h.waitFor("# A test capsule")
	if got := h.selected(); got != "The next page" {
		t.Errorf("back: selected %q, want the link opened before", got)
	}
	// A relative link resolves against the page, a redirect is followed,
	// and the page is known by where it ended.
	h.selectRow("A redirect")
	h.key(tcell.KeyEnter)
	h.waitFor("## The next page", c.url("/next.gmi"))
	h.selectRow("Home again")
	h.key(tcell.KeyEnter)
	h.waitFor("# A test capsule")
	reqs := c.requests()
	want := []string{c.url("/"), c.url("/next.gmi"), c.url("/old"), c.url("/next.gmi"), c.url("/")}
	if strings.Join(reqs, " ") != strings.Join(want, " ") {
		t.Errorf("requests %q, want %q", reqs, want)
	}
}

// Text that is not gemtext opens in the pager, the rest as a download;
// links to other schemes open as the browser opens those URLs.
func TestGeminiTextDownloadOtherSchemes(t *testing.T) {
	c := newCapsule(t)
	h := geminiBrowser(t, c, filepath.Join(t.TempDir(), "known_hosts"), c.url("/"))
	h.selectRow("A text file")
	h.key(tcell.KeyEnter)
	h.waitFor("plain text from the capsule", "28 bytes", c.url("/plain.txt"))
	h.key(tcell.KeyLeft)
	h.selectRow("Some data")
	h.key(tcell.KeyEnter)
	h.waitFor("saved Some data")
	got, err := os.ReadFile(filepath.Join(h.cfg.DownloadDir, "data.bin"))
	if err != nil || string(got) != "\x00\x01binary\xff" {
		t.Errorf("download %q, %v", got, err)
	}
	h.selectRow("A web page")
	h.key(tcell.KeyEnter)
	h.waitFor("http://127.0.0.1/ (gofer browse does not open http URLs)")
	// A gopher link is a gopher item of the type its URL names: a
	// search asks for its words first.
	h.selectRow("A gopher search")
	h.key(tcell.KeyEnter)
	h.waitFor("Search for:")
	h.key(tcell.KeyEscape)
	h.waitGone("Search for:")
}

// An input page asks on the bottom line and sends the answer as the
// query; a sensitive one masks it.
func TestGeminiInput(t *testing.T) {
	c := newCapsule(t)
	h := geminiBrowser(t, c, filepath.Join(t.TempDir(), "known_hosts"), c.url("/"))
	h.selectRow("An input page")
	h.key(tcell.KeyEnter)
	h.waitFor("What is your name?:")
	h.typeInput("Ada Lovelace")
	h.key(tcell.KeyEnter)
	h.waitFor("# Hello, Ada Lovelace", c.url("/ask?Ada%20Lovelace"))
	h.key(tcell.KeyLeft)
	h.selectRow("A sensitive input page")
	h.key(tcell.KeyEnter)
	h.waitFor("Password?:")
	h.typeInput("hunter2")
	h.waitFor("*******")
	if strings.Contains(h.text(), "hunter2") {
		t.Error("the sensitive input shows")
	}
	h.key(tcell.KeyEnter)
	h.waitFor("secret of 7 characters")
	reqs := c.requests()
	if last := reqs[len(reqs)-1]; last != c.url("/secret?hunter2") {
		t.Errorf("last request %q", last)
	}
	// Esc leaves the question unanswered: nothing more is sent.
	h.key(tcell.KeyLeft)
	h.selectRow("An input page")
	h.key(tcell.KeyEnter)
	h.waitFor("What is your name?:")
	h.key(tcell.KeyEscape)
	h.waitFor("not answered")
	if n := len(c.requests()); n != len(reqs)+1 {
		t.Errorf("%d requests after Esc, want %d", n, len(reqs)+1)
	}
}

// A server whose certificate changed: both fingerprints and a y/n
// question; n leaves the refusal, y pins the new certificate and fetches
// the page.
func TestGeminiChangedCertificate(t *testing.T) {
	c := newCapsule(t)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	h := geminiBrowser(t, c, kh, c.url("/"))
	h.waitFor("# A test capsule")
	old := gemini.Fingerprint(c.cert.Load().Leaf)
	c.cert.Store(selfSigned(t))
	fresh := gemini.Fingerprint(c.cert.Load().Leaf)
	served := len(c.requests())

	h.selectRow("The next page")
	h.key(tcell.KeyEnter)
	h.waitFor("Changed certificate", "pinned:     "+old, "presented:  "+fresh, "accept the new certificate? (y/n)")
	h.typeText("q") // not an answer: the question stays
	h.typeText("n")
	h.waitGone("Changed certificate")
	h.waitFor("error: refused the new certificate of "+c.ln.Addr().String()+" ("+fresh[:19]+"...); the old one stays", "# A test capsule")
	if n := len(c.requests()); n != served {
		t.Errorf("%d requests sent with the certificate refused", n-served)
	}
	if got := pinned(t, kh); got != old {
		t.Errorf("refused, the pin became %s", got)
	}

	h.key(tcell.KeyEnter)
	h.waitFor("accept the new certificate? (y/n)")
	h.typeText("y")
	h.waitFor("## The next page", c.url("/next.gmi"))
	if got := pinned(t, kh); got != fresh {
		t.Errorf("accepted, the pin is %s, want %s", got, fresh)
	}
	// The history and the bookmarks know gemini pages as any other.
	h.typeText("a")
	h.waitFor("bookmarked Home again")
	h.typeText("v")
	h.waitFor("Bookmarks", "Home again")
	h.key(tcell.KeyEnter)
	h.waitFor("# A test capsule")
	h.typeText("u")
	h.waitFor("Bookmarks")
	h.typeText("g")
	h.waitFor("Open URL:")
	h.typeInput(c.url("/plain.txt"))
	h.key(tcell.KeyEnter)
	h.waitFor("plain text from the capsule")
}

// A server that asks for a client certificate (60) gets an identity of
// its own when the person says so; n sends nothing more.
func TestGeminiNewIdentity(t *testing.T) {
	c := newCapsule(t)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	h := geminiBrowser(t, c, kh, c.url("/members"))
	h.waitFor("Client certificate", "Certificate please", "make a new client certificate for "+c.ln.Addr().String()+"? (y/n)")
	served := len(c.requests())
	h.typeText("n")
	h.waitFor("error: " + c.ln.Addr().String() + " asks for a client certificate; none was made")
	if n := len(c.requests()); n != served {
		t.Errorf("%d requests sent after no", n-served)
	}
	h.typeText("g")
	h.waitFor("Open URL:")
	h.typeInput(c.url("/members"))
	h.key(tcell.KeyEnter)
	h.waitFor("make a new client certificate")
	h.typeText("y")
	h.waitFor("# Members only")
	ids, _ := os.ReadDir(filepath.Join(filepath.Dir(kh), "identities"))
	if len(ids) != 1 || ids[0].Name() != c.ln.Addr().String()+".pem" {
		t.Errorf("identities kept: %v", ids)
	}
}

// pinned is the fingerprint a known-hosts file pins for 127.0.0.1.
func pinned(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && strings.HasPrefix(f[0], "127.0.0.1:") {
			return f[1]
		}
	}
	t.Fatalf("no pin in %q", data)
	return ""
}

// A page seen afresh shows from its top when its first link fits on the
// screen below it, however many links follow.
func TestGeminiPageShowsItsTop(t *testing.T) {
	c := newCapsule(t)
	h := geminiBrowser(t, c, filepath.Join(t.TempDir(), "known_hosts"), c.url("/"))
	h.waitFor("# A test capsule")
	long := "20 text/gemini\r\n# The top of a long page\n" + strings.Repeat("text\n", 20) + strings.Repeat("=> / Home\n", 20)
	c.mu.Lock()
	c.pages["/long.gmi"] = long
	c.mu.Unlock()
	h.typeText("g")
	h.waitFor("Open URL:")
	h.typeInput(c.url("/long.gmi"))
	h.key(tcell.KeyEnter)
	h.waitFor("# The top of a long page", "Home")
}

// typeInput types s into the prompt a key at a time, each key once the one
// before it shows: a simulated screen drops keys that come faster than
// the interface reads them.
func (h *harness) typeInput(s string) {
	h.t.Helper()
	typed := ""
	for _, r := range s {
		typed += string(r)
		h.screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
		deadline := time.Now().Add(5 * time.Second)
		for h.inputText() != typed {
			if time.Now().After(deadline) {
				h.t.Fatalf("the prompt holds %q, want %q", h.inputText(), typed)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// inputText is the prompt's text, read on the interface's goroutine.
func (h *harness) inputText() string {
	ch := make(chan string, 1)
	h.b.app.QueueUpdate(func() { ch <- h.b.input.GetText() })
	return <-ch
}
