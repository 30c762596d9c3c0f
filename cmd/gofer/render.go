package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goferurl/gofer/schemes"
)

// writeListing prints a listing as it streams in, one entry a line, or as
// the --json object {"url": ..., "entries": [...]} written entry by entry so
// that memory does not grow with the listing.
func writeListing(w io.Writer, url string, l schemes.Listing, asJSON bool) error {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	if asJSON {
		return writeListingJSON(bw, url, l)
	}
	n := 0
	for {
		e, err := l.Next()
		if err == io.EOF {
			return bw.Flush()
		}
		if err != nil {
			bw.Flush()
			return err
		}
		if e.Gopher {
			if e.Type == schemes.TypeInfo || e.Type == schemes.TypeError {
				fmt.Fprintf(bw, "     %s\n", printable(e.Name))
				continue
			}
			n++
			fmt.Fprintf(bw, "%4d %-7s %s  %s\n", n, e.Type, printable(e.Name), e.URL)
			continue
		}
		switch {
		case e.Type == schemes.TypeInfo:
			fmt.Fprintf(bw, "     %s\n", printable(e.Name))
			continue
		case e.WAIS:
			fmt.Fprintln(bw, waisLine(e))
			continue
		}
		fmt.Fprintln(bw, entryLine(e))
	}
}

// waisLine is the readable form of one WAIS search hit: type, score,
// size, headline and the URL that retrieves the document.
func waisLine(e schemes.Entry) string {
	size := "-"
	if e.Size >= 0 {
		size = fmt.Sprint(e.Size)
	}
	return fmt.Sprintf("%-7s %5d %10s  %s  %s", e.Type, e.Score, size, printable(e.Name), e.URL)
}

func writeListingJSON(bw *bufio.Writer, url string, l schemes.Listing) error {
	head, _ := json.Marshal(url)
	fmt.Fprintf(bw, "{\"url\":%s,\"entries\":[", head)
	first := true
	for {
		e, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			// Close the object so the output stays valid JSON up to here,
			// then report the failure through the exit code.
			bw.WriteString("]}\n")
			return err
		}
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteString("\n")
		bw.Write(b)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// entryLine is the readable form of one non-Gopher entry: type, size,
// time, name and the URL that fetches it.
func entryLine(e schemes.Entry) string {
	switch e.Type {
	case schemes.TypeArticle:
		return fmt.Sprintf("%-7s %6d  %s  %s  %s", e.Type, e.Number, printable(e.Subject), printable(e.From), e.URL)
	case schemes.TypeGroup:
		line := fmt.Sprintf("%-7s %s", e.Type, printable(e.Name))
		if e.High > 0 || e.Low > 0 {
			line += fmt.Sprintf("  %d-%d", e.Low, e.High)
		}
		if e.Description != "" {
			line += "  " + printable(e.Description)
		}
		return line + "  " + e.URL
	}
	size := "-"
	if e.Size >= 0 {
		size = fmt.Sprint(e.Size)
	}
	mod := "-"
	if !e.Modified.IsZero() {
		mod = e.Modified.UTC().Format(time.DateTime)
	}
	name := printable(e.Name)
	if e.Target != "" {
		name += " -> " + printable(e.Target)
	}
	return fmt.Sprintf("%-7s %12s  %-19s  %s  %s", e.Type, size, mod, name, e.URL)
}

// printable keeps a remote name from driving the terminal: control bytes
// are shown as escapes, invalid UTF-8 as \xHH.
func printable(s string) string {
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

// writeInfo prints structured metadata: its own readable form when it has
// one, JSON otherwise (and always with --json).
func writeInfo(w io.Writer, url string, info any, asJSON bool) error {
	if t, ok := info.(interface{ WriteText(io.Writer) error }); ok && !asJSON {
		return t.WriteText(w)
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
