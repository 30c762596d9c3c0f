package mailto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// DefaultSendmail is the local mail submission program used when no SMTP
// server is named.
const DefaultSendmail = "/usr/sbin/sendmail"

// Fetcher sends mailto: messages. The zero value hands them to
// DefaultSendmail, and needs From set to send one.
type Fetcher struct {
	// SMTPServer is "host[:port]" of the SMTP server messages are sent
	// through; "" means the Sendmail program.
	SMTPServer string
	// SMTPUser logs in to the SMTP server (AUTH PLAIN); the password comes
	// from Request.Credentials or Request.Prompt. "" means the
	// Credentials login for the server, if any.
	SMTPUser string
	// From is the sender's address ("Name <addr>" or "addr"). A send
	// without one fails with a *schemes.SettingError for "mailto.Fetcher.From".
	From string
	// RequireTLS has the SMTP session start TLS (STARTTLS) on every port,
	// and fail where the server does not offer it.
	RequireTLS bool
	// Sendmail is the program that takes a message on stdin when no SMTP
	// server is named ("" means DefaultSendmail).
	Sendmail string
}

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

// Schemes returns the schemes a Fetcher serves: mailto.
func Schemes() []string { return []string{"mailto"} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
)

// Receipt is what a send reports (KindInfo): JSON field names are a
// contract.
type Receipt struct {
	Recipients []string `json:"recipients"`
	// QueueID is the id the server gave the message, "" when its reply
	// names none (or the sendmail program was used).
	QueueID   string `json:"queue_id"`
	Server    string `json:"server"`
	Transport string `json:"transport"` // "smtp" or "sendmail"
	// Reply is the server's reply to the end of DATA.
	Reply     string `json:"reply,omitempty"`
	MessageID string `json:"message_id"`
}

// WriteText is the readable form: one line.
func (r *Receipt) WriteText(w io.Writer) error {
	id := r.QueueID
	if id == "" {
		id = "(no queue id given)"
	}
	var err error
	if r.Transport == "sendmail" {
		_, err = fmt.Fprintf(w, "handed to %s for %s, Message-ID %s\n", r.Server, strings.Join(r.Recipients, ", "), r.MessageID)
	} else {
		_, err = fmt.Fprintf(w, "queued as %s by %s for %s, Message-ID %s\n", id, r.Server, strings.Join(r.Recipients, ", "), r.MessageID)
	}
	return err
}

// Fetch sends the message req describes and answers with a *Receipt.
// Everything it would write is checked before any connection.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	m, err := build(req, f.From, realClock())
	if err != nil {
		return nil, err
	}
	rc := &Receipt{Recipients: m.recipients, MessageID: m.field("Message-ID")}
	if f.SMTPServer == "" {
		rc.Transport, rc.Server = "sendmail", f.sendmail()
		if err := f.pipe(ctx, m); err != nil {
			return nil, err
		}
		return rc.response(req), nil
	}
	srv, err := parseServer(f.SMTPServer)
	if err != nil {
		return nil, err
	}
	if req.CheckPort != nil {
		if err := req.CheckPort("smtp", srv.port); err != nil {
			return nil, err
		}
	}
	lg, err := findLogin(req, f.SMTPUser, srv)
	if err != nil {
		return nil, err
	}
	reply, err := send(ctx, req, srv, lg, f.RequireTLS, m)
	if err != nil {
		return nil, err
	}
	rc.Transport, rc.Server, rc.Reply, rc.QueueID = "smtp", srv.addr(), reply, QueueID(reply)
	return rc.response(req), nil
}

// response wraps the receipt: Info for programs, Body its readable form
// for a caller that only reads bodies.
func (r *Receipt) response(req *schemes.Request) *schemes.Response {
	var b strings.Builder
	r.WriteText(&b)
	return &schemes.Response{URL: req.URL, Kind: schemes.KindInfo, Info: r, Size: -1,
		Body: io.NopCloser(strings.NewReader(b.String()))}
}

func (m *message) field(name string) string {
	for _, f := range m.fields {
		if strings.EqualFold(f.name, name) {
			return f.value
		}
	}
	return ""
}

func (f *Fetcher) sendmail() string {
	if f.Sendmail != "" {
		return f.Sendmail
	}
	return DefaultSendmail
}

// sendmailArgs: -i keeps a line holding only "." from ending the message;
// the recipients are given as arguments (never read from the header, as
// -t would), so the SMTP path and this one deliver to the same set.
func (f *Fetcher) sendmailArgs(m *message) []string {
	return append([]string{"-i", "-f", m.from, "--"}, m.recipients...)
}

