package schemes

import "strings"

// Resolve returns the URL that ref names in the context of u, by the rules
// for partial forms of RFC 1630 §4.1.3 ("Partial (relative) form"):
//
//   - a ref with a scheme of its own is absolute;
//   - a ref that starts with n slashes keeps the context up to (not
//     including) the first run of exactly n slashes;
//   - any other ref replaces the last path element of the context, and
//     "xxx/../" and "/./" are then removed.
//
// u's fragment is never carried over; for http, https and wais its search
// part neither.
func (u *URL) Resolve(ref string) (*URL, error) {
	ref = strings.TrimSpace(ref)
	if hasScheme(ref) {
		return Parse(ref)
	}
	base := u.String()
	if u.HasFragment {
		// String encodes every '#' inside a part: the one left starts the fragment.
		base = base[:strings.IndexByte(base, '#')]
	}
	rest := base[len(u.Scheme)+1:]
	query := u.HTTP != nil || u.Scheme == "wais"
	if query {
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			rest = rest[:q]
		}
	}
	var out string
	switch {
	case ref == "" || ref[0] == '#':
		return Parse(base + ref)
	case query && ref[0] == '?':
		out = rest + ref
	case ref[0] == '/':
		out = slashPrefix(rest, leadingSlashes(ref)) + ref
	default:
		auth, path := splitAuthority(rest)
		if auth != "" && path == "" {
			path = "/"
		}
		dir := path[:strings.LastIndexByte(path, '/')+1]
		tail := ""
		if i := strings.IndexByte(ref, '#'); i >= 0 {
			ref, tail = ref[:i], ref[i:]
		}
		if query {
			if i := strings.IndexByte(ref, '?'); i >= 0 {
				ref, tail = ref[:i], ref[i:]+tail
			}
		}
		out = auth + removeDots(dir+ref) + tail
	}
	return Parse(u.Scheme + ":" + out)
}

// hasScheme reports whether ref is absolute: RFC 1630 tells a partial form
// from an absolute one by a colon before any slash.
func hasScheme(ref string) bool {
	c := strings.IndexByte(ref, ':')
	if c <= 0 {
		return false
	}
	for i := 0; i < c; i++ {
		ch := ref[i]
		letter := 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z'
		if i == 0 && !letter || !letter && !('0' <= ch && ch <= '9') && ch != '+' && ch != '-' && ch != '.' {
			return false
		}
	}
	return true
}

func leadingSlashes(s string) int {
	n := 0
	for n < len(s) && s[n] == '/' {
		n++
	}
	return n
}

// slashPrefix returns rest up to the first run of exactly n slashes; when
// there is none, the authority for n == 1 (the ref is a path on the same
// server), else nothing (the ref names a new server).
func slashPrefix(rest string, n int) string {
	for i := 0; i < len(rest); {
		if rest[i] != '/' {
			i++
			continue
		}
		run := leadingSlashes(rest[i:])
		if run == n {
			return rest[:i]
		}
		i += run
	}
	if n == 1 {
		auth, _ := splitAuthority(rest)
		return auth
	}
	return ""
}

// splitAuthority splits "//host:port/path" into "//host:port" and "/path";
// rest without "//" has no authority.
func splitAuthority(rest string) (auth, path string) {
	if !strings.HasPrefix(rest, "//") {
		return "", rest
	}
	if i := strings.IndexByte(rest[2:], '/'); i >= 0 {
		return rest[:2+i], rest[2+i:]
	}
	return rest, ""
}

// removeDots removes complete "." elements and "xxx/.." pairs (RFC 1630
// §4.1.3). A ".." above the root of a rooted path goes (it can never climb
// into the host part); in an unrooted one it stays.
func removeDots(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	root := strings.HasPrefix(p, "/")
	if root {
		p = p[1:]
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch {
		case s == ".":
			if last {
				out = append(out, "")
			}
		case s == ".." && (len(out) > 0 && out[len(out)-1] != ".." || root):
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if root {
		r = "/" + r
	}
	return r
}
