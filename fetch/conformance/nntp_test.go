package conformance

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes/nntp"
)

// The group the scripted news server carries, and its articles by number.
const newsGroup = "conformance.test"

var newsArticles = map[string]Object{"1": Small, "3": Large, "4": Stall, "5": Cut, "6": Gated}

// smallArticle is the Small object as an article on the wire, and
// articleBody what a client reads of it: dot-unstuffed, LF line ends
// (RFC 3977 §3.1.1).
var (
	smallArticle = "Subject: small\r\n\r\n" + string(SmallBody)
	articleBody  = []byte(strings.ReplaceAll(smallArticle, "\r\n", "\n"))
)

// nntpAdapter serves the objects as articles of one group on a scripted
// NNTP server (RFC 3977); with TLS it is the nntps: server (RFC 4642).
func nntpAdapter(nntps bool) Adapter {
	scheme := "nntp"
	if nntps {
		scheme = "nntps"
	}
	numbers := map[Object]string{Missing: "2"}
	for n, o := range newsArticles {
		numbers[o] = n
	}
	return Adapter{
		TLS:            nntps,
		Serve:          serveNNTP,
		SmallBody:      articleBody,
		ListingEntries: 2,
		URL: func(addr string, o Object) string {
			if o == Listing {
				return scheme + "://" + addr + "/" + newsGroup
			}
			return scheme + "://" + addr + "/" + newsGroup + "/" + numbers[o]
		},
	}
}

// newsAdapter serves the same articles by message-id to news: URLs, which
// name no server: the client's NNTP server is the scripted one.
func newsAdapter() Adapter {
	a := nntpAdapter(false)
	a.NoCredentials = true
	a.URL = func(addr string, o Object) string {
		if o == Listing {
			return "news:" + newsGroup
		}
		return "news:" + string(o) + "@conformance.invalid"
	}
	a.Options = func(o *fetch.Options, addr string) {
		o.SetFetcher(&nntp.Fetcher{Server: addr}, nntp.Schemes()...)
	}
	return a
}

func serveNNTP(c net.Conn, env *Env) {
	w := bufio.NewWriter(c)
	say := func(format string, args ...any) {
		fmt.Fprintf(w, format+"\r\n", args...)
		w.Flush()
	}
	say("200 conformance news server ready")
	r := bufio.NewReader(c)
	inGroup := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		switch strings.ToUpper(verb) {
		case "CAPABILITIES":
			say("101 Capability list:\r\nVERSION 2\r\nREADER\r\nOVER\r\nAUTHINFO USER\r\n.")
		case "MODE":
			say("200 posting prohibited")
		case "AUTHINFO":
			if strings.HasPrefix(strings.ToUpper(arg), "USER") {
				say("381 password please")
			} else {
				say("281 welcome")
			}
		case "GROUP":
			if arg != newsGroup {
				say("411 no such group")
				continue
			}
			inGroup = true
			say("211 5 1 6 %s", newsGroup)
		case "OVER", "XOVER":
			if !inGroup {
				say("412 no group selected")
				continue
			}
			say("224 overview follows\r\n"+
				"1\tsmall\tconformance@example.invalid\t2 Jan 2024 03:04:05 +0000\t<small@conformance.invalid>\t\t%d\t3\r\n"+
				"3\tlarge\tconformance@example.invalid\t2 Jan 2024 03:04:06 +0000\t<large@conformance.invalid>\t\t%d\t3\r\n.", len(smallArticle), LargeSize)
		case "LIST":
			say("215 list follows\r\n%s 6 1 y\r\n.", newsGroup)
		case "ARTICLE", "HEAD", "BODY":
			o, ok := articleFor(arg, inGroup)
			if !ok {
				say("430 no such article")
				continue
			}
			say("220 0 <%s@conformance.invalid> article follows", o)
			if !sendArticle(c, w, env, o) {
				return
			}
		case "QUIT":
			say("205 bye")
			return
		default:
			say("500 unknown command")
		}
	}
}

// articleFor finds the object an ARTICLE argument names.
func articleFor(arg string, inGroup bool) (Object, bool) {
	if id, ok := strings.CutPrefix(arg, "<"); ok {
		o := Object(strings.TrimSuffix(id, "@conformance.invalid>"))
		_, known := map[Object]bool{Small: true, Large: true, Stall: true, Cut: true, Gated: true}[o]
		return o, known
	}
	o, ok := newsArticles[arg]
	return o, ok && inGroup
}

// sendArticle writes o's article; it reports whether the session goes on.
func sendArticle(c net.Conn, w *bufio.Writer, env *Env, o Object) bool {
	switch o {
	case Small:
		fmt.Fprintf(w, "%s.\r\n", smallArticle)
	case Large:
		line := append(bytes.Repeat([]byte("0123456789abcdef"), 4), '\r', '\n')
		for n := 0; n < LargeSize; n += len(line) {
			if _, err := w.Write(line); err != nil {
				return false
			}
		}
		w.WriteString(".\r\n")
	case Stall:
		w.Flush()
		env.Stall(c)
		return false
	case Cut:
		w.Write(CutHead)
		w.Flush()
		return false
	case Gated:
		w.Write(GatedHead)
		w.Flush()
		if !env.WaitRelease(c) {
			return false
		}
		fmt.Fprintf(w, "%s\r\n.\r\n", GatedTail)
	}
	return w.Flush() == nil
}
