package gopher

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// scripted is a Gopher server on 127.0.0.1:0 that records each request
// exactly as it came and answers with what reply returns for it. A request
// is one line, or, when its line ends with TAB "1" (Gopher+ DataFlag), that
// line and a data block up to its lone "." line.
type scripted struct {
	ln    net.Listener
	reply func(n int, request string) string
	// hold keeps connections open after the reply (no close), for tests
	// of stalled servers.
	hold bool

	mu       sync.Mutex
	requests []string
	wg       sync.WaitGroup
	done     chan struct{}
}

func newScripted(t testing.TB, reply func(n int, request string) string) *scripted {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &scripted{ln: ln, reply: reply, done: make(chan struct{})}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() {
		close(s.done)
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *scripted) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			req := readRequest(c)
			s.mu.Lock()
			n := len(s.requests)
			s.requests = append(s.requests, req)
			s.mu.Unlock()
			io.WriteString(c, s.reply(n, req))
			if s.hold {
				<-s.done
			}
		}()
	}
}

func readRequest(c net.Conn) string {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	var b strings.Builder
	line, _ := br.ReadString('\n')
	b.WriteString(line)
	if strings.HasSuffix(line, "\t1\r\n") {
		for {
			l, err := br.ReadString('\n')
			b.WriteString(l)
			if err != nil || l == ".\r\n" {
				break
			}
		}
	}
	return b.String()
}

// Requests returns what the server received, one string per connection.
func (s *scripted) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

func (s *scripted) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// url returns a gopher URL on the scripted server with the given view.
func (s *scripted) url(g schemes.Gopher) *schemes.URL {
	return &schemes.URL{Scheme: "gopher", Host: "127.0.0.1", Port: s.port(), Gopher: &g}
}

// parse parses a URL written with "{addr}" for the server's address.
func (s *scripted) parse(t *testing.T, raw string) *schemes.URL {
	t.Helper()
	u, err := schemes.Parse(strings.ReplaceAll(raw, "{addr}", "127.0.0.1:"+strconv.Itoa(s.port())))
	if err != nil {
		t.Fatalf("Parse(%q): %v", raw, err)
	}
	return u
}

func newRequest(u *schemes.URL) *schemes.Request {
	return &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: &dial.Dialer{}, IdleTimeout: 10 * time.Second}}
}

// fetchBody fetches and reads the whole body.
func fetchBody(t *testing.T, req *schemes.Request) (*schemes.Response, string, error) {
	t.Helper()
	resp, err := New().Fetch(context.Background(), req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Close()
	if resp.Kind != schemes.KindFile {
		t.Fatalf("Kind = %v, want KindFile", resp.Kind)
	}
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}
