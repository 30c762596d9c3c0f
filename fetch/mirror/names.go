package mirror

import (
	"errors"
	"net/url"
	"strings"

	"github.com/goferurl/gofer/security"
)

// Local names that the mirror itself writes; a remote item that would take
// one of them is refused rather than overwritten.
const (
	menuFile  = "gophermap"
	indexFile = "gophermap.html"
	dirIndex  = "index.html" // an HTTP directory's own (static) page
	gemIndex  = "index.gmi"  // a Gemini directory's page
)

// reserved refuses a name the mirror keeps for itself.
func reserved(name string) error {
	return &security.NameError{Name: name, Reason: "reserved for the mirror's own files"}
}

// child returns dir/name after the safe-name rule; name is one decoded
// remote name. At the top of DIR the state directory's name is reserved.
func child(dir, name string) (string, error) {
	if err := security.SafeName(name); err != nil {
		return "", err
	}
	if dir == "" {
		if name == stateDir {
			return "", reserved(name)
		}
		return name, nil
	}
	return dir + "/" + name, nil
}

// gopherPath maps a selector to a local path: split on '/', each non-empty
// segment through the safe-name rule (empty segments, from a leading,
// trailing or doubled '/', carry no name and are dropped).
func gopherPath(selector string) (string, error) {
	p := ""
	for seg := range strings.SplitSeq(selector, "/") {
		if seg == "" {
			continue
		}
		var err error
		if p, err = child(p, seg); err != nil {
			return "", err
		}
	}
	return p, nil
}

// gopherItemPath is gopherPath for an item that becomes a file: it needs a
// name, and may not take a menu's file names.
func gopherItemPath(selector string) (string, error) {
	p, err := gopherPath(selector)
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", &security.NameError{Name: selector, Reason: "empty"}
	}
	if last := p[strings.LastIndexByte(p, '/')+1:]; last == menuFile || last == indexFile {
		return "", reserved(last)
	}
	return p, nil
}

// httpPath maps an escaped URL path below prefix to a local path, segment
// by segment, each decoded once and passed through the safe-name rule. dir
// reports that the path names a directory (ends in '/').
func httpPath(prefix, escaped string) (p string, dir bool, err error) {
	rel, ok := strings.CutPrefix(escaped, prefix)
	if !ok {
		return "", false, errors.New("outside the starting path")
	}
	dir = rel == "" || strings.HasSuffix(rel, "/")
	rel = strings.TrimSuffix(rel, "/")
	if rel == "" {
		return "", true, nil
	}
	for seg := range strings.SplitSeq(rel, "/") {
		name, err := url.PathUnescape(seg)
		if err != nil {
			return "", false, err
		}
		if p, err = child(p, name); err != nil {
			return "", false, err
		}
	}
	return p, dir, nil
}

// join adds a file name the mirror chose itself (no rule needed) to dir.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// parent is the directory of a local path ("" for DIR).
func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
