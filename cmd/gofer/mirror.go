package main

import (
	"github.com/spf13/cobra"
)

func (c *cli) mirrorCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mirror [flags] URL DIR",
		Short: "Copy an ftp, gopher or http tree into DIR, incrementally and in parallel",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return &usageError{msg: "mirror takes a URL and a directory"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return &usageError{msg: "mirror: not built yet"}
		},
	}
	f := cmd.Flags()
	f.IntVarP(&c.jobs, "jobs", "j", 4, "parallel workers, each with its own connection")
	f.IntVar(&c.depth, "depth", 0, "descend at most `N` levels (0: no limit)")
	f.BoolVar(&c.dryRun, "dry-run", false, "list what would be fetched, fetch nothing")
	f.BoolVar(&c.delete, "delete", false, "remove local files that vanished remotely")
	f.BoolVar(&c.noParent, "no-parent", false, "keep to paths or selectors under the starting one")
	return cmd
}
