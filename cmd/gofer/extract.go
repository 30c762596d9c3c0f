package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/schemes"
)

func (c *cli) extractCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "extract [FILE]",
		Short: "Print the URLs found in plain text (<URL:...> wrappers and bare URLs), one a line",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return &usageError{msg: "extract reads one FILE, or stdin"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			in := c.stdin
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return &usageError{msg: err.Error()}
				}
				defer f.Close()
				in = f
			}
			w := bufio.NewWriter(c.stdout)
			defer w.Flush()
			return schemes.FindInReader(in, func(u string) error {
				_, err := fmt.Fprintln(w, u)
				return err
			})
		},
	}
}
