package gemini

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

var inAnHour = time.Now().Add(time.Hour)

// TestRequestLine: the line sent is the URL in canonical form, without its
// fragment, with "/" for an empty path, ended by CR LF and nothing else.
func TestRequestLine(t *testing.T) {
	s := newServer(t, newCert(t, "gemini", inAnHour), reply("20 text/plain\r\nok"))
	base := "gemini://" + s.addr
	for _, tt := range []struct{ url, line string }{
		{base + "/path?q", base + "/path?q\r\n"},
		{base + "/path?q#frag", base + "/path?q\r\n"},
		{base, base + "/\r\n"},
		{base + "?q", base + "/?q\r\n"},
		{base + "/a%20b/c.gmi", base + "/a%20b/c.gmi\r\n"},
	} {
		resp, body, err := get(t, New(), request(t, tt.url, nil))
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		if string(body) != "ok" || resp.Kind != schemes.KindFile {
			t.Errorf("%s: kind %d body %q", tt.url, resp.Kind, body)
		}
		if ex := s.next(t); ex.Line != tt.line {
			t.Errorf("%s: the server read %q, want %q", tt.url, ex.Line, tt.line)
		}
	}
}

// TestSuccess: the body is exactly the bytes after the status line, binary
// included, and META is the media type (text/gemini when empty).
func TestSuccess(t *testing.T) {
	var binary []byte
	for i := 0; i < 256; i++ {
		binary = append(binary, byte(i))
	}
	binary = append(binary, "\r\n.\r\n\x00\n"...)
	for _, tt := range []struct {
		name, status string
		body         []byte
		media, typ   string
	}{
		{"binary", "20 application/octet-stream\r\n", binary, "application/octet-stream", schemes.TypeBinary},
		{"image", "20 image/png\r\n", binary[:64], "image/png", schemes.TypeImage},
		{"empty META", "20\r\n", []byte("# Title\r\n=> /x\r\n"), "text/gemini; charset=utf-8", schemes.TypeText},
		{"blank META", "20 \r\n", []byte("text"), "text/gemini; charset=utf-8", schemes.TypeText},
		{"gemtext with lang", "20 text/gemini; lang=en\r\n", []byte("# Hi\n"), "text/gemini; lang=en", schemes.TypeText},
		{"status line ended by LF alone", "21 text/plain\n", []byte("plain"), "text/plain", schemes.TypeText},
		{"empty body", "20 text/plain\r\n", nil, "text/plain", schemes.TypeText},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, newCert(t, "gemini", inAnHour), reply(tt.status+string(tt.body)))
			resp, body, err := get(t, New(), request(t, s.URL("/file.bin"), nil))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, tt.body) {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			if resp.Kind != schemes.KindFile || resp.MediaType != tt.media || resp.Type != tt.typ {
				t.Errorf("kind %d media %q type %q, want a file of %q, %q", resp.Kind, resp.MediaType, resp.Type, tt.media, tt.typ)
			}
			if resp.Name != "file.bin" {
				t.Errorf("name %q", resp.Name)
			}
			if IsGemtext(resp.MediaType) != strings.HasPrefix(tt.media, "text/gemini") {
				t.Errorf("IsGemtext(%q) = %v", resp.MediaType, IsGemtext(resp.MediaType))
			}
		})
	}
}

// TestRequestTooLong: a request line of more than 1024 bytes is refused
// before anything is dialled; one of exactly 1024 is sent.
func TestRequestTooLong(t *testing.T) {
	s := newServer(t, newCert(t, "gemini", inAnHour), reply("20 text/plain\r\nok"))
	base := s.URL("/")
	pad := MaxRequest - len(base)

	d := &countingDialer{}
	req := request(t, base+strings.Repeat("a", pad+1), nil)
	req.Dialer = d
	if _, err := New().Fetch(context.Background(), req); !errors.Is(err, schemes.ErrUsage) {
		t.Fatalf("a request line of %d bytes: %v; want the usage kind", MaxRequest+1, err)
	}
	if _, err := New().Plan(req); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("Plan of a request line of %d bytes: %v; want the usage kind", MaxRequest+1, err)
	}
	if n := d.n.Load(); n != 0 {
		t.Fatalf("%d dial(s) for a request that is too long", n)
	}

	req = request(t, base+strings.Repeat("a", pad), nil)
	req.Dialer = d
	if _, _, err := get(t, New(), req); err != nil {
		t.Fatalf("a request line of exactly %d bytes: %v", MaxRequest, err)
	}
	ex := s.next(t)
	if len(ex.Line) != MaxRequest+2 {
		t.Errorf("the server read %d bytes, want %d", len(ex.Line), MaxRequest+2)
	}
	s.Close()
	if n := s.accepts.Load(); n != 1 {
		t.Errorf("the server accepted %d connections, want the one of the request that fits", n)
	}
}

