package integration_test

// Gopher and Gopher+ against the harness's pygopherd (127.0.0.70) and
// gophernicus (127.0.0.71), as integration/LAYOUT.md describes them: through
// the library (schemes/gopher) and through the gofer command.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/gopher"
)

const (
	gopherPlusAddr = itest.GopherPlusHost + ":70"
	gopherAddr     = itest.GopherHost + ":70"
)

// gopherFetch fetches raw with the gopher fetcher alone.
func gopherFetch(t *testing.T, raw string, set func(*schemes.Request)) (*schemes.Response, error) {
	t.Helper()
	u, err := schemes.Parse(raw)
	if err != nil {
		t.Fatalf("Parse(%q): %v", raw, err)
	}
	req := &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: &dial.Dialer{}, IdleTimeout: 30 * time.Second}}
	if set != nil {
		set(req)
	}
	return gopher.New().Fetch(context.Background(), req)
}

func gopherBody(t *testing.T, raw string, set func(*schemes.Request)) []byte {
	t.Helper()
	resp, err := gopherFetch(t, raw, set)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	defer resp.Close()
	if resp.Kind != schemes.KindFile {
		t.Fatalf("%s: Kind %v, want a file", raw, resp.Kind)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return b
}

func gopherEntries(t *testing.T, raw string, set func(*schemes.Request)) []schemes.Entry {
	t.Helper()
	resp, err := gopherFetch(t, raw, set)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	defer resp.Close()
	if resp.Kind != schemes.KindListing {
		t.Fatalf("%s: Kind %v, want a listing", raw, resp.Kind)
	}
	var es []schemes.Entry
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			return es
		}
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		es = append(es, e)
	}
}

func gopherAttributes(t *testing.T, raw string) *gopher.Attributes {
	t.Helper()
	resp, err := gopherFetch(t, raw, nil)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	defer resp.Close()
	a, ok := resp.Info.(*gopher.Attributes)
	if resp.Kind != schemes.KindInfo || !ok {
		t.Fatalf("%s: Kind %v Info %T, want attributes", raw, resp.Kind, resp.Info)
	}
	return a
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func archiveFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(itest.ArchiveDir(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// recorder is a TCP relay on 127.0.0.1:0 to a real server that keeps what
// the client sent on each connection: the proof of the bytes on the wire.
type recorder struct {
	ln   net.Listener
	mu   sync.Mutex
	sent []*bytes.Buffer
	wg   sync.WaitGroup
}

func newRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{ln: ln}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := &bytes.Buffer{}
			r.mu.Lock()
			r.sent = append(r.sent, buf)
			r.mu.Unlock()
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				defer c.Close()
				s, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer s.Close()
				done := make(chan struct{})
				go func() {
					io.Copy(io.MultiWriter(s, lockedWriter{&r.mu, buf}), c)
					s.(*net.TCPConn).CloseWrite()
					close(done)
				}()
				io.Copy(c, s)
				c.Close()
				<-done
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); r.wg.Wait() })
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (r *recorder) url(path string) string { return "gopher://" + r.ln.Addr().String() + path }

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, b := range r.sent {
		out = append(out, b.String())
	}
	return out
}

// --- pygopherd (Gopher+) ---

func TestGopherPlusItemAttributes(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	a := gopherAttributes(t, "gopher://127.0.0.70/0/views.txt%09%09!")
	if len(a.Items) != 1 {
		t.Fatalf("%d items", len(a.Items))
	}
	it := a.Items[0]
	if it.Info == nil || it.Info.Gopher.Selector != "/views.txt" || it.Info.Gopher.Host != itest.GopherPlusHost || it.Info.Gopher.Plus != "+" {
		t.Errorf("+INFO %+v", it.Info)
	}
	want := time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)
	if it.Admin == nil || it.Admin.Email != "root@localhost" || it.Admin.ModDate == nil || !it.Admin.ModDate.Equal(want) {
		t.Errorf("+ADMIN %+v", it.Admin)
	}
	var views []string
	for _, v := range it.Views {
		views = append(views, v.PlusString()+" "+strconv.FormatInt(*v.Size, 10))
	}
	if got := strings.Join(views, "|"); got != "+text/plain 1024|+text/plain De_DE 1024|+application/postscript 2048|+application/pdf Es_ES 3072" {
		t.Errorf("+VIEWS %s", got)
	}
	a = gopherAttributes(t, "gopher://127.0.0.70/0/abstracted.txt%09%09!")
	if a.Items[0].Abstract != "This is the abstract of abstracted.txt.\nIt has two lines." {
		t.Errorf("+ABSTRACT %q", a.Items[0].Abstract)
	}
	a = gopherAttributes(t, "gopher://127.0.0.70/0/form.txt%09%09!")
	if f := a.Items[0].Ask; f == nil || len(f.Fields) != 7 || f.Fields[4].Kind != gopher.KindChoose || f.Fields[5].Default != "1" {
		t.Errorf("+ASK %+v", f)
	}
}

