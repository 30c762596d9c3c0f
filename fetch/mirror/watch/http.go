package watch

import (
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/schemes"
)

// The dashboard's URL space:
//
//	GET  /                 the page (with ?token=T its forms carry the token)
//	GET  /?part=live       the page's changing part, for the page's script
//	GET  /dashboard.js     the script that redraws the page on each stats line
//	GET  /api/progress     the latest stats line
//	GET  /api/events       the JSON lines as server-sent events
//	POST /api/pause        pause; /api/resume resumes
//	POST /api/exclude      pattern=GLOB adds an exclude rule; /api/include
//	                       an include rule; DELETE (or remove=1) takes one back
//	POST /api/settings     limit_rate=BYTES, max_per_host=N
//
// A change needs the run's token, in the X-Gofer-Token header or a token
// form field: without it, 403. A form sent by the page is answered by a
// redirect back to it, an API call by a JSON object. Requests whose Host is
// not a loopback address are refused, so that a page elsewhere cannot
// reach the dashboard through a name that resolves to loopback.

//go:embed dashboard.html
var dashboardHTML string

//go:embed dashboard.js
var dashboardJS string

//go:embed board.html
var boardHTML string

var pageTmpl = template.Must(template.New("dashboard").Funcs(template.FuncMap{
	"bytes":    func(n int64) string { return Bytes(float64(n)) },
	"rate":     func(r float64) string { return Bytes(r) + "/s" },
	"duration": func(s *float64) string { return Duration(*s) },
}).Parse(dashboardHTML + boardHTML))

// pageCSP lets the page run its own script and nothing else.
const pageCSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// reportCSP is the kept report's: no script at all.
const reportCSP = "default-src 'none'; style-src 'unsafe-inline'"

// NewToken returns a fresh random token for a run.
func NewToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// CheckListen reports whether addr (HOST:PORT) is a loopback address, as
// the dashboard must listen on.
func CheckListen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("dashboard address %q: want HOST:PORT", addr)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("dashboard address %q: %w (the dashboard steers the run: it listens on 127.0.0.1, [::1] or localhost only)", addr, ErrNotLoopback)
	}
	return nil
}

// Handler serves the dashboard; ctl (nil for none) is what its forms and
// API steer, token what a change must carry.
func (r *Recorder) Handler(ctl *mirror.Control, token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, req *http.Request) {
		d := r.pageData(ctl)
		d.Live = true
		if t := req.URL.Query().Get("token"); t != "" && validToken(t, token) {
			d.Token = t
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", pageCSP)
		w.Header().Set("Cache-Control", "no-store")
		name := "page"
		if req.URL.Query().Get("part") == "live" {
			name = "live"
		}
		pageTmpl.ExecuteTemplate(w, name, d)
	})
	mux.HandleFunc("GET /dashboard.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		io.WriteString(w, dashboardJS)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent) // none, and no error for it
	})
	mux.HandleFunc("GET /api/progress", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(append(r.LatestStats(), '\n'))
	})
	mux.HandleFunc("GET /api/events", r.serveEvents)
	r.steerRoutes(mux, ctl, token)
	return loopbackOnly(mux)
}

