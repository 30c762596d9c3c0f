package mirror

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// fetchRobots reads the server's robots.txt (Gopher: selector
// "robots.txt", as Gopher crawlers do; Gemini: /robots.txt) and returns
// the Disallow prefixes that apply to gofer. A server without one allows
// everything.
func (e *engine) fetchRobots(ctx context.Context) []string {
	ref := gopherURL(e.site.scheme, e.site.host, e.site.port, '0', "robots.txt", "")
	if e.site.scheme == "gemini" {
		ref = (&schemes.URL{Scheme: "gemini", Host: e.site.host, Port: e.site.port,
			HTTP: &schemes.HTTP{Path: "/robots.txt"}}).String()
	}
	resp, err := e.c.Do(ctx, &fetch.Request{URL: ref})
	if err != nil {
		return nil
	}
	defer resp.Close()
	if resp.Kind != schemes.KindFile || resp.Body == nil {
		return nil
	}
	return parseRobots(io.LimitReader(resp.Body, 64<<10))
}

// parseRobots returns the Disallow values of the groups for "*", "gofer"
// or "archiver" (the virtual agent Gemini's robots.txt convention names
// for mirrors and archives).
func parseRobots(r io.Reader) []string {
	var out []string
	sc := bufio.NewScanner(r)
	applies, inAgents := false, false
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		field, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		field, value = strings.ToLower(strings.TrimSpace(field)), strings.TrimSpace(value)
		switch field {
		case "user-agent":
			if !inAgents {
				applies = false
			}
			inAgents = true
			v := strings.ToLower(value)
			if v == "*" || strings.Contains(v, "gofer") || v == "archiver" {
				applies = true
			}
		case "disallow":
			inAgents = false
			if applies && value != "" {
				out = append(out, value)
			}
		default:
			inAgents = false
		}
	}
	return out
}

// robotsDisallow reports whether robots.txt excludes the selector. Gopher
// selectors may lack the leading '/' a robots.txt path has.
func (e *engine) robotsDisallow(sel string) bool {
	for _, d := range e.robots {
		if strings.HasPrefix(sel, d) || !strings.HasPrefix(sel, "/") && strings.HasPrefix("/"+sel, d) {
			return true
		}
	}
	return false
}

func sha256Of(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
