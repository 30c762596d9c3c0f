package schemes

import (
	"encoding/json"
	"unicode/utf8"
)

// MarshalJSON writes the URL's parts as one object, the parts of gofer
// parse --json (the names are a contract with scripts: add, never rename):
//
//	scheme, host, port (effective: the default filled in), user,
//	password ("****" when the URL gives a non-empty one), fragment;
//	ftp:      segments, type_code ("a", "i", "d" or ""), raw_segments
//	          (each segment percent-encoded) when one is not UTF-8
//	http:     path, search
//	gopher:   gopher_type, selector, search, plus
//	mailto:   addr, headers [{name, value}] (when the URL has any)
//	news:     group | message_id | all
//	nntp:     group, article
//	wais:     database, search, wtype, wpath
//	file:     path, local
//	prospero: hsoname, version, fields [{name, value}]
//	others:   opaque
//
// Optional parts (search, plus, fragment, ...) appear only when the URL has
// them.
func (u *URL) MarshalJSON() ([]byte, error) {
	return json.Marshal(u.parts())
}

// parts returns the object MarshalJSON writes.
func (u *URL) parts() map[string]any {
	m := map[string]any{
		"scheme": u.Scheme,
		"host":   u.Host,
		"port":   u.EffectivePort(),
		"user":   u.User,
	}
	if u.HasPassword {
		m["password"] = ""
		if u.Password != "" {
			m["password"] = "****"
		}
	}
	if u.HasFragment {
		m["fragment"] = u.Fragment
	}
	switch {
	case u.FTP != nil:
		segs := u.FTP.Segments
		if segs == nil {
			segs = []string{}
		}
		m["segments"] = segs
		if raw, ok := RawStrings(segs); ok {
			m["raw_segments"] = raw
		}
		m["type_code"] = ""
		if u.FTP.TypeCode != 0 {
			m["type_code"] = string(rune(u.FTP.TypeCode))
		}
	case u.HTTP != nil:
		m["path"] = u.HTTP.Path
		if u.HTTP.HasSearch {
			m["search"] = u.HTTP.Search
		}
	case u.Gopher != nil:
		g := u.Gopher
		t := g.Type
		if t == 0 {
			t = '1'
		}
		m["gopher_type"] = string([]byte{t})
		m["selector"] = g.Selector
		if g.HasSearch {
			m["search"] = g.Search
		}
		if g.HasPlus {
			m["plus"] = g.PlusString
		}
	case u.Mailto != nil:
		m["addr"] = u.Mailto.Addr
		if len(u.Mailto.Headers) > 0 {
			hs := make([]map[string]string, len(u.Mailto.Headers))
			for i, h := range u.Mailto.Headers {
				hs[i] = map[string]string{"name": h.Name, "value": h.Value}
			}
			m["headers"] = hs
		}
	case u.News != nil:
		switch {
		case u.News.All:
			m["all"] = true
		case u.News.MessageID != "":
			m["message_id"] = u.News.MessageID
		default:
			m["group"] = u.News.Group
		}
	case u.NNTP != nil:
		m["group"] = u.NNTP.Group
		if u.NNTP.Article != 0 {
			m["article"] = u.NNTP.Article
		}
	case u.WAIS != nil:
		w := u.WAIS
		m["database"] = w.Database
		if w.HasSearch {
			m["search"] = w.Search
		}
		if w.WType != "" || w.WPath != "" {
			m["wtype"], m["wpath"] = w.WType, w.WPath
		}
	case u.File != nil:
		m["path"] = u.File.Path
		m["local"] = u.Local()
	case u.Prospero != nil:
		p := u.Prospero
		m["hsoname"] = p.HSOName
		if p.HasVersion {
			m["version"] = p.Version
		}
		if len(p.Fields) > 0 {
			fs := make([]map[string]string, len(p.Fields))
			for i, f := range p.Fields {
				fs[i] = map[string]string{"name": f.Name, "value": f.Value}
			}
			m["fields"] = fs
		}
	case u.Opaque != "" || u.Telnet == nil:
		m["opaque"] = u.Opaque
	}
	return m
}

// RawStrings is ss with each string's bytes percent-encoded (Escape), and
// true, when any of them is not valid UTF-8: JSON strings are Unicode, so
// such a string would lose its bytes to U+FFFD, and the "raw_" field beside
// it keeps them. It is nil and false when every string is UTF-8.
func RawStrings(ss []string) ([]string, bool) {
	bad := false
	for _, s := range ss {
		if !utf8.ValidString(s) {
			bad = true
			break
		}
	}
	if !bad {
		return nil, false
	}
	raw := make([]string, len(ss))
	for i, s := range ss {
		raw[i] = Escape(s)
	}
	return raw, true
}
