package lineproto

import "github.com/goferurl/gofer/schemes"

// ServerText makes text a server sent fit in a one-line error: line breaks
// and runs of white space become one space, and any other control
// character (C0, DEL, and C1, which some terminals read as escapes: U+009B
// is a CSI) becomes '?', so that a server cannot drive the terminal the
// error is shown on. It is schemes.ServerText, which the contract's own
// errors use.
func ServerText(s string) string { return schemes.ServerText(s) }
