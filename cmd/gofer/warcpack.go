package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/warc"
)

// warcPackCommand is "gofer warc pack": WARC files and segments packed
// as one WACZ that ReplayWeb.page and other WACZ readers open.
func (c *cli) warcPackCommand() *cobra.Command {
	var out, title, desc string
	cmd := &cobra.Command{
		Use:   "pack ARCHIVE... -o NAME.wacz",
		Short: "Pack WARC files or segment prefixes as one WACZ (Web Archive Collection Zipped 1.1.1)",
		Long: `pack writes NAME.wacz: each ARCHIVE (a WARC file, or a segment prefix as
"mirror --warc PREFIX" writes, meaning every PREFIX-NNNNN.warc.gz) stored
as it is under archive/, a sorted CDXJ index of their records under
indexes/, the pages (roots, Gopher menus, FTP listings, HTML and gemtext
pages) in pages/pages.jsonl, and datapackage.json with every file's size
and SHA-256, its own hash in datapackage-digest.json. A file whose gzip
members hold many records (a WARC gzipped whole) is stored recompressed,
each record its own member, so that the index can name each. NAME.wacz
appears whole or not at all.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "warc pack needs at least one WARC file or segment prefix"}
			}
			if !strings.HasSuffix(strings.ToLower(out), ".wacz") {
				return &usageError{msg: "warc pack needs -o NAME.wacz"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			var files []string
			for _, a := range args {
				if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
					files = append(files, a)
					continue
				}
				segs, err := warc.Segments(a)
				if err != nil || len(segs) == 0 {
					return &usageError{msg: fmt.Sprintf("%s: no WARC file, and no segments %s-NNNNN.warc.gz", a, a)}
				}
				files = append(files, segs...)
			}
			return warc.PackFile(out, files, warc.PackOptions{Title: title, Description: desc,
				Software: "gofer " + goferVersion()})
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the WACZ file to write (NAME.wacz)")
	cmd.Flags().StringVar(&title, "title", "", `the collection's title (default "WACZ")`)
	cmd.Flags().StringVar(&desc, "description", "", "a description of the collection (Markdown)")
	return cmd
}
