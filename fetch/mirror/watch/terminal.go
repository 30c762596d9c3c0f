package watch

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
)

// terminal draws the status as a few lines, redrawn in place (ANSI cursor
// up and erase) at most redraw times a second, and erased at the end.
type terminal struct {
	w     io.Writer
	lines int
	last  time.Time
}

// redrawEvery is the least time between two drawings.
const redrawEvery = 200 * time.Millisecond

func (t *terminal) draw(st Stats, now time.Time) {
	if !t.last.IsZero() && now.Sub(t.last) < redrawEvery {
		return
	}
	t.last = now
	lines := StatusLines(st)
	var b strings.Builder
	if t.lines > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", t.lines)
	}
	for _, l := range lines {
		fmt.Fprintf(&b, "\r\x1b[K%s\n", l)
	}
	if t.lines > len(lines) {
		b.WriteString("\x1b[J")
	}
	t.lines = len(lines)
	io.WriteString(t.w, b.String())
}

func (t *terminal) clear() {
	if t.lines > 0 {
		fmt.Fprintf(t.w, "\x1b[%dA\r\x1b[J", t.lines)
		t.lines = 0
	}
}

// StatusLines is the status as a few lines of plain text: the counts,
// bytes, rate and ETA; per host the streams and limits; the last failure.
func StatusLines(st Stats) []string {
	head := fmt.Sprintf("%d done, %d failed, %d queued (%d files seen); %s at %s/s",
		st.Done, st.Failed, st.Queued, st.Total, Bytes(float64(st.Bytes)), Bytes(st.Rate))
	if st.ETA != nil {
		head += ", ETA " + Duration(*st.ETA)
	}
	if st.Paused {
		head += " (paused)"
	}
	lines := []string{head}
	hosts := make([]string, 0, len(st.Hosts))
	for h := range st.Hosts {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	for _, h := range hosts {
		hs := st.Hosts[h]
		l := fmt.Sprintf("  %s: %d of %d streams", h, hs.Streams, hs.Allowed)
		if hs.Limit != nil {
			l += fmt.Sprintf(", the server allows %d", *hs.Limit)
		}
		if st.Retries > 0 {
			l += fmt.Sprintf(", %d retries", st.Retries)
		}
		lines = append(lines, l)
	}
	if st.Last != nil {
		lines = append(lines, "  last failure: "+printable(st.Last.Path+": "+st.Last.Error, 160))
	}
	return lines
}

// Bytes writes n bytes in binary units.
func Bytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// Duration writes seconds as H:MM:SS or M:SS.
func Duration(s float64) string {
	d := int64(s + 0.5)
	if d >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", d/3600, d/60%60, d%60)
	}
	return fmt.Sprintf("%d:%02d", d/60, d%60)
}

// printable keeps a remote text from moving the cursor: control
// characters become '?', and it is cut at n runes.
func printable(s string, n int) string {
	var b strings.Builder
	for i, r := range []rune(s) {
		if i == n {
			b.WriteString("...")
			break
		}
		if unicode.IsControl(r) {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}
