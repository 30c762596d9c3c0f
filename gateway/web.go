package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/replay"
	"github.com/goferurl/gofer/schemes"
)

// Time travel through captures, in the conventions web archives use: the
// Wayback Machine's paths, pywb's capture lists and Memento (RFC 7089).
//
//	/web/TIMESTAMP/URL     the capture of URL nearest TIMESTAMP (1 to 14
//	                       digits, YYYYMMDDhhmmss; a short one is padded with
//	                       the earliest values); any other TIMESTAMP than the
//	                       capture's own is a 302 to it
//	/web/TIMESTAMPid_/URL  the captured bytes unchanged (the identity form)
//	/web/*/URL             every capture of URL
//	/web/*/PREFIX*         every captured URL that starts with PREFIX
//	/web/URL               a Memento TimeGate: Accept-Datetime picks the
//	                       capture (the latest without it), answered by a 302
//	/timemap/link/URL      a Memento TimeMap in application/link-format

// stamp is the 14-digit form of a capture time.
const stamp = "20060102150405"

var tsPath = regexp.MustCompile(`^([0-9]{1,14})(id_)?/`)

// banner is what a page says above what it shows: of a capture, when it
// was made, the previous and next captures of the same URL, all of them,
// and the URL live; of any page, a warning (Note).
type banner struct {
	Note  string
	Time  string // "" for a live page
	Prev  string // a gateway path, "" when none
	Next  string
	All   string
	Live  string // "" when the gateway fetches nothing live
	Raw   string // the captured bytes (the identity form)
	Count int
	// captured reports whether the archive holds a capture of a URL the
	// page links to, nil for a live page.
	captured func(raw string) bool
}

// offlineDialer refuses every connection: what the gateway shows of an
// archive comes from the archive alone.
type offlineDialer struct{}

func (offlineDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("the gateway answers from its archive: no connection is opened")
}

// at is the archive's fetcher as of t.
func (g *Gateway) at(t time.Time) *replay.Fetcher { return replay.NewFetcher(g.cfg.Archive.At(t)) }

// archived is a client that answers every URL from f's archive alone.
func archived(f *replay.Fetcher) *fetch.Client {
	opts := fetch.Options{Dialer: offlineDialer{}, MaxRedirects: -1}
	for _, s := range f.Schemes() {
		opts.SetFetcher(f, s)
	}
	return fetch.NewClient(opts)
}

// padStamp reads a timestamp of 1 to 14 digits as the Wayback Machine
// does: what is missing is the earliest (month and day 01, the rest 0).
func padStamp(ts string) (time.Time, error) {
	return time.Parse(stamp, ts+"00000101000000"[len(ts):])
}

func (g *Gateway) web(w http.ResponseWriter, r *http.Request) {
	if g.cfg.Archive == nil {
		g.fail(w, http.StatusNotFound, "this gateway serves no archive")
		return
	}
	rest := target(r, "/web/")
	switch m := tsPath.FindStringSubmatch(rest); {
	case strings.HasPrefix(rest, "*/"):
		g.captures(w, collapsed(rest[2:]))
	case m != nil:
		g.memento(w, r, m[1], m[2] != "", collapsed(rest[len(m[0]):]))
	default:
		g.timegate(w, r, rest)
	}
}

// memento answers the capture of raw nearest ts.
func (g *Gateway) memento(w http.ResponseWriter, r *http.Request, ts string, identity bool, raw string) {
	at, err := padStamp(ts)
	if err != nil {
		g.fail(w, http.StatusBadRequest, fmt.Sprintf("timestamp %s: %v", ts, err))
		return
	}
	u, err := fetch.ParseURL(raw)
	if err != nil {
		g.fail(w, status(err), err.Error())
		return
	}
	f := g.at(at)
	when, ok := f.CaptureTime(raw)
	if !ok {
		g.notCaptured(w, raw)
		return
	}
	exact := when.UTC().Format(stamp)
	id := ""
	if identity {
		id = "id_"
	}
	if ts != exact {
		redirect(w, "/web/"+exact+id+"/"+raw)
		return
	}
	client := archived(f)
	defer client.Close()
	resp, err := client.Do(r.Context(), &fetch.Request{URL: raw, Parsed: u})
	if err != nil {
		if errors.Is(err, replay.ErrNotCaptured) {
			g.notCaptured(w, raw)
			return
		}
		g.fail(w, status(err), err.Error())
		return
	}
	defer resp.Close()
	h := w.Header()
	h.Set("Memento-Datetime", when.UTC().Format(http.TimeFormat))
	h.Set("Link", mementoLinks(raw, "original", "timegate", "timemap"))
	if identity {
		h.Set("Content-Type", "application/octet-stream")
		if resp.Kind == schemes.KindFile {
			h.Set("Content-Type", contentType(resp))
		}
		h.Set("Content-Security-Policy", sandboxCSP)
		w.WriteHeader(http.StatusOK)
		stream(w, resp.Body)
		return
	}
	g.show(w, u, resp, linker("/web/"+exact+"/"), g.bannerFor(f, raw, when))
}

