package fetch

import (
	"strings"

	"github.com/goferurl/gofer/security"
)

// Error is a failed retrieval: the operation, the URL with its password
// redacted, and the cause. errors.Is and errors.As reach the cause's kind
// (schemes.ErrConnect, security.ErrPort, *schemes.ParseError, ...).
type Error struct {
	Op  string
	URL string
	Err error

	// secrets are masked in Error's text wherever the cause repeats them.
	secrets []string
}

// Error returns one line: the operation, the redacted URL and the cause,
// with every password masked and line breaks folded into spaces.
func (e *Error) Error() string {
	msg := e.Op + " " + e.URL + ": " + e.Err.Error()
	msg = security.Redact(msg, e.secrets...)
	return strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(msg)
}

func (e *Error) Unwrap() error { return e.Err }
