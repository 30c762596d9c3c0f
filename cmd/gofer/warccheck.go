package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/warc"
)

// warcCheckCommand is "gofer warc check": validate archives against the
// standard and gofer's record conventions (warc/RECORDS.md).
func (c *cli) warcCheckCommand() *cobra.Command {
	var strict bool
	var maxHeader int
	cmd := &cobra.Command{
		Use:   "check ARCHIVE...",
		Short: "Validate WARC files or segment prefixes: digests, lengths, links, content types, indexes",
		Long: `check reads every record of the archives (WARC files, WACZ files for the
WARC files they store, or segment prefixes standing for all their
segments), as one set, and reports each problem on
stderr as one line, "FILE: record N (offset O, URI): problem": a
Content-Length or a block or payload digest that does not match the block,
a WARC-Record-ID used twice, a WARC-Concurrent-To or WARC-Refers-To that names no record of the set, a
revisit that does not say what it revisits, a Content-Type or
WARC-Protocol the record conventions (warc/RECORDS.md) do not name for the
record's protocol and type, a file that does not start with a warcinfo
record, and a CDXJ index beside a segment that disagrees with it. Files
without an index beside them, as other tools write, are checked without.
Records are read however the file is compressed (per record, many
records per gzip member, not at all); WARC/1.0 records are held to
WARC/1.0's rules; digests may be base32, base16 or base64. A record that
cannot be read is reported and checking goes on with the next. A revisit
that refers to itself, or revisits that refer to each other in a loop,
are reported. What is common practice rather than an error (a file that
does not start with a warcinfo record, a WARC-Concurrent-To or
WARC-Refers-To naming a record in no file of the set) is a warning,
printed "warning: ...". A chunked HTTP response's payload digest is
taken over the body as sent or with the chunked coding undone, as
writers differ.
The exit status is 0 when nothing is wrong (warnings aside, unless
--strict), 1 when anything is.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "warc check needs at least one WARC file or segment prefix"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			n := 0
			err := warc.CheckWith(args, warc.ReadOptions{MaxHeader: maxHeader}, func(p warc.Problem) {
				if !p.Warning || strict {
					n++
				}
				fmt.Fprintln(c.stderr, printable(p.String()))
			})
			if err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("warc check: %s", counted(n, "problem", "problems"))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail on warnings too")
	cmd.Flags().IntVar(&maxHeader, "max-header", warc.DefaultMaxHeader, "the longest record header read, in `BYTES`")
	return cmd
}
