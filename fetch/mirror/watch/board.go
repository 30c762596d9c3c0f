package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"sync"
	"time"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/fetch/mirror/cluster"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// A Board shows the shared crawls (package cluster) of one NATS server,
// and steers them:
//
//	GET  /jobs/                    the page: each job's totals, its
//	                               throughput over time, its workers and
//	                               what each holds, items reassigned
//	GET  /api/jobs                 the same as JSON (?job=NAME: that job's)
//	POST /api/jobs/JOB/pause       pause every worker of JOB; /resume
//	POST /api/jobs/JOB/exclude     pattern=GLOB: an exclude rule for every
//	                               worker (remove=1, or DELETE, takes it back)
//
// A change needs the token, as the dashboard's do; what the board shows
// is read-only.
type Board struct {
	opts  cluster.Options
	token string

	mu     sync.Mutex
	series map[string][]Point // per job, sampled while the board runs
	start  time.Time
}

// NewBoard returns a board of the server opts.URL names.
func NewBoard(opts cluster.Options, token string) *Board {
	return &Board{opts: opts, token: token, series: map[string][]Point{}, start: time.Now()}
}

// boardEvery is how often Run samples the jobs.
const boardEvery = 2 * time.Second

// Run samples every job's progress for the charts until ctx ends.
func (b *Board) Run(ctx context.Context) {
	t := time.NewTicker(boardEvery)
	defer t.Stop()
	for {
		b.sample(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (b *Board) sample(ctx context.Context) {
	jobs, err := cluster.Jobs(ctx, b.opts)
	if err != nil {
		return
	}
	now := time.Since(b.start).Seconds()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, j := range jobs {
		s := b.series[j.Job]
		p := Point{T: now, Done: j.Done, Failed: j.Failed, Bytes: j.Bytes}
		if n := len(s); n > 0 && now > s[n-1].T {
			p.Rate = float64(p.Bytes-s[n-1].Bytes) / (now - s[n-1].T)
		}
		s = append(s, p)
		if len(s) > maxPoints {
			s = s[len(s)-maxPoints:]
		}
		b.series[j.Job] = s
	}
}

// jobJSON is a job as /api/jobs answers it.
type jobJSON struct {
	Job             string       `json:"job"`
	URL             string       `json:"url"`
	Run             uint64       `json:"run"`
	State           string       `json:"state"`
	Workers         []workerJSON `json:"workers"`
	Done            int64        `json:"done"`
	Failed          int64        `json:"failed"`
	Queued          uint64       `json:"queued"`
	InFlight        int          `json:"in_flight"`
	Bytes           int64        `json:"bytes"`
	Reassigned      int64        `json:"reassigned"`
	ReassignSeconds float64      `json:"reassign_seconds"`
	Paused          bool         `json:"paused"`
	Rules           []string     `json:"rules"`
	Throughput      []Point      `json:"throughput"`
}

type workerJSON struct {
	Name       string   `json:"name"`
	Host       string   `json:"host"`
	State      string   `json:"state"`
	Holding    []string `json:"holding"`
	Done       int64    `json:"done"`
	Failed     int64    `json:"failed"`
	Bytes      int64    `json:"bytes"`
	Paused     bool     `json:"paused"`
	Reassigned int64    `json:"reassigned"`
}

// Handler serves the board's pages and API.
func (b *Board) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jobs/{$}", b.servePage)
	mux.HandleFunc("GET /api/jobs", b.serveJobs)
	mux.HandleFunc("POST /api/jobs/{job}/pause", b.steer(func(_ *http.Request, jc *cluster.JobControl) error {
		jc.Paused = true
		return nil
	}))
	mux.HandleFunc("POST /api/jobs/{job}/resume", b.steer(func(_ *http.Request, jc *cluster.JobControl) error {
		jc.Paused = false
		return nil
	}))
	mux.HandleFunc("POST /api/jobs/{job}/exclude", b.exclude(false))
	mux.HandleFunc("DELETE /api/jobs/{job}/exclude", b.exclude(true))
	return mux
}

// servePage is the board's page: every job, with its chart.
func (b *Board) servePage(w http.ResponseWriter, req *http.Request) {
	jobs, err := cluster.Jobs(req.Context(), b.opts)
	d := struct {
		Server string
		Jobs   []*cluster.JobStatus
		Charts map[string]template.HTML
		Err    string
		Token  string
	}{Server: security.RedactURL(b.opts.URL), Jobs: jobs, Charts: map[string]template.HTML{}}
	if err != nil {
		d.Err = err.Error()
	}
	if t := req.URL.Query().Get("token"); validToken(t, b.token) {
		d.Token = t
	}
	b.mu.Lock()
	for _, j := range jobs {
		d.Charts[j.Job] = chart("Items done over time", "items", b.series[j.Job], []line{
			{"done", "#06c", func(p Point) float64 { return float64(p.Done) }},
			{"failed", "#c00", func(p Point) float64 { return float64(p.Failed) }}})
	}
	b.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", reportCSP+"; form-action 'self'")
	w.Header().Set("Cache-Control", "no-store")
	pageTmpl.ExecuteTemplate(w, "board", d)
}

// serveJobs is /api/jobs: the jobs asked for (?job=, any number; all
// without), each with its workers and its throughput, as JSON.
func (b *Board) serveJobs(w http.ResponseWriter, req *http.Request) {
	only := req.URL.Query()["job"]
	for _, j := range only {
		if !cluster.ValidJob(j) {
			http.Error(w, "400 bad request: not a job name", http.StatusBadRequest)
			return
		}
	}
	jobs, err := cluster.Jobs(req.Context(), b.opts, only...)
	if err != nil {
		http.Error(w, "502 bad gateway: "+err.Error(), http.StatusBadGateway)
		return
	}
	out := []jobJSON{}
	b.mu.Lock()
	for _, j := range jobs {
		jj := jobJSON{Job: j.Job, URL: j.URL, Run: j.Run, State: j.State, Done: j.Done, Failed: j.Failed, Queued: j.Queued,
			InFlight: j.InFlight, Bytes: j.Bytes, Reassigned: j.Reassigned, ReassignSeconds: j.ReassignSeconds,
			Paused: j.Control.Paused, Rules: RuleStrings(j.Control.Rules), Throughput: b.series[j.Job], Workers: []workerJSON{}}
		if jj.Throughput == nil {
			jj.Throughput = []Point{}
		}
		for _, wk := range j.Workers {
			jj.Workers = append(jj.Workers, workerJSON{Name: wk.Worker, Host: wk.Host, State: wk.State, Holding: wk.Holding,
				Done: wk.Done, Failed: wk.Failed, Bytes: wk.Bytes, Paused: wk.Paused, Reassigned: wk.Reassigned})
		}
		out = append(out, jj)
	}
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(out)
}

// steer is the handler of one change to the job the path names.
func (b *Board) steer(change func(req *http.Request, jc *cluster.JobControl) error) http.HandlerFunc {
	return steering(b.token, "/jobs/", func(req *http.Request) (any, error) {
		job := req.PathValue("job")
		if !cluster.ValidJob(job) {
			return nil, fmt.Errorf("%q is not a job name", job)
		}
		opts := b.opts
		opts.Job = job
		jc, err := cluster.Steer(req.Context(), opts, func(jc *cluster.JobControl) error { return change(req, jc) })
		if err != nil {
			return nil, err
		}
		return map[string]any{"job": job, "paused": jc.Paused, "rules": RuleStrings(jc.Rules)}, nil
	})
}

// exclude adds an exclusion rule to a job, or takes it back (remove, or
// the form's remove=1).
func (b *Board) exclude(remove bool) http.HandlerFunc {
	return b.steer(func(req *http.Request, jc *cluster.JobControl) error {
		f := mirror.Filter{Exclude: true, Glob: req.FormValue("pattern")}
		if err := mirror.CheckFilters([]mirror.Filter{f}); err != nil {
			return err
		}
		if i := lastIndex(jc.Rules, f); i >= 0 {
			if remove || req.FormValue("remove") == "1" {
				jc.Rules = append(jc.Rules[:i:i], jc.Rules[i+1:]...)
			}
			return nil
		}
		if remove || req.FormValue("remove") == "1" {
			return fmt.Errorf("no rule %s: %w", f, schemes.ErrUsage)
		}
		jc.Rules = append(jc.Rules, f)
		return nil
	})
}

func lastIndex(fs []mirror.Filter, f mirror.Filter) int {
	for i := len(fs) - 1; i >= 0; i-- {
		if fs[i] == f {
			return i
		}
	}
	return -1
}
