package schemes

import (
	"path"
	"strconv"
	"strings"
)

// LocalName is the name a URL's object takes on disk when a person asks for
// its remote name: the last name the URL gives, decoded. It
// is "" when the URL names no single object (a directory, a menu's root, a
// group, a session). The caller still passes it through the safe-name rule
// (security.SafeName) before it writes anything.
func (u *URL) LocalName() string {
	switch {
	case u.FTP != nil:
		return u.FTP.Name()
	case u.HTTP != nil:
		// HTTP keeps its path escaped (RFC 1738 §3.3); the name on disk is
		// the decoded last segment.
		p := u.HTTP.Path
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			p = p[i+1:]
		}
		return Decode(p)
	case u.Gopher != nil:
		s := u.Gopher.Selector
		return s[strings.LastIndexByte(s, '/')+1:]
	case u.File != nil:
		if strings.HasSuffix(u.File.Path, "/") {
			return ""
		}
		return path.Base(u.File.Path)
	case u.News != nil:
		return u.News.MessageID
	case u.NNTP != nil && u.NNTP.Article > 0:
		return strconv.FormatInt(u.NNTP.Article, 10)
	}
	return ""
}