func TestGopherPlusDirectoryAttributes(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	a := gopherAttributes(t, "gopher://127.0.0.70/1%09%09$")
	byName := map[string]*gopher.Item{}
	for _, it := range a.Items {
		if it.Info != nil {
			byName[it.Info.Gopher.Selector] = it
		}
	}
	for _, sel := range []string{"/about.txt", "/abstracted.txt", "/form.txt", "/views.txt", "/menus", "/binary.bin"} {
		if byName[sel] == nil || byName[sel].Admin == nil {
			t.Errorf("$ lacks the attributes of %s", sel)
		}
	}
	if it := byName["/abstracted.txt"]; it != nil && !strings.HasPrefix(it.Abstract, "This is the abstract") {
		t.Errorf("abstract in $: %q", it.Abstract)
	}
	if it := byName["/form.txt"]; it != nil && (it.Info.Gopher.Plus != "?" || it.Ask == nil) {
		t.Errorf("form in $: %+v", it)
	}
}

// An alternate view is asked for exactly as the draft writes it; pygopherd
// answers with its default view.
func TestGopherPlusAlternateView(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	rec := newRecorder(t, gopherPlusAddr)
	resp, err := gopherFetch(t, rec.url("/0/views.txt%09%09+application/pdf%20Es_ES"), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Close()
	if err != nil || string(body) != "The default view of an item with alternate views.\n" || resp.Size != int64(len(body)) {
		t.Fatalf("body %q size %d err %v", body, resp.Size, err)
	}
	if got := rec.requests(); len(got) != 1 || got[0] != "/views.txt\t+application/pdf Es_ES\r\n" {
		t.Fatalf("sent %q", got)
	}
}

// The +ASK form is read from pygopherd and answered with --form answers,
// by question text and by position; pygopherd returns the document.
func TestGopherPlusAskForm(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	answers := []string{"What is your name?=Ada", "2=pw", "Comments:=one\ntwo", "4=out.txt", "Favourite colour?=3", "6=no"}
	body := gopherBody(t, "gopher://127.0.0.70/0/form.txt%09%09%3F", func(r *schemes.Request) { r.Form = answers })
	if string(body) != "The document behind the form.\n" {
		t.Fatalf("body %q", body)
	}
	// Without answers for the questions that have no default, and no
	// terminal, it is a usage error naming them.
	_, err := gopherFetch(t, "gopher://127.0.0.70/0/form.txt%09%09%3F", nil)
	if !errors.Is(err, schemes.ErrUsage) || err.Error() != `form needs answers: 2 "Password:", 3 "Comments:", 4 "File to send:"` {
		t.Fatalf("err = %v", err)
	}
}

// The submission byte for byte: a scripted Gopher+ server serves
// pygopherd's form and echoes the data block it gets back.
func TestGopherPlusAskSubmissionEchoed(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	form := gopherRaw(t, gopherPlusAddr, "/form.txt\t!\r\n")
	echo := newEchoGopher(t, form)
	want := "/form.txt\t+\t1\r\n+-1\r\nAda\r\npw\r\n2\r\none\r\ntwo\r\nout.txt\r\nblue\r\n0\r\n.\r\n"
	for _, answers := range [][]string{
		{"What is your name?=Ada", "Password:=pw", "Comments:=one\ntwo", "File to send:=out.txt", "Favourite colour?=blue", "Extra cheese?=no"},
		{"1=Ada", "2=pw", "3=one\ntwo", "4=out.txt", "5=3", "6=0"},
	} {
		body := gopherBody(t, echo.url+"/0/form.txt%09%09%3F", func(r *schemes.Request) { r.Form = answers })
		if string(body) != want {
			t.Errorf("%q: submitted\n%q\nwant\n%q", answers, body, want)
		}
	}
}

// gopherRaw sends request and returns the whole reply.
func gopherRaw(t *testing.T, addr, request string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, request)
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type echoGopher struct{ url string }

// newEchoGopher answers attribute requests with attrs and a data request
// with "+-2" and the request itself.
func newEchoGopher(t *testing.T, attrs string) *echoGopher {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(30 * time.Second))
			br := bufio.NewReader(c)
			line, _ := br.ReadString('\n')
			if strings.Contains(line, "\t!") {
				io.WriteString(c, attrs)
				c.Close()
				continue
			}
			var req strings.Builder
			req.WriteString(line)
			for strings.HasSuffix(line, "\t1\r\n") {
				l, err := br.ReadString('\n')
				req.WriteString(l)
				if err != nil || l == ".\r\n" {
					break
				}
			}
			io.WriteString(c, "+-2\r\n"+req.String())
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return &echoGopher{url: "gopher://" + ln.Addr().String()}
}

