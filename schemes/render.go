package schemes

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteListing writes a listing's text form, one entry a line, as it
// streams in: a Gopher menu numbered as a person reads it (info and error
// lines indented, unnumbered), every other entry as type, size, time, name
// and the URL that fetches it (an article or group as its own fields). This
// is what gofer get prints for a listing, and what a listing Response's
// Body reads.
func WriteListing(w io.Writer, l Listing) error {
	bw := bufio.NewWriter(w)
	var lt listingText
	for {
		e, err := l.Next()
		if err == io.EOF {
			return bw.Flush()
		}
		if err != nil {
			bw.Flush()
			return err
		}
		bw.WriteString(lt.line(e))
	}
}

// listingText formats a listing's entries one line at a time; it numbers
// the selectable items of a Gopher menu.
type listingText struct {
	n int
}

// line is the text of one entry, with its newline.
func (lt *listingText) line(e Entry) string {
	if e.Gemini != nil {
		return lt.geminiLine(e)
	}
	if e.Gopher != nil {
		if e.Type == TypeInfo || e.Type == TypeError {
			return "     " + Printable(e.Name) + "\n"
		}
		lt.n++
		return fmt.Sprintf("%4d %-7s %s  %s\n", lt.n, e.Type, Printable(e.Name), e.URL)
	}
	switch {
	case e.Type == TypeInfo:
		return "     " + Printable(e.Name) + "\n"
	case e.Type == TypeUnparsed:
		return TypeUnparsed + " " + strconv.Quote(e.Name) + "\n"
	case e.WAIS != nil:
		return waisLine(e) + "\n"
	}
	return entryLine(e) + "\n"
}

// geminiLine is the text of one line of a text/gemini page: links
// numbered with their URL, list items bulleted, quotes barred, headings
// as written, preformatted lines verbatim (tabs kept) and their toggles
// left out.
func (lt *listingText) geminiLine(e Entry) string {
	switch e.Gemini.Kind {
	case "link":
		lt.n++
		if e.Name == e.URL || e.Name == "" {
			return fmt.Sprintf("[%d] %s\n", lt.n, Printable(e.URL))
		}
		return fmt.Sprintf("[%d] %s  <%s>\n", lt.n, Printable(e.Name), Printable(e.URL))
	case "heading":
		return strings.Repeat("#", max(e.Gemini.Level, 1)) + " " + Printable(e.Name) + "\n"
	case "list":
		return "  \u2022 " + Printable(e.Name) + "\n"
	case "quote":
		return "  \u2502 " + Printable(e.Name) + "\n"
	case "pre-open", "pre-close":
		return ""
	case "pre":
		return printableTabs(e.Name) + "\n"
	}
	return Printable(e.Name) + "\n"
}

// printableTabs is Printable with tabs kept, for preformatted text.
func printableTabs(s string) string {
	parts := strings.Split(s, "\t")
	for i, p := range parts {
		parts[i] = Printable(p)
	}
	return strings.Join(parts, "\t")
}

// waisLine is the readable form of one WAIS search hit: type, score,
// size, headline and the URL that retrieves the document.
func waisLine(e Entry) string {
	size := "-"
	if e.Size >= 0 {
		size = fmt.Sprint(e.Size)
	}
	return fmt.Sprintf("%-7s %5d %10s  %s  %s", e.Type, e.WAIS.Score, size, Printable(e.Name), e.URL)
}

// entryLine is the readable form of one non-Gopher entry: type, size,
// time, name and the URL that fetches it.
func entryLine(e Entry) string {
	switch e.Type {
	case TypeArticle, TypeGroup:
		n := e.News
		if n == nil {
			n = &NewsItem{}
		}
		if e.Type == TypeArticle {
			return fmt.Sprintf("%-7s %6d  %s  %s  %s", e.Type, n.Number, Printable(n.Subject), Printable(n.From), e.URL)
		}
		line := fmt.Sprintf("%-7s %s", e.Type, Printable(e.Name))
		if n.High > 0 || n.Low > 0 {
			line += fmt.Sprintf("  %d-%d", n.Low, n.High)
		}
		if n.Description != "" {
			line += "  " + Printable(n.Description)
		}
		return line + "  " + e.URL
	}
	size := "-"
	if e.Size >= 0 {
		size = fmt.Sprint(e.Size)
	}
	mod := "-"
	if !e.Modified.IsZero() {
		mod = e.FormatModified()
	}
	name := Printable(e.Name)
	if e.Target != "" {
		name += " -> " + Printable(e.Target)
	}
	return fmt.Sprintf("%-7s %12s  %-19s  %s  %s", e.Type, size, mod, name, e.URL)
}

// Printable keeps a remote name from driving a terminal: control bytes are
// shown as escapes (\x1b), invalid UTF-8 as \xHH.
func Printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// WriteInfo writes structured metadata (Response.Info) for a person: its
// own readable form when it has a WriteText(io.Writer) error method,
// indented JSON otherwise.
func WriteInfo(w io.Writer, info any) error {
	if t, ok := info.(interface{ WriteText(io.Writer) error }); ok {
		return t.WriteText(w)
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

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
