package main

import (
	"bufio"
	"slices"
	"strings"

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
segment's whole records, and prints one sorted index. A record with the
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
			type kept struct {
				line string
				ts   string
			}
			byKey := map[string]kept{}
			add := func(line string, e warc.IndexEntry) {
				f := strings.Fields(line)
				ts := ""
				if len(f) > 1 {
					ts = f[1]
				}
				k := e.URL + "\x00" + e.Type + "\x00" + e.Mime + "\x00" + e.Digest
				if e.Digest == "" {
					k += "\x00" + e.ID // nothing to tell copies by
				}
				if old, ok := byKey[k]; !ok || ts < old.ts {
					byKey[k] = kept{line, ts}
				}
			}
			for _, seg := range args {
				if err := warc.Index(seg, add); err != nil {
					return err
				}
			}
			lines := make([]string, 0, len(byKey))
			for _, k := range byKey {
				lines = append(lines, k.line)
			}
			slices.Sort(lines)
			w := bufio.NewWriter(c.stdout)
			for _, l := range lines {
				w.WriteString(l)
				w.WriteByte('\n')
			}
			return w.Flush()
		},
	}
}
