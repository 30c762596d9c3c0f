package gateway

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// CheckAllowPattern says what is wrong with an upstream allowlist pattern,
// nil when it reads: a host glob ("*.example.org", "192.0.2.*",
// "archive.example.org") or an IPv6 literal in brackets ("[2001:db8::1]"),
// each with an optional ":PORT".
func CheckAllowPattern(p string) error {
	host, port, err := splitPattern(p)
	if err != nil {
		return err
	}
	if host == "" {
		return fmt.Errorf("allowlist pattern %q names no host", p)
	}
	if _, err := path.Match(host, ""); err != nil {
		return fmt.Errorf("allowlist pattern %q: %v", p, err)
	}
	if port < 0 {
		return fmt.Errorf("allowlist pattern %q: bad port", p)
	}
	return nil
}

// splitPattern parts a pattern into its host glob (lower case, an IPv6
// literal without its brackets) and its port (0 when it names none).
func splitPattern(p string) (string, int, error) {
	host, portText := p, ""
	if strings.HasPrefix(p, "[") {
		end := strings.IndexByte(p, ']')
		if end < 0 {
			return "", 0, fmt.Errorf("allowlist pattern %q: an IPv6 literal without its ']'", p)
		}
		host, portText = p[1:end], strings.TrimPrefix(p[end+1:], ":")
		if rest := p[end+1:]; rest != "" && !strings.HasPrefix(rest, ":") {
			return "", 0, fmt.Errorf("allowlist pattern %q: %q after the IPv6 literal", p, rest)
		}
	} else if h, pt, ok := strings.Cut(p, ":"); ok {
		host, portText = h, pt
	}
	port := 0
	if portText != "" {
		n, err := strconv.Atoi(portText)
		if err != nil || n < 1 || n > 65535 {
			return "", -1, nil
		}
		port = n
	}
	return strings.ToLower(host), port, nil
}

// Allowed reports whether an upstream host and port match one of the
// patterns (see CheckAllowPattern). A pattern without a port matches
// every port; a host is matched in lower case, an IPv6 literal without
// its brackets. A pattern that does not read matches nothing.
func Allowed(patterns []string, host string, port int) bool {
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	for _, p := range patterns {
		h, pt, err := splitPattern(p)
		if err != nil || pt < 0 || pt != 0 && pt != port {
			continue
		}
		if ok, err := path.Match(h, host); err == nil && ok {
			return true
		}
	}
	return false
}