// TestUserRefused: a gemini URL has no login.
func TestUserRefused(t *testing.T) {
	d := &countingDialer{}
	req := request(t, "gemini://me:pw@127.0.0.1:1/", nil)
	req.Dialer = d
	if _, err := New().Fetch(context.Background(), req); !errors.Is(err, schemes.ErrUsage) {
		t.Fatalf("%v; want the usage kind", err)
	}
	if d.n.Load() != 0 {
		t.Fatal("dialled for a URL with a login")
	}
}

// TestPlan: the plan is the request line, and nothing is dialled.
func TestPlan(t *testing.T) {
	d := &countingDialer{}
	req := request(t, "gemini://127.0.0.1#top", nil)
	req.Dialer = d
	p, err := New().Plan(req)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Requests) != 1 || p.Requests[0] != "gemini://127.0.0.1/" {
		t.Errorf("plan %q", p.Requests)
	}
	for raw, line := range map[string]string{
		"GEMINI://127.0.0.1:1965/A?B": "gemini://127.0.0.1:1965/A?B",
		"gemini://[::1]/x y":          "gemini://[::1]/x%20y",
		"gemini://127.0.0.1?":         "gemini://127.0.0.1/?",
	} {
		q := request(t, raw, nil)
		q.Dialer = d
		if p, err := New().Plan(q); err != nil || p.Requests[0] != line {
			t.Errorf("plan of %s: %v, %v; want %q", raw, p, err, line)
		}
	}
	if !strings.Contains(p.Notes["trust"], "first use") {
		t.Errorf("trust note %q", p.Notes["trust"])
	}
	if p, _ := (&Fetcher{Trust: TrustCA}).Plan(req); !strings.Contains(p.Notes["trust"], "authorities") {
		t.Errorf("trust note with CA: %q", p.Notes["trust"])
	}
	if d.n.Load() != 0 {
		t.Fatal("Plan dialled")
	}
}

// inputServer asks for input (status) until the URL has a query, then
// answers with the query it got.
func inputServer(t *testing.T, status string) *gemServer {
	return newServer(t, newCert(t, "gemini", inAnHour), func(c net.Conn, line string) {
		_, q, ok := strings.Cut(strings.TrimSuffix(line, "\r\n"), "?")
		if !ok {
			io.WriteString(c, status+"\r\n")
			return
		}
		io.WriteString(c, "20 text/plain\r\n"+q)
	})
}