// steerRoutes adds to mux the changes a run takes while it goes on:
// pause and resume, rules added and taken back, settings. Each needs the
// token, and ctl; a run that has ended takes none.
func (r *Recorder) steerRoutes(mux *http.ServeMux, ctl *mirror.Control, token string) {
	steer := func(do func(req *http.Request) (any, error)) http.HandlerFunc {
		return steering(token, "/", func(req *http.Request) (any, error) {
			if ctl == nil || r.Ended() {
				return nil, errEnded
			}
			return do(req)
		})
	}
	mux.HandleFunc("POST /api/pause", steer(func(*http.Request) (any, error) {
		ctl.Pause()
		return map[string]any{"paused": true}, nil
	}))
	mux.HandleFunc("POST /api/resume", steer(func(*http.Request) (any, error) {
		ctl.Resume()
		return map[string]any{"paused": false}, nil
	}))
	for _, kind := range []string{"exclude", "include"} {
		rule := func(req *http.Request, remove bool) (any, error) {
			f := mirror.Filter{Exclude: kind == "exclude", Glob: req.FormValue("pattern")}
			if remove || req.FormValue("remove") == "1" {
				if !ctl.RemoveFilter(f) {
					return nil, fmt.Errorf("no rule %s", f)
				}
			} else if err := ctl.AddFilter(f); err != nil {
				return nil, err
			}
			return map[string]any{"rules": RuleStrings(ctl.Filters())}, nil
		}
		mux.HandleFunc("POST /api/"+kind, steer(func(req *http.Request) (any, error) { return rule(req, false) }))
		mux.HandleFunc("DELETE /api/"+kind, steer(func(req *http.Request) (any, error) { return rule(req, true) }))
	}
	mux.HandleFunc("POST /api/settings", steer(settingsChange(ctl)))
}

// settingsChange is the change of /api/settings: the byte budget
// (limit_rate) and the streams per server (max_per_host).
func settingsChange(ctl *mirror.Control) func(req *http.Request) (any, error) {
	return func(req *http.Request) (any, error) {
		out := map[string]any{}
		if v := req.FormValue("limit_rate"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("limit_rate %q: want bytes a second", v)
			}
			if err := ctl.SetLimitRate(n); err != nil {
				return nil, err
			}
			out["limit_rate"] = n
		}
		if v := req.FormValue("max_per_host"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("max_per_host %q: want a number", v)
			}
			if err := ctl.SetMaxPerHost(n); err != nil {
				return nil, err
			}
			out["max_per_host"] = n
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("nothing to set: send limit_rate or max_per_host")
		}
		return out, nil
	}
}

// errEnded is a change asked of a run that has ended.
var errEnded = errors.New("the run has ended")

// steering is the handler of one change: the token checked (the
// X-Gofer-Token header, or a form's token field), then do. A form is
// answered by a redirect to the page back (its token kept), an API call by
// do's result as JSON; do's error by its status: 409 for errEnded, 404 for
// a refusal (no such job), 502 for a server that failed, 400 otherwise.
func steering(token, back string, do func(*http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		t, form := req.Header.Get("X-Gofer-Token"), false
		if t == "" {
			t, form = req.FormValue("token"), true
		}
		if !validToken(t, token) {
			http.Error(w, "403 forbidden: a change needs the token (X-Gofer-Token or the token field)", http.StatusForbidden)
			return
		}
		out, err := do(req)
		if err != nil {
			code := http.StatusBadRequest
			switch {
			case errors.Is(err, errEnded):
				code = http.StatusConflict
			case errors.Is(err, schemes.ErrRefused):
				code = http.StatusNotFound
			case errors.Is(err, schemes.ErrConnect):
				code = http.StatusBadGateway
			}
			http.Error(w, fmt.Sprintf("%d %s: %v", code, strings.ToLower(http.StatusText(code)), err), code)
			return
		}
		if form && req.Header.Get("Accept") != "application/json" {
			http.Redirect(w, req, back+"?token="+url.QueryEscape(t), http.StatusSeeOther)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	}
}

func validToken(got, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// RuleStrings writes rules as "exclude GLOB" and "include GLOB".
func RuleStrings(fs []mirror.Filter) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.String()
	}
	return out
}

// loopbackOnly refuses a request whose Host names anything but loopback.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		host := req.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		host = strings.Trim(host, "[]")
		ip, err := netip.ParseAddr(host)
		if host != "localhost" && (err != nil || !ip.IsLoopback()) {
			http.Error(w, "403 forbidden: the dashboard answers loopback names only", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, req)
	})
}

