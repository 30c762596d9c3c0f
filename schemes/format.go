package schemes

import (
	"mime"
	"path"
	"strconv"
	"strings"
)

// String returns the URL in canonical form: lower-case scheme, each part
// encoded where it must be (and only there), no wrapper. Parse(u.String())
// equals u for every URL Parse returns.
func (u *URL) String() string { return u.format(false) }

// Redacted returns String with a non-empty password replaced by "****": the
// form for anything shown to a person.
func (u *URL) Redacted() string { return u.format(true) }

func (u *URL) format(redact bool) string {
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteByte(':')
	switch {
	case u.Mailto != nil:
		b.WriteString(escape(u.Mailto.Addr, keepMailtoAddr))
		for i, h := range u.Mailto.Headers {
			if i == 0 {
				b.WriteByte('?')
			} else {
				b.WriteByte('&')
			}
			b.WriteString(escape(h.Name, keepMailtoHeader))
			b.WriteByte('=')
			b.WriteString(escape(h.Value, keepMailtoHeader))
		}
	case u.News != nil:
		n := u.News
		switch {
		case n.All:
			b.WriteByte('*')
		case n.MessageID != "":
			b.WriteString(escape(n.MessageID, keepNews))
		case n.Group == "*":
			b.WriteString("%2A") // a group literally named "*", not news:*
		default:
			b.WriteString(escape(n.Group, keepNews))
		}
	case u.Opaque != "" || !ipScheme(u.Scheme) && u.FTP == nil && u.HTTP == nil &&
		u.Gopher == nil && u.NNTP == nil && u.Telnet == nil && u.WAIS == nil &&
		u.File == nil && u.Prospero == nil:
		b.WriteString(u.Opaque)
	default:
		u.writeLogin(&b, redact)
		u.writePath(&b)
	}
	if u.HasFragment {
		b.WriteByte('#')
		b.WriteString(escape(u.Fragment, keepFragment))
	}
	return b.String()
}

func (u *URL) writeLogin(b *strings.Builder, redact bool) {
	b.WriteString("//")
	if u.HasUser || u.HasPassword {
		b.WriteString(escape(u.User, keepLogin))
		if u.HasPassword {
			b.WriteByte(':')
			if redact && u.Password != "" {
				b.WriteString("****")
			} else {
				b.WriteString(escape(u.Password, keepLogin))
			}
		}
		b.WriteByte('@')
	}
	if strings.IndexByte(u.Host, ':') >= 0 {
		b.WriteByte('[')
		b.WriteString(u.Host)
		b.WriteByte(']')
	} else {
		b.WriteString(u.Host)
	}
	if u.Port != 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(u.Port))
	}
}

func (u *URL) writePath(b *strings.Builder) {
	switch {
	case u.FTP != nil:
		f := u.FTP
		if len(f.Segments) == 0 && f.TypeCode == 0 {
			return
		}
		b.WriteByte('/')
		for i, s := range f.Segments {
			if i > 0 {
				b.WriteByte('/')
			}
			b.WriteString(escape(s, keepFTP))
		}
		if f.TypeCode != 0 {
			b.WriteString(";type=")
			b.WriteByte(f.TypeCode)
		}
	case u.HTTP != nil:
		b.WriteString(canonical(u.HTTP.Path))
		if u.HTTP.HasSearch {
			b.WriteByte('?')
			b.WriteString(canonical(u.HTTP.Search))
		}
	case u.Gopher != nil:
		g := u.Gopher
		t := g.Type
		if t == 0 {
			t = '1'
		}
		b.WriteByte('/')
		b.WriteString(escape(string([]byte{t}), keepGopher))
		b.WriteString(escape(g.Selector, keepGopher))
		if g.HasSearch || g.HasPlus {
			b.WriteString("%09")
			b.WriteString(escape(g.Search, keepGopher))
		}
		if g.HasPlus {
			b.WriteString("%09")
			b.WriteString(escape(g.PlusString, keepGopher))
		}
	case u.NNTP != nil:
		n := u.NNTP
		if n.Group == "" && n.Article == 0 {
			return
		}
		b.WriteByte('/')
		b.WriteString(escape(n.Group, keepSegment))
		if n.Article != 0 {
			b.WriteByte('/')
			b.WriteString(strconv.FormatInt(n.Article, 10))
		}
	case u.Telnet != nil:
		b.WriteByte('/')
	case u.WAIS != nil:
		w := u.WAIS
		if w.Database == "" && !w.HasSearch && w.WType == "" && w.WPath == "" {
			return
		}
		b.WriteByte('/')
		b.WriteString(escape(w.Database, keepSegment))
		switch {
		case w.HasSearch:
			b.WriteByte('?')
			if w.RawSearch != "" && Decode(w.RawSearch) == w.Search {
				b.WriteString(canonical(w.RawSearch))
			} else {
				b.WriteString(escape(w.Search, keepGopher))
			}
		case w.WType != "" || w.WPath != "":
			b.WriteByte('/')
			b.WriteString(escape(w.WType, keepSegment))
			b.WriteByte('/')
			if w.RawWPath != "" && Decode(w.RawWPath) == w.WPath {
				b.WriteString(canonical(w.RawWPath))
			} else {
				b.WriteString(escape(w.WPath, keepSegment))
			}
		}
	case u.File != nil:
		p := u.File.Path
		if !strings.HasPrefix(p, "/") {
			b.WriteByte('/')
		}
		b.WriteString(escape(p, keepFilePath))
	case u.Prospero != nil:
		pr := u.Prospero
		if pr.HSOName == "" && !pr.HasVersion && len(pr.Fields) == 0 {
			return
		}
		b.WriteByte('/')
		b.WriteString(escape(pr.HSOName, keepProspero))
		if pr.HasVersion {
			b.WriteString("%00")
			b.WriteString(escape(pr.Version, keepProspero))
		}
		for _, f := range pr.Fields {
			b.WriteByte(';')
			b.WriteString(escape(f.Name, keepField))
			b.WriteByte('=')
			b.WriteString(escape(f.Value, keepValue))
		}
	}
}

// GopherAttributes is the URL of a Gopher+ item's attributes (its
// selector with the Gopher+ string "!", Gopher+ §2.6), or nil for a URL of
// another scheme. The item's search, if any, is kept (a type 7 item's
// attributes are asked with an empty one).
func (u *URL) GopherAttributes() *URL {
	if u.Gopher == nil {
		return nil
	}
	g := *u.Gopher
	g.PlusString, g.HasPlus = "!", true
	if g.Type == '7' {
		g.HasSearch = true
	}
	v := *u
	v.Gopher = &g
	return &v
}

// NameMediaType is the media type a file's name implies by its extension
// (the system's MIME table), "" when it implies none.
func NameMediaType(name string) string {
	ext := path.Ext(name)
	if ext == "" {
		return ""
	}
	return mime.TypeByExtension(ext)
}