// TestInput: status 10 and 11 are answered by a second request whose query
// is the answer, percent-encoded (a space as %20); 11 is asked without
// echo.
func TestInput(t *testing.T) {
	t.Run("query", func(t *testing.T) {
		s := inputServer(t, "10 Search for what?")
		req := request(t, s.URL("/search"), nil)
		req.Query, req.HasQuery = "a b&c/ü", true
		_, body, err := get(t, New(), req)
		if err != nil {
			t.Fatal(err)
		}
		first, second := s.next(t), s.next(t)
		if first.Line != s.URL("/search\r\n") {
			t.Errorf("first request %q", first.Line)
		}
		want := "a%20b%26c%2F%C3%BC"
		if second.Line != s.URL("/search?"+want+"\r\n") || string(body) != want {
			t.Errorf("second request %q, body %q; want the query %s", second.Line, body, want)
		}
	})
	t.Run("form", func(t *testing.T) {
		s := inputServer(t, "10 Name")
		req := request(t, s.URL("/"), nil)
		req.Form = []string{"1=x y"}
		if _, body, err := get(t, New(), req); err != nil || string(body) != "x%20y" {
			t.Fatalf("%q, %v", body, err)
		}
	})
	for _, tt := range []struct {
		status string
		secret bool
	}{{"10 Your name", false}, {"11 Password", true}} {
		t.Run("prompt "+tt.status, func(t *testing.T) {
			s := inputServer(t, tt.status)
			req := request(t, s.URL("/login"), nil)
			var asked []string
			var secret []bool
			req.Prompt = func(q string, sec bool) (string, error) {
				asked, secret = append(asked, q), append(secret, sec)
				return "pw d", nil
			}
			_, body, err := get(t, New(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(asked) != 1 || !strings.Contains(asked[0], tt.status[3:]) || secret[0] != tt.secret {
				t.Errorf("asked %q secret %v; want one question with %q, secret %v", asked, secret, tt.status[3:], tt.secret)
			}
			if string(body) != "pw%20d" {
				t.Errorf("answer sent as %q", body)
			}
		})
	}
	t.Run("no answer", func(t *testing.T) {
		s := inputServer(t, "10 Search")
		_, _, err := get(t, New(), request(t, s.URL("/search"), nil))
		if !errors.Is(err, schemes.ErrUsage) || !strings.Contains(err.Error(), "Search") {
			t.Fatalf("%v; want the usage kind naming the prompt", err)
		}
		s.next(t)
		s.Close()
		if n := s.accepts.Load(); n != 1 {
			t.Errorf("%d connections, want 1", n)
		}
	})
	t.Run("prompt fails", func(t *testing.T) {
		s := inputServer(t, "10 Search")
		req := request(t, s.URL("/search"), nil)
		stop := errors.New("no terminal")
		req.Prompt = func(string, bool) (string, error) { return "", stop }
		if _, _, err := get(t, New(), req); !errors.Is(err, stop) {
			t.Fatalf("%v; want the prompt's error", err)
		}
	})
	t.Run("asked again", func(t *testing.T) {
		s := newServer(t, newCert(t, "gemini", inAnHour), reply("10 Again\r\n"))
		req := request(t, s.URL("/"), nil)
		req.Query, req.HasQuery = "x", true
		_, _, err := get(t, New(), req)
		if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "Again") {
			t.Fatalf("%v; want the refused kind", err)
		}
		s.next(t)
		s.next(t)
		s.Close()
		if n := s.accepts.Load(); n != 2 {
			t.Errorf("%d connections, want 2", n)
		}
	})
	t.Run("checked", func(t *testing.T) {
		s := inputServer(t, "10 Search")
		req := request(t, s.URL("/"), nil)
		req.Query, req.HasQuery = "x", true
		refuse := errors.New("refused by the guard")
		var checked []string
		req.CheckURL = func(u *schemes.URL) error {
			checked = append(checked, u.String())
			return refuse
		}
		if _, _, err := get(t, New(), req); !errors.Is(err, refuse) {
			t.Fatalf("%v; want the guard's refusal of the second request", err)
		}
		if len(checked) != 1 || checked[0] != s.URL("/?x") {
			t.Errorf("checked %q", checked)
		}
	})
}

// TestStatuses: each status class becomes its response or error kind.
func TestStatuses(t *testing.T) {
	for _, tt := range []struct {
		status    string
		kind      error
		transient bool
	}{
		{"40 Busy", schemes.ErrRefused, false},
		{"41 Server unavailable", schemes.ErrRefused, true},
		{"42 CGI error", schemes.ErrRefused, false},
		{"43 Proxy error", schemes.ErrRefused, false},
		{"44 Slow down", schemes.ErrRefused, true},
		{"50 Permanent failure", schemes.ErrRefused, false},
		{"51 Not found: /nothing here", schemes.ErrRefused, false},
		{"52 Gone", schemes.ErrRefused, false},
		{"53 Proxy request refused", schemes.ErrRefused, false},
		{"59 Bad request", schemes.ErrRefused, false},
		{"60 Certificate required", schemes.ErrAuth, false},
		{"61 Certificate not authorised", schemes.ErrAuth, false},
		{"62 Certificate not valid", schemes.ErrAuth, false},
		{"70 x", schemes.ErrRefused, false},
		{"00 x", schemes.ErrRefused, false},
		{"99 x", schemes.ErrRefused, false},
	} {
		t.Run(tt.status, func(t *testing.T) {
			s := newServer(t, newCert(t, "gemini", inAnHour), reply(tt.status+"\r\nthe body of a failure"))
			_, _, err := get(t, New(), request(t, s.URL("/x"), nil))
			if !errors.Is(err, tt.kind) {
				t.Fatalf("%v; want %v", err, tt.kind)
			}
			for _, k := range schemes.Kinds {
				if k != tt.kind && errors.Is(err, k) {
					t.Errorf("%v also matches %v", err, k)
				}
			}
			if got := schemes.Transient(err); got != tt.transient {
				t.Errorf("Transient = %v, want %v", got, tt.transient)
			}
			if !strings.Contains(err.Error(), tt.status[3:]) {
				t.Errorf("%q does not carry the server's text %q", err, tt.status[3:])
			}
			if strings.Contains(err.Error(), "the body") {
				t.Errorf("%q holds the body of a failure", err)
			}
		})
	}
}

// TestRedirectResponse: 30 and 31 are KindRedirect responses with the
// location as sent.
func TestRedirectResponse(t *testing.T) {
	for _, status := range []string{"30", "31"} {
		s := newServer(t, newCert(t, "gemini", inAnHour), reply(status+" /new/place?x\r\n"))
		resp, err := New().Fetch(context.Background(), request(t, s.URL("/old"), nil))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Kind != schemes.KindRedirect || resp.Location != "/new/place?x" || !strings.HasPrefix(resp.Status, status) {
			t.Errorf("%s: kind %d location %q status %q", status, resp.Kind, resp.Location, resp.Status)
		}
		if resp.Body != nil {
			resp.Body.Close()
		}
	}
}

// TestMalformed: a server that breaks the protocol gives a clear error of
// the right kind.
func TestMalformed(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
		kind         error
		says         string
	}{
		{"status line too long", "20 " + strings.Repeat("x", 2000) + "\r\n", schemes.ErrRefused, "longer than"},
		{"META too long", "20 " + strings.Repeat("x", MaxRequest+1) + "\r\n", schemes.ErrRefused, "META longer"},
		{"META not UTF-8", "20 text/plain; charset=\xff\xfe\r\nbody", schemes.ErrRefused, "not UTF-8"},
		{"body without a status", "hello\r\n", schemes.ErrRefused, "no status"},
		{"one digit", "2\r\n", schemes.ErrRefused, "no status"},
		{"no space", "20text/plain\r\n", schemes.ErrRefused, "malformed"},
		{"tab for space", "20\ttext/plain\r\n", schemes.ErrRefused, "malformed"},
		{"three digits", "200 OK\r\n", schemes.ErrRefused, "malformed"},
		{"nothing", "", schemes.ErrRefused, "without a status line"},
		{"status line without its end", "20 text/plain", schemes.ErrRefused, "without its end"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, newCert(t, "gemini", inAnHour), reply(tt.answer))
			_, _, err := get(t, New(), request(t, s.URL("/"), nil))
			if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("%v; want %v saying %q", err, tt.kind, tt.says)
			}
			if !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("%q does not name the server", err)
			}
		})
	}
	t.Run("META of exactly the limit", func(t *testing.T) {
		meta := "text/plain; x=" + strings.Repeat("y", MaxRequest-len("text/plain; x="))
		s := newServer(t, newCert(t, "gemini", inAnHour), reply("20 "+meta+"\r\nok"))
		resp, body, err := get(t, New(), request(t, s.URL("/"), nil))
		if err != nil || string(body) != "ok" || resp.MediaType != meta {
			t.Fatalf("%q, %v", body, err)
		}
	})
	t.Run("not TLS", func(t *testing.T) {
		s := newServer(t, newCert(t, "gemini", inAnHour), reply("20 text/plain\r\nhello"), plainText)
		// The plain server answers whatever arrives first: the handshake.
		_, _, err := get(t, New(), request(t, s.URL("/"), nil))
		if !errors.Is(err, schemes.ErrConnect) {
			t.Fatalf("%v; want the connect kind", err)
		}
	})
	t.Run("silent plain server", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "220 an FTP server, not Gemini\r\n")
			c.Close()
		}()
		_, _, err = get(t, New(), request(t, "gemini://"+ln.Addr().String()+"/", nil))
		if !errors.Is(err, schemes.ErrConnect) {
			t.Fatalf("%v; want the connect kind", err)
		}
	})
}

