package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/goferurl/gofer/schemes"
)

// writeListing prints a listing as it streams in: its text form
// (schemes.WriteListing, what a listing Response's Body reads), or the
// --json object {"url": ..., "entries": [...]} written entry by entry so
// that memory does not grow with the listing. A line the listing could not
// read (schemes.TypeUnparsed) is never dropped quietly: warn gets it, with
// the raw line, and --json lists it under "unparsed".
func writeListing(w io.Writer, url string, l schemes.Listing, asJSON bool, warn func(string)) error {
	l = &unparsedListing{Listing: l, warn: warn}
	if !asJSON {
		return schemes.WriteListing(w, l)
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	return writeListingJSON(bw, url, l.(*unparsedListing))
}

// maxUnparsed bounds the unparsed lines a --json listing holds; the warnings
// go on past it.
const maxUnparsed = 10000

// unparsedListing takes the unparsed lines out of a listing: each is
// warned about and kept for the --json "unparsed" list.
type unparsedListing struct {
	schemes.Listing
	warn    func(string)
	lines   []string
	dropped int
}

func (u *unparsedListing) Next() (schemes.Entry, error) {
	for {
		e, err := u.Listing.Next()
		if err != nil || e.Type != schemes.TypeUnparsed {
			return e, err
		}
		u.warn("listing line in no form gofer reads, left out: " + strconv.Quote(e.Name))
		if len(u.lines) < maxUnparsed {
			u.lines = append(u.lines, e.Name)
		} else {
			u.dropped++
		}
	}
}

func writeListingJSON(bw *bufio.Writer, url string, l *unparsedListing) error {
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
	bw.WriteString("\n]")
	if len(l.lines) > 0 {
		b, _ := json.Marshal(l.lines)
		bw.WriteString(",\"unparsed\":")
		bw.Write(b)
		if l.dropped > 0 {
			fmt.Fprintf(bw, ",\"unparsed_more\":%d", l.dropped)
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// printable keeps a remote name from driving the terminal.
func printable(s string) string { return schemes.Printable(s) }

// writeInfo prints structured metadata: its readable form
// (schemes.WriteInfo, what an info Response's Body reads), or JSON with --json.
func writeInfo(w io.Writer, url string, info any, asJSON bool) error {
	if !asJSON {
		return schemes.WriteInfo(w, info)
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
