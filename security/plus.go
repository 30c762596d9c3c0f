package security

import (
	"strconv"
	"strings"
)

// CheckPlusString checks a decoded Gopher+ string (draft-ietf-uri-url-03,
// "GOPHER"). Its single-line shapes ("+", "+view lang", "!", "!+ATTR +ATTR",
// "$", "$+ATTR", "?") may hold no CR, LF, TAB or NUL; the only string that may
// is a filled +ASK block in exactly the shape CheckAskBlock accepts. A
// refusal is an *InjectionError naming part (and the block line at fault).
func CheckPlusString(part, s string) error {
	if !strings.ContainsAny(s, "\r\n\t\x00") {
		return nil
	}
	if s[0] == '+' && strings.Contains(s, "\r\n") {
		return CheckAskBlock(part, s)
	}
	return CheckGopherField(part, s)
}

// CheckAskBlock checks a filled Gopher+ +ASK block, the one place where a
// decoded CR LF may reach the wire (draft-ietf-uri-url-03, Gopher+: a URL
// may carry a filled form, and only in this shape):
//
//	+[view[ lang]] TAB 1 CRLF
//	+-1 CRLF
//	answer CRLF      (zero or more; no CR, LF, TAB or NUL inside, never ".")
//	. CRLF
//
// Anything else is refused with an *InjectionError naming part, the line at
// fault ("gopher+ string answer 2") and the offending byte.
func CheckAskBlock(part, s string) error {
	lines := strings.Split(s, "\r\n")
	n := len(lines)
	// A well-formed block ends with CRLF, so the split leaves "" last, and
	// has at least the header, "+-1" and ".".
	if n < 4 || lines[n-1] != "" || lines[n-2] != "." {
		return shapeError(part+" +ASK block end", lastLine(lines))
	}
	head := lines[0]
	view, ok := strings.CutSuffix(head, "\t1")
	if !ok || !strings.HasPrefix(view, "+") || strings.ContainsAny(view, "\r\n\t\x00") {
		return shapeError(part+" +ASK header", head)
	}
	if lines[1] != "+-1" {
		return shapeError(part+" +ASK data line", lines[1])
	}
	for i, a := range lines[2 : n-2] {
		name := part + " answer " + strconv.Itoa(i+1)
		if err := CheckGopherField(name, a); err != nil {
			return err
		}
		if a == "." {
			// A lone "." would end the block early and leave the rest to be
			// read as another request.
			return &InjectionError{Part: name, Byte: '\r'}
		}
	}
	return nil
}

// shapeError names the first delimiter byte of line, or the CR that would end
// it early when the line is wrong without holding one.
func shapeError(part, line string) error {
	if i := strings.IndexAny(line, "\r\n\t\x00"); i >= 0 {
		return &InjectionError{Part: part, Byte: line[i]}
	}
	return &InjectionError{Part: part, Byte: '\r'}
}

// lastLine returns the last non-empty element of lines.
func lastLine(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] != "" {
			return lines[i]
		}
	}
	return ""
}
