package browse

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rivo/tview"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// isGemini reports whether resp is a gemini success (a 2x response).
func isGemini(resp *fetch.Response) bool {
	return resp.Kind == schemes.KindFile && resp.URL != nil && resp.URL.Scheme == "gemini"
}

// geminiPage shows a gemini success: a text/gemini page in the listing
// view, one row a line; other text in the pager; anything else as a
// download. The page is known by the URL that gave it, after redirects and
// with the answer to an input request, so that its relative links resolve
// against it and a bookmark names it.
func (b *Browser) geminiPage(ctx context.Context, resp *fetch.Response, p *page) {
	p.req = fetch.Request{URL: resp.URL.String()}
	switch {
	case resp.Page != nil:
		b.showListing(p, resp.Page(resp.Body))
	case resp.Type == schemes.TypeBinary || resp.Type == schemes.TypeImage || resp.Type == schemes.TypeAudio:
		b.saveResponse(ctx, resp, p.req, p.title, nil)
	default:
		b.readText(ctx, resp, p)
	}
}

// gemtextRow is how the listing shows a line of a text/gemini page: as
// written, its markers kept (a heading's '#', a list item's "* ", a
// quote's "> ", a preformatted block's toggles), a link by its label.
func gemtextRow(e schemes.Entry) string {
	if e.Gemini == nil {
		return e.Name
	}
	switch e.Gemini.Kind {
	case schemes.GeminiHeading:
		return strings.Repeat("#", max(e.Gemini.Level, 1)) + " " + e.Name
	case schemes.GeminiList:
		return "* " + e.Name
	case schemes.GeminiQuote:
		return "> " + e.Name
	case schemes.GeminiPreOpen:
		return "```" + e.Name
	case schemes.GeminiPreEnd:
		return "```"
	case schemes.GeminiPre:
		return strings.ReplaceAll(e.Name, "\t", "        ")
	}
	return e.Name
}

// askCert shows a server's changed certificate, both fingerprints, and
// asks whether to accept it: y pins the new one and runs retry, n (or Esc)
// leaves the refusal on the status line, in brief.
func (b *Browser) askCert(cc *schemes.CertChangedError, retry func()) {
	var t strings.Builder
	fmt.Fprintf(&t, "The gemini server %s presented another certificate than the one pinned for it.\n\n", cc.Server)
	fmt.Fprintf(&t, "  pinned:     %s\n              valid until %s\n", cc.Old.Fingerprint, certDate(cc.Old.Expires))
	fmt.Fprintf(&t, "  presented:  %s\n              valid until %s\n\n", cc.New.Fingerprint, certDate(cc.New.Expires))
	if cc.File != "" {
		fmt.Fprintf(&t, "The pins are kept in %s.\n", cc.File)
	}
	t.WriteString("Accept the new certificate only if the server's operator has changed it.\n")
	view := tview.NewTextView().SetDynamicColors(false).SetWrap(true).SetText(clean(t.String()))
	view.SetBorder(true).SetTitle(" Changed certificate ")
	b.pages.AddPage("cert", view, true, true)
	b.onYesNo = func(yes bool) {
		b.pages.RemovePage("cert")
		b.showPage()
		if !yes {
			// The refusal in brief: the whole error names both
			// fingerprints, more than a status line holds.
			b.pageStatus(fmt.Sprintf("error: refused the new certificate of %s (%s); the old one stays", cc.Server, brief(cc.New.Fingerprint)))
			return
		}
		retry()
	}
	b.setStatus("accept the new certificate? (y/n)")
}

// askIdentity says a server asks for a client certificate and offers to
// make one for it (an identity of this host's own, kept for later runs):
// y makes it and runs retry, n leaves the request refused.
func (b *Browser) askIdentity(cr *schemes.CertRequiredError, retry func()) {
	var t strings.Builder
	fmt.Fprintf(&t, "The gemini server %s asks for a client certificate:\n\n  %s\n\n", cr.Server, cr.Prompt)
	t.WriteString("A new certificate made now is an identity of your own for this server: it\n")
	t.WriteString("is offered to it alone, from now on, and to no other server.\n")
	view := tview.NewTextView().SetDynamicColors(false).SetWrap(true).SetText(clean(t.String()))
	view.SetBorder(true).SetTitle(" Client certificate ")
	b.pages.AddPage("cert", view, true, true)
	b.onYesNo = func(yes bool) {
		b.pages.RemovePage("cert")
		b.showPage()
		if !yes {
			b.pageStatus(fmt.Sprintf("error: %s asks for a client certificate; none was made", cr.Server))
			return
		}
		retry()
	}
	b.setStatus("make a new client certificate for " + cr.Server + "? (y/n)")
}

// brief is a fingerprint's first 12 hex digits.
func brief(fp string) string {
	if len(fp) > len("SHA256:")+12 {
		return fp[:len("SHA256:")+12] + "..."
	}
	return fp
}

func certDate(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// yesNo answers the question askCert asked: y or n, Esc for no; other
// keys but Ctrl-C are ignored until then.
func (b *Browser) yesNo(r rune, esc bool) {
	var yes bool
	switch {
	case r == 'y' || r == 'Y':
		yes = true
	case r == 'n' || r == 'N' || esc:
	default:
		return
	}
	done := b.onYesNo
	b.onYesNo = nil
	done(yes)
}