// Binary items are byte-identical to the files served, plain or Gopher+.
func TestGopherBinaryItems(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	itest.Require(t, gopherAddr)
	m := itest.Manifest(t)
	for _, tc := range []struct{ url, file string }{
		{"gopher://127.0.0.70/9/binary.bin%09%09+", "binary/all-bytes.bin"},
		{"gopher://127.0.0.70/9/menus/one/two/three/deep.bin%09%09+", "binary/random-64k.bin"},
		{"gopher://127.0.0.70/g/archive/binary/image.gif%09%09+", "binary/image.gif"},
		{"gopher://127.0.0.70/9/archive/binary/random-1m.bin", "binary/random-1m.bin"},
		{"gopher://127.0.0.70/9/archive/binary/crlf-nul.bin", "binary/crlf-nul.bin"},
		{"gopher://127.0.0.71/9/binary.bin", "binary/all-bytes.bin"},
		{"gopher://127.0.0.71/g/image.gif", "binary/image.gif"},
		{"gopher://127.0.0.71/9/archive/binary/random-1m.bin", "binary/random-1m.bin"},
		{"gopher://127.0.0.71/9/archive/binary/crlf-nul.bin", "binary/crlf-nul.bin"},
	} {
		if got := sha(gopherBody(t, tc.url, nil)); got != m[tc.file] {
			t.Errorf("%s: sha256 %s, want %s (%s)", tc.url, got, m[tc.file], tc.file)
		}
	}
	// Gopher+ text: "+N" and the exact bytes, dot lines and all.
	if got := gopherBody(t, "gopher://127.0.0.70/0/archive/text/dots.txt%09%09+", nil); !bytes.Equal(got, archiveFile(t, "text/dots.txt")) {
		t.Errorf("Gopher+ dots.txt: %q", got)
	}
}

func TestGopherPlusMissingItem(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	_, err := gopherFetch(t, "gopher://127.0.0.70/0/nonexist%09%09+", nil)
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "'/nonexist' does not exist") {
		t.Fatalf("err = %v", err)
	}
}

// --- gophernicus (plain Gopher) ---

