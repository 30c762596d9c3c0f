package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/goferurl/gofer/schemes"
)

// writeListing prints a listing as it streams in: its text form
// (schemes.WriteListing, what a listing Response's Body reads), or the
// --json object {"url": ..., "entries": [...]} written entry by entry so
// that memory does not grow with the listing.
func writeListing(w io.Writer, url string, l schemes.Listing, asJSON bool) error {
	if !asJSON {
		return schemes.WriteListing(w, l)
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	return writeListingJSON(bw, url, l)
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
