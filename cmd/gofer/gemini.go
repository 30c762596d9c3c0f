package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// settingHints say how the command line gives each setting a library
// error names (schemes.SettingError).
var settingHints = map[string]string{
	"nntp.Fetcher.Server":       "set one with --nntp-server HOST[:PORT] or $NNTPSERVER",
	"Query":                     "give it with --query TEXT",
	"mailto.Fetcher.From":       "give --from ADDR or set $EMAIL",
	"mailto.Fetcher.SMTPServer": "give --smtp-server HOST[:PORT] or set $SMTP_SERVER",
	"mailto.Fetcher.SMTPUser":   "give --smtp-user USER or a netrc entry for the server",
	"Credentials":               "give it in netrc (--netrc) or run on a terminal",
	"TLSConfig":                 "--cacert FILE trusts a private CA",
}

// hinted adds to an error what a person can do about it on the command
// line, where the library's message names no flag.
func hinted(err error) error {
	var cc *schemes.CertChangedError
	var cr *schemes.CertRequiredError
	var se *schemes.SettingError
	var pe *security.PortError
	switch {
	case errors.As(err, &cc):
		return hint{err, "if the change is expected, run again with --tofu=accept-new"}
	case errors.As(err, &cr):
		return hint{err, "give one with --client-cert FILE --client-key FILE (gofer browse can make one)"}
	case errors.As(err, &se) && settingHints[se.Setting] != "":
		return hint{err, settingHints[se.Setting]}
	case errors.As(err, &pe):
		return hint{err, fmt.Sprintf("--allow-port %d lifts this", pe.Port)}
	}
	return err
}

type hint struct {
	error
	text string
}

func (h hint) Error() string { return h.error.Error() + "; " + h.text }
func (h hint) Unwrap() error { return h.error }

// isGemtext reports whether a response is a text/gemini page, which get
// prints as a listing: its lines, the links numbered. (An HTML page is a
// page of links too, but get writes its bytes, as curl does.)
func isGemtext(resp *fetch.Response) bool {
	return resp.Kind == schemes.KindFile && resp.Page != nil && resp.URL != nil && resp.URL.Scheme == "gemini"
}

// gemtextListing reads a gemtext response's body as its lines; for JSON,
// as its links alone.
func gemtextListing(resp *fetch.Response, linksOnly bool) schemes.Listing {
	l := resp.Page(io.NopCloser(resp.Body))
	if linksOnly {
		return schemes.Links(l)
	}
	return l
}
