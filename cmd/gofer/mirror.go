package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/fetch/mirror"
)

func (c *cli) mirrorCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mirror [flags] URL DIR",
		Short: "Copy an ftp, gopher or http tree into DIR, incrementally and in parallel",
		Long: `mirror copies the tree under URL into DIR byte for byte. DIR then holds the
tree and one hidden state directory, DIR/.gofer/. A second run transfers only
what changed; an interrupted run continues where it stopped. Remote names that
could not safely become local names are listed and never written (exit 3).`,
		Example: `  gofer mirror -j 8 ftp://ftp.example.org/pub/ ./pub
  gofer mirror gopher://gopher.example.org/1/archive ./archive
  gofer mirror --dry-run --delete http://www.example.org/docs/ ./docs`,
		Args: func(_ *cobra.Command, args []string) error {
			if c.mf.remote && !c.mf.check {
				return &usageError{msg: "--remote goes with --check: mirror --check --remote DIR"}
			}
			if c.mf.check {
				if len(args) != 1 {
					return &usageError{msg: "mirror --check takes the mirror's directory alone"}
				}
				return nil
			}
			if len(args) != 2 && !c.statusArgs(args) {
				return &usageError{msg: "mirror takes a URL and a directory"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.checkCluster(); err != nil {
				return err
			}
			if c.mf.check {
				return c.runCheck(cmd, args[0])
			}
			if c.cl.status {
				if len(args) != 0 {
					return &usageError{msg: "mirror --status takes no URL or directory"}
				}
				return c.runStatus(cmd)
			}
			if err := c.openWARC(true); err != nil {
				return err
			}
			return c.closeWARC(c.runMirror(cmd, args))
		},
	}
	f := cmd.Flags()
	f.IntVarP(&c.jobs, "jobs", "j", mirror.DefaultJobs, "parallel workers, each with its own connection; unset, gofer starts with 4 and adds one while it raises throughput, up to --max-per-host (--json: streams)")
	f.IntVar(&c.depth, "depth", 0, "descend at most `N` levels (0: no limit)")
	f.BoolVar(&c.dryRun, "dry-run", false, "list what would be fetched, fetch nothing")
	f.BoolVar(&c.delete, "delete", false, "remove local files that vanished remotely")
	f.BoolVar(&c.noParent, "no-parent", false, "keep to paths or selectors under the starting one")
	f.Var(&filterFlag{list: &c.mf.filters}, "include", "mirror only what matches `GLOB` (repeatable; path relative to the start)")
	f.Var(&filterFlag{list: &c.mf.filters, exclude: true}, "exclude", "leave out what matches `GLOB` (repeatable; --delete keeps it)")
	f.IntVar(&c.mf.retries, "retries", mirror.DefaultRetries, "try an item again up to `N` times after a transient failure (FTP 4xx, reset, timeout, HTTP 5xx/429); a resumed transfer that made progress starts the count over")
	f.DurationVar(&c.mf.wait, "wait", 0, "wait `DURATION` between one connection's requests (e.g. 500ms)")
	f.StringVar(&c.mf.limitRate, "limit-rate", "", "transfer at most `BYTES` per second over all connections (suffix k or m: KiB, MiB)")
	f.IntVar(&c.mf.maxPerHost, "max-per-host", mirror.DefaultMaxPerHost, "open at most `N` connections to the server, whatever --jobs says")
	f.StringVar(&c.mf.symlinks, "symlinks", mirror.SymlinksKeep, "what to do with symlinks a listing names: `MODE` keep (made as relative links when inside DIR), follow (fetch what they name) or skip")
	f.IntVar(&c.mf.maxDepth, "max-depth", mirror.DefaultMaxDepth, "fetch nothing more than `N` levels below the start, so that a loop a server hides ends (negative: no limit)")
	f.StringVar(&c.mf.verify, "verify", mirror.VerifyAuto, "prove each file by the server's own checksum (FTP HASH, XSHA256, XSHA1, XMD5, XCRC, MD5): `WHEN` auto (where the server offers one), always (a file without one fails, exit 5) or never; a file whose bytes never match is not kept (exit 5)")
	f.BoolVar(&c.mf.bagit, "bagit", false, "keep DIR as a BagIt bag (RFC 8493): the tree in DIR/data/, manifest-sha256.txt, bag-info.txt and tagmanifest-sha256.txt rewritten from the state after each run; symlinks are followed unless --symlinks skip")
	f.BoolVar(&c.mf.check, "check", false, "re-read the mirror in DIR (no URL) against its state, without the network: one line per file changed, missing or added; exit 1 when any")
	f.BoolVar(&c.mf.remote, "remote", false, "with --check: also list the mirror's server again and report each file changed there (by the server's checksum where it offers one, else by size and time, and says which), gone from it or new on it; read-only")
	f.BoolVar(&c.mf.allVersions, "all-versions", false, "keep every version a VMS listing numbers, as NAME;N (default: the highest, as NAME)")
	f.StringVar(&c.warc.prefix, "warc", "", "also capture every fetch into WARC/1.1 segments `PREFIX`-NNNNN.warc.gz")
	f.BoolVar(&c.warc.only, "warc-only", false, "with --warc: write no tree, DIR holds only the state")
	f.StringVar(&c.warc.maxSize, "warc-max-size", "", "start a new WARC segment past `SIZE` (default 1G)")
	c.clusterFlagsOn(cmd)
	c.watchFlagsOn(cmd)
	// A mirror walks listings, menus and pages: it sends no mail, opens
	// no telnet session, asks no search and saves no single file.
	c.addFlags(cmd, []string{groupConnection, groupFTP, groupGemini}, "quiet", "verbose", "json", "nntp-server")
	return cmd
}

