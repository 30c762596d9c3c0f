package replay

import (
	"strings"

	"github.com/goferurl/gofer/warc"
)

// scanSegment lists the whole records of a WARC file that has no index
// (a segment whose writer was killed, or another tool's file, gzipped per
// record or whole, or not at all, or an ARC file), fn called with the
// entry of each record but a warcinfo. A stretch of the file that holds
// no whole record is skipped to the next record, and each is one line of
// the problems returned.
func scanSegment(seg string, fn func(warc.IndexEntry)) (problems []string, err error) {
	err = warc.ScanFile(seg, func(_ string, e warc.IndexEntry) { fn(e) }, func(err error) {
		problems = append(problems, strings.TrimPrefix(err.Error(), "warc: ")+"; left out")
	})
	return problems, err
}
