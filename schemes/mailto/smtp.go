package mailto

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// Ports with a meaning of their own (RFC 6409, RFC 8314).
const (
	portSMTP        = 25
	portSubmission  = 587
	portSubmissions = 465
)

// server is where a message is submitted.
type server struct {
	host string
	port int
}

func (s server) addr() string { return net.JoinHostPort(s.host, strconv.Itoa(s.port)) }

// parseServer reads "host[:port]" (Fetcher.SMTPServer).
func parseServer(s string) (server, error) {
	host, portText, err := net.SplitHostPort(s)
	if err != nil {
		host = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
		if host == "" || strings.ContainsAny(host, ":/ ") && !strings.Contains(s, "[") {
			return server{}, schemes.Errorf(schemes.ErrUsage, "SMTP server %q is not HOST[:PORT]", s)
		}
		return server{host, portSMTP}, nil
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 || host == "" {
		return server{}, schemes.Errorf(schemes.ErrUsage, "SMTP server %q is not HOST[:PORT]", s)
	}
	return server{host, port}, nil
}

// login is the SMTP AUTH login, if any.
type login struct {
	user, password string
}

// findLogin decides the login before any connection: user (Fetcher.SMTPUser)
// with its password from Credentials or a prompt, else the Credentials
// login for the server.
// The submission port requires one (RFC 6409 §4.3 lets it refuse mail
// from anyone who has not logged in).
func findLogin(req *schemes.Request, user string, srv server) (*login, error) {
	var netUser, netPass string
	var netOK bool
	if req.Credentials != nil {
		netUser, netPass, netOK = req.Credentials(srv.host)
	}
	switch {
	case user != "":
		if netOK && netUser == user {
			return &login{user, netPass}, nil
		}
		if req.Prompt == nil {
			return nil, schemes.NeedSetting(schemes.ErrAuth, "Credentials", "no password for SMTP user %s at %s: no terminal to ask on and no netrc entry", user, srv.host)
		}
		pw, err := req.Prompt(fmt.Sprintf("Password for %s at %s:", user, srv.host), true)
		if err != nil {
			return nil, schemes.Errorf(schemes.ErrAuth, "reading the password: %v", err)
		}
		return &login{user, pw}, nil
	case netOK:
		return &login{netUser, netPass}, nil
	case srv.port == portSubmission:
		return nil, schemes.NeedSetting(schemes.ErrAuth, "mailto.Fetcher.SMTPUser", "the submission port %d of %s needs a login", portSubmission, srv.host)
	}
	return nil, nil
}

// plainAuth is AUTH PLAIN (RFC 4616) that knows whether the connection is
// encrypted from the fetcher's side: net/smtp cannot tell once STARTTLS
// was done here rather than by it.
type plainAuth struct {
	login
	tls bool
}

func (a *plainAuth) Start(info *smtp.ServerInfo) (string, []byte, error) {
	if !a.tls {
		return "", nil, schemes.Errorf(schemes.ErrAuth, "refusing to send a password without TLS")
	}
	if !slices.ContainsFunc(info.Auth, func(m string) bool { return strings.EqualFold(m, "PLAIN") }) {
		return "", nil, schemes.Errorf(schemes.ErrAuth, "the server offers no AUTH PLAIN (it offers %q)", strings.Join(info.Auth, " "))
	}
	return "PLAIN", []byte("\x00" + a.user + "\x00" + a.password), nil
}

func (a *plainAuth) Next(_ []byte, more bool) ([]byte, error) {
	if more {
		return nil, errors.New("unexpected server challenge")
	}
	return nil, nil
}

// session is one SMTP connection, carried by the line-protocol kit's Conn:
// idle deadlines on every read and write, closed when the context ends.
type session struct {
	srv  server
	conn *lineproto.Conn
	log  *wireLog
	tls  bool
	// requireTLS starts TLS whatever the port (Fetcher.RequireTLS).
	requireTLS bool
	c          *smtp.Client
	// lastStep names the command in progress, for errors.
	lastStep string
}

// fail turns an error of the conversation into one of gofer's kinds.
func (s *session) fail(ctx context.Context, err error, what string) error {
	where := "smtp server " + s.srv.addr()
	if ctx.Err() != nil || s.conn.Cancelled() {
		return s.conn.Classify(context.Cause(ctx), where+": "+what)
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		kind := schemes.ErrRefused
		switch te.Code {
		case 530, 534, 535, 538:
			kind = schemes.ErrAuth
		}
		return &schemes.KindError{Kind: kind, Msg: fmt.Sprintf("%s answered %s with %d %s", where, what, te.Code, printable(strings.ReplaceAll(te.Msg, "\n", " "))), Err: te}
	}
	var pe textproto.ProtocolError
	if errors.As(err, &pe) {
		return schemes.Errorf(schemes.ErrRefused, "%s: %s: not an SMTP reply: %s", where, what, printable(string(pe)))
	}
	var ke *schemes.KindError
	if errors.As(err, &ke) {
		return err
	}
	return s.conn.Classify(err, where+": "+what)
}

// send submits m over SMTP and returns the server's reply to the end of
// DATA.
func send(ctx context.Context, req *schemes.Request, srv server, lg *login, requireTLS bool, m *message) (string, error) {
	conn, err := lineproto.Dial(ctx, req, "tcp", srv.addr())
	if err != nil {
		return "", err
	}
	defer conn.Close()
	s := &session{srv: srv, conn: conn, log: &wireLog{w: req.Transcript, limit: req.LineLimit()}, requireTLS: requireTLS}
	reply, err := s.run(ctx, req, lg, m)
	if err != nil {
		return "", s.fail(ctx, err, s.lastStep)
	}
	return reply, nil
}

// helloName is what EHLO says: the address literal of the connection's
// own end (RFC 5321 §4.1.4), which names the client truthfully without
// looking any name up.
func helloName(c net.Conn) string {
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok && a.IP != nil {
		if a.IP.To4() != nil {
			return "[" + a.IP.String() + "]"
		}
		return "[IPv6:" + a.IP.String() + "]"
	}
	return "[127.0.0.1]"
}

func (s *session) run(ctx context.Context, req *schemes.Request, lg *login, m *message) (string, error) {
	idle := net.Conn(s.conn)
	name := helloName(s.conn)
	tlsCfg := dial.TLSConfig(req.TLSConfig, s.srv.host)
	var top net.Conn = &wireConn{Conn: idle, log: s.log}
	if s.srv.port == portSubmissions {
		// RFC 8314: TLS from the first byte.
		s.lastStep = "TLS handshake"
		tc := tls.Client(idle, tlsCfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return "", schemes.NeedSetting(schemes.ErrConnect, "TLSConfig", "TLS handshake with %s: %w", s.srv.addr(), err)
		}
		top, s.tls = &wireConn{Conn: tc, log: s.log}, true
	}
	s.lastStep = "the greeting"
	c, err := smtp.NewClient(top, s.srv.host)
	if err != nil {
		return "", err
	}
	s.lastStep = "EHLO"
	if err := c.Hello(name); err != nil {
		return "", err
	}
	offered, _ := c.Extension("STARTTLS")
	mustTLS := s.srv.port == portSubmission || s.requireTLS || lg != nil
	if !s.tls && (offered || mustTLS) {
		if !offered {
			return "", schemes.Errorf(schemes.ErrRefused, "smtp server %s offers no STARTTLS, and gofer does not send %s without TLS", s.srv.addr(), map[bool]string{true: "a password", false: "mail to the submission port"}[lg != nil])
		}
		// RFC 3207: STARTTLS is answered here so that the transcript shows
		// the whole conversation; net/smtp then starts afresh over TLS.
		s.lastStep = "STARTTLS"
		id, err := c.Text.Cmd("STARTTLS")
		if err != nil {
			return "", err
		}
		c.Text.StartResponse(id)
		_, _, err = c.Text.ReadResponse(220)
		c.Text.EndResponse(id)
		if err != nil {
			return "", err
		}
		tc := tls.Client(idle, tlsCfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return "", schemes.NeedSetting(schemes.ErrConnect, "TLSConfig", "TLS handshake with %s: %w", s.srv.addr(), err)
		}
		s.tls = true
		s.lastStep = "EHLO"
		if c, err = smtp.NewClient(&lineproto.Replay{Conn: &wireConn{Conn: tc, log: s.log}, Pending: []byte("220 TLS started\r\n")}, s.srv.host); err != nil {
			return "", err
		}
		if err := c.Hello(name); err != nil {
			return "", err
		}
	}
	s.c = c
	if lg != nil {
		s.lastStep = "AUTH"
		if ok, _ := c.Extension("AUTH"); !ok {
			return "", schemes.Errorf(schemes.ErrAuth, "smtp server %s offers no AUTH, and a login was given", s.srv.addr())
		}
		if err := c.Auth(&plainAuth{login: *lg, tls: s.tls}); err != nil {
			return "", err
		}
	}
	s.lastStep = "MAIL FROM:<" + m.from + ">"
	if err := c.Mail(m.from); err != nil {
		return "", err
	}
	for _, r := range m.recipients {
		s.lastStep = "RCPT TO:<" + r + ">"
		if err := c.Rcpt(r); err != nil {
			return "", err
		}
	}
	// net/smtp's Data discards the reply to the end of DATA, which holds
	// the queue id, so DATA is spoken here on its textproto connection.
	s.lastStep = "DATA"
	id, err := c.Text.Cmd("DATA")
	if err != nil {
		return "", err
	}
	c.Text.StartResponse(id)
	_, _, err = c.Text.ReadResponse(354)
	c.Text.EndResponse(id)
	if err != nil {
		return "", err
	}
	dw := c.Text.DotWriter()
	if _, err := dw.Write([]byte(m.header())); err != nil {
		return "", err
	}
	if err := copyText(dw, m.text(), "\r\n"); err != nil {
		// Without the final "." the server discards what it has.
		return "", err
	}
	s.lastStep = "the end of DATA"
	if err := dw.Close(); err != nil {
		return "", err
	}
	_, reply, err := c.Text.ReadResponse(250)
	if err != nil {
		return "", err
	}
	// The message is accepted: a failed QUIT changes nothing.
	s.lastStep = "QUIT"
	c.Quit()
	return reply, nil
}
