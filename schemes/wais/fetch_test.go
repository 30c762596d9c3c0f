package wais

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/wais/waistest"
	"github.com/goferurl/gofer/security"
)

// startServer runs the scripted WAIS server with the database "test" on a
// loopback port; requests counts the requests it answered.
func startServer(t *testing.T) (addr string, srv *waistest.Server, requests func() int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv = waistest.NewTestServer("waisd.gofer.test:210")
	var mu sync.Mutex
	n := 0
	srv.Log = func(string) { mu.Lock(); n++; mu.Unlock() }
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return l.Addr().String(), srv, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

func request(t *testing.T, raw string) *schemes.Request {
	t.Helper()
	u, err := schemes.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: &net.Dialer{}}}
}

func fetch(t *testing.T, req *schemes.Request) (*schemes.Response, error) {
	t.Helper()
	resp, err := New().Fetch(context.Background(), req)
	if (resp == nil) == (err == nil) {
		t.Fatalf("response %v and error %v", resp, err)
	}
	return resp, err
}

func entries(t *testing.T, resp *schemes.Response) []schemes.Entry {
	t.Helper()
	defer resp.Close()
	if resp.Kind != schemes.KindListing {
		t.Fatalf("kind %d, want a listing", resp.Kind)
	}
	var es []schemes.Entry
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			return es
		}
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
}

func readAll(t *testing.T, req *schemes.Request) (*schemes.Response, []byte) {
	t.Helper()
	resp, err := fetch(t, req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	return resp, b
}

// TestSearchSeveralHits: a search lists every matching document, best
// first, and each entry's URL retrieves exactly that document.
func TestSearchSeveralHits(t *testing.T) {
	addr, srv, _ := startServer(t)
	es := entries(t, must(fetch(t, request(t, "wais://"+addr+"/test?fox"))))
	if len(es) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(es), es)
	}
	docs := waistest.TestDocuments()
	for i, want := range []struct {
		doc   int
		score int64
	}{{0, 1000}, {1, 666}} {
		e, d := es[i], docs[want.doc]
		if e.WAIS == nil || e.Name != d.Name+" /srv/wais/test/" || e.WAIS.Score != want.score || e.Size != int64(len(d.Text)) ||
			e.Type != schemes.TypeText || e.WAIS.Type != "TEXT" || e.WAIS.Lines != 2 {
			t.Errorf("entry %d: %+v", i, e)
		}
		if !strings.HasPrefix(e.URL, "wais://"+addr+"/test/TEXT/1=waisd.gofer.test%3A210;2=%2Fsrv%2Fwais%2Ftest%2Ftest;3=0%20") {
			t.Errorf("entry %d URL %s", i, e.URL)
		}
		_, body := readAll(t, request(t, e.URL))
		if !bytes.Equal(body, d.Text) {
			t.Errorf("entry %d retrieves %q, want %q", i, body, d.Text)
		}
	}
	_ = srv
}

// TestRetrieveMultiRange: a document longer than one range comes back whole
// and byte for byte, range after range on one connection; a resume starts
// the ranges at the offset.
func TestRetrieveMultiRange(t *testing.T) {
	addr, srv, requests := startServer(t)
	long := waistest.TestDocuments()[3].Text
	if len(long) <= 3*RangeSize {
		t.Fatalf("long.txt has %d bytes, want more than three ranges", len(long))
	}
	wpath, err := DocID(srv.DocID(3)).WPath()
	if err != nil {
		t.Fatal(err)
	}
	u := "wais://" + addr + "/test/TEXT/" + wpath
	before := requests()
	resp, body := readAll(t, request(t, u))
	if !bytes.Equal(body, long) {
		t.Fatalf("got %d bytes, want the %d of long.txt", len(body), len(long))
	}
	wantRanges := (len(long) + RangeSize - 1) / RangeSize
	if n := requests() - before; n != wantRanges {
		t.Errorf("%d requests, want %d ranges", n, wantRanges)
	}
	if resp.Size != -1 || resp.Type != schemes.TypeText || resp.MediaType != "text/plain" {
		t.Errorf("size %d, type %q %q", resp.Size, resp.Type, resp.MediaType)
	}

	req := request(t, u)
	req.Offset = 15000
	resp, body = readAll(t, req)
	if resp.Offset != 15000 || !bytes.Equal(body, long[15000:]) {
		t.Errorf("resume at 15000: offset %d, %d bytes, want %d", resp.Offset, len(body), len(long)-15000)
	}
	// The W3C clients' form, with the length before the id: the size is known.
	resp, body = readAll(t, request(t, "wais://"+addr+"/test/TEXT/"+strconv.Itoa(len(long))+"/"+wpath))
	if resp.Size != int64(len(long)) || !bytes.Equal(body, long) {
		t.Errorf("W3C form: size %d, %d bytes", resp.Size, len(body))
	}
	// A short document: one range, and its size is known at once.
	wpath, _ = DocID(srv.DocID(0)).WPath()
	resp, body = readAll(t, request(t, "wais://"+addr+"/test/TEXT/"+wpath))
	if resp.Size != int64(len(body)) || !bytes.Equal(body, waistest.TestDocuments()[0].Text) {
		t.Errorf("fox.txt: size %d, %q", resp.Size, body)
	}
}