// bannerFor is the banner of raw's capture made at when.
func (g *Gateway) bannerFor(f *replay.Fetcher, raw string, when time.Time) *banner {
	b := &banner{Time: when.UTC().Format(time.DateTime) + " UTC", All: "/web/*/" + raw,
		Raw:      "/web/" + when.UTC().Format(stamp) + "id_/" + raw,
		captured: func(raw string) bool { _, ok := f.CaptureTime(raw); return ok }}
	if g.cfg.Client != nil && live.to(raw) != "" {
		b.Live = live.to(raw)
	}
	cs := f.Captures(raw)
	b.Count = len(cs)
	for i, c := range cs {
		if !c.Time.Equal(when) {
			continue
		}
		// Several records of one time (a response and its metadata) are
		// one capture: step past them.
		for j := i - 1; j >= 0; j-- {
			if !cs[j].Time.Equal(when) {
				b.Prev = "/web/" + cs[j].Time.UTC().Format(stamp) + "/" + raw
				break
			}
		}
		for j := i + 1; j < len(cs); j++ {
			if !cs[j].Time.Equal(when) {
				b.Next = "/web/" + cs[j].Time.UTC().Format(stamp) + "/" + raw
				break
			}
		}
		break
	}
	return b
}

// notCaptured says the archive holds no capture of raw, with the live link
// beside it.
func (g *Gateway) notCaptured(w http.ResponseWriter, raw string) {
	msg := "the archive holds no capture of " + raw
	p := errorPage{Status: http.StatusNotFound, Text: http.StatusText(http.StatusNotFound), Message: schemes.ServerText(msg)}
	if g.cfg.Client != nil {
		p.Live = live.to(raw)
	}
	g.page(w, http.StatusNotFound, "not captured", raw, p)
}

// timegate answers with a redirect to the capture nearest the time the
// browser asks for (Accept-Datetime), the latest without one.
func (g *Gateway) timegate(w http.ResponseWriter, r *http.Request, raw string) {
	var at time.Time
	if v := r.Header.Get("Accept-Datetime"); v != "" {
		t, err := http.ParseTime(v)
		if err != nil {
			g.fail(w, http.StatusBadRequest, fmt.Sprintf("Accept-Datetime %q: not an HTTP date", v))
			return
		}
		at = t
	}
	when, ok := g.at(at).CaptureTime(raw)
	w.Header().Set("Vary", "accept-datetime")
	if !ok {
		g.notCaptured(w, raw)
		return
	}
	w.Header().Set("Link", mementoLinks(raw, "original", "timemap"))
	redirect(w, "/web/"+when.UTC().Format(stamp)+"/"+raw)
}

// mementoLinks is a Link header naming raw's original, timegate and
// timemap, those of rels.
func mementoLinks(raw string, rels ...string) string {
	var ls []string
	for _, rel := range rels {
		switch rel {
		case "original":
			ls = append(ls, "<"+raw+`>; rel="original"`)
		case "timegate":
			ls = append(ls, "</web/"+raw+`>; rel="timegate"`)
		case "timemap":
			ls = append(ls, "</timemap/link/"+raw+`>; rel="timemap"; type="application/link-format"`)
		}
	}
	return strings.Join(ls, ", ")
}

// timemap lists every capture of a URL in application/link-format (RFC
// 7089 §5.1, RFC 6690).
func (g *Gateway) timemap(w http.ResponseWriter, r *http.Request) {
	if g.cfg.Archive == nil {
		g.fail(w, http.StatusNotFound, "this gateway serves no archive")
		return
	}
	raw := target(r, "/timemap/link/")
	cs := mementos(g.at(time.Time{}).Captures(raw))
	if len(cs) == 0 {
		g.notCaptured(w, raw)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>; rel=\"original\",\n</timemap/link/%s>; rel=\"self\"; type=\"application/link-format\",\n</web/%s>; rel=\"timegate\"", raw, raw, raw)
	for i, c := range cs {
		rel := "memento"
		switch {
		case len(cs) == 1:
			rel = "first last memento"
		case i == 0:
			rel = "first memento"
		case i == len(cs)-1:
			rel = "last memento"
		}
		fmt.Fprintf(&b, ",\n</web/%s/%s>; rel=%q; datetime=%q", c.UTC().Format(stamp), raw, rel, c.UTC().Format(http.TimeFormat))
	}
	b.WriteString("\n")
	w.Header().Set("Content-Type", "application/link-format")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, b.String())
}

// mementos is the distinct capture times, oldest first.
func mementos(cs []replay.Capture) []time.Time {
	var out []time.Time
	for _, c := range cs {
		if n := len(out); n == 0 || !out[n-1].Equal(c.Time) {
			out = append(out, c.Time)
		}
	}
	return out
}

// captures lists every capture of a URL, or with a final '*' every
// captured URL under a prefix.
func (g *Gateway) captures(w http.ResponseWriter, raw string) {
	p := capturesPage{URL: raw}
	f := g.at(time.Time{})
	if prefix, ok := strings.CutSuffix(raw, "*"); ok {
		p.Prefix = true
		for _, uri := range g.cfg.Archive.URIs(prefix) {
			if len(p.Rows) == g.cfg.MaxEntries {
				p.Cut = true
				break
			}
			p.Rows = append(p.Rows, captureRow{Label: uri, Href: "/web/*/" + uri})
		}
	} else {
		for _, t := range mementos(f.Captures(raw)) {
			p.Rows = append(p.Rows, captureRow{Label: t.UTC().Format(time.DateTime) + " UTC", Href: "/web/" + t.UTC().Format(stamp) + "/" + raw})
		}
		if len(p.Rows) == 0 {
			g.notCaptured(w, raw)
			return
		}
	}
	g.page(w, http.StatusOK, raw, raw, p)
}

type (
	capturesPage struct {
		URL    string
		Prefix bool
		Rows   []captureRow
		Cut    bool
	}
	captureRow struct{ Label, Href string }
)