// mirrorFlags are the mirror's fidelity and politeness flags.
type mirrorFlags struct {
	filters    []mirror.Filter
	retries    int
	wait       time.Duration
	limitRate  string
	maxPerHost int
	// symlinks, maxDepth and allVersions: how links, hidden loops and
	// VMS versions are taken.
	symlinks    string
	maxDepth    int
	allVersions bool
	// check re-reads a mirror instead of running one (remote: and asks
	// its server); bagit keeps it as a bag.
	check  bool
	remote bool
	bagit  bool
	// verify is when files are proven by the server's checksum.
	verify string
}

// parseRate reads --limit-rate: bytes per second, with an optional k or m
// suffix (KiB, MiB per second).
func parseRate(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	orig, mult := s, int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult, s = 1<<10, s[:len(s)-1]
	case 'm', 'M':
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, &usageError{msg: fmt.Sprintf("--limit-rate %q: want bytes per second, such as 500k", orig)}
	}
	return n * mult, nil
}

// filterFlag appends --include and --exclude rules to one list, in the
// order given: the last rule that matches decides.
type filterFlag struct {
	list    *[]mirror.Filter
	exclude bool
}

func (f *filterFlag) String() string { return "" }
func (f *filterFlag) Type() string   { return "GLOB" }
func (f *filterFlag) Set(glob string) error {
	*f.list = append(*f.list, mirror.Filter{Exclude: f.exclude, Glob: glob})
	return nil
}

// mirrorOptions checks the mirror's flags and makes its Options.
func (c *cli) mirrorOptions(cmd *cobra.Command) (mirror.Options, error) {
	var opts mirror.Options
	if c.jobs < 1 {
		return opts, &usageError{msg: "--jobs must be at least 1"}
	}
	if err := mirror.CheckFilters(c.mf.filters); err != nil {
		return opts, err
	}
	if c.mf.retries < 0 {
		return opts, &usageError{msg: "--retries must be 0 or more"}
	}
	if c.mf.wait < 0 {
		return opts, &usageError{msg: "--wait must not be negative"}
	}
	if c.mf.maxPerHost < 1 {
		return opts, &usageError{msg: "--max-per-host must be at least 1"}
	}
	switch c.mf.symlinks {
	case mirror.SymlinksKeep, mirror.SymlinksFollow, mirror.SymlinksSkip:
	default:
		return opts, &usageError{msg: fmt.Sprintf("--symlinks %q: want keep, follow or skip", c.mf.symlinks)}
	}
	if c.mf.maxDepth == 0 {
		return opts, &usageError{msg: "--max-depth must not be 0 (negative: no limit)"}
	}
	switch c.mf.verify {
	case mirror.VerifyAuto, mirror.VerifyAlways, mirror.VerifyNever:
	default:
		return opts, &usageError{msg: fmt.Sprintf("--verify %q: want auto, always or never", c.mf.verify)}
	}
	limit, err := parseRate(c.mf.limitRate)
	if err != nil {
		return opts, err
	}
	jobs := c.jobs
	if !cmd.Flags().Changed("jobs") {
		jobs = 0 // the mirror chooses
	}
	opts = mirror.Options{Jobs: jobs, Depth: c.depth, NoParent: c.noParent, DryRun: c.dryRun, Delete: c.delete,
		Filters: c.mf.filters, Retries: c.mf.retries, Wait: c.mf.wait, LimitRate: limit, MaxPerHost: c.mf.maxPerHost,
		Symlinks: c.mf.symlinks, MaxDepth: c.mf.maxDepth, AllVersions: c.mf.allVersions, Verify: c.mf.verify,
		StateOnly: c.warc.only}
	if c.mf.retries == 0 {
		opts.Retries = -1
	}
	if c.mf.bagit {
		opts.Bag = true
		opts.BagAgent = "gofer " + versionLine(debug.ReadBuildInfo())
		if !cmd.Flags().Changed("symlinks") {
			opts.Symlinks = "" // a bag's default: followed
		}
	}
	if c.verbose {
		opts.Log = func(format string, args ...any) { fmt.Fprintf(c.stderr, format+"\n", args...) }
	}
	return opts, nil
}

