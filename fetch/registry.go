package fetch

import (
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