func TestGopherMenu(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherAddr)
	var got []string
	for _, e := range gopherEntries(t, "gopher://127.0.0.71/", nil) {
		got = append(got, e.Gopher.Type+" "+e.Type+" "+e.Name+" "+e.URL)
	}
	want := []string{
		"i info gofer integration hole (gophernicus) ",
		"i info Welcome to gofer's plain Gopher test hole. ",
		"i info Lines without a TAB are info lines. ",
		"i info  ",
		"0 text About this hole gopher://127.0.0.71/0/about.txt",
		"0 text Text with lines that begin with a dot gopher://127.0.0.71/0/dots.txt",
		"9 binary All byte values gopher://127.0.0.71/9/binary.bin",
		"g image A GIF image gopher://127.0.0.71/g/image.gif",
		"1 dir Nested menus gopher://127.0.0.71/1/menus",
		"1 dir The sample archive gopher://127.0.0.71/1/archive",
		"7 search Search archive file names gopher://127.0.0.71/7/cgi-bin/search",
		"1 dir A menu written as a gophermap gopher://127.0.0.71/1/mapped",
		"h html A web link http://127.0.0.80/",
		"8 telnet A telnet link telnet://gofer@127.0.0.23/",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("menu:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Nested menus: follow the URLs down to the deepest binary.
	url := "gopher://127.0.0.71/1/menus"
	for _, name := range []string{"one", "two", "three"} {
		var next string
		for _, e := range gopherEntries(t, url, nil) {
			if e.Type == "dir" && strings.HasPrefix(e.Name, name) {
				next = e.URL
			}
		}
		if next == "" {
			t.Fatalf("%s has no menu %q", url, name)
		}
		url = next
	}
	var deep string
	for _, e := range gopherEntries(t, url, nil) {
		if e.Gopher.Type == "9" && strings.HasPrefix(e.Name, "deep.bin") {
			deep = e.URL
		}
	}
	if deep == "" || sha(gopherBody(t, deep, nil)) != itest.Manifest(t)["binary/random-64k.bin"] {
		t.Fatalf("deep.bin at %q", deep)
	}
}

// Text items end at the lone "." and come back unstuffed: the file as it
// is on disk.
func TestGopherTextDotUnstuffing(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherAddr)
	for _, tc := range []struct{ url, file string }{
		{"gopher://127.0.0.71/0/dots.txt", ""},
		{"gopher://127.0.0.71/0/archive/text/dots.txt", "text/dots.txt"},
		{"gopher://127.0.0.71/0/archive/text/dotted-words.txt", "text/dotted-words.txt"},
		{"gopher://127.0.0.71/0/archive/text/crlf.txt", "text/crlf.txt"},
		{"gopher://127.0.0.71/0/archive/text/long-line.txt", "text/long-line.txt"},
	} {
		want := []byte(".\n..\n.leading dot\nmiddle line\n...\n. \nlast line\n")
		if tc.file != "" {
			want = archiveFile(t, tc.file)
		}
		if got := gopherBody(t, tc.url, nil); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.url, got, want)
		}
	}
}

func TestGopherSearch(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherAddr)
	for _, url := range []string{"gopher://127.0.0.71/7/cgi-bin/search", "gopher://127.0.0.70/7/search"} {
		es := gopherEntries(t, url, func(r *schemes.Request) { r.Query, r.HasQuery = "café", true })
		host := strings.Split(url, "/")[2]
		if len(es) != 1 || es[0].Name != "names/café-utf8.txt" || es[0].Gopher.Selector != "/archive/names/café-utf8.txt" || es[0].Gopher.Host != host {
			t.Fatalf("%s: %+v", url, es)
		}
		// The result fetches the file.
		if got := gopherBody(t, es[0].URL, nil); string(got) != "this file is named café-utf8.txt\n" && !bytes.Equal(got, archiveFile(t, "names/café-utf8.txt")) {
			t.Errorf("%s: %q", es[0].URL, got)
		}
	}
	// The query in the URL is the same search.
	es := gopherEntries(t, "gopher://127.0.0.71/7/cgi-bin/search%09level12/marker", nil)
	if len(es) != 1 || !strings.HasSuffix(es[0].Gopher.Selector, "/level12/marker.txt") {
		t.Fatalf("URL search: %+v", es)
	}
}

// --- the gofer command ---

// gopherCLI runs the built gofer with args and returns its exit code,
// stdout and stderr.
func gopherCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	r := itest.Run(t, nil, nil, args...)
	return r.Code, r.Stdout, r.Stderr
}