func TestRetrieveMaxBytes(t *testing.T) {
	addr, srv, _ := startServer(t)
	wpath, _ := DocID(srv.DocID(3)).WPath()
	req := request(t, "wais://"+addr+"/test/TEXT/"+wpath)
	req.MaxBytes = 12345
	resp, err := fetch(t, req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, schemes.ErrTooLarge) || len(b) != 12345 {
		t.Fatalf("%d bytes, %v; want 12345 and ErrTooLarge", len(b), err)
	}
}

func TestUnknownDatabase(t *testing.T) {
	addr, _, _ := startServer(t)
	_, err := fetch(t, request(t, "wais://"+addr+"/nosuch?fox"))
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "The following database is not available: nosuch") {
		t.Fatalf("%v", err)
	}
}

func TestUnknownDocument(t *testing.T) {
	addr, _, _ := startServer(t)
	_, err := fetch(t, request(t, "wais://"+addr+"/test/TEXT/3=nothing;"))
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "Document not found") {
		t.Fatalf("%v", err)
	}
}

// TestNoHits: the server answers with the catalogue record, which gofer
// lists and whose URL retrieves the catalogue.
func TestNoHits(t *testing.T) {
	addr, srv, _ := startServer(t)
	es := entries(t, must(fetch(t, request(t, "wais://"+addr+"/test?unicorn"))))
	if len(es) != 1 || !strings.Contains(es[0].Name, "Search produced no result") || es[0].WAIS == nil || es[0].WAIS.Score != 0 {
		t.Fatalf("%+v", es)
	}
	_, body := readAll(t, request(t, es[0].URL))
	if !bytes.Equal(body, srv.Catalogue()) {
		t.Fatalf("catalogue %q", body)
	}
}

// TestDescribeDatabase: the database URL lists what the server answers a
// search with no words: the catalogue.
func TestDescribeDatabase(t *testing.T) {
	addr, _, _ := startServer(t)
	es := entries(t, must(fetch(t, request(t, "wais://"+addr+"/test"))))
	if len(es) != 1 || !strings.Contains(es[0].Name, "Catalog for database: test") {
		t.Fatalf("%+v", es)
	}
}

