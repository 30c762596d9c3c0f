package nntp

import (
	"context"
	"crypto/tls"
	"net"
	"strings"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// maxCapabilities bounds the CAPABILITIES list a server may send.
const maxCapabilities = 256

// login is where AUTHINFO credentials come from. get is called at most
// once, when they are first needed.
type login struct {
	upfront bool // credentials were given: log in before the first reader command
	get     func() (user, password string, err error)
}

// setup runs the session up to the point where reader commands can be
// sent: greeting, capabilities, reader mode, TLS (STARTTLS when
// requireTLS), login.
func (c *conn) setup(ctx context.Context, req *schemes.Request, host string, requireTLS bool, lg *login) error {
	code, text, err := c.readStatus("greeting")
	if err != nil {
		return err
	}
	switch code {
	case codePostingAllowed, codeNoPosting:
	default:
		// 400 and 502 greetings are decided before any command, so no
		// credentials could change them: the server refused.
		return schemes.Errorf(schemes.ErrRefused, "news server %s refused the connection: %d %s", c.server, code, lineproto.ServerText(text))
	}
	if err := c.capabilities(); err != nil {
		return err
	}
	if err := c.modeReader(); err != nil {
		return err
	}
	if requireTLS {
		if err := c.startTLS(ctx, req, host); err != nil {
			return err
		}
	}
	if lg != nil && lg.upfront {
		if err := c.authenticate(lg); err != nil {
			return err
		}
	}
	return nil
}

// capabilities asks for CAPABILITIES (RFC 3977 §5.2). A server that does
// not know the command predates RFC 3977; capsKnown stays false and each
// later choice falls back to what such servers understand.
func (c *conn) capabilities() error {
	cmd := command{verb: "CAPABILITIES"}
	code, _, err := c.cmd(cmd)
	if err != nil {
		return err
	}
	if code != codeCapabilities {
		c.caps, c.capsKnown = nil, false
		return nil
	}
	caps := make(map[string][]string)
	for n := 0; ; n++ {
		line, done, err := c.readBodyLine("the capability list")
		if err != nil {
			return err
		}
		if done {
			break
		}
		if n >= maxCapabilities {
			return schemes.Errorf(schemes.ErrTooLarge, "news server %s sent more than %d capabilities", c.server, maxCapabilities)
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		args := f[1:]
		for i := range args {
			args[i] = strings.ToUpper(args[i])
		}
		caps[strings.ToUpper(f[0])] = args
	}
	c.caps, c.capsKnown = caps, true
	return nil
}

func (c *conn) has(capability string) bool {
	_, ok := c.caps[capability]
	return ok
}

// hasArg reports whether capability lists arg (e.g. LIST ... NEWSGROUPS).
func (c *conn) hasArg(capability, arg string) bool {
	for _, a := range c.caps[capability] {
		if a == arg {
			return true
		}
	}
	return false
}

// modeReader switches a mode-switching server to reader mode (RFC 3977
// §5.3): one that lists MODE-READER rather than READER. A server without
// CAPABILITIES gets MODE READER as well, as newsreaders have always sent
// it: an RFC 977 server that does not know it says so and stays usable.
func (c *conn) modeReader() error {
	if c.capsKnown && (c.has("READER") || !c.has("MODE-READER")) {
		return nil
	}
	cmd := command{verb: "MODE READER"}
	code, text, err := c.cmd(cmd)
	if err != nil {
		return err
	}
	switch {
	case code == codePostingAllowed || code == codeNoPosting:
	case !c.capsKnown && (code == codeUnknownCommand || code == codeSyntaxError):
		return nil
	default:
		return c.refusal(cmd, code, text)
	}
	if c.capsKnown {
		// RFC 3977 §5.3.2: the capabilities change with the mode.
		return c.capabilities()
	}
	return nil
}

// startTLS negotiates TLS on the open connection (RFC 4642). It is only
// called when TLS was asked for, so every failure is an error: the session
// never goes on in plain text.
func (c *conn) startTLS(ctx context.Context, req *schemes.Request, host string) error {
	if _, isTLS := c.nc.(*tls.Conn); isTLS {
		return nil
	}
	if c.capsKnown && !c.has("STARTTLS") {
		return schemes.Errorf(schemes.ErrRefused, "news server %s does not offer STARTTLS, and TLS was required", c.server)
	}
	cmd := command{verb: "STARTTLS"}
	code, text, err := c.cmd(cmd)
	if err != nil {
		return err
	}
	if code != codeContinueTLS {
		return schemes.Errorf(schemes.ErrRefused, "news server %s refused STARTTLS, and TLS was required: %d %s", c.server, code, lineproto.ServerText(text))
	}
	if c.br.Buffered() > 0 {
		// Bytes sent before the handshake could be injected by anyone on
		// the path; RFC 4642 §2.2.2 forbids the server to send them.
		return schemes.Errorf(schemes.ErrRefused, "news server %s sent data before the TLS handshake", c.server)
	}
	tc, err := lineproto.Handshake(ctx, c.nc, dial.TLSConfig(req.TLSConfig, host), "TLS with news server "+c.server)
	if err != nil {
		return err
	}
	c.setNetConn(tc)
	// RFC 4642 §2.2.2: discard what was learnt before TLS.
	return c.capabilities()
}

// authenticate logs in with AUTHINFO USER/PASS (RFC 4643 §2.3).
func (c *conn) authenticate(lg *login) error {
	if c.authed {
		return schemes.Errorf(schemes.ErrAuth, "news server %s asked for authentication again after a successful login", c.server)
	}
	user, password, err := lg.get()
	if err != nil {
		return err
	}
	cmd := command{verb: "AUTHINFO USER", arg: user, part: "news user"}
	code, text, err := c.cmd(cmd)
	if err != nil {
		return err
	}
	if code == codePasswordRequired {
		cmd = command{verb: "AUTHINFO PASS", arg: password, part: "news password", secret: true}
		code, text, err = c.cmd(cmd)
		if err != nil {
			return err
		}
	}
	if code != codeAuthAccepted {
		return schemes.Errorf(schemes.ErrAuth, "news server %s refused the login for %s: %d %s", c.server, lineproto.ServerText(user), code, lineproto.ServerText(text))
	}
	c.authed = true
	if c.capsKnown {
		// RFC 4643 §2.1: capabilities may change after authentication.
		return c.capabilities()
	}
	return nil
}

// do sends a reader command; a 480 answer (authentication required) logs
// in once and sends the command again (RFC 4643 §2.1). A group selected
// before the login is selected again first, since what a reader may see
// changes with the login.
func (c *conn) do(cmd command, lg *login) (int, string, error) {
	code, text, err := c.cmd(cmd)
	if err == nil && code == codeAuthRequired && !c.authed {
		if lg == nil || lg.get == nil {
			return 0, "", c.refusalHint(cmd, code, text, "log in with nntp://USER@HOST/... or a netrc entry for the server")
		}
		if err := c.authenticate(lg); err != nil {
			return 0, "", err
		}
		if c.group != "" && cmd.verb != "GROUP" {
			again := groupCommand(c.group)
			code, text, err := c.cmd(again)
			if err != nil {
				return 0, "", err
			}
			if code != codeGroupSelected {
				return 0, "", c.refusal(again, code, text)
			}
		}
		code, text, err = c.cmd(cmd)
	}
	if err == nil && cmd.verb == "GROUP" && code == codeGroupSelected {
		c.group = cmd.arg
	}
	return code, text, err
}

// dialServer opens the connection to addr: plain TCP, or TLS from the first
// byte for nntps. The connection gets idle deadlines for every operation
// and is closed when ctx ends.
func dialServer(ctx context.Context, req *schemes.Request, addr, host string, implicitTLS bool) (*conn, error) {
	lc, err := lineproto.Dial(ctx, req, "tcp", addr)
	if err != nil {
		return nil, err
	}
	var nc net.Conn = lc
	if implicitTLS {
		tc, err := lineproto.Handshake(ctx, lc, dial.TLSConfig(req.TLSConfig, host), "TLS with news server "+addr)
		if err != nil {
			lc.Close()
			return nil, err
		}
		nc = tc
	}
	return newConn(lc, nc, addr, req), nil
}
