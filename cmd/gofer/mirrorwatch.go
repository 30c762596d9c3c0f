package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/fetch/mirror/watch"
	"github.com/goferurl/gofer/internal/atomicfile"
)

// watchFlags are how a mirror is watched and steered while it runs.
type watchFlags struct {
	progress     string // "" (a status on a terminal), "json" or "none"
	progressFile string
	serve        string
}

func (c *cli) watchFlagsOn(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.wf.progress, "progress", "", "how to show the run while it goes on: `MODE` json (one JSON object a line on stderr, or in --progress-file) or none; unset, a status of a few lines on a terminal")
	f.StringVar(&c.wf.progressFile, "progress-file", "", "with --progress json: write the lines to `FILE` instead of stderr")
	f.StringVar(&c.wf.serve, "serve", "", "serve a dashboard of the run, which can steer it, on `ADDR` (a loopback HOST:PORT); its address and token are printed when ready")
}

// watching is one run's watch: the recorder, and what it serves and
// writes to.
type watching struct {
	c       *cli
	rec     *watch.Recorder
	ctl     *mirror.Control
	srv     *http.Server
	file    *os.File
	dir     string
	dryRun  bool
	rules   []mirror.Filter
	started time.Time
}

// startWatch sets up what the flags ask for on opts, before the run.
func (c *cli) startWatch(args []string, opts *mirror.Options) (*watching, error) {
	switch c.wf.progress {
	case "", "json", "none":
	default:
		return nil, &usageError{msg: fmt.Sprintf("--progress %q: want json or none", c.wf.progress)}
	}
	if c.wf.progressFile != "" && c.wf.progress != "json" {
		return nil, &usageError{msg: "--progress-file goes with --progress json"}
	}
	if c.wf.serve != "" {
		if err := watch.CheckListen(c.wf.serve); err != nil {
			return nil, &usageError{msg: "--serve: " + err.Error()}
		}
	}
	w := &watching{c: c, dir: args[1], dryRun: opts.DryRun, rules: opts.Filters, started: time.Now()}
	cfg := watch.Config{Job: c.cl.job, URL: args[0], Dir: args[1], Exit: exitCode, Settings: map[string]any{
		"jobs": opts.Jobs, "max_per_host": opts.MaxPerHost, "limit_rate": opts.LimitRate, "depth": opts.Depth,
		"delete": opts.Delete, "dry_run": opts.DryRun, "retries": c.mf.retries, "symlinks": opts.Symlinks,
		"rules": watch.RuleStrings(opts.Filters)}}
	var onStderr bool
	if c.wf.progress == "json" {
		if c.wf.progressFile != "" {
			f, err := os.OpenFile(c.wf.progressFile, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return nil, &usageError{msg: fmt.Sprintf("--progress-file: %v", err)}
			}
			w.file, cfg.Lines = f, f
		} else {
			cfg.Lines, onStderr = c.stderr, true
		}
	}
	if f, ok := c.stderr.(*os.File); ok && c.wf.progress == "" && !c.quiet && !c.verbose && term.IsTerminal(int(f.Fd())) {
		cfg.Terminal = f
	}
	var ln net.Listener
	token := ""
	if c.wf.serve != "" {
		var err error
		if ln, err = net.Listen("tcp", c.wf.serve); err != nil {
			w.close()
			return nil, &usageError{msg: fmt.Sprintf("--serve %s: %v", c.wf.serve, err)}
		}
		token = watch.NewToken()
		cfg.Settings["serve"] = "http://" + ln.Addr().String() + "/"
		if !opts.DryRun {
			if err := writeToken(args[1], token); err != nil {
				ln.Close()
				w.close()
				return nil, err
			}
		}
		w.ctl = mirror.NewControl()
		opts.Control = w.ctl
	}
	w.rec = watch.New(cfg)
	opts.Events = w.rec.Event
	opts.Progress = w.rec.Progress
	if onStderr {
		// stderr carries the lines alone: what else the run says there
		// becomes a warning line.
		c.stderr = w.rec.WarningWriter()
	}
	w.rec.Start()
	if ln != nil {
		w.srv = &http.Server{Handler: w.rec.Handler(w.ctl, token), ReadHeaderTimeout: 10 * time.Second}
		go w.srv.Serve(ln)
		fmt.Fprintf(c.stderr, "gofer: dashboard at http://%s/?token=%s (token %s)\n", ln.Addr(), token, token)
	}
	return w, nil
}

// writeToken keeps the run's token in DIR/.gofer/serve-token, readable by
// its owner alone.
func writeToken(dir, token string) error {
	state := filepath.Join(dir, ".gofer")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return fmt.Errorf("mirror state: %w", err)
	}
	return atomicfile.Write(filepath.Join(state, "serve-token"), 0o600, func(w *bufio.Writer) error {
		_, err := w.WriteString(token + "\n")
		return err
	})
}

// end records the run's outcome, keeps the report and stops serving.
func (w *watching) end(sum *mirror.Summary, code int) {
	if w == nil {
		return
	}
	w.rec.End(sum, code)
	if !w.dryRun && sum != nil {
		if err := w.report(); err != nil {
			fmt.Fprintf(w.c.stderr, "gofer: warning: report: %v\n", err)
		}
	}
	if w.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		w.srv.Shutdown(ctx)
		cancel()
	}
	w.close()
}

func (w *watching) close() {
	if w.file != nil {
		w.file.Close()
		w.file = nil
	}
}

// report keeps the final page in DIR/.gofer/reports/TIME.html.
func (w *watching) report() error {
	dir := filepath.Join(w.dir, ".gofer", "reports")
	if fi, err := os.Lstat(filepath.Join(w.dir, ".gofer")); err != nil || !fi.IsDir() {
		return errors.New("no state directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := w.started.UTC().Format("20060102T150405Z")
	if w.c.cl.worker != "" {
		name += "-" + w.c.cl.worker
	}
	rules := w.rules
	if w.ctl != nil {
		rules = w.ctl.Filters()
	}
	return atomicfile.Write(filepath.Join(dir, name+".html"), 0o644, func(out *bufio.Writer) error {
		return w.rec.WriteReport(out, rules)
	})
}
