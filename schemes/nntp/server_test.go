package nntp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// step is one exchange of a scripted NNTP server: it reads a command line
// (none for the greeting) and writes reply as is.
type step struct {
	want  string // the command line expected, without CR LF; "" for the greeting
	reply string
	close bool // close the connection after the reply
	// stall stops answering after the reply: the server only waits for
	// the client to give up and close.
	stall bool
	// startTLS, when set, starts TLS as the server after the reply.
	startTLS *tls.Config
}

// scripted is an NNTP server on 127.0.0.1:0 that plays a script to one
// client and records every line the client sent.
type scripted struct {
	addr string
	done chan result
}

type result struct {
	got []string // every line the client sent, in order
	err error    // a line that did not match the script
}

func serve(t *testing.T, steps ...step) *scripted {
	t.Helper()
	return serveOn(t, nil, steps...)
}

// serveOn is serve with TLS from the first byte when cfg is set (nntps).
func serveOn(t *testing.T, cfg *tls.Config, steps ...step) *scripted {
	t.Helper()
	var ln net.Listener
	var err error
	if cfg != nil {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", cfg)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &scripted{addr: ln.Addr().String(), done: make(chan result, 1)}
	go func() {
		var res result
		defer func() { s.done <- res }()
		c, err := ln.Accept()
		if err != nil {
			res.err = err
			return
		}
		defer func() { c.Close() }()
		br := bufio.NewReader(c)
		for _, st := range steps {
			if st.want != "" {
				line, err := br.ReadString('\n')
				if err != nil {
					res.err = fmt.Errorf("want %q, client sent nothing more: %v", st.want, err)
					return
				}
				line = strings.TrimSuffix(line, "\r\n")
				res.got = append(res.got, line)
				if line != st.want {
					res.err = fmt.Errorf("want %q, client sent %q", st.want, line)
					io.WriteString(c, "500 not in the script\r\n")
					return
				}
			}
			if _, err := io.WriteString(c, st.reply); err != nil {
				res.err = err
				return
			}
			if st.close {
				return
			}
			if st.stall {
				io.Copy(io.Discard, br)
				return
			}
			if st.startTLS != nil {
				tc := tls.Server(c, st.startTLS)
				if err := tc.Handshake(); err != nil {
					// The client's side says why; a test that expects
					// a handshake checks the client's error.
					return
				}
				c, br = tc, bufio.NewReader(tc)
			}
		}
		// Whatever the client sends after the script (QUIT) is recorded
		// until it closes the connection.
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			res.got = append(res.got, strings.TrimSuffix(line, "\r\n"))
		}
	}()
	return s
}

// wait returns what the client sent, failing t if the script went wrong.
func (s *scripted) wait(t *testing.T) []string {
	t.Helper()
	select {
	case res := <-s.done:
		if res.err != nil {
			t.Errorf("scripted server: %v (client sent %q)", res.err, res.got)
		}
		return res.got
	case <-time.After(10 * time.Second):
		t.Fatal("scripted server: the client never closed the connection")
		return nil
	}
}

// lines joins response lines with CR LF, as NNTP writes them.
func lines(ls ...string) string { return strings.Join(ls, "\r\n") + "\r\n" }

// caps is a CAPABILITIES exchange answering with the given capabilities.
func caps(cs ...string) step {
	return step{want: "CAPABILITIES", reply: lines(append(append([]string{"101 Capability list:", "VERSION 2"}, cs...), ".")...)}
}

var greeting = step{reply: "200 scripted server ready, posting allowed\r\n"}

// readerCaps are the capabilities of a reader server such as INN's nnrpd.
var readerCaps = caps("READER", "OVER", "LIST ACTIVE NEWSGROUPS OVERVIEW.FMT", "AUTHINFO USER")

// newsReq is a request for news:… on the scripted server s.
func newsReq(s *scripted, n *schemes.News) *schemes.Request {
	return &schemes.Request{
		URL:      &schemes.URL{Scheme: "news", News: n},
		Settings: &schemes.Settings{Dialer: &dial.Dialer{}, IdleTimeout: 10 * time.Second},
	}
}

// nntpReq is a request for nntp://addr/group[/article].
func nntpReq(t *testing.T, addr, group string, article int64) *schemes.Request {
	t.Helper()
	host, port := splitAddr(t, addr)
	return &schemes.Request{
		URL: &schemes.URL{Scheme: "nntp", Host: host, Port: port,
			NNTP: &schemes.NNTP{Group: group, Article: article}},
		Settings: &schemes.Settings{Dialer: &dial.Dialer{}, IdleTimeout: 10 * time.Second},
	}
}

func splitAddr(t *testing.T, addr string) (string, int) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	var port int
	fmt.Sscan(p, &port)
	return h, port
}

// newsFetcher is a Fetcher whose news server is the scripted server s.
func newsFetcher(s *scripted) *Fetcher { return &Fetcher{Server: s.addr} }

// fetchAll fetches req with f and reads the whole response: the body of a
// file, the entries of a listing. The response is closed before it returns.
func fetchAll(t *testing.T, f *Fetcher, req *schemes.Request) (body string, entries []schemes.Entry, err error) {
	t.Helper()
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Close()
	switch resp.Kind {
	case schemes.KindFile:
		b, err := io.ReadAll(resp.Body)
		return string(b), nil, err
	case schemes.KindListing:
		for {
			e, err := resp.Listing.Next()
			if errors.Is(err, io.EOF) {
				return "", entries, nil
			}
			if err != nil {
				return "", entries, err
			}
			entries = append(entries, e)
		}
	}
	t.Fatalf("unexpected response kind %v", resp.Kind)
	return "", nil, nil
}

func equalLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("client sent\n  %q\nwant\n  %q", got, want)
	}
}
