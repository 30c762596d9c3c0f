// Package http is gofer's http fetcher.
package http

import (
	"context"

	"github.com/goferurl/gofer/schemes"
)

// Fetcher retrieves http URLs.
type Fetcher struct{}

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

// Fetch is not built yet.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	return nil, schemes.Errorf(schemes.ErrUnsupportedScheme, "unsupported scheme %q: not built yet", req.URL.Scheme)
}
