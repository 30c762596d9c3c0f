package security

import (
	"fmt"

	"github.com/goferurl/gofer/schemes"
)

// RedirectError is a redirect the policy forbids: an HTTP redirect to a
// scheme other than http, https or ftp, or a Prospero resolution to a
// scheme other than those CheckRedirectFrom lists. It matches ErrRedirect.
type RedirectError struct {
	Scheme string
	Target string // redacted
	// From is the scheme of the URL that redirected ("" means http).
	From string
}

func (e *RedirectError) Error() string {
	switch e.From {
	case "prospero":
		return fmt.Sprintf("refused: prospero resolution to a %s: URL (%s); only ftp, gopher, wais, http, https, news and nntp are followed", e.Scheme, e.Target)
	case "gemini":
		return fmt.Sprintf("refused: gemini redirect to a %s: URL (%s); a gemini server redirects only to gemini", e.Scheme, e.Target)
	}
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

// CheckRedirectFrom applies the policy of the scheme that redirected. A
// Prospero resolution names where a directory service says an object
// lives, by any of the retrieval protocols its access methods name: ftp,
// gopher, wais, http, https, news and nntp are followed; never file: (local
// files), telnet, rlogin or tn3270 (interactive sessions), nor any other.
// A Gemini server redirects to gemini URLs only (its specification says a
// client must not follow a redirect to another scheme unasked). Every
// other redirect (HTTP's) follows CheckRedirect.
func CheckRedirectFrom(from, to *schemes.URL) error {
	if from.Scheme == "gemini" {
		if to.Scheme == "gemini" {
			return nil
		}
		return &RedirectError{Scheme: to.Scheme, Target: to.Redacted(), From: from.Scheme}
	}
	if from.Scheme != "prospero" {
		return CheckRedirect(to)
	}
	switch to.Scheme {
	case "ftp", "gopher", "wais", "http", "https", "news", "nntp":
		return nil
	}
	return &RedirectError{Scheme: to.Scheme, Target: to.Redacted(), From: from.Scheme}
}
