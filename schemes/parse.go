package schemes

import "fmt"

// ParseError reports a malformed URL: what is wrong and the byte offset in
// the input where it is.
type ParseError struct {
	Input string
	Pos   int
	Msg   string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("malformed URL: %s at position %d", e.Msg, e.Pos)
}

// Parse parses an absolute URL (RFC 1738), after stripping a "URL:" prefix
// and a "<URL:...>" or "<...>" wrapper.
func Parse(raw string) (*URL, error) {
	return nil, &ParseError{Input: raw, Msg: "not implemented"}
}

// String returns the URL in canonical form; Parse(u.String()) equals u.
func (u *URL) String() string { return u.Scheme + ":" }

// Redacted returns String with the password, if any, replaced by "****".
func (u *URL) Redacted() string { return u.String() }