func TestGoferGopherCommand(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, gopherPlusAddr)
	itest.Require(t, gopherAddr)

	code, out, errOut := gopherCLI(t, "get", "gopher://127.0.0.71/0/dots.txt")
	if code != 0 || out != ".\n..\n.leading dot\nmiddle line\n...\n. \nlast line\n" {
		t.Errorf("text: exit %d stdout %q stderr %q", code, out, errOut)
	}

	// A menu as text: info lines as text, links numbered with type and URL.
	code, out, _ = gopherCLI(t, "get", "gopher://127.0.0.71/")
	for _, s := range []string{"Welcome to gofer's plain Gopher test hole.", "gopher://127.0.0.71/0/about.txt", "http://127.0.0.80/", "telnet://gofer@127.0.0.23/"} {
		if code != 0 || !strings.Contains(out, s) {
			t.Errorf("menu: exit %d, lacks %q:\n%s", code, s, out)
		}
	}

	// --json: the entries with the gopher fields.
	code, out, _ = gopherCLI(t, "get", "--json", "gopher://127.0.0.70/")
	var listing struct {
		Entries []map[string]any `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &listing); code != 0 || err != nil {
		t.Fatalf("--json: exit %d, %v: %s", code, err, out)
	}
	var form map[string]any
	for _, e := range listing.Entries {
		if e["selector"] == "/form.txt" {
			form = e
		}
	}
	if form == nil || form["type"] != "ask" || form["gopher_type"] != "0" || form["plus"] != "?" || form["port"] != float64(70) {
		t.Errorf("--json form entry %v", form)
	}

	// Type 7 without --query and without a terminal: exit 2, naming the flag.
	code, _, errOut = gopherCLI(t, "get", "gopher://127.0.0.71/7/cgi-bin/search")
	if code != 2 || !strings.Contains(errOut, "--query") {
		t.Errorf("search without query: exit %d stderr %q", code, errOut)
	}
	code, out, _ = gopherCLI(t, "get", "--query", "level03", "gopher://127.0.0.71/7/cgi-bin/search")
	if code != 0 || !strings.Contains(out, "level03/marker.txt") {
		t.Errorf("search: exit %d:\n%s", code, out)
	}

	// +ASK: no answers, no terminal: exit 2 with the questions on stderr.
	code, out, errOut = gopherCLI(t, "get", "gopher://127.0.0.70/0/form.txt%09%09%3F")
	if code != 2 || out != "" || !strings.Contains(errOut, `2 "Password:"`) || !strings.Contains(errOut, `4 "File to send:"`) {
		t.Errorf("form without answers: exit %d stdout %q stderr %q", code, out, errOut)
	}
	code, out, errOut = gopherCLI(t, "get", "-v", "--form", "Password:=hunter2", "--form", "3=c", "--form", "4=f.txt",
		"gopher://127.0.0.70/0/form.txt%09%09%3F")
	if code != 0 || out != "The document behind the form.\n" || strings.Contains(errOut, "hunter2") {
		t.Errorf("form: exit %d stdout %q stderr %q", code, out, errOut)
	}

	// Attributes in readable form.
	code, out, _ = gopherCLI(t, "get", "gopher://127.0.0.70/0/views.txt%09%09!")
	if code != 0 || !strings.Contains(out, "application/pdf (Es_ES)") || !strings.Contains(out, "1994-12-20T12:00:00Z") {
		t.Errorf("attributes: exit %d:\n%s", code, out)
	}

	// The server's refusal is exit 5 with its text.
	code, _, errOut = gopherCLI(t, "get", "gopher://127.0.0.70/0/nonexist%09%09+")
	if code != 5 || !strings.Contains(errOut, "does not exist") {
		t.Errorf("missing item: exit %d stderr %q", code, errOut)
	}

	// Binary to a file, byte for byte.
	dst := filepath.Join(t.TempDir(), "b.bin")
	code, _, errOut = gopherCLI(t, "get", "-o", dst, "gopher://127.0.0.71/9/archive/binary/random-1m.bin")
	b, _ := os.ReadFile(dst)
	if code != 0 || sha(b) != itest.Manifest(t)["binary/random-1m.bin"] {
		t.Errorf("-o binary: exit %d stderr %q", code, errOut)
	}

	// parse: the two-step +ASK exchange with one placeholder per answer.
	code, out, _ = gopherCLI(t, "parse", "--json", "--form", "1=a", "--form", "2=b", "gopher://127.0.0.70/0/form.txt%09%09%3F")
	var plan struct {
		Requests []string `json:"requests"`
	}
	if err := json.Unmarshal([]byte(out), &plan); code != 0 || err != nil {
		t.Fatalf("parse: exit %d %v: %s", code, err, out)
	}
	want := []string{"/form.txt\t!+ASK", "/form.txt\t+\t1", "+-1", "<answer 1>", "<answer 2>", "."}
	if strings.Join(plan.Requests, "|") != strings.Join(want, "|") {
		t.Errorf("parse requests %q, want %q", plan.Requests, want)
	}
}
