package prospero

import (
	"fmt"
	"strings"
)

// quote writes one token of a Prospero line: as it is when it needs no
// quoting, else between single quotes with each quote doubled. The empty
// token is two quotes with nothing between.
func quote(tok string) string {
	if tok != "" && !strings.ContainsAny(tok, " \t\n\r'") {
		return tok
	}
	return "'" + strings.ReplaceAll(tok, "'", "''") + "'"
}

// tokens splits one line into its tokens: separated by unquoted spaces and
// tabs, a quoted part taken literally with a doubled quote standing for one.
// A quote left open is an error.
func tokens(line string) ([]string, error) {
	var (
		toks  []string
		cur   strings.Builder
		inTok bool
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			inTok = true
			i++
			for {
				if i >= len(line) {
					return nil, fmt.Errorf("unterminated quote")
				}
				if line[i] == '\'' {
					if i+1 < len(line) && line[i+1] == '\'' {
						cur.WriteByte('\'')
						i += 2
						continue
					}
					break
				}
				cur.WriteByte(line[i])
				i++
			}
		case c == ' ' || c == '\t':
			if inTok {
				toks = append(toks, cur.String())
				cur.Reset()
				inTok = false
			}
		default:
			inTok = true
			cur.WriteByte(c)
		}
	}
	if inTok {
		toks = append(toks, cur.String())
	}
	return toks, nil
}

// line joins tokens into one request line, each quoted as it needs.
func line(toks ...string) string {
	q := make([]string, len(toks))
	for i, t := range toks {
		q[i] = quote(t)
	}
	return strings.Join(q, " ")
}

// Attribute is one ATTRIBUTE line of a reply: where it applies (OBJECT,
// LINK, CACHED, REPLACEMENT, ADDITIONAL), its namespace (FIELD, INTRINSIC,
// APPLICATION), its name, its value type (SEQUENCE, LINK, FILTER; empty for
// FIELD attributes, which have none) and its value elements.
type Attribute struct {
	AppliesTo string
	Namespace string
	Name      string
	ValueType string
	Values    []string
}

// Link is one LINK line of a directory listing.
type Link struct {
	Type      string // L (normal) or U (union)
	Target    string // FILE, DIRECTORY, DIRECTORY+FILE, OBJECT, EXTERNAL, SYMBOLIC
	Name      string
	HostType  string
	Host      string
	NameType  string
	HSOName   string
	Version   string
	Attribute []Attribute // the ATTRIBUTE lines that followed it
}

// Reply is a decoded reply message.
type Reply struct {
	Version    string      // from a VERSION line
	Attributes []Attribute // object attributes (GET-OBJECT-INFO)
	Links      []Link      // directory links (LIST)
	Warnings   []string
	NoneFound  bool
}

// maxLines bounds the lines of one reply message.
const maxLines = 1 << 20

// ReplyError is a reply that says the request failed: its first token
// (FAILURE, ERROR, VERSION-NOT-SUPPORTED, FORWARDED, UNRESOLVED) and the
// rest of the line.
type ReplyError struct {
	Keyword string
	Text    string
}

func (e *ReplyError) Error() string {
	if e.Text == "" {
		return e.Keyword
	}
	return e.Keyword + " " + e.Text
}

// DecodeReply decodes a reply message: LF-separated lines (CR LF accepted),
// each a keyword and tokens. ATTRIBUTE lines that follow a LINK belong to
// it; others describe the object. A line that says the request failed is a
// *ReplyError; a line that is not a Prospero reply, or a token that breaks
// the quoting rule, is an error naming the line. maxLine bounds a line.
func DecodeReply(msg []byte, maxLine int) (*Reply, error) {
	r := &Reply{}
	text := strings.ReplaceAll(string(msg), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("empty reply")
	}
	if strings.IndexByte(text, 0) >= 0 {
		return nil, fmt.Errorf("reply holds a NUL byte")
	}
	lines := strings.Split(text, "\n")
	if len(lines) > maxLines {
		return nil, fmt.Errorf("reply of more than %d lines", maxLines)
	}
	inLink := false
	for n, l := range lines {
		if len(l) > maxLine {
			return nil, fmt.Errorf("reply line %d is longer than %d bytes", n+1, maxLine)
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		toks, err := tokens(l)
		if err != nil {
			return nil, fmt.Errorf("reply line %d (%q): %v", n+1, clip(l), err)
		}
		bad := func(why string) error {
			return fmt.Errorf("reply line %d (%q): %s", n+1, clip(l), why)
		}
		switch kw := toks[0]; kw {
		case "VERSION":
			if len(toks) < 2 {
				return nil, bad("VERSION without a number")
			}
			r.Version = toks[1]
			inLink = false
		case "ATTRIBUTE":
			a, err := decodeAttribute(toks)
			if err != nil {
				return nil, bad(err.Error())
			}
			if inLink {
				k := &r.Links[len(r.Links)-1]
				k.Attribute = append(k.Attribute, a)
			} else {
				r.Attributes = append(r.Attributes, a)
			}
		case "LINK":
			if len(toks) < 9 {
				return nil, bad(fmt.Sprintf("LINK with %d tokens, wants 9", len(toks)))
			}
			r.Links = append(r.Links, Link{Type: toks[1], Target: toks[2], Name: toks[3],
				HostType: toks[4], Host: toks[5], NameType: toks[6], HSOName: toks[7], Version: toks[8]})
			inLink = true
		case "NONE-FOUND":
			r.NoneFound = true
		case "WARNING":
			r.Warnings = append(r.Warnings, strings.Join(toks[1:], " "))
		case "FAILURE", "ERROR", "VERSION-NOT-SUPPORTED", "FORWARDED", "UNRESOLVED":
			return nil, &ReplyError{Keyword: kw, Text: strings.Join(toks[1:], " ")}
		default:
			return nil, bad("not a Prospero reply line")
		}
	}
	return r, nil
}

// decodeAttribute reads "ATTRIBUTE applies-to FIELD name value" or
// "ATTRIBUTE applies-to (INTRINSIC|APPLICATION) name value-type value...".
func decodeAttribute(toks []string) (Attribute, error) {
	if len(toks) < 4 {
		return Attribute{}, fmt.Errorf("ATTRIBUTE with %d tokens", len(toks))
	}
	a := Attribute{AppliesTo: toks[1], Namespace: toks[2], Name: toks[3]}
	switch a.Namespace {
	case "FIELD":
		a.Values = toks[4:]
	case "INTRINSIC", "APPLICATION":
		if len(toks) < 5 {
			return Attribute{}, fmt.Errorf("%s attribute %s without a value type", a.Namespace, a.Name)
		}
		a.ValueType, a.Values = toks[4], toks[5:]
	default:
		return Attribute{}, fmt.Errorf("unknown attribute namespace %q", a.Namespace)
	}
	return a, nil
}

// clip shortens a line for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
