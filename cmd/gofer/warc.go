package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/security"
	"github.com/goferurl/gofer/warc"
)

// warcFlags are the capture flags of get and mirror.
type warcFlags struct {
	file    string // get --warc FILE
	prefix  string // mirror --warc PREFIX
	only    bool   // mirror --warc-only
	maxSize string // mirror --warc-max-size
	w       *warc.Writer
}

// capture is the fetch.Options.Capture of an invocation that writes an
// archive, nil otherwise.
func (c *cli) capture() func(string) fetch.CaptureCloser {
	if c.warc.w == nil {
		return nil
	}
	w := c.warc.w
	return func(u string) fetch.CaptureCloser { return w.Capture(u) }
}

// warcInfo names gofer and the command line, every URL's password masked.
func warcInfo() warc.Info {
	args := make([]string, len(os.Args))
	for i, a := range os.Args {
		args[i] = security.RedactURL(a)
	}
	if len(args) > 0 {
		args[0] = "gofer"
	}
	return warc.Info{Software: "gofer " + goferVersion(), Command: strings.Join(args, " ")}
}

// openWARC opens the archive the flags ask for, before any fetch: a file
// that cannot be created is an error with nothing sent.
func (c *cli) openWARC(mirror bool) error {
	var err error
	switch {
	case mirror && c.warc.prefix != "":
		max := int64(warc.DefaultMaxSize)
		if c.warc.maxSize != "" {
			if max, err = parseSize(c.warc.maxSize); err != nil || max <= 0 {
				return &usageError{msg: fmt.Sprintf("--warc-max-size %q: want a positive size", c.warc.maxSize)}
			}
		}
		c.warc.w, err = warc.CreateSegments(c.warc.prefix, max, warcInfo())
		if err == nil {
			for _, r := range c.warc.w.Recovered {
				c.warnf("recovered " + r)
			}
		}
	case mirror && (c.warc.only || c.warc.maxSize != ""):
		return &usageError{msg: "--warc-only and --warc-max-size need --warc PREFIX"}
	case !mirror && c.warc.file != "":
		c.warc.w, err = warc.Create(c.warc.file, warcInfo())
	}
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	return nil
}

// closeWARC ends the archive; its error is the command's when it had none.
func (c *cli) closeWARC(err error) error {
	if c.warc.w == nil {
		return err
	}
	cerr := c.warc.w.Close()
	if ferr := c.warc.w.Err(); ferr != nil {
		cerr = ferr
	}
	if err != nil && c.warc.file != "" && c.warc.w.Records() == 0 {
		// Nothing was captured: leave no archive of a failed command.
		os.Remove(c.warc.file)
	}
	c.warc.w = nil
	if err == nil && cerr != nil {
		return cerr
	}
	return err
}

func (c *cli) warcCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "warc",
		Short: "Read WARC archives: list records, print a payload, check, pack a WACZ",
		Args: func(_ *cobra.Command, args []string) error {
			return &usageError{msg: "warc needs a subcommand: list, cat, check, merge or pack"}
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.AddCommand(c.warcListCommand(), c.warcCatCommand(), c.warcCheckCommand(), c.warcMergeCommand(), c.warcPackCommand())
	return cmd
}

// warcListCommand is "gofer warc list".
func (c *cli) warcListCommand() *cobra.Command {
	var maxHeader int
	list := &cobra.Command{
		Use:   "list ARCHIVE...",
		Short: "List the records of WARC files or segment prefixes: type, date, length, digest, target URI",
		Long: `list prints one line per record of the ARCHIVEs (WARC or ARC files, WACZ
files for the WARC files they store, or segment prefixes standing for all
their segments), as the file has it:
type, WARC-Date ("-" when none), Content-Length, the payload digest else
the block digest (nothing when the record names neither), target URI.
Records are read however the file is compressed (gzip per record or
whole, zstd, none). A stretch of a file that holds no readable record (a
header longer than --max-header, a member cut short, bytes between
records) is reported on stderr and listing goes on; the exit status is
then 1, as for a file without any record.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "warc list needs at least one WARC file"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			files, err := warc.Archives(args)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 0, 1, ' ', 0)
			problems := 0
			var failed error
			for _, f := range files {
				n := 0
				err := warc.Entries(f, warc.WalkOptions{MaxHeader: maxHeader, Problem: func(err error) {
					problems++
					tw.Flush()
					c.errorf("%s", printable(err.Error()))
				}}, func(e warc.Entry) error {
					date := "-" // none the file gives
					if !e.Date.IsZero() {
						date = e.Date.UTC().Format("2006-01-02T15:04:05Z")
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", e.Type, date, e.Length, e.Digest, printable(e.URI))
					// Printed as it is read: columns line up a block
					// of lines at a time.
					if n++; n%1024 == 0 {
						return tw.Flush()
					}
					return nil
				})
				if err != nil && failed == nil {
					failed = err
				}
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if failed != nil {
				return failed
			}
			if problems > 0 {
				return fmt.Errorf("warc list: %s no readable record", counted(problems, "stretch of the files holds", "stretches of the files hold"))
			}
			return nil
		},
	}
	list.Flags().IntVar(&maxHeader, "max-header", warc.DefaultMaxHeader, "the longest record header read, in `BYTES`")
	return list
}

// warcCatCommand is "gofer warc cat".
func (c *cli) warcCatCommand() *cobra.Command {
	var at string
	cat := &cobra.Command{
		Use:   "cat ARCHIVE... URI",
		Short: "Print the payload of a capture of URI: the first, or the nearest to --at",
		Long: `cat prints the payload of a response or resource record of URI found in
the ARCHIVEs (WARC files, WACZ files, or segment prefixes standing for
all their segments): the first in archive order, or with --at the capture nearest to
that time, a revisit resolved to the record whose payload it stands for.
Segments are looked up through the CDXJ index beside them, and only the
record is read; a file without an index is read through.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 2 {
				return &usageError{msg: "warc cat takes WARC files or segment prefixes, then a URI"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			var when time.Time
			if at != "" {
				var err error
				if when, err = warc.ParseTimestamp(at); err != nil {
					return &usageError{msg: "--at: " + err.Error()}
				}
			}
			return warc.CatArchives(args[:len(args)-1], args[len(args)-1], when, c.stdout)
		},
	}
	cat.Flags().StringVar(&at, "at", "", "the capture nearest to `TIMESTAMP` (YYYYMMDDhhmmss or a leading part, or RFC 3339)")
	return cat
}

// goferVersion is the version "gofer version" prints.
func goferVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// warcOnlyDir is where a mirror runs: DIR itself, or with --warc-only a
// working tree inside DIR's state directory, emptied of everything but
// its own state when the run ends (clean), so that DIR holds the state
// and no tree, and only files gofer wrote are ever removed.
func (c *cli) warcOnlyDir(dir string) (string, func() error) {
	if !c.warc.only {
		return dir, func() error { return nil }
	}
	work := filepath.Join(dir, ".gofer", "warc-only")
	return work, func() error {
		ents, err := os.ReadDir(work)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			if e.Name() == ".gofer" {
				continue
			}
			if err := os.RemoveAll(filepath.Join(work, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
}

// counted is n with the word for one or for many.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