// pipe hands the message to the sendmail program, with local (LF) line ends.
func (f *Fetcher) pipe(ctx context.Context, m *message) error {
	path := f.sendmail()
	if _, err := os.Stat(path); err != nil {
		return schemes.NeedSetting(schemes.ErrUsage, "mailto.Fetcher.SMTPServer", "no SMTP server is set and there is no %s here", path)
	}
	cmd := exec.CommandContext(ctx, path, f.sendmailArgs(m)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return schemes.Errorf(schemes.ErrConnect, "run %s: %v", path, err)
	}
	werr := copyText(in, io.MultiReader(strings.NewReader(m.header()), m.text()), "\n")
	if werr != nil {
		// Killed before it sees the end of its input, sendmail sends nothing.
		cmd.Process.Kill()
		cmd.Wait()
		return werr
	}
	in.Close()
	err = cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return schemes.Errorf(schemes.ErrInterrupted, "%s: %v", path, context.Cause(ctx))
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return schemes.Errorf(schemes.ErrRefused, "%s refused the message (exit %d): %s", path, ee.ExitCode(), printable(msg))
		}
		return schemes.Errorf(schemes.ErrConnect, "%s: %v", path, err)
	}
	return nil
}

var (
	enhancedCode = regexp.MustCompile(`^[245]\.[0-9]{1,3}\.[0-9]{1,3}\s+`)
	queueToken   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
)

// QueueID finds the queue id in a reply to the end of DATA (text after the
// code, lines joined by LF), as the common MTAs write it:
//
//	Postfix         250 2.0.0 Ok: queued as 4C1D2E3F
//	OpenSMTPD       250 2.0.0 3a5c8e1f Message accepted for delivery
//	Sendmail        250 2.0.0 4AB1cd2e012345 Message accepted for delivery
//	Exim            250 OK id=1tE2fG-000123-AB
//
// It returns "" when the reply names none.
func QueueID(reply string) string {
	lines := strings.Split(reply, "\n")
	line := enhancedCode.ReplaceAllString(strings.TrimSpace(lines[len(lines)-1]), "")
	words := strings.Fields(line)
	pick := ""
	for i, w := range words {
		switch {
		case strings.EqualFold(w, "as") && i > 0 && strings.EqualFold(words[i-1], "queued") && i+1 < len(words):
			pick = words[i+1]
		case len(w) > 3 && strings.EqualFold(w[:3], "id="):
			pick = w[3:]
		case i == 0 && len(words) > 2 && strings.EqualFold(words[1], "message") && strings.EqualFold(words[2], "accepted"):
			pick = w
		}
		if pick != "" {
			break
		}
	}
	pick = strings.TrimRight(pick, ".,;)")
	if !queueToken.MatchString(pick) {
		return ""
	}
	return pick
}

// Plan lists what a send would write, with no network: the SMTP commands
// (or the sendmail command line) and the header block; the message text
// from stdin shows as "{text from stdin}". Date and Message-ID are made at
// send time and show as placeholders.
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	planReq := *req
	if req.Mail != nil {
		planReq.Mail = &schemes.MailRequest{Headers: req.Mail.Headers}
	}
	m, err := build(&planReq, f.From, clock{})
	if err != nil {
		return nil, err
	}
	p := &schemes.Plan{Notes: map[string]string{"recipients": strings.Join(m.recipients, ", ")}}
	var text []string
	for _, f := range m.fields {
		text = append(text, f.name+": "+f.value)
	}
	text = append(text, "")
	if m.urlBody != "" {
		text = append(text, strings.Split(strings.TrimSuffix(m.urlBody, "\r\n"), "\r\n")...)
	}
	text = append(text, "{text from stdin}")
	if f.SMTPServer == "" {
		p.Notes["transport"] = "sendmail"
		p.Notes["command"] = f.sendmail() + " " + strings.Join(f.sendmailArgs(m), " ")
		p.Requests = text
		return p, nil
	}
	srv, err := parseServer(f.SMTPServer)
	if err != nil {
		return nil, err
	}
	if req.CheckPort != nil {
		if err := req.CheckPort("smtp", srv.port); err != nil {
			return nil, err
		}
	}
	p.Notes["transport"], p.Notes["server"] = "smtp", srv.addr()
	cmds := []string{"EHLO [{local address}]"}
	if srv.port == portSubmission || f.RequireTLS {
		cmds = append(cmds, "STARTTLS", "EHLO [{local address}]")
	}
	if f.SMTPUser != "" || srv.port == portSubmission {
		cmds = append(cmds, "AUTH PLAIN ****")
	}
	cmds = append(cmds, "MAIL FROM:<"+m.from+">")
	for _, r := range m.recipients {
		cmds = append(cmds, "RCPT TO:<"+r+">")
	}
	cmds = append(cmds, "DATA")
	cmds = append(cmds, text...)
	cmds = append(cmds, ".", "QUIT")
	p.Requests = cmds
	return p, nil
}