// serveEvents streams the JSON lines as server-sent events, beginning
// with the latest stats line, until the run ends or the reader leaves.
func (r *Recorder) serveEvents(w http.ResponseWriter, req *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch, cancel := r.subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, "retry: 2000\ndata: %s\n\n", r.LatestStats())
	fl.Flush()
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case b, ok := <-ch:
			if !ok {
				r.mu.Lock()
				end := r.endLine
				r.mu.Unlock()
				if end != nil {
					fmt.Fprintf(w, "data: %s\n\n", end)
				}
				return
			}
			fmt.Fprintf(w, "data: %s\n\n", b)
			fl.Flush()
		case <-keep.C:
			io.WriteString(w, ": still here\n\n")
			fl.Flush()
		case <-req.Context().Done():
			return
		}
	}
}

// pageData is what the page shows.
type pageData struct {
	URL, Dir, Job, Started string
	Stats                  Stats
	Ended                  bool
	Summary                *mirror.Summary
	ItemsChart, BytesChart template.HTML
	RateChart              template.HTML
	Recent                 []Point
	Hosts                  []hostRow
	Types, Sizes           []countRow
	Failures               []Failure
	Filters                []mirror.Filter
	Token                  string
	Steer, Live            bool
}

type hostRow struct {
	Name             string
	Streams, Allowed int
	Limit            int
}

type countRow struct {
	Name         string
	Items, Bytes int64
}

func (r *Recorder) pageData(ctl *mirror.Control) pageData {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := pageData{URL: r.cfg.URL, Dir: r.cfg.Dir, Job: r.cfg.Job, Started: r.start.UTC().Format(time.RFC3339),
		Stats: r.stats, Ended: r.ended, Summary: r.summary, Failures: slices.Clone(r.failures)}
	slices.Reverse(d.Failures)
	if d.Stats.Changes == nil {
		d.Stats.Changes = map[string]int64{}
	}
	d.ItemsChart = chart("Items over time", "items", r.series, []line{
		{"done", "#06c", func(p Point) float64 { return float64(p.Done) }},
		{"failed", "#c00", func(p Point) float64 { return float64(p.Failed) }}})
	d.BytesChart = chart("Bytes received over time", "bytes", r.series, []line{
		{"bytes", "#080", func(p Point) float64 { return float64(p.Bytes) }}})
	d.RateChart = chart("Rate over time", "bytes/s", r.series, []line{
		{"bytes/s", "#a60", func(p Point) float64 { return p.Rate }}})
	d.Recent = slices.Clone(r.series[max(0, len(r.series)-10):])
	for name, h := range r.stats.Hosts {
		row := hostRow{Name: name, Streams: h.Streams, Allowed: h.Allowed}
		if h.Limit != nil {
			row.Limit = *h.Limit
		}
		d.Hosts = append(d.Hosts, row)
	}
	slices.SortFunc(d.Hosts, func(a, b hostRow) int { return strings.Compare(a.Name, b.Name) })
	for name, c := range r.types {
		d.Types = append(d.Types, countRow{name, c.Items, c.Bytes})
	}
	slices.SortFunc(d.Types, func(a, b countRow) int {
		if a.Items != b.Items {
			return int(b.Items - a.Items)
		}
		return strings.Compare(a.Name, b.Name)
	})
	for i, c := range r.sizes {
		d.Sizes = append(d.Sizes, countRow{sizeNames[i], c.Items, c.Bytes})
	}
	if ctl != nil {
		d.Filters = ctl.Filters()
		d.Steer = !r.ended
		// Now, not as of the last snapshot: the page a Pause or Resume
		// button leads to shows what it did.
		d.Stats.Paused = ctl.Paused()
	}
	return d
}

// WriteReport writes the dashboard's page as it stands, as a page of its
// own: no script, no forms.
func (r *Recorder) WriteReport(w io.Writer, rules []mirror.Filter) error {
	d := r.pageData(nil)
	d.Filters = rules
	return pageTmpl.ExecuteTemplate(w, "page", d)
}

// ReportCSP is the Content-Security-Policy a served report takes.
const ReportCSP = reportCSP
