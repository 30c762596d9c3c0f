package lineproto

import "strings"

// ServerText makes text a server sent fit in a one-line error: line breaks
// and runs of white space become one space, and any other control
// character (C0, DEL, and C1, which some terminals read as escapes: U+009B
// is a CSI) becomes '?', so that a server cannot drive the terminal the
// error is shown on.
func ServerText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.Map(func(r rune) rune {
		if r < ' ' || r >= 0x7f && r < 0xa0 {
			return '?'
		}
		return r
	}, s)
}