func (c *cli) runMirror(cmd *cobra.Command, args []string) error {
	opts, err := c.mirrorOptions(cmd)
	if err != nil {
		return err
	}
	ctx, client, done, err := c.session(cmd)
	if err != nil {
		return err
	}
	defer done()
	dir, clean := c.warcOnlyDir(args[1])
	w, err := c.startWatch([]string{args[0], dir}, &opts)
	if err != nil {
		clean()
		return err
	}
	if c.clustered() {
		// After the watch: the worker's status wraps what it set.
		if err := c.joinCluster(ctx, &opts); err != nil {
			w.end(nil, exitCode(err))
			clean()
			return err
		}
	}
	sum, err := mirror.Run(ctx, client, args[0], dir, opts)
	c.leaveCluster(sum, err)
	code := exitCode(err)
	if err == nil {
		code = mirrorExitCode(sum)
	}
	w.end(sum, code)
	if cerr := clean(); err == nil {
		err = cerr
	}
	if sum != nil {
		if werr := c.writeSummary(sum); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return err
	}
	c.code = mirrorExitCode(sum)
	if c.code != exitOK {
		return errReported
	}
	return nil
}

// runCheck is "mirror --check DIR": each difference on stdout, as
// "changed PATH (DETAIL)", "missing PATH" or "added PATH", then a summary
// line (with --json each difference and then the summary as a JSON
// object, one a line); exit 1 when anything
// differs.
func (c *cli) runCheck(cmd *cobra.Command, dir string) error {
	enc := json.NewEncoder(c.stdout)
	check := mirror.Check
	if c.mf.remote {
		ctx, client, done, err := c.session(cmd)
		if err != nil {
			return err
		}
		defer done()
		check = func(_ context.Context, dir string, report func(mirror.Difference)) (mirror.CheckSummary, error) {
			return mirror.CheckRemote(ctx, client, dir, report)
		}
	}
	sum, err := check(cmd.Context(), dir, func(d mirror.Difference) {
		if c.json {
			enc.Encode(d)
			return
		}
		if d.Detail != "" {
			fmt.Fprintf(c.stdout, "%s %s (%s)\n", d.Change, printable(d.Path), d.Detail)
			return
		}
		fmt.Fprintf(c.stdout, "%s %s\n", d.Change, printable(d.Path))
	})
	if err != nil {
		return fmt.Errorf("mirror --check: %w", err)
	}
	switch {
	case c.json:
		if err := enc.Encode(sum); err != nil {
			return err
		}
	case !c.quiet:
		fmt.Fprintf(c.stdout, "checked %s: %d files, %d bytes, %d links: %d changed, %d missing, %d added\n",
			printable(sum.Dir), sum.Files, sum.Bytes, sum.Links, sum.Changed, sum.Missing, sum.Added)
		if sum.Remote {
			fmt.Fprintf(c.stdout, "checked on the server: %d directories, %d files: %s; %d changed there, %d gone, %d new\n",
				sum.Listings, sum.RemoteFiles, remoteHow(sum), sum.RemoteChanged, sum.Gone, sum.New)
		}
	}
	if sum.Differs() {
		c.code = exitFailure
		return errReported
	}
	return nil
}

// remoteHow says how --check --remote compared files: by the server's
// checksums (per algorithm) and by size and time.
func remoteHow(sum mirror.CheckSummary) string {
	var n int64
	algs := make([]string, 0, len(sum.ByHash))
	for a, k := range sum.ByHash {
		n += k
		algs = append(algs, fmt.Sprintf("%s %d", a, k))
	}
	sort.Strings(algs)
	how := "by the server's checksum: none"
	if n > 0 {
		how = fmt.Sprintf("by the server's checksum: %d (%s)", n, strings.Join(algs, ", "))
	}
	switch {
	case sum.ByListing > 0 && n == 0:
		how += fmt.Sprintf(", by size and time: %d (the server offers no checksum)", sum.ByListing)
	case sum.ByListing > 0:
		how += fmt.Sprintf(", by size and time: %d", sum.ByListing)
	}
	return how
}

