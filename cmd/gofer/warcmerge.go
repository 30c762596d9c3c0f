package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nlnwa/gowarc"
	"github.com/spf13/cobra"

	"github.com/goferurl/gofer/warc"
)

// cdxjEntry is the JSON of a CDXJ line as package warc writes it.
type cdxjEntry struct {
	URL      string `json:"url"`
	Type     string `json:"type"`
	Mime     string `json:"mime,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Offset   int64  `json:"offset"`
	Length   int64  `json:"length"`
	Filename string `json:"filename"`
	ID       string `json:"record_id"`
	Date     string `json:"date"`
}

// warcMergeCommand is "gofer warc merge": one CDXJ index over the
// segments of many writers (the workers of a --cluster crawl).
func (c *cli) warcMergeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "merge SEGMENT...",
		Short: "Print one CDXJ index over many WARC segments, each record's copies listed once",
		Long: `merge reads the CDXJ index beside each segment (PREFIX-NNNNN.cdxj), or,
for a segment without one (its writer was killed, or still runs), the
segment's whole records, and prints one sorted index. A record with the
same target URI, type, media type and payload digest as one already listed
(the same file fetched by two workers of a crawl) is listed once, the
earliest. Nothing is written beside the segments.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "warc merge needs at least one WARC segment"}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			type kept struct {
				line string
				ts   string
			}
			byKey := map[string]kept{}
			add := func(line string, e cdxjEntry) {
				f := strings.Fields(line)
				ts := ""
				if len(f) > 1 {
					ts = f[1]
				}
				k := e.URL + "\x00" + e.Type + "\x00" + e.Mime + "\x00" + e.Digest
				if e.Digest == "" {
					k += "\x00" + e.ID // nothing to tell copies by
				}
				if old, ok := byKey[k]; !ok || ts < old.ts {
					byKey[k] = kept{line, ts}
				}
			}
			for _, seg := range args {
				if err := mergeSegment(seg, add); err != nil {
					return err
				}
			}
			lines := make([]string, 0, len(byKey))
			for _, k := range byKey {
				lines = append(lines, k.line)
			}
			slices.Sort(lines)
			w := bufio.NewWriter(c.stdout)
			for _, l := range lines {
				w.WriteString(l)
				w.WriteByte('\n')
			}
			return w.Flush()
		},
	}
}

// mergeSegment calls add with each index line of seg.
func mergeSegment(seg string, add func(string, cdxjEntry)) error {
	idx := warc.IndexName(seg)
	f, err := os.Open(idx)
	if errors.Is(err, os.ErrNotExist) {
		return indexSegment(seg, add)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.IndexByte(line, '{')
		var e cdxjEntry
		if i < 0 || json.Unmarshal([]byte(line[i:]), &e) != nil {
			return fmt.Errorf("%s: not a CDXJ line: %.60q", idx, line)
		}
		add(line, e)
	}
	return sc.Err()
}

// indexSegment reads a segment without an index: its whole records (a
// record cut short at the end, by a kill, is left out).
func indexSegment(seg string, add func(string, cdxjEntry)) error {
	fi, err := os.Stat(seg)
	if err != nil {
		return err
	}
	var prev *cdxjEntry
	emit := func(end int64) {
		if prev == nil {
			return
		}
		prev.Length = end - prev.Offset
		if prev.Type != "warcinfo" {
			add(cdxjLine(*prev), *prev)
		}
		prev = nil
	}
	err = warc.Walk(seg, false, func(e warc.Entry, rec gowarc.WarcRecord) error {
		emit(e.Offset)
		prev = &cdxjEntry{URL: e.URI, Type: e.Type, Mime: rec.WarcHeader().Get(gowarc.ContentType), Digest: e.Digest,
			Offset: e.Offset, Filename: filepath.Base(seg), ID: e.ID, Date: rec.WarcHeader().Get(gowarc.WarcDate)}
		return nil
	})
	if err != nil {
		// A torn last record: what came before it is whole, and ends
		// where the torn one starts, which Walk's error names.
		var at int64
		if i := strings.Index(err.Error(), "record at offset "); i < 0 ||
			func() bool { _, serr := fmt.Sscanf(err.Error()[i:], "record at offset %d", &at); return serr != nil }() {
			return err
		}
		emit(at)
		return nil
	}
	emit(fi.Size())
	return nil
}

// cdxjLine is the CDXJ line of e, as package warc writes its indexes.
func cdxjLine(e cdxjEntry) string {
	ts := strings.NewReplacer("-", "", ":", "", "T", "").Replace(e.Date)
	if i := strings.IndexAny(ts, "Z.+"); i >= 0 {
		ts = ts[:i]
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(e)
	return fmt.Sprintf("%s %s %s", warc.SURT(e.URL), ts, strings.TrimSuffix(b.String(), "\n"))
}
