package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manCommand writes a man page (section 1) for gofer and each of its
// commands, made from the command tree itself, so that they say what the
// flags say. cmd/gofer/install-man installs them.
func (c *cli) manCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the man pages of gofer and its commands into DIR",
		Args:   cobra.ExactArgs(1),
		Hidden: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			h := &doc.GenManHeader{Title: "GOFER", Section: "1", Source: "gofer " + versionLine(debug.ReadBuildInfo()), Manual: "gofer manual"}
			if err := doc.GenManTree(root, h, args[0]); err != nil {
				return fmt.Errorf("man pages: %w", err)
			}
			return nil
		},
	}
}
