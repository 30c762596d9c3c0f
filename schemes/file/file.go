// Package file is gofer's fetcher for file URLs (RFC 1738 §3.10, RFC 8089):
// file:///path and file://localhost/path name a file or directory on this
// machine. A regular file is streamed from Request.Offset; a directory is
// listed one batch of entries at a time. Any other host is refused, because
// the file scheme names no protocol that could reach it.
//
// Names are bytes: the URL's %HH escapes are decoded to octets and handed to
// the operating system as they are, never converted through a character set.
package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// Fetcher retrieves file URLs. It holds no state; the zero value is usable.
type Fetcher struct{}

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
)

// localPath returns the local path a file URL names, or a usage error when
// the URL names another machine.
func localPath(u *schemes.URL) (string, error) {
	if u == nil || u.File == nil {
		return "", schemes.Errorf(schemes.ErrUsage, "not a file URL")
	}
	if !u.Local() {
		p := u.File.Path
		if p == "" {
			p = "/"
		}
		// RFC 1738 §3.10: the file scheme gives no way to reach another host.
		return "", schemes.Errorf(schemes.ErrUsage,
			"file: URLs only reach this machine, and %q is another host; to fetch from it try ftp://%s%s",
			u.Host, u.Host, escapePath(p))
	}
	p := u.File.Path
	if p == "" {
		p = "/"
	}
	return filepath.FromSlash(p), nil
}

// Plan reports the local path a fetch would read; file URLs send nothing.
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	p, err := localPath(req.URL)
	if err != nil {
		return nil, err
	}
	return &schemes.Plan{Notes: map[string]string{"local_path": p}}, nil
}

// Fetch opens the file or directory the URL names. A path that names nothing
// (or that cannot be read) is ErrRefused, as a server's "not found" would be.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	p, err := localPath(req.URL)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, schemes.Errorf(schemes.ErrInterrupted, "open %s: cancelled", p)
	}
	fh, err := os.Open(p)
	if err != nil {
		return nil, refused(p, err)
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, refused(p, err)
	}
	if fi.IsDir() {
		return &schemes.Response{
			URL:     req.URL,
			Kind:    schemes.KindListing,
			Size:    -1,
			Name:    path.Base(strings.TrimSuffix(req.URL.File.Path, "/")),
			Type:    schemes.TypeDir,
			Listing: &listing{dir: fh, path: p, limit: req.EntryLimit()},
		}, nil
	}
	return openFile(req, fh, fi, p)
}

func openFile(req *schemes.Request, fh *os.File, fi fs.FileInfo, p string) (*schemes.Response, error) {
	size := int64(-1)
	if fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if req.Offset > 0 {
		if size >= 0 && req.Offset > size {
			fh.Close()
			return nil, schemes.Errorf(schemes.ErrRefused, "%s: offset %d is past the end of the file (%d bytes)", p, req.Offset, size)
		}
		if _, err := fh.Seek(req.Offset, io.SeekStart); err != nil {
			fh.Close()
			return nil, schemes.Errorf(schemes.ErrRefused, "%s: cannot resume at byte %d: %w", p, req.Offset, err)
		}
	}
	// A file that grows while it is read, or a device, which has no size,
	// is stopped at the limit by the fetcher's caller.
	if err := schemes.CheckSize(p, req.MaxBytes, size, req.Offset); err != nil {
		fh.Close()
		return nil, err
	}
	name := path.Base(req.URL.File.Path)
	return &schemes.Response{
		URL:       req.URL,
		Kind:      schemes.KindFile,
		Body:      fh,
		Offset:    req.Offset,
		Size:      size,
		Name:      name,
		Type:      schemes.TypeFile,
		MediaType: mediaType(name),
		Modified:  fi.ModTime(),
	}, nil
}

// refused turns an open or stat failure into ErrRefused naming the path.
func refused(p string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return schemes.Errorf(schemes.ErrRefused, "%s: no such file or directory", p)
	case errors.Is(err, fs.ErrPermission):
		return schemes.Errorf(schemes.ErrRefused, "%s: permission denied", p)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return schemes.Errorf(schemes.ErrRefused, "%s: %w", p, err)
}

func mediaType(name string) string {
	if mt, _, err := mime.ParseMediaType(schemes.NameMediaType(name)); err == nil {
		return mt
	}
	return ""
}

// fileURL builds the file URL of a local path, escaping every octet outside
// RFC 1738's safe set so that the URL fetches exactly that name.
func fileURL(p string) string {
	return "file://" + escapePath(filepath.ToSlash(p))
}

// escapePath escapes a decoded path for a URL: '/' stays a delimiter, every
// other byte outside RFC 1738's unreserved set and the path's own allowed
// characters becomes %HH.
func escapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if pathSafe(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func pathSafe(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	// RFC 1738 §5: safe and extra characters, plus the hpath characters
	// ':' '@' '&' '=' and the '/' delimiter. ';' is left escaped because
	// other schemes give it meaning.
	return strings.IndexByte("$-_.+!*'(),:@&=/", c) >= 0
}
