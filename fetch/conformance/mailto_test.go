package conformance

import (
	"bufio"
	"fmt"
	"net"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/mailto"
)

// mailtoAdapter sends to a scripted SMTP server (RFC 5321): the URL's
// recipient picks what the server does. A send is not a retrieval, so the
// checks of a listing, of a streamed body (gated), of a size limit and of
// fetch.Get (no sender or server without client options) do not apply:
// the response is a short receipt, not an object read from the server.
// The small object is a message the server accepts, the missing one a
// recipient it refuses (550 at RCPT), the stall a server that stops
// answering after RCPT, the cut one that closes after the message text.
func mailtoAdapter() Adapter {
	return Adapter{
		Serve:         serveSMTP,
		Kind:          schemes.KindInfo,
		NoCredentials: true, // a mailto URL carries no login
		URL: func(addr string, o Object) string {
			switch o {
			case Small, Missing, Stall, Cut:
				return "mailto:" + string(o) + "@conformance.invalid?subject=conformance"
			}
			return ""
		},
		Options: func(o *fetch.Options, addr string) {
			o.SetFetcher(&mailto.Fetcher{SMTPServer: addr, From: "sender@conformance.invalid"}, mailto.Schemes()...)
		},
	}
}

func serveSMTP(c net.Conn, env *Env) {
	w := bufio.NewWriter(c)
	say := func(format string, args ...any) {
		fmt.Fprintf(w, format+"\r\n", args...)
		w.Flush()
	}
	say("220 conformance ESMTP")
	r := bufio.NewReader(c)
	var rcpt string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			say("250-conformance\r\n250 8BITMIME")
		case "MAIL":
			say("250 2.1.0 Ok")
		case "RCPT":
			rcpt = strings.TrimSuffix(strings.TrimPrefix(arg, "TO:<"), ">")
			switch rcpt {
			case string(Missing) + "@conformance.invalid":
				say("550 5.1.1 <%s>: Recipient address rejected: User unknown", rcpt)
			case string(Stall) + "@conformance.invalid":
				env.Stall(c)
				return
			default:
				say("250 2.1.5 Ok")
			}
		case "DATA":
			say("354 End data with <CR><LF>.<CR><LF>")
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
			}
			if rcpt == string(Cut)+"@conformance.invalid" {
				return
			}
			say("250 2.0.0 Ok: queued as C0NF0RM")
		case "QUIT":
			say("221 2.0.0 Bye")
			return
		default:
			say("502 5.5.2 Error: command not recognized")
		}
	}
}
