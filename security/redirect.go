package security

import (
	"fmt"

	"github.com/goferurl/gofer/schemes"
)

// RedirectError is a redirect the policy forbids: to a scheme other than
// http, https or ftp. It matches ErrRedirect.
type RedirectError struct {
	Scheme string
	Target string // redacted
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("refused: redirect to a %s: URL (%s); only http, https and ftp are followed", e.Scheme, e.Target)
}

// Is reports whether target is ErrRedirect.
func (e *RedirectError) Is(target error) bool { return target == ErrRedirect }

// CheckRedirect applies the redirect policy to a redirect's target: only
// http, https and ftp, never file: or any scheme that reaches local or
// interactive resources.
func CheckRedirect(to *schemes.URL) error {
	switch to.Scheme {
	case "http", "https", "ftp":
		return nil
	}
	return &RedirectError{Scheme: to.Scheme, Target: to.Redacted()}
}