func TestQuery(t *testing.T) {
	addr, _, _ := startServer(t)
	// --query replaces the URL's words.
	req := request(t, "wais://"+addr+"/test?unicorn")
	req.Query, req.HasQuery = "hounds", true
	es := entries(t, must(fetch(t, req)))
	if len(es) != 1 || !strings.HasPrefix(es[0].Name, "hounds.txt") {
		t.Fatalf("--query hounds: %+v", es)
	}
	// --query turns a database URL into a search.
	req = request(t, "wais://"+addr+"/test")
	req.Query, req.HasQuery = "garden", true
	if es := entries(t, must(fetch(t, req))); len(es) != 1 || !strings.HasPrefix(es[0].Name, "garden.txt") {
		t.Fatalf("--query garden: %+v", es)
	}
	// No words, no terminal: a usage error, nothing dialled.
	req = request(t, "wais://"+addr+"/test?")
	req.Dialer = dialerFunc(func(context.Context, string, string) (net.Conn, error) {
		t.Error("dialled without words")
		return nil, errors.New("no")
	})
	if _, err := fetch(t, req); !errors.Is(err, schemes.ErrUsage) {
		t.Fatalf("no words: %v", err)
	}
	// --query words pass the guard's check too.
	req = request(t, "wais://"+addr+"/test")
	req.Query, req.HasQuery = "fox\x00", true
	req.Dialer = dialerFunc(func(context.Context, string, string) (net.Conn, error) {
		t.Error("dialled with a NUL in the words")
		return nil, errors.New("no")
	})
	if _, err := fetch(t, req); !errors.Is(err, security.ErrInjection) {
		t.Fatalf("NUL in --query: %v", err)
	}
	// A terminal: the prompt supplies them.
	req = request(t, "wais://"+addr+"/test?")
	req.Prompt = func(string, bool) (string, error) { return "fox", nil }
	if es := entries(t, must(fetch(t, req))); len(es) != 2 {
		t.Fatalf("prompted fox: %+v", es)
	}
}

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		url, query string
		want       string
	}{
		{"wais://h/test?fox", "", `SearchRequest database="test" query-type=3 seed-words="fox" date-factor=1 max-documents=40`},
		{"wais://h/test?", "", `SearchRequest database="test" query-type=3 seed-words="<query>" date-factor=1 max-documents=40`},
		{"wais://h/test?a+b", "", `SearchRequest database="test" query-type=3 seed-words="a b" date-factor=1 max-documents=40`},
		{"wais://h/test?c%2B%2B+go", "", `SearchRequest database="test" query-type=3 seed-words="c++ go" date-factor=1 max-documents=40`},
		{"wais://h/test", "dog", `SearchRequest database="test" query-type=3 seed-words="dog" date-factor=1 max-documents=40`},
		{"wais://h/test", "", `SearchRequest database="test" query-type=3 seed-words="" date-factor=1 max-documents=40`},
		{"wais://h/test/TEXT/1=h%3A210;7=%00;", "",
			`SearchRequest database="test" query-type=1 element-set="Document Text" docid=1=h%3A210;7=%00; type="TEXT" bytes=0-10000`},
	} {
		req := request(t, tc.url)
		if tc.query != "" {
			req.Query, req.HasQuery = tc.query, true
		}
		p, err := New().Plan(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if len(p.Requests) != 1 || p.Requests[0] != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.url, p.Requests, tc.want)
		}
	}
	if _, err := New().Plan(request(t, "wais://h/test/TEXT/nofield")); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("malformed wpath: %v", err)
	}
}

// TestWPathRoundTrip: a field holding ';', '=', '/' and NUL survives the
// trip into a URL and back.
func TestWPathRoundTrip(t *testing.T) {
	id := DocID(appendAny(appendAny(appendAny(nil, 1, []byte("h:210")), 3, []byte("0 9 /a;b=c/d e")), 7, []byte{0}))
	wpath, err := id.WPath()
	if err != nil {
		t.Fatal(err)
	}
	if wpath != "1=h%3A210;3=0%209%20%2Fa%3Bb%3Dc%2Fd%20e;7=%00;" {
		t.Fatalf("wpath %s", wpath)
	}
	u, err := schemes.Parse("wais://h/db/TEXT/" + wpath)
	if err != nil {
		t.Fatal(err)
	}
	if s := u.String(); s != "wais://h/db/TEXT/"+wpath {
		t.Errorf("String %s", s)
	}
	tg, err := newTarget(u)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tg.id, id) {
		t.Errorf("id %q, want %q", tg.id, id)
	}
}

type dialerFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (f dialerFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

func must(resp *schemes.Response, err error) *schemes.Response {
	if err != nil {
		panic(err)
	}
	return resp
}

// serveScript runs answer for every request on every connection of a
// loopback listener.
func serveScript(t *testing.T, answer func(c net.Conn, q *waistest.Request) bool) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				for {
					q, err := waistest.ReadRequest(c)
					if err != nil || !answer(c, q) {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// TestRangePastEndDiagnostic: a document of exactly two ranges, whose
// server answers the third range with a diagnostic, comes back whole; a
// diagnostic for the first range is the server's refusal.
func TestRangePastEndDiagnostic(t *testing.T) {
	doc := bytes.Repeat([]byte("0123456789"), 2*RangeSize/10)
	addr := serveScript(t, func(c net.Conn, q *waistest.Request) bool {
		if q.Start >= int64(len(doc)) || string(q.DocID) != "\x03\x01d" {
			c.Write(waistest.DiagnosticAnswer("S1", "no such range", q.ReferenceID))
			return true
		}
		c.Write(waistest.TextAnswer(q.DocID, doc[q.Start:min(q.End, int64(len(doc)))], q.ReferenceID))
		return true
	})
	_, body := readAll(t, request(t, "wais://"+addr+"/test/TEXT/3=d;"))
	if !bytes.Equal(body, doc) {
		t.Fatalf("%d bytes, want %d", len(body), len(doc))
	}
	_, err := fetch(t, request(t, "wais://"+addr+"/test/TEXT/3=other;"))
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "no such range") {
		t.Fatalf("%v", err)
	}
}

// TestCutMidRange: an answer that stops inside its text is an interrupted
// transfer after the bytes that came.
func TestCutMidRange(t *testing.T) {
	doc := bytes.Repeat([]byte("x"), 3*RangeSize)
	addr := serveScript(t, func(c net.Conn, q *waistest.Request) bool {
		msg := waistest.TextAnswer(q.DocID, doc[q.Start:min(q.End, int64(len(doc)))], q.ReferenceID)
		if q.Start > 0 {
			c.Write(msg[:len(msg)-RangeSize/2])
			return false
		}
		c.Write(msg)
		return true
	})
	resp, err := fetch(t, request(t, "wais://"+addr+"/test/TEXT/3=d;"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, schemes.ErrInterrupted) || len(b) != RangeSize+RangeSize/2 {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
}

// TestStalledServer: a server that reads the request and never answers
// ends the fetch with ErrTimeout after the idle timeout; cancelling the
// context ends it with ErrInterrupted.
func TestStalledServer(t *testing.T) {
	addr := serveScript(t, func(net.Conn, *waistest.Request) bool { return true })
	req := request(t, "wais://"+addr+"/test?fox")
	req.IdleTimeout = 200 * time.Millisecond
	if _, err := fetch(t, req); !errors.Is(err, schemes.ErrTimeout) {
		t.Fatalf("stalled: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dialed := make(chan struct{})
	req = request(t, "wais://"+addr+"/test?fox")
	go func() {
		// Cancel once the request is on its way: the dial is done when
		// the dialer returns.
		<-dialed
		cancel()
	}()
	req.Dialer = dialerFunc(func(ctx context.Context, network, a string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, a)
		close(dialed)
		return c, err
	})
	resp, err := New().Fetch(ctx, req)
	if resp != nil || !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("cancelled: %v", err)
	}
}

// TestJunkBeforeHeader: bytes before the answer's header are skipped, as
// the reference client skips them; too many are a refusal.
func TestJunkBeforeHeader(t *testing.T) {
	for _, tc := range []struct {
		junk string
		ok   bool
	}{{"\r\n", true}, {strings.Repeat("x", maxJunk+1), false}} {
		addr := serveScript(t, func(c net.Conn, q *waistest.Request) bool {
			c.Write(append([]byte(tc.junk), waistest.TextAnswer(q.DocID, []byte("text"), nil)...))
			return true
		})
		resp, err := fetch(t, request(t, "wais://"+addr+"/test/TEXT/3=d;"))
		if tc.ok {
			if err != nil {
				t.Fatalf("%q: %v", tc.junk, err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Close()
			if err != nil || string(b) != "text" {
				t.Fatalf("%q: %q, %v", tc.junk, b, err)
			}
		} else if !errors.Is(err, schemes.ErrRefused) {
			t.Fatalf("%d junk bytes: %v", len(tc.junk), err)
		}
	}
}