// mirrorExitCode is 0 only when every item succeeded: refused names give 3
// (the rest was still mirrored), listing lines that could not be read 5,
// other failures the most severe code among them.
func mirrorExitCode(sum *mirror.Summary) int {
	code := exitOK
	raise := func(c int) {
		if severity(c) > severity(code) {
			code = c
		}
	}
	if sum.Refused > 0 {
		raise(exitRefused)
	}
	if sum.Unparsed > 0 {
		raise(exitServer)
	}
	for _, f := range sum.Failures {
		c := exitCode(f.Err)
		if f.Err == nil {
			c = exitFailure
		}
		raise(c)
	}
	if sum.Failed > int64(len(sum.Failures)) && code == exitOK {
		code = exitFailure
	}
	return code
}

// writeSummary prints the outcome: the --json object, or a readable report
// with the refusals and failures listed.
func (c *cli) writeSummary(sum *mirror.Summary) error {
	if c.json {
		return json.NewEncoder(c.stdout).Encode(sum)
	}
	w := c.stdout
	for _, p := range sum.Planned {
		fmt.Fprintf(w, "would %-6s %s\n", p.Action, printable(p.Path))
	}
	verb := "mirrored"
	if sum.DryRun {
		verb = "dry run of"
	}
	fmt.Fprintf(w, "%s %s into %s: %d new, %d updated, %d unchanged, %d deleted, %d refused, %d failed; %d bytes in %d transfers, %.1fs\n",
		verb, sum.URL, sum.Dir, sum.New, sum.Updated, sum.Unchanged, sum.Deleted, sum.Refused, sum.Failed,
		sum.Bytes, sum.Transfers, sum.Seconds)
	if sum.Links > 0 || sum.LinksSkipped > 0 {
		fmt.Fprintf(w, "symlinks: %d taken, %d skipped\n", sum.Links, sum.LinksSkipped)
	}
	if sum.Recorded > 0 || sum.Skipped > 0 {
		fmt.Fprintf(w, "recorded, not fetched: %d items; %d excluded by robots.txt\n", sum.Recorded, sum.Skipped)
	}
	if sum.Loops > 0 || sum.TooDeep > 0 {
		fmt.Fprintf(w, "left out: %d probable loops not entered, %d items too deep\n", sum.Loops, sum.TooDeep)
	}
	if sum.Retries > 0 {
		kinds := make([]string, 0, len(sum.RetriesByKind))
		for k, n := range sum.RetriesByKind {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "tried again after transient failures: %d times (%s)\n", sum.Retries, strings.Join(kinds, ", "))
	}
	if sum.HostConnections > 0 {
		fmt.Fprintf(w, "the server allows %d connections at once (it refused more); the next run starts with that many\n", sum.HostConnections)
	}
	if sum.Changed > 0 || sum.Unstable > 0 {
		fmt.Fprintf(w, "changed during their transfer: %d fetched again, %d unstable (not installed)\n", sum.Changed, sum.Unstable)
	}
	if sum.Excluded > 0 {
		fmt.Fprintf(w, "left out by --include/--exclude: %d\n", sum.Excluded)
	}
	if sum.Verified > 0 || sum.Unverified > 0 {
		algs := make([]string, 0, len(sum.VerifyAlgorithms))
		for a, n := range sum.VerifyAlgorithms {
			algs = append(algs, fmt.Sprintf("%s %d", a, n))
		}
		sort.Strings(algs)
		switch {
		case sum.Verified == 0:
			fmt.Fprintf(w, "proven by the server's checksum: none (the server gave none); unverified: %d\n", sum.Unverified)
		default:
			fmt.Fprintf(w, "proven by the server's checksum: %d (%s); unverified: %d\n", sum.Verified, strings.Join(algs, ", "), sum.Unverified)
		}
	}
	if c.wf.progress == "json" && c.wf.progressFile == "" {
		return nil // stderr carries the JSON lines, which said all this
	}
	for _, r := range sum.Refusals {
		fmt.Fprintf(c.stderr, "gofer: refused name %q (%s): %s\n", printable(r.Name), r.URL, r.Reason)
	}
	for _, f := range sum.Failures {
		fmt.Fprintf(c.stderr, "gofer: failed %s: %s\n", f.URL, strings.ReplaceAll(f.Error, "\n", " "))
	}
	if sum.Unparsed > 0 {
		fmt.Fprintf(c.stderr, "gofer: %d listing lines could not be read (their directories' files are kept by --delete)\n", sum.Unparsed)
	}
	for _, u := range sum.UnparsedLines {
		fmt.Fprintf(c.stderr, "gofer: unparsed line in %s: %s\n", u.URL, printable(u.Line))
	}
	return nil
}
