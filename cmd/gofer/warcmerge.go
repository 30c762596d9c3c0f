package main

import (
	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/warc"
)

// warcMergeCommand is "gofer warc merge": one CDXJ index over the
// segments of many writers (the workers of a --cluster crawl).
func (c *cli) warcMergeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "merge SEGMENT...",
		Short: "Print one CDXJ index over many WARC segments, each record's copies listed once",
		Long: `merge reads the CDXJ index beside each segment (PREFIX-NNNNN.cdxj), or,
for a segment without one (its writer was killed, or still runs), the
segment's whole records (a WACZ file's: those of the WARC files it
stores, at their offsets in the WACZ), and prints one sorted index. A
record with the
same target URI, type, media type and payload digest as one already listed
(the same file fetched by two workers of a crawl) is listed once, the
earliest. Nothing is written beside the segments.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "warc merge needs at least one WARC segment"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			return warc.MergeSegments(c.stdout, args...)
		},
	}
}
