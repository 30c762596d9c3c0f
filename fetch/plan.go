package fetch

import (
	"encoding/json"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Plan is what `gofer parse` shows: the URL's parts and the exact request
// lines a fetch would write, found with no network at all.
type Plan struct {
	URL *schemes.URL
	// Requests are the protocol lines in order, without CR LF, passwords
	// the user supplied as "****". Empty for a scheme with no planner.
	Requests []string
	// Notes are the scheme's extra facts (advisory telnet login, local path, NNTP server).
	Notes map[string]string
	// Warnings are what a fetch would warn about (non-default port, password
	// in the URL); Plan sends each to Options.Warn as well.
	Warnings []string
}

// Plan parses r.URL, applies the guard (a refusal is an error, as it would
// be for Do) and asks the scheme's fetcher, if it implements
// schemes.Planner, which lines a fetch would send. It opens no connection.
func (c *Client) Plan(r *Request) (*Plan, error) {
	u, err := r.parse()
	if err != nil {
		return nil, &Error{Op: "parse", URL: security.RedactURL(r.URL), Err: err}
	}
	fail := func(err error) (*Plan, error) {
		return nil, &Error{Op: "parse", URL: u.Redacted(), Err: err, secrets: []string{u.Password}}
	}
	p := &Plan{URL: u, Requests: []string{}, Notes: map[string]string{}, Warnings: []string{}}
	if c.charsetErr != nil {
		return fail(c.charsetErr)
	}
	g := c.guardFor(func(s string) { p.Warnings = append(p.Warnings, s) })
	if _, ok := c.fetchers[u.Scheme].(schemes.Planner); !ok {
		// The charset and the guard still refuse what they would refuse.
		wire, err := c.charset.toRemote(u)
		if err == nil {
			err = g.Check(wire)
		}
		if err != nil {
			return fail(err)
		}
		return p, nil
	}
	// The request lines are those of the URL with its names as sent.
	req, f, err := c.prepare(r, u, g)
	if err != nil {
		return fail(err)
	}
	pl := f.(schemes.Planner)
	sp, err := pl.Plan(req)
	if err != nil {
		return fail(err)
	}
	if sp.Requests != nil {
		p.Requests = sp.Requests
	}
	for k, v := range sp.Notes {
		p.Notes[k] = v
	}
	return p, nil
}

// MarshalJSON writes the `parse --json` object: the URL's parts (its own
// JSON object) with "url" (canonical, password redacted), "requests",
// "notes" and "warnings" added.
func (p *Plan) MarshalJSON() ([]byte, error) {
	parts, err := json.Marshal(p.URL)
	if err != nil {
		return nil, err
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(parts, &obj); err != nil {
		return nil, err
	}
	// The parts object masks the password itself; this makes sure of it.
	for _, key := range []string{"password", "Password"} {
		var pw string
		if json.Unmarshal(obj[key], &pw) == nil && pw != "" && pw == p.URL.Password {
			obj[key] = json.RawMessage(`"****"`)
		}
	}
	add := func(key string, v any) error {
		b, err := json.Marshal(v)
		obj[key] = b
		return err
	}
	requests, notes, warnings := p.Requests, p.Notes, p.Warnings
	if requests == nil {
		requests = []string{}
	}
	if notes == nil {
		notes = map[string]string{}
	}
	if warnings == nil {
		warnings = []string{}
	}
	for _, kv := range []struct {
		k string
		v any
	}{{"url", p.URL.Redacted()}, {"requests", requests}, {"notes", notes}, {"warnings", warnings}} {
		if err := add(kv.k, kv.v); err != nil {
			return nil, err
		}
	}
	if raw, ok := schemes.RawStrings(requests); ok {
		// A name that is not UTF-8 (Latin-1 on an old server) keeps its
		// bytes here, percent-encoded, as a listing's raw_name does.
		if err := add("raw_requests", raw); err != nil {
			return nil, err
		}
	}
	return json.Marshal(obj)
}
