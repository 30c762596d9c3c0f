package fetch

import (
	"context"
	"net/url"
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// follow fetches u and then every redirect target: at most MaxRedirects
// hops, no loops, only http, https and ftp targets (a prospero resolution
// also gopher, wais, news and nntp ones: security.CheckRedirectFrom), never
// file (a server must not make the client read local files), credentials
// kept to their own host, the guard on every hop.
func (c *Client) follow(ctx context.Context, r *Request, u *schemes.URL) (*Response, error) {
	max := c.opts.MaxRedirects
	if max == 0 {
		max = DefaultMaxRedirects
	}
	secrets := []string{u.Password}
	fail := func(u *schemes.URL, err error) (*Response, error) {
		return nil, &Error{Op: "get", URL: u.Redacted(), Err: err, secrets: secrets}
	}
	g := c.guardFor(nil)
	if r.quiet {
		g.Warn = func(string) {}
	}
	visited := map[string]bool{visitKey(u): true}
	for hops := 0; ; hops++ {
		resp, err := c.fetchOne(ctx, r, u, g)
		if err != nil {
			return fail(u, err)
		}
		if resp.Kind != schemes.KindRedirect || max < 0 {
			resp, err = c.limit(resp)
			if err != nil {
				return fail(u, err)
			}
			resp.SetBody()
			return resp, nil
		}
		loc := resp.Location
		resp.Close()
		if hops >= max {
			return fail(u, schemes.Errorf(schemes.ErrRefused, "more than %d redirects", max))
		}
		next, err := resolveLocation(u, loc)
		if err != nil {
			return fail(u, err)
		}
		if err := security.CheckRedirectFrom(u, next); err != nil {
			return fail(u, err)
		}
		carryCredentials(u, next)
		key := visitKey(next)
		if visited[key] {
			return fail(u, schemes.Errorf(schemes.ErrRefused, "redirect loop at %s", next.Redacted()))
		}
		visited[key] = true
		secrets = append(secrets, next.Password)
		u = next
	}
}

// resolveLocation resolves a redirect's Location against the URL that sent
// it, as HTTP does (RFC 3986 §5), and parses the result as a gofer URL.
func resolveLocation(base *schemes.URL, loc string) (*schemes.URL, error) {
	loc = strings.TrimSpace(loc)
	if loc == "" {
		return nil, schemes.Errorf(schemes.ErrRefused, "redirect without a location")
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrRefused, "redirect to a malformed location %q", security.RedactURL(loc))
	}
	target := ref
	if !ref.IsAbs() {
		b, err := url.Parse(base.String())
		if err != nil {
			return nil, schemes.Errorf(schemes.ErrRefused, "cannot resolve redirect location %q", security.RedactURL(loc))
		}
		target = b.ResolveReference(ref)
	}
	next, err := schemes.Parse(target.String())
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrRefused, "redirect to a malformed location: %v", err)
	}
	return next, nil
}

// carryCredentials keeps the login of from on a hop to the same scheme,
// host and port, and takes every login off a hop anywhere else, so that a
// server cannot send a password on to another host.
func carryCredentials(from, to *schemes.URL) {
	same := from.Scheme == to.Scheme && strings.EqualFold(from.Host, to.Host) &&
		from.EffectivePort() == to.EffectivePort()
	switch {
	case !same:
		to.User, to.Password, to.HasUser, to.HasPassword = "", "", false, false
	case !to.HasUser:
		to.User, to.Password, to.HasUser, to.HasPassword = from.User, from.Password, from.HasUser, from.HasPassword
	}
}

// visitKey identifies a URL for loop detection: its canonical form without
// fragment, which is never sent.
func visitKey(u *schemes.URL) string {
	v := *u
	v.Fragment, v.HasFragment = "", false
	return v.String()
}
