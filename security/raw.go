package security

import "strings"

// CheckRaw refuses a URL string that holds a raw CR, LF or NUL where
// nothing strips them: such a URL is malformed (RFC 1738 §2.2: control
// characters must be encoded), but it is also an attempt to put a line end
// on the wire, so it is refused as an injection rather than reported as a
// mere syntax error. Inside a "<URL:...>" or "<...>" wrapper, line breaks
// are layout and are ignored (RFC 1738 Appendix), so only NUL counts there.
func CheckRaw(raw string) error {
	t := strings.TrimSpace(raw)
	wrapped := strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">")
	for i := 0; i < len(raw); i++ {
		switch b := raw[i]; b {
		case 0:
			return &InjectionError{Part: "URL (raw, unencoded)", Byte: b}
		case '\r', '\n':
			if !wrapped {
				return &InjectionError{Part: "URL (raw, unencoded)", Byte: b}
			}
		}
	}
	return nil
}
