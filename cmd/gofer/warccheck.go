package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/warc"
)

// warcCheckCommand is "gofer warc check": validate archives against the
// standard and gofer's record conventions (warc/RECORDS.md).
func (c *cli) warcCheckCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "check ARCHIVE...",
		Short: "Validate WARC files or segment prefixes: digests, lengths, links, content types, indexes",
		Long: `check reads every record of the archives (WARC files, or segment prefixes
standing for all their segments), as one set, and reports each problem on
stderr as one line, "FILE: record N (offset O, URI): problem": a
Content-Length or a block or payload digest that does not match the block,
a WARC-Record-ID used twice, a WARC-Concurrent-To or WARC-Refers-To that names no record of the set, a
revisit that does not say what it revisits, a Content-Type or
WARC-Protocol the record conventions (warc/RECORDS.md) do not name for the
record's protocol and type, a file that does not start with a warcinfo
record, and a CDXJ index beside a segment that disagrees with it. Files
without an index beside them, as other tools write, are checked without.
The exit status is 0 when nothing is wrong, 1 when anything is.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "warc check needs at least one WARC file or segment prefix"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			n := 0
			err := warc.Check(args, func(p warc.Problem) {
				n++
				fmt.Fprintln(c.stderr, printable(p.String()))
			})
			if err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("warc check: %d problems", n)
			}
			return nil
		},
	}
}
