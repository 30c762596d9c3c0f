package fetch

import (
	"strings"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/file"
	"github.com/goferurl/gofer/schemes/ftp"
	"github.com/goferurl/gofer/schemes/gemini"
	"github.com/goferurl/gofer/schemes/gopher"
	"github.com/goferurl/gofer/schemes/http"
	"github.com/goferurl/gofer/schemes/mailto"
	"github.com/goferurl/gofer/schemes/nntp"
	"github.com/goferurl/gofer/schemes/prospero"
	"github.com/goferurl/gofer/schemes/telnet"
	"github.com/goferurl/gofer/schemes/wais"
)

// registerShipped wires the schemes gofer ships, explicitly, then the
// fetchers of Options.Fetchers in place of the shipped ones they name.
func registerShipped(c *Client) {
	f := ftp.New()
	for _, s := range ftp.Schemes() {
		c.Register(s, f)
	}
	h := http.New()
	c.Register("http", h)
	c.Register("https", h)
	g := gopher.New()
	c.Register("gopher", g)
	c.Register("gophers", g)
	n := nntp.New()
	for _, s := range nntp.Schemes() {
		c.Register(s, n)
	}
	t := telnet.New()
	for _, s := range telnet.Schemes() {
		c.Register(s, t)
	}
	c.Register("file", file.New())
	c.Register("wais", wais.New())
	c.Register("prospero", prospero.New())
	c.Register("mailto", mailto.New())
	c.Register("gemini", gemini.New())
	for scheme, f := range c.opts.Fetchers {
		delete(c.fetchers, scheme)
		c.Register(scheme, f)
	}
}

// ArchivedReader returns how to read what an archive kept of scheme's
// replies as its shipped fetcher reads them off the wire, for a fetcher
// that serves captures (replay): FTP's listings (LIST, MLSD, NLST) and
// Gopher's menus, text items and Gopher+ attribute blocks. It is nil for
// a scheme whose replies an archive keeps as they are read (HTTP, Gemini)
// or that gofer does not ship.
func ArchivedReader(scheme string) schemes.ArchivedReader {
	switch strings.ToLower(scheme) {
	case "ftp", "ftps":
		return ftp.Archived{}
	case "gopher", "gophers":
		return gopher.Archived{}
	}
	return nil
}
