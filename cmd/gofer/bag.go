package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/bagit"
)

// bagCommand is "gofer bag": BagIt bags (RFC 8493).
func (c *cli) bagCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bag",
		Short: "Check BagIt bags (RFC 8493): gofer bag validate DIR",
		Args: func(_ *cobra.Command, args []string) error {
			return &usageError{msg: "bag needs a subcommand: validate"}
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	validate := &cobra.Command{
		Use:   "validate DIR...",
		Short: "Check that each DIR is a valid BagIt bag: declaration, manifests, payload, checksums, Payload-Oxum, fetch.txt",
		Long: `validate checks each DIR as RFC 8493 says a valid bag must be, whoever
wrote it: bagit.txt (BagIt-Version M.N, Tag-File-Character-Encoding
UTF-8, nothing else), a payload directory data/, at least one payload
manifest (manifest-md5.txt, -sha1, -sha256 or -sha512), every payload file
listed in every payload manifest and every listed file present with the
checksum each manifest gives (paths percent-encoded: %0A, %0D, %25), the
tag manifests (every file they list present with its checksum, every
payload manifest among them), bag-info.txt's Payload-Oxum when there is
one, and the files fetch.txt names (a bag still waiting for them is not
complete, so not valid). Each problem is one line on stderr, "DIR: PATH:
problem". Files are read once each, hashed with every algorithm as they
stream. A valid bag prints one line on stdout (files, bytes, algorithms).
The exit status is 0 when every DIR is valid, 1 when any is not.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "bag validate needs a bag directory"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			bad := 0
			for _, dir := range args {
				n := 0
				st, err := bagit.Validate(dir, func(p bagit.Problem) {
					n++
					fmt.Fprintf(c.stderr, "%s: %s\n", printable(dir), printable(p.String()))
				})
				if err != nil {
					return fmt.Errorf("bag validate: %w", err)
				}
				if n > 0 {
					bad++
					continue
				}
				if !c.quiet {
					fmt.Fprintf(c.stdout, "%s: valid bag: %d files, %d bytes (%s)\n",
						printable(dir), st.Files, st.Bytes, strings.Join(st.Algorithms, ", "))
				}
			}
			if bad > 0 {
				return fmt.Errorf("bag validate: %d of %d bags are not valid", bad, len(args))
			}
			return nil
		},
	}
	c.addFlags(validate, nil, "quiet")
	cmd.AddCommand(validate)
	return cmd
}
