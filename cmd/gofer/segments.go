package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// segmentsSuffix marks a file written by several streams at once. It has
// holes until every stream is done, so it never goes by NAME.part, which
// -C takes as a prefix of the file: an interrupted segmented download
// leaves NAME.part holding only its unbroken first bytes.
const segmentsSuffix = ".part.segments"

// addSegmentsFlag adds get's --segments.
func (c *cli) addSegmentsFlag(cmd *cobra.Command) {
	cmd.Flags().IntVar(&c.segments, "segments", 1,
		"fetch a file saved with -o or -O over `N` streams at once (FTP REST, HTTP Range), as lftp's pget -n")
}

// checkSegments refuses a --segments that is not a count of streams.
func (c *cli) checkSegments() error {
	if c.segments < 1 {
		return &usageError{msg: "--segments must be at least 1"}
	}
	return nil
}

// segmented reports whether a file for t is fetched in segments: when
// asked for, and only into a regular file (stdout and devices are written
// in order).
func (c *cli) segmented(t *target) bool {
	if c.segments <= 1 {
		return false
	}
	if t.path == "" || special(t.path) {
		c.warnf("--segments: a body written to stdout or a device comes over one stream")
		return false
	}
	return true
}

// saveSegments writes the file resp (the answer to req) begins into t over c.segments streams:
// into NAME.part.segments, renamed to NAME when whole. On failure the
// unbroken first bytes stay as NAME.part for -C (none: nothing stays; a
// size limit: nothing stays either).
func (c *cli) saveSegments(ctx context.Context, client *fetch.Client, req *fetch.Request, t *target, resp *schemes.Response, url string) error {
	part, tmp := t.part.Path(), t.path+segmentsSuffix
	resumed := t.offset() > 0 && resp.Offset == t.offset()
	if resumed {
		// The part already there is the file's first bytes.
		if err := os.Rename(part, tmp); err != nil {
			resp.Close()
			return err
		}
	}
	flags := os.O_CREATE | os.O_WRONLY
	if !resumed {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(tmp, flags, 0o644)
	if err != nil {
		resp.Close()
		return err
	}
	d, err := client.DownloadFrom(ctx, req, resp, c.segmentProgress(f, resp), c.segments)
	if err == nil {
		err = f.Truncate(d.Contiguous)
	}
	if err != nil {
		f.Truncate(d.Contiguous)
		f.Close()
		if d.Contiguous > 0 && !errors.Is(err, schemes.ErrTooLarge) {
			os.Rename(tmp, part)
		} else {
			os.Remove(tmp)
		}
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, t.path); err != nil {
		return err
	}
	if !resumed {
		// A part the server would not resume from is stale now.
		os.Remove(part)
	}
	if !c.json {
		return nil
	}
	sum, err := fileSHA256(t.path)
	if err != nil {
		return err
	}
	meta := fileMeta{
		URL: url, Name: resp.Name, Path: t.path, Size: d.Contiguous, Type: resp.Type,
		MediaType: resp.MediaType, SHA256: sum, Segments: d.Segments, SegmentsFallback: d.Fallback,
	}
	if resumed {
		meta.Resumed = t.offset()
	}
	if !resp.Modified.IsZero() {
		meta.Modified = resp.Modified.UTC().Format(time.RFC3339)
	}
	return json.NewEncoder(c.stdout).Encode(meta)
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, copyBufferSize)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// segmentProgress wraps w in a progress bar on a terminal when the size is
// known.
func (c *cli) segmentProgress(w io.WriterAt, resp *schemes.Response) io.WriterAt {
	if !c.showProgress || resp.Size <= 0 {
		return w
	}
	bar := progressbar.NewOptions64(resp.Size,
		progressbar.OptionSetWriter(c.stderr),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetDescription(fmt.Sprintf("%s (%d streams)", filepath.Base(resp.Name), c.segments)),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionOnCompletion(func() { fmt.Fprint(c.stderr, "\r") }),
	)
	bar.Set64(resp.Offset)
	return progressWriterAt{w, bar}
}

// progressWriterAt adds what is written to a progress bar.
type progressWriterAt struct {
	w   io.WriterAt
	bar *progressbar.ProgressBar
}

func (p progressWriterAt) WriteAt(b []byte, off int64) (int, error) {
	n, err := p.w.WriteAt(b, off)
	p.bar.Add(n)
	return n, err
}
