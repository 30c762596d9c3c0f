package mailto

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"net/mail"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// urlFields are the RFC 6068 header fields a message takes from a URL,
// lower case; "to", "cc" and "body" are handled apart.
var urlFields = map[string]string{
	"subject":     "Subject",
	"keywords":    "Keywords",
	"in-reply-to": "In-Reply-To",
	"references":  "References",
}

// maxHeaderLine is RFC 5322 §2.1.1's limit on a line, without CR LF.
const maxHeaderLine = 998

// field is one header line of the message.
type field struct {
	name, value string
}

// message is what a send writes: the envelope and the header block, with
// the text still to be streamed.
type message struct {
	from       string   // envelope sender (MAIL FROM)
	recipients []string // envelope recipients (RCPT TO), To, Cc and Bcc
	fields     []field
	urlBody    string // the URL's body field, CR LF line ends
	body       io.Reader
}

// header returns the header block with its empty last line, CR LF ends.
func (m *message) header() string {
	var b strings.Builder
	for _, f := range m.fields {
		b.WriteString(f.name + ": " + f.value + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// text is the message text after the header block.
func (m *message) text() io.Reader {
	r := io.Reader(strings.NewReader(m.urlBody))
	if m.body != nil {
		r = io.MultiReader(r, m.body)
	}
	return r
}

// clock gives the Date and Message-ID of a message; a plan uses placeholders.
type clock struct {
	now func() time.Time
	id  func(domain string) string
}

func realClock() clock {
	return clock{now: time.Now, id: func(domain string) string {
		b := make([]byte, 12)
		rand.Read(b)
		return fmt.Sprintf("<%d.%s@%s>", time.Now().Unix(), hex.EncodeToString(b), domain)
	}}
}

// build checks everything a send would write and builds the message from
// sent by from. It refuses (with security's injection error) a CR, LF or
// NUL in any address or header value, before any connection.
func build(req *schemes.Request, from string, c clock) (*message, error) {
	u := req.URL
	if u == nil || u.Mailto == nil {
		return nil, schemes.Errorf(schemes.ErrUnsupportedScheme, "not a mailto URL")
	}
	// The guard checked the URL already; the message is checked again here,
	// where it is written.
	if err := security.CheckParts(u); err != nil {
		return nil, err
	}
	var mr schemes.MailRequest
	if req.Mail != nil {
		mr = *req.Mail
	}
	m := &message{body: mr.Body}
	var rcpt addresses
	fromURL, err := m.readURL(req, &rcpt)
	if err != nil {
		return nil, err
	}
	own, err := rcpt.readOwnLines(mr.Headers)
	if err != nil {
		return nil, err
	}
	if len(rcpt.to)+len(rcpt.cc)+len(rcpt.bcc) == 0 {
		return nil, schemes.Errorf(schemes.ErrUsage, "the mailto URL names no recipient")
	}
	fromHeader := ""
	if m.from, fromHeader, err = sender(from, c); err != nil {
		return nil, err
	}
	m.recipients = append(append(append(m.recipients, rcpt.to...), rcpt.cc...), rcpt.bcc...)
	m.fields = withOwn(m.generated(fromHeader, rcpt, fromURL, c), own)
	if err := checkFields(m.fields); err != nil {
		return nil, err
	}
	return m, nil
}

// addresses are a message's recipients, by the field that names them.
type addresses struct{ to, cc, bcc []string }

// addList appends the addresses of the list value to *list, each checked
// as an envelope address.
func addList(list *[]string, what, value string) error {
	if strings.TrimSpace(value) == "" {
		return nil
	}
	addrs, err := mail.ParseAddressList(value)
	if err != nil {
		return schemes.Errorf(schemes.ErrUsage, "%s %q is not a mail address list: %v", what, value, err)
	}
	for _, a := range addrs {
		if err := checkAddress(what, a.Address); err != nil {
			return err
		}
		*list = append(*list, a.Address)
	}
	return nil
}

// readURL takes from the URL its recipients (the address, "to" and "cc"),
// its "body", which it keeps in m, and the header fields RFC 6068 lets a
// URL give, which it returns; any other field is left out with a warning.
func (m *message) readURL(req *schemes.Request, rcpt *addresses) ([]field, error) {
	mt := req.URL.Mailto
	if err := addList(&rcpt.to, "mailto address", mt.Addr); err != nil {
		return nil, err
	}
	var seen []field
	for _, h := range mt.Headers {
		name := strings.ToLower(h.Name)
		switch name {
		case "to":
			if err := addList(&rcpt.to, "mailto to", h.Value); err != nil {
				return nil, err
			}
		case "cc":
			if err := addList(&rcpt.cc, "mailto cc", h.Value); err != nil {
				return nil, err
			}
		case "body":
			m.urlBody = h.Value
			if m.urlBody != "" && !strings.HasSuffix(m.urlBody, "\r\n") {
				m.urlBody += "\r\n"
			}
		default:
			canon, ok := urlFields[name]
			if !ok {
				req.Warnf(fmt.Sprintf("mailto URL header %q left out: only to, cc, subject, keywords, in-reply-to, references and body are taken from a URL", security.CleanPart(h.Name)))
				continue
			}
			seen = append(seen, field{canon, encodeText(h.Value)})
		}
	}
	return seen, nil
}

// readOwnLines reads the sender's own "Name: value" lines: To, Cc and Bcc
// add recipients; the others are returned, to replace a generated field of
// the same name.
func (rcpt *addresses) readOwnLines(lines []string) ([]field, error) {
	var own []field
	for _, line := range lines {
		name, value, ok := strings.Cut(line, ":")
		if err := security.CheckLine("header", line); err != nil {
			return nil, err
		}
		if !ok || !validFieldName(name) {
			return nil, schemes.Errorf(schemes.ErrUsage, "header %q is not \"Name: value\"", line)
		}
		value = strings.TrimSpace(value)
		var err error
		switch strings.ToLower(name) {
		case "to":
			err = addList(&rcpt.to, "header To", value)
		case "cc":
			err = addList(&rcpt.cc, "header Cc", value)
		case "bcc":
			err = addList(&rcpt.bcc, "header Bcc", value)
		default:
			own = append(own, field{name, value})
		}
		if err != nil {
			return nil, err
		}
	}
	return own, nil
}

// sender checks the sender's address from and returns it as the envelope
// (MAIL FROM) and the From field give it. A plan (c without a time) shows
// a missing sender as "{from}"; a send needs one.
func sender(from string, c clock) (envelope, header string, err error) {
	if err := security.CheckLine("sender", from); err != nil {
		return "", "", err
	}
	if from == "" {
		if c.now != nil {
			return "", "", schemes.NeedSetting(schemes.ErrUsage, "mailto.Fetcher.From", "no sender address")
		}
		return "{from}", "{from}", nil
	}
	a, err := mail.ParseAddress(from)
	if err != nil {
		return "", "", schemes.Errorf(schemes.ErrUsage, "sender %q is not a mail address: %v", from, err)
	}
	if err := checkAddress("sender", a.Address); err != nil {
		return "", "", err
	}
	if a.Name != "" {
		return a.Address, a.String(), nil
	}
	return a.Address, a.Address, nil
}

// generated is the header a mail user agent writes: From, To, Cc, the
// URL's fields, then Date, Message-ID and the MIME fields of UTF-8 text.
func (m *message) generated(fromHeader string, rcpt addresses, fromURL []field, c clock) []field {
	fields := []field{{"From", fromHeader}}
	if len(rcpt.to) > 0 {
		fields = append(fields, field{"To", strings.Join(rcpt.to, ", ")})
	}
	if len(rcpt.cc) > 0 {
		fields = append(fields, field{"Cc", strings.Join(rcpt.cc, ", ")})
	}
	fields = append(fields, fromURL...)
	date, id := "{date}", "{message-id}"
	if c.now != nil {
		date = c.now().Format(time.RFC1123Z)
		_, domain, _ := strings.Cut(m.from, "@")
		if domain == "" {
			domain = "localhost"
		}
		id = c.id(domain)
	}
	return append(fields,
		field{"Date", date},
		field{"Message-ID", id},
		field{"MIME-Version", "1.0"},
		field{"Content-Type", "text/plain; charset=utf-8"},
		field{"Content-Transfer-Encoding", "8bit"},
	)
}

// withOwn puts each of the sender's own fields in place of the generated
// field of the same name, or after them all when there is none.
func withOwn(fields, own []field) []field {
	for _, f := range own {
		replaced := false
		for i := range fields {
			if strings.EqualFold(fields[i].name, f.name) {
				fields[i], replaced = f, true
				break
			}
		}
		if !replaced {
			fields = append(fields, f)
		}
	}
	return fields
}

// checkFields refuses a field that would break its header line or be
// longer than one may be.
func checkFields(fields []field) error {
	for _, f := range fields {
		if err := security.CheckLine("mailto header "+security.CleanPart(f.name), f.value); err != nil {
			return err
		}
		if len(f.name)+2+len(f.value) > maxHeaderLine {
			return schemes.Errorf(schemes.ErrUsage, "header %s is longer than a mail header line may be (%d bytes)", f.name, maxHeaderLine)
		}
	}
	return nil
}

// checkAddress refuses what would break the envelope command the address
// goes into (RCPT TO:<addr>): line ends are injection, angle brackets and
// spaces outside quotes are not an addr-spec.
func checkAddress(what, addr string) error {
	if err := security.CheckLine(what, addr); err != nil {
		return err
	}
	if strings.ContainsAny(addr, "<>") {
		return schemes.Errorf(schemes.ErrUsage, "%s %q holds an angle bracket", what, addr)
	}
	return nil
}

// validFieldName: RFC 5322 §2.2, printable US-ASCII except ':'.
func validFieldName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 33 || c > 126 || c == ':' {
			return false
		}
	}
	return true
}

// encodeText writes an unstructured field value (RFC 6068 values are
// UTF-8) as RFC 2047 encoded words when it is not plain ASCII.
func encodeText(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return mime.QEncoding.Encode("utf-8", s)
		}
	}
	return s
}
