package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/fetch/mirror/cluster"
)

// clusterFlags are mirror's flags for a crawl shared through NATS JetStream.
type clusterFlags struct {
	url     string // --cluster nats://HOST:PORT
	creds   string // --cluster-creds FILE
	job     string // --job NAME
	worker  string // --worker NAME
	status  bool   // --status
	ackWait time.Duration
	crawl   *cluster.Crawl
}

func (c *cli) clusterFlagsOn(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&c.cl.url, "cluster", "", "run as one worker of a crawl shared through the NATS JetStream server `nats://HOST:PORT`")
	f.StringVar(&c.cl.creds, "cluster-creds", "", "NATS credentials `FILE` for --cluster (or USER:PASSWORD@ in its URL)")
	f.StringVar(&c.cl.job, "job", "", "with --cluster: the crawl's `NAME` (letters, digits, - and _)")
	f.StringVar(&c.cl.worker, "worker", "", "with --cluster: this worker's `NAME` (default HOST-PID); names its WARC segments")
	f.BoolVar(&c.cl.status, "status", false, "with --cluster and --job: print the job's progress and exit")
	f.DurationVar(&c.cl.ackWait, "ack-wait", cluster.DefaultAckWait, "with --cluster: give an item held by a silent worker to another after `DURATION`")
}

// clustered reports whether mirror runs as a worker of a shared crawl.
func (c *cli) clustered() bool { return c.cl.url != "" }

// checkCluster checks the cluster flags before anything is opened and
// fills in the worker's name; for a worker with --warc, the segments are
// named by the worker.
func (c *cli) checkCluster() error {
	if !c.clustered() {
		if c.cl.job != "" || c.cl.creds != "" || c.cl.worker != "" || c.cl.status {
			return &usageError{msg: "--job, --worker, --cluster-creds and --status need --cluster"}
		}
		return nil
	}
	if !cluster.ValidJob(c.cl.job) {
		return &usageError{msg: fmt.Sprintf("--job %q: want a name of 1 to 64 letters, digits, - or _", c.cl.job)}
	}
	if c.cl.creds != "" {
		if fi, err := os.Stat(c.cl.creds); err != nil || !fi.Mode().IsRegular() {
			return &usageError{msg: fmt.Sprintf("--cluster-creds %q: not a readable credentials file", c.cl.creds)}
		}
	}
	if c.cl.status {
		return nil
	}
	if c.dryRun || c.delete {
		return &usageError{msg: "--dry-run and --delete are not for a --cluster worker"}
	}
	if c.cl.ackWait < time.Second {
		return &usageError{msg: "--ack-wait must be at least 1s"}
	}
	if c.cl.worker == "" {
		host, _ := os.Hostname()
		c.cl.worker = safeWorker(fmt.Sprintf("%s-%d", host, os.Getpid()))
	}
	if !mirror.ValidWorker(c.cl.worker) {
		return &usageError{msg: fmt.Sprintf("--worker %q: want a name of 1 to 64 letters, digits, - or _", c.cl.worker)}
	}
	if c.warc.prefix != "" {
		c.warc.prefix += "-" + c.cl.worker
	}
	return nil
}

// safeWorker keeps the characters a worker name may hold.
func safeWorker(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[len(b)-64:]
	}
	return string(b)
}

func (c *cli) clusterOptions() cluster.Options {
	return cluster.Options{URL: c.cl.url, Creds: c.cl.creds, Job: c.cl.job, Worker: c.cl.worker, AckWait: c.cl.ackWait}
}

// joinCluster opens this worker's connection to the crawl and sets the
// mirror's options to use it.
func (c *cli) joinCluster(ctx context.Context, opts *mirror.Options) error {
	crawl, err := cluster.Open(ctx, c.clusterOptions())
	if err != nil {
		return err
	}
	c.cl.crawl = crawl
	opts.Shared, opts.Worker = crawl, c.cl.worker
	// The job's control (gofer serve --cluster) steers every worker.
	if opts.Control == nil {
		opts.Control = mirror.NewControl()
	}
	crawl.Steer(ctx, opts.Control)
	progress := opts.Progress
	opts.Progress = func(p mirror.Progress) {
		crawl.Progress(0, p.Bytes)
		holding := []string{}
		for _, w := range p.Workers {
			if w != "" {
				holding = append(holding, w)
			}
		}
		crawl.Holding(holding, p.Paused)
		if progress != nil {
			progress(p)
		}
	}
	return nil
}

// leaveCluster writes the worker's last status and closes its connection;
// items it parked are reported and counted as failures.
func (c *cli) leaveCluster(sum *mirror.Summary, err error) {
	crawl := c.cl.crawl
	if crawl == nil {
		return
	}
	state := "finished"
	if err != nil {
		state = "stopped"
	}
	for _, p := range crawl.Parked() {
		fmt.Fprintf(c.stderr, "gofer: parked after %d deliveries: %s\n", p.Deliveries, printable(string(p.Item)))
		if sum != nil {
			sum.Failed++
		}
	}
	if sum != nil {
		crawl.Progress(sum.Failed, sum.Bytes)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	crawl.Close(ctx, state)
	c.cl.crawl = nil
}

// runStatus prints a job's progress: text, or the JobStatus object with --json.
func (c *cli) runStatus(cmd *cobra.Command) error {
	st, err := cluster.Status(cmd.Context(), c.clusterOptions())
	if err != nil {
		return err
	}
	if c.json {
		return json.NewEncoder(c.stdout).Encode(st)
	}
	fmt.Fprintf(c.stdout, "job %s: run %d, %s, %s\n", st.Job, st.Run, st.State, printable(st.URL))
	fmt.Fprintf(c.stdout, "queued %d, in flight %d, done %d, failed %d, parked %d\n", st.Queued, st.InFlight, st.Done, st.Failed, st.Parked)
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tHOST\tSTATE\tDONE\tFAILED\tPARKED\tBYTES\tSEEN")
	for _, w := range st.Workers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", w.Worker, printable(w.Host), w.State, w.Done, w.Failed, w.Parked,
			w.Bytes, w.Seen.Format(time.RFC3339))
	}
	return tw.Flush()
}

// statusArgs lets --status run without URL and DIR.
func (c *cli) statusArgs(args []string) bool {
	return c.cl.status && len(args) == 0 && strings.TrimSpace(c.cl.url) != ""
}
