package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// target is where one URL's body goes.
type target struct {
	path string      // "" means stdout
	part *fetch.Part // the download into path; nil for stdout
}

// offset is where a resumed request asks to start: the length of the
// partial file -C found, else 0.
func (t *target) offset() int64 {
	if t.part == nil {
		return 0
	}
	return t.part.Offset
}

// prepareTarget decides the resume offset: with -C, what an earlier
// download into path left (fetch.OpenPart).
func prepareTarget(path string, resume bool) (*target, error) {
	t := &target{path: path}
	if path == "" {
		return t, nil
	}
	p, err := fetch.OpenPart(path, resume && !special(path))
	if err != nil {
		return nil, err
	}
	t.part = p
	return t, nil
}

// fileMeta is the --json object printed for a file saved with -o or -O.
type fileMeta struct {
	URL       string `json:"url"`
	Name      string `json:"name,omitempty"`
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	Type      string `json:"type,omitempty"`
	MediaType string `json:"media_type,omitempty"`
	Modified  string `json:"modified,omitempty"`
	SHA256    string `json:"sha256"`
	Resumed   int64  `json:"resumed_from,omitempty"`
	// Segments is the number of streams that carried the file, with
	// --segments; SegmentsFallback says why fewer than asked.
	Segments         int    `json:"segments,omitempty"`
	SegmentsFallback string `json:"segments_fallback,omitempty"`
}

// copyBufferSize is large enough that a loopback transfer is bound by the
// network, not by system calls.
const copyBufferSize = 256 << 10

// saveBody writes resp.Body to t: to stdout, or under NAME.part renamed to
// NAME when complete. On failure the partial file stays for -C, except when
// a size limit stopped it (resuming cannot help then).
func (c *cli) saveBody(t *target, resp *schemes.Response, url string) error {
	if t.path == "" {
		_, err := io.CopyBuffer(c.stdout, c.withProgress(resp.Body, resp, 0), make([]byte, copyBufferSize))
		return err
	}
	if special(t.path) {
		return writeSpecial(t.path, func(w io.Writer) error {
			_, err := io.CopyBuffer(w, c.withProgress(resp.Body, resp, 0), make([]byte, copyBufferSize))
			return err
		})
	}
	p := t.part
	var h hash.Hash
	if c.json {
		h = sha256.New()
	}
	if err := p.Start(resp.Offset); err != nil {
		return err
	}
	resumed := p.Resumed()
	if resumed && h != nil {
		// The sum covers the bytes an earlier download wrote.
		if err := hashPrefix(h, p.Path(), p.Offset); err != nil {
			p.Abort(true)
			return err
		}
	}
	var w io.Writer = p
	if h != nil {
		w = io.MultiWriter(p, h)
	}
	start := int64(0)
	if resumed {
		start = p.Offset
	}
	n, err := io.CopyBuffer(w, c.withProgress(resp.Body, resp, start), make([]byte, copyBufferSize))
	if err != nil {
		// A size limit stopped it: resuming cannot help then.
		p.Abort(!errors.Is(err, schemes.ErrTooLarge))
		return err
	}
	if err := p.Commit(); err != nil {
		return err
	}
	if !c.json {
		return nil
	}
	meta := fileMeta{
		URL: url, Name: resp.Name, Path: t.path, Size: start + n, Type: resp.Type,
		MediaType: resp.MediaType, SHA256: hex.EncodeToString(h.Sum(nil)),
	}
	if resumed {
		meta.Resumed = p.Offset
	}
	if !resp.Modified.IsZero() {
		meta.Modified = resp.Modified.UTC().Format(time.RFC3339)
	}
	return json.NewEncoder(c.stdout).Encode(meta)
}

// saveRendered writes a listing or metadata rendering to t the same
// all-or-nothing way as a body.
func (c *cli) saveRendered(t *target, render func(io.Writer) error) error {
	if t.path == "" {
		return render(c.stdout)
	}
	if special(t.path) {
		return writeSpecial(t.path, render)
	}
	p := t.part
	if err := p.Start(0); err != nil {
		return err
	}
	if err := render(p); err != nil {
		p.Abort(false)
		return err
	}
	return p.Commit()
}

// hashPrefix adds the first n bytes of the file at path to h.
func hashPrefix(h hash.Hash, path string, n int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(h, io.NewSectionReader(f, 0, n))
	return err
}

// special reports whether path names an existing device, FIFO or socket
// (-o /dev/null): it is written in place, never replaced by a renamed
// NAME.part, which would put a regular file where the device was.
func special(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// writeSpecial opens an existing special file for writing and hands it to write.
func writeSpecial(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// withProgress shows a progress bar on a terminal when the size is known.
func (c *cli) withProgress(r io.Reader, resp *schemes.Response, start int64) io.Reader {
	if !c.showProgress || resp.Size <= 0 {
		return r
	}
	bar := progressbar.NewOptions64(resp.Size,
		progressbar.OptionSetWriter(c.stderr),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetDescription(filepath.Base(resp.Name)),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprint(c.stderr, "\r") }),
	)
	bar.Set64(start)
	return io.TeeReader(r, bar)
}
