package nntp

import (
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// errSkip tells a listing to pass over a line that carries no entry.
var errSkip = errors.New("skip")

// overview is one line of OVER (RFC 3977 §8.3.2, §8.4): the article number,
// then Subject, From, Date, Message-ID, References, :bytes and :lines,
// separated by TABs; further fields (Xref:full ...) are ignored.
type overview struct {
	number     int64
	subject    string
	from       string
	date       string
	modified   time.Time // Date parsed, zero when it does not parse
	messageID  string    // without angle brackets, as in a news: URL
	references string
	bytes      int64 // 0 when the server gives none
	lines      int64
}

// parseOverview reads one overview line. Only the article number is
// required; an empty or malformed count (:bytes, :lines) reads as unknown,
// since servers differ in what they keep there.
func parseOverview(line string) (overview, error) {
	var ov overview
	f := strings.Split(line, "\t")
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n <= 0 {
		return ov, fmt.Errorf("article number %q", truncate(f[0], 40))
	}
	ov.number = n
	field := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	ov.subject = decodeHeader(field(1))
	ov.from = decodeHeader(field(2))
	ov.date = field(3)
	ov.modified = parseDate(ov.date)
	ov.messageID = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(field(4)), "<"), ">")
	ov.references = strings.TrimSpace(field(5))
	ov.bytes = count(field(6))
	ov.lines = count(field(7))
	return ov, nil
}

// parseDate reads an article's Date (RFC 5322 §3.3), zero when it does not
// parse. The form nearly every server writes is tried first: net/mail's
// general parser costs most of an overview line's parsing time.
func parseDate(s string) time.Time {
	if t, err := time.Parse("Mon, 02 Jan 2006 15:04:05 -0700", s); err == nil {
		return t
	}
	if t, err := mail.ParseDate(s); err == nil {
		return t
	}
	return time.Time{}
}

// count reads a :bytes or :lines field; a value that is not a count is unknown.
func count(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// decodeHeader decodes RFC 2047 encoded words for reading; text it cannot
// decode stays as sent. Control characters a decoded word might hold are
// turned into spaces so that a listing line stays one line.
func decodeHeader(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	var d mime.WordDecoder
	dec, err := d.DecodeHeader(s)
	if err != nil {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, dec)
}

// active is one line of LIST ACTIVE (RFC 3977 §7.6.3): "group high low status".
type active struct {
	name      string
	high, low int64
	status    string // y, n, m, x, j or =other.group
}

func parseActive(line string) (active, error) {
	f := strings.Fields(line)
	if len(f) < 4 {
		if len(f) == 0 {
			return active{}, errSkip
		}
		return active{}, fmt.Errorf("active line %q has %d fields, want 4", truncate(line, 80), len(f))
	}
	high, err1 := strconv.ParseInt(f[1], 10, 64)
	low, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || high < 0 || low < 0 {
		return active{}, fmt.Errorf("active line %q has no article numbers", truncate(line, 80))
	}
	return active{name: f[0], high: high, low: low, status: f[3]}, nil
}

// parseNewsgroupsLine reads one line of LIST NEWSGROUPS (RFC 3977 §7.6.6):
// the group name, white space, the description.
func parseNewsgroupsLine(line string) (name, description string, ok bool) {
	line = strings.TrimSpace(line)
	i := strings.IndexFunc(line, unicode.IsSpace)
	if i < 0 {
		return line, "", line != ""
	}
	return line[:i], strings.TrimSpace(line[i:]), true
}