// TestTranscript: -v shows the request line and the status line.
func TestTranscript(t *testing.T) {
	s := newServer(t, newCert(t, "gemini", inAnHour), reply("20 text/plain\r\nbody"))
	req := request(t, s.URL("/t"), nil)
	var tr bytes.Buffer
	req.Transcript = &tr
	if _, _, err := get(t, New(), req); err != nil {
		t.Fatal(err)
	}
	want := "> " + s.URL("/t") + "\n< 20 text/plain\n"
	if tr.String() != want {
		t.Errorf("transcript %q, want %q", tr.String(), want)
	}
}

// TestCancel: a cancelled context ends a fetch waiting on a server that
// has the request and says nothing.
func TestCancel(t *testing.T) {
	release := make(chan struct{})
	asked := make(chan struct{}, 1)
	s := newServer(t, newCert(t, "gemini", inAnHour), func(c net.Conn, _ string) {
		asked <- struct{}{}
		<-release
	})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := New().Fetch(ctx, request(t, s.URL("/"), nil))
		done <- err
	}()
	select {
	case <-asked:
	case err := <-done:
		t.Fatalf("the fetch ended before the server had the request: %v", err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, schemes.ErrInterrupted) {
			t.Fatalf("%v; want the interrupted kind", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end the fetch")
	}
}
