package browse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// downloadCurrent downloads the selected item of a listing, or the
// document in the pager.
func (b *Browser) downloadCurrent() {
	if e, ok := b.selectedEntry(); ok {
		if e.URL == "" {
			b.setStatus("this item names nothing to download")
			return
		}
		b.download(fetch.Request{URL: e.URL}, e.Name)
		return
	}
	if b.cur != nil && b.cur.kind == kindText && b.cur.req.URL != "" {
		b.download(b.cur.req, b.cur.title)
	}
}

// download fetches req into the download directory.
func (b *Browser) download(req fetch.Request, title string) {
	b.fetchThen(req, "fetching "+redacted(req.URL)+" ...", func(ctx context.Context, resp *fetch.Response) {
		if resp.Kind != schemes.KindFile {
			b.ui(func() { b.setStatus("error: " + clean(title) + " is not a file: nothing to download") })
			return
		}
		b.saveResponse(ctx, resp, req, title, nil)
	})
}

// saveResponse writes head and then the rest of resp's body to the
// download directory under the URL's remote name, which must pass the
// safe-name rule. The bytes land in a temporary file that is linked to its
// name only when complete, so an existing file is never overwritten and no
// half-written file keeps the name. Progress shows on the status line.
func (b *Browser) saveResponse(ctx context.Context, resp *fetch.Response, req fetch.Request, title string, head []byte) {
	name := ""
	if u, err := fetch.ParseURL(req.URL); err == nil {
		name = u.LocalName()
	}
	if name == "" {
		name = resp.Name
	}
	if err := security.SafeName(name); err != nil {
		b.fail(ctx, err)
		return
	}
	dir := b.cfg.DownloadDir
	if dir == "" {
		dir = "."
	}
	dest := filepath.Join(dir, name)
	if _, err := os.Lstat(dest); err == nil {
		b.ui(func() { b.setStatus(fmt.Sprintf("error: %s exists; not overwritten", dest)) })
		return
	}
	tmp, err := os.CreateTemp(dir, "."+strings.TrimPrefix(name, ".")+".part-*")
	if err != nil {
		b.fail(ctx, err)
		return
	}
	defer os.Remove(tmp.Name())
	pw := &progress{b: b, name: name, total: resp.Size}
	_, err = io.Copy(io.MultiWriter(tmp, pw), io.MultiReader(bytes.NewReader(head), resp.Body))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.ui(func() { b.showError(fmt.Errorf("download of %s: %w", name, err)) })
		return
	}
	// A hard link fails if dest exists: never over an existing file.
	if err := os.Link(tmp.Name(), dest); err != nil {
		if errors.Is(err, os.ErrExist) {
			err = fmt.Errorf("%s exists; not overwritten", dest)
		}
		b.fail(ctx, err)
		return
	}
	n := pw.n
	b.ui(func() { b.setStatus(fmt.Sprintf("saved %s (%s) as %s", clean(title), sizeText(n), dest)) })
}

// progress shows a download's progress on the status line, at most ten
// times a second.
type progress struct {
	b     *Browser
	name  string
	total int64

	mu   sync.Mutex
	n    int64
	last time.Time
}

func (p *progress) Write(s []byte) (int, error) {
	p.mu.Lock()
	p.n += int64(len(s))
	n, show := p.n, time.Since(p.last) > 100*time.Millisecond
	if show {
		p.last = time.Now()
	}
	p.mu.Unlock()
	if show {
		line := progressLine(p.name, n, p.total)
		p.b.ui(func() { p.b.setStatus(line) })
	}
	return len(s), nil
}

// progressLine is "[#####.....]  50% name 1.0 KiB of 2.0 KiB", or the
// count alone when the size is unknown.
func progressLine(name string, n, total int64) string {
	if total <= 0 {
		return fmt.Sprintf("downloading %s: %s", clean(name), sizeText(n))
	}
	const width = 20
	done := int(min(n, total) * width / total)
	return fmt.Sprintf("[%s%s] %3d%% %s %s of %s", strings.Repeat("#", done), strings.Repeat(".", width-done),
		min(n, total)*100/total, clean(name), sizeText(n), sizeText(total))
}
